"""A password given through the environment never lands in the run folder, the console or the report."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli import main

SECRET = "s3cr3t-Pa55-for-planner-test"


def test_password_from_environment_is_redacted_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PLANNER_TEST_DB_PW", SECRET)
    root = tmp_path / "host"
    root.mkdir()
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        alpha ansible_connection=local planner_root={root} oracle_password_env=PLANNER_TEST_DB_PW
        """))
    # A careless step that prints the password: the record, console and report must still not show it.
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: leaky
        plays:
          - name: leak
            hosts: lab
            workloads:
              - command: {argv: [sh, -c, 'echo "password is $PLANNER_TEST_DB_PW"; echo "$PLANNER_TEST_DB_PW" >&2']}
        """))
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-v",
                 "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, out
    assert "password is ********" in out
    assert SECRET not in out and SECRET not in err
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    files = [p for p in run.rglob("*") if p.is_file()]
    assert any(p.name == "commands.jsonl" for p in files) and any(p.name == "results.json" for p in files)
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), f"secret leaked into {p.relative_to(run)}"
