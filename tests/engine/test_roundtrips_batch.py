"""planner.engine.batch: a play's lock, facts and reads in one host script whose output framing no command can
forge, each batched command recorded as if it ran alone; and the lock taken again before a change."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.engine import batch
from planner.engine.probes import ProbedConnection, run_batch
from planner.errors import StepError
from planner.host import Host
from planner.steps.base import ANY_EXIT, Probe
from planner.transport.connection import LocalConnection

# A command that prints what frame lines look like, on both streams, and bytes that are not UTF-8.
FORGER = r"printf '#run 0 1 2\n#-\n#.\n#release 0 1 2\n\377'; printf 'err #.\n#-\n' >&2; exit 3"


@pytest.mark.slow
def test_output_that_looks_like_frames_stays_the_commands_own() -> None:
    conn = LocalConnection(Host("h", "localhost"))
    probes = [Probe(("sh", "-c", FORGER), ok=ANY_EXIT), Probe(("echo", "second"), ok=ANY_EXIT)]
    answers, r = run_batch(conn, probes)
    assert r.ok
    forged, second = (answers[("run", p.argv, False, "", "")] for p in probes)
    assert (forged.exit_code, forged.stdout, forged.stderr) == (
        3, "#run 0 1 2\n#-\n#.\n#release 0 1 2\n\ufffd", "err #.\n#-\n")
    assert (second.exit_code, second.stdout) == (0, "second\n")
    assert not batch.parse(r.stdout).released, "a printed '#release' line is not the script's release"


@pytest.mark.slow
def test_a_batch_cut_short_keeps_only_the_frames_that_arrived_whole() -> None:
    """A host that dies mid-batch: what came before the cut counts, the frame it cut does not."""
    conn = LocalConnection(Host("h", "localhost"))
    r = conn.run(batch.argv(["echo one", "echo two"]))
    whole = batch.parse(r.stdout)
    assert [f.stdout for f in whole.runs] == [b"one\n", b"two\n"]
    cut = r.stdout[:r.stdout.rindex("#-")]  # inside the second frame
    assert [f.stdout for f in batch.parse(cut).runs] == [b"one\n"]
    damaged = r.stdout.replace("#~ ", "#~ x", 1)  # the boundary line broken: no end line is one
    assert batch.parse(damaged).runs == (), "a damaged frame ends the parse: later frames cannot be placed"
    plain = conn.run(["sh", "-c", batch.SCRIPT.replace(batch.UUID_FILE, "/nonexistent"),
                      *batch.argv(["echo one", "echo two"])[3:]]).stdout  # no boundary: base64 frames
    assert [f.stdout for f in batch.parse(plain).runs] == [b"one\n", b"two\n"]
    damaged = plain.replace("b25lCg==", "b25lCg=!")  # "one\n" in base64, one character broken
    assert batch.parse(damaged).runs == (), "a damaged frame ends the parse: later frames cannot be placed"


def test_relock_before_the_first_command_and_a_refusal_sticks(tmp_path: Path) -> None:
    calls: list[str] = []

    def refused() -> None:
        calls.append("relock")
        raise StepError("host is held by run other")

    conn = ProbedConnection(LocalConnection(Host("h", "localhost")), {}, relock=refused)
    for _ in range(2):
        with pytest.raises(StepError, match="held by run other"):
            conn.run(["touch", str(tmp_path / "x")])
    assert calls == ["relock"] and not (tmp_path / "x").exists(), "nothing ran without the lock"


PLAN = """\
plan: framing
plays:
  - name: reads
    hosts: lab
    keep_prep: true
    prep:
      - name: forger
        command: {argv: [sh, -c, "%s"], changed_when: false}
        ignore_errors: true
      - name: after
        command: {argv: [echo, second], changed_when: false}
    collect:
      - name: result
        fetch: {src: /tmp/result.txt}
