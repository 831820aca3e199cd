"""A password given through the environment never lands in the run folder, the console or the report."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main

pytestmark = [pytest.mark.slow]

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


FILE_SECRET = "DbFile-s3cr3t-for-planner-test"
SUDO_SECRET = "Sud0-s3cr3t-for-planner-test"


def _leaky_run(tmp_path: Path, host_vars: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    root = tmp_path / "host"
    root.mkdir()
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} {host_vars}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: leaky_file
        plays:
          - name: leak
            hosts: lab
            workloads:
              - command: {argv: [sh, -c, 'cat "$1"; echo "$2" >&2', sh, "{{ oracle_password_file | default('') }}",
                                 "{{ ansible_become_password | default('') }}"]}
        """))
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-v",
                 "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    return code, out + err, next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())


def _leaks(run: Path, console: str, secret: str) -> list[str]:
    found = [str(p.relative_to(run)) for p in run.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    return found + (["console"] if secret in console else [])


def test_password_file_is_redacted_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pw = tmp_path / "db.pw"
    pw.write_text(FILE_SECRET + "\n")
    code, console, run = _leaky_run(tmp_path, f"oracle_password_file={pw}", capsys)
    assert code == 0, console
    assert (run / "report.md").is_file()
    assert _leaks(run, console, FILE_SECRET) == []


def test_sudo_password_in_the_inventory_is_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, console, run = _leaky_run(tmp_path, f"ansible_become_password={SUDO_SECRET}", capsys)
    assert code == 0, console
    assert _leaks(run, console, SUDO_SECRET) == []
