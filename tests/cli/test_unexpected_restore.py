"""A bug in the middle of ``planner restore``, on a real local run whose prep was kept (--keep-prep): the hosts are
half put back. What is restored stays restored and recorded (restore.json, meta.json's ``restores``), what is not
is named host by host with the command that finishes, the bug is said as ansible-core says one (exit 250), and
``planner restore`` again puts back the rest."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine import restore as engine_restore
from planner.status import ExitCode

pytestmark = [pytest.mark.slow]

PLAN = """\
plan: bug_mid_restore
plays:
  - name: prep and measure
    hosts: lab
    prep:
      - copy: {content: "a-prepped\\n", dest: /etc/a.conf}
      - copy: {content: "b-prepped\\n", dest: /etc/b.conf}
    workloads:
      - command: {argv: ["true"]}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "host" / "etc").mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / "host" / "etc" / f"{name}.conf").write_text(f"{name}-original\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        alpha ansible_connection=local planner_root={tmp_path}/host
        """))
    return tmp_path


def _conf(project: Path, name: str) -> str:
    return (project / "host" / "etc" / f"{name}.conf").read_text()


def test_a_bug_mid_restore_names_what_is_left_and_restore_again_finishes(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: the exception left restore_run as it was: restore.json still said b.conf was not restored (its flags are
    written once, at the end), meta.json had no word of the restore, nothing said what was left (exit 250)."""
    assert main(["apply", str(project / "plan.yaml"), "-i", str(project / "hosts.ini"), "--runs-dir",
                 str(project / "runs"), "--no-report", "--keep-prep"]) == 0
    assert (_conf(project, "a"), _conf(project, "b")) == ("a-prepped\n", "b-prepped\n")
    (run,) = (p for p in (project / "runs").iterdir() if p.is_dir())
    capsys.readouterr()

    real, calls = engine_restore.revert_step, []

    def revert_step(entry: object, *a: object, **k: object) -> object:  # the second entry meets a bug
        calls.append(entry)
        if len(calls) == 2:
            raise RuntimeError("a restore bug")
        return real(entry, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_restore, "revert_step", revert_step)
    assert main(["restore", str(run)]) == ExitCode.UNEXPECTED == 250
    out, err = capsys.readouterr()
    assert err.splitlines() == ["ERROR! Unexpected Exception, this is probably a bug: RuntimeError: a restore bug",
                                "to see the full traceback, use -vvv"]
    assert "Traceback" not in out + err
    # last saved first: b.conf is back, a.conf is not
    assert (_conf(project, "a"), _conf(project, "b")) == ("a-prepped\n", "b-original\n")
    assert [e["reverted"] for e in json.loads((run / "restore.json").read_text())] == [False, True]
    restores = json.loads((run / "meta.json").read_text())["restores"]
    assert [(r["pending"], r["done"], r.get("error")) for r in restores] == [(2, 1, "RuntimeError: a restore bug")]
    warned = [line for line in out.splitlines() if line.startswith("[WARNING]: restore stopped")]
    assert len(warned) == 1 and "(RuntimeError: a restore bug): not restored yet: alpha: " in warned[0], out
    assert warned[0].endswith(f"(restore.json says the same); run planner restore {run.name} again to finish (what "
                              "is restored already is not done again)"), warned[0]
    assert "PLAY RECAP" in out

    monkeypatch.undo()
    assert main(["restore", str(run)]) == 0  # the next restore does the rest, and only the rest
    assert (_conf(project, "a"), _conf(project, "b")) == ("a-original\n", "b-original\n")
    assert all(e["reverted"] for e in json.loads((run / "restore.json").read_text()))
    assert [r["done"] for r in json.loads((run / "meta.json").read_text())["restores"]] == [1, 1]
    assert not (run.parent / f".{run.name}.restore.json").exists()  # nothing left to write back: its secrets gone