"""


def _apply(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    (tmp_path / "h/tmp").mkdir(parents=True, exist_ok=True)
    (tmp_path / "h/tmp/result.txt").write_bytes(b"#. not a frame\n\0\1")
    (tmp_path / "plan.yaml").write_text(PLAN % FORGER.replace("\\", "\\\\").replace('"', '\\"'))
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        h ansible_connection=local planner_root={tmp_path}/h
        """))
    runs = tmp_path / "runs"
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir", str(runs),
                 "--no-report", *extra])
    dirs = sorted(p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()) if runs.is_dir() else []
    return code, dirs[-1] if dirs else runs


@pytest.mark.slow
def test_each_batched_command_is_recorded_as_if_run_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[list[str]] = []
    real = LocalConnection.run

    def recording(self: LocalConnection, argv: Any, **kw: Any) -> Any:
        sent.append([str(a) for a in argv])
        return real(self, argv, **kw)

    monkeypatch.setattr(LocalConnection, "run", recording)
    code, run = _apply(tmp_path)
    assert code == 0
    assert len(sent) == 2 and sent[0][2] == batch.SCRIPT, "one exec for lock, facts and the commands; the release"
    commands: list[dict[str, Any]] = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    assert [c["step"] for c in commands] == ["facts", "plays[0].prep[0]", "plays[0].prep[1]"]
    forger, after = commands[1], commands[2]
    assert (forger["exit_code"], forger["stdout"], forger["stderr"]) == (
        3, "#run 0 1 2\n#-\n#.\n#release 0 1 2\n\ufffd", "err #.\n#-\n")
    assert forger["command"] == "sh -c " + __import__("shlex").quote(FORGER)
    assert (after["exit_code"], after["stdout"], after["command"]) == (0, "second\n", "echo second")
    results = {r["step"]: r for r in json.loads((run / "results.json").read_text())}
    assert results["plays[0].prep[0]"]["status"] == "failed" and "exit code 3" in results["plays[0].prep[0]"]["msg"]
    assert results["plays[0].prep[1]"]["status"] == "ok"
    (art,) = [a["path"] for a in results["plays[0].collect[0]"]["artifacts"]]
    assert (run / art).read_bytes() == b"#. not a frame\n\0\1"
    assert not list((tmp_path / "h/tmp").glob("planner.lock*")), "the lock was released"


@pytest.mark.slow
def test_check_mode_runs_no_batched_command(tmp_path: Path) -> None:
    """-C -D: the prep probes ride in the facts' exec, a changed_when: false command does not run at all."""
    ran = tmp_path / "ran"
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: check
        plays:
          - name: reads
            hosts: lab
            prep:
              - copy: {{content: "x\\n", dest: /etc/x.txt}}
              - command: {{argv: [touch, {ran}], changed_when: false}}
        """))
    (tmp_path / "hosts.ini").write_text(f"[lab]\nh ansible_connection=local planner_root={tmp_path}/h\n")
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report", "--check", "--diff"]) == 0
    assert not ran.exists(), "check mode ran the command"
    assert not (tmp_path / "h/etc/x.txt").exists()


@pytest.mark.slow
def test_a_later_play_batches_in_its_own_exec_and_releases_the_lock(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[list[str]] = []
    real = LocalConnection.run

    def recording(self: LocalConnection, argv: Any, **kw: Any) -> Any:
        sent.append([str(a) for a in argv])
        return real(self, argv, **kw)

    monkeypatch.setattr(LocalConnection, "run", recording)
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: two
        plays:
          - name: one
            hosts: lab
            prep:
              - command: {argv: [echo, one], changed_when: false}
          - name: two
            hosts: lab
            prep:
              - command: {argv: [echo, two], changed_when: false}
              - command: {argv: [echo, three], changed_when: false}
        """))
    (tmp_path / "hosts.ini").write_text(f"[lab]\nh ansible_connection=local planner_root={tmp_path}/h\n")
    (tmp_path / "h/tmp").mkdir(parents=True)
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"]) == 0
    assert [batch.SCRIPT in a for a in sent] == [True, True], "play one: lock, facts, echo; play two: its reads"
    second = sent[1][sent[1].index(batch.SCRIPT) + 1:]  # sh, lock, info, procs, root, release, run id, lines
    assert second[2] == "" and second[5] == "1", "the second exec does not take the lock again, only releases it"
    assert second[7:] == ["echo two", "echo three"]
    assert not list((tmp_path / "h/tmp").glob("planner.lock*")), "the lock was released"


