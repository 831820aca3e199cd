"""planner.engine.probes: the prep steps' read-only probes asked in one round trip, and never answered stale."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine.probes import ProbedConnection, run_batch
from planner.host import Host
from planner.steps.base import READ_TEXT, Probe
from planner.transport.connection import Argv, CommandResult, LocalConnection

pytestmark = [pytest.mark.slow]


class Recording(LocalConnection):
    """The local transport, remembering every argv it ran."""

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.sent: list[list[str]] = []

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        self.sent.append(list(argv))
        return super().run(argv, become=become, become_user=become_user, login=login, timeout=timeout, env=env,
                           cwd=cwd, stdin=stdin)


def test_read_probe_is_what_read_text_sends(tmp_path: Path) -> None:
    conn = Recording(Host("h", "localhost"))
    conn.read_text(str(tmp_path / "x"))
    assert conn.sent == [["sh", "-c", READ_TEXT, "sh", str(tmp_path / "x")]]


def test_answers_once_then_asks_and_any_other_command_drops_them(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("one\n")
    (tmp_path / "b").write_text("no newline at the end")
    inner = Recording(Host("h", "localhost"))
    read = [Probe(("sh", "-c", READ_TEXT, "sh", str(tmp_path / n)), ok=frozenset({0, 3})) for n in "abc"]
    failing = Probe(("sh", "-c", "echo out; exit 7"))
    answers, batch = run_batch(inner, [*read, read[0], failing])  # a repeated probe is asked once
    assert batch.ok and len(inner.sent) == 1
    assert len(answers) == 3, "exit 7 is not an answer the probe declared"
    conn = ProbedConnection(inner, answers)
    assert conn.read_text(str(tmp_path / "a")) == "one\n"
    assert conn.read_text(str(tmp_path / "b")) == "no newline at the end"
    assert len(inner.sent) == 1, "answered from the batch"
    assert conn.read_text(str(tmp_path / "a")) == "one\n"  # used once: asked again
    assert len(inner.sent) == 2
    assert conn.answers == {}, "the command that went through dropped the answer left for c"
    assert conn.read_text(str(tmp_path / "c")) is None


def test_an_upload_drops_the_answers(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("old\n")
    probe = Probe(("sh", "-c", READ_TEXT, "sh", str(tmp_path / "a")), ok=frozenset({0, 3}))
    answers, _ = run_batch(LocalConnection(Host("h", "localhost")), [probe, probe])
    conn = ProbedConnection(LocalConnection(Host("h", "localhost")), answers)
    conn.put(b"new\n", str(tmp_path / "a"))
    assert conn.read_text(str(tmp_path / "a")) == "new\n"


PLAN = """\
plan: probes
plays:
  - name: two writes to one file
    hosts: lab
    prep:
      - copy: {content: "first\\n", dest: /etc/x.txt}
      - copy: {content: "second\\n", dest: /etc/./x.txt}  # the same file, another probe
      - template: {src: files/t.j2, dest: /etc/t.txt}
"""


def test_a_step_after_a_change_reads_the_host_again(tmp_path: Path) -> None:
    """The second copy's read was probed before the first copy wrote: it must see "first", not the absent file."""
    (tmp_path / "files").mkdir()
    (tmp_path / "files/t.j2").write_text("t\n")
    (tmp_path / "h/etc").mkdir(parents=True)
    (tmp_path / "h/etc/t.txt").write_text("t\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        h ansible_connection=local planner_root={tmp_path}/h
        """))
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report", "--diff"]) == 0
    (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir() and not p.is_symlink()]
    results = {r["step"]: r for r in json.loads((run / "results.json").read_text())
               if not r["title"].startswith("restore")}
    assert "-first" in results["plays[0].prep[1]"]["diff"], results["plays[0].prep[1]"]
    assert results["plays[0].prep[2]"]["status"] == "ok"
    restore = json.loads((run / "restore.json").read_text())
    # originals stay in the private log: the shareable copy says their size and hash (issue 40 L11)
    assert [(e["saved"]["content"] or "")[:10] for e in restore] == ["", "(6 bytes, ", "(2 bytes, "]
    assert not (tmp_path / "h/etc/x.txt").exists(), "restored to absent"
    commands = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    # the reads ride in the facts' exec (planner.engine.batch): no exec of their own
    assert [c["step"] for c in commands].count("probes") == 0
    assert [c["step"] for c in commands].count("facts") == 1