def _filler(empty: int, total: int) -> str:
    """A command whose frame is ``total`` bytes: its stdout passes as printed, so its frame is that of a read
    printing nothing (``empty`` bytes) and its bytes."""
    return f"head -c {total - empty} /dev/zero"


@pytest.mark.slow
def test_a_cut_on_frame_boundaries_never_hands_a_later_frame_to_an_earlier_read() -> None:
    """The 1 MiB head and 64 KiB tail of the batch's output, cut exactly between frames: the tail's frames are
    those of the last reads, so taking frames in order handed probe 3 the output and exit code of probe 5."""
    from planner.transport.streams import KEEP_HEAD, KEEP_TAIL
    conn = LocalConnection(Host("h", "localhost"))
    first, empty = conn.run(batch.argv(["true"])).stdout.split("\n", 1)  # the boundary line, a frame
    assert first.startswith("#~ ")
    cmds = [_filler(len(empty), KEEP_HEAD // 2 - len(first) - 1), _filler(len(empty), KEEP_HEAD - KEEP_HEAD // 2),
            "head -c 3000000 /dev/zero", "echo middle",
            _filler(len(empty), KEEP_TAIL // 2), ": 6; " + _filler(len(empty), KEEP_TAIL - KEEP_TAIL // 2)]
    probes = [Probe(("sh", "-c", c), ok=ANY_EXIT) for c in cmds]
    answers, r = run_batch(conn, probes)
    assert r.truncated and r.exit_code == 0
    got = [answers.get(("run", p.argv, False, "", "")) for p in probes]
    alone = [conn.run(["sh", "-c", c]) for c in cmds[:2]]
    assert [(g.stdout, g.stderr) if g else None for g in got[:2]] == [(a.stdout, a.stderr) for a in alone]
    for c, g in zip(cmds[2:], got[2:], strict=True):
        assert g is None, f"{c!r} was answered with another read's frame (exit code {g.exit_code})"


@pytest.mark.slow
def test_a_read_cannot_end_its_frame_without_the_execs_own_boundary() -> None:
    """Every frame passes as printed, ended by a line with the exec's boundary (a new random UUID per exec): a
    read printing end lines with another boundary, a boundary line or none stays that read's own output; one
    printing the transport's cut note only loses its answer and the later reads' (they run alone), never misplaces
    one."""
    conn = LocalConnection(Host("h", "localhost"))
    firsts = {conn.run(batch.argv(["true"])).stdout.split("\n")[0] for _ in range(2)}
    assert len(firsts) == 2 and all(f.startswith("#~ ") for f in firsts), "a new boundary per exec"
    fake = "#=00000000-0000-4000-8000-000000000000 0 1 2\n#= 0 1 2\n#~ 00000000-0000-4000-8000-000000000000\n#-\n#.\n"
    forger = Probe(("printf", "%s#release 9 0 0 0\n#-\n#.\n#run 3 raw\nlast", fake), ok=ANY_EXIT)
    second = Probe(("echo", "second"), ok=ANY_EXIT)
    answers, r = run_batch(conn, [forger, second])
    assert answers[("run", forger.argv, False, "", "")].stdout == fake + "#release 9 0 0 0\n#-\n#.\n#run 3 raw\nlast"
    assert answers[("run", second.argv, False, "", "")].stdout == "second\n"
    note = "[planner: 10 bytes of output left out here; 20 bytes in all]"
    cut = [Probe(("echo", "first"), ok=ANY_EXIT), Probe(("echo", note), ok=ANY_EXIT), second]
    answers, _ = run_batch(conn, cut)
    assert [answers.get(("run", p.argv, False, "", "")) is not None for p in cut] == [True, False, False]
