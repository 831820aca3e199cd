"""Issue 14 item 1: `planner restore RUN` and `apply --resume RUN` never write a redacted value to a host.

The shareable restore.json is redacted like every record file; the host's original file held the password, so
writing that copy back would leave ``db_password=********`` and destroy the original. The unredacted copy lives
in ``<runs_dir>/.<run id>.restore.json`` (0600, beside the run folder, never in it); without it restore refuses.
Over the real loopback sshd: a copy step replaces /etc/app.conf, then a workload blocks; the controller is
SIGKILLed while it blocks.
"""

from __future__ import annotations

import json
import signal
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_fault_interrupts import processes_with, run_dirs, start_apply, unique_sleep, wait_for
from test_fault_resume import planner

PASSWORD = "Orig-s3cr3t-pw-for-restore-test"
ORIGINAL = f"# app settings\ndb_password={PASSWORD}\n"

PLAN = """\
plan: secret_restore
plays:
  - name: p
    hosts: all
    prep:
      - copy: {{content: "db_password=changed\\n", dest: /etc/app.conf}}
    workloads:
      - command: {{argv: [sh, -c, '[ -e "$1/blocked" ] || {{ : >"$1/blocked"; sleep "$2"; }}', sh, "{{{{ planner_root }}}}", "{sleep}"]}}
"""


def killed_run(tmp_path: Path, make_lab: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
               ) -> tuple[Path, Path, Path, str]:
    monkeypatch.setenv("PLANNER_TEST_APP_PW", PASSWORD)  # inherited by the planner subprocesses
    lab = make_lab(1)
    host = lab.hosts[0].name
    root = lab.sandbox(host)
    (root / "etc").mkdir(parents=True)
    (root / "etc/app.conf").write_text(ORIGINAL)
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(sleep=sleep))
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"][host]["oracle_password_env"] = "PLANNER_TEST_APP_PW"
    inv.write_text(yaml.safe_dump(data))
    proc = start_apply(plan, inv, runs, "--no-report")
    try:
        wait_for(lambda: (root / "blocked").exists() and processes_with(sleep), "the workload to block", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    [run] = run_dirs(runs)
    assert (root / "etc/app.conf").read_text() == "db_password=changed\n"
    shared = (run / "restore.json").read_text()
    assert PASSWORD not in shared and "db_password=********" in shared  # the shareable copy stays redacted
    private = runs / f".{run.name}.restore.json"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert json.loads(private.read_text())[0]["saved"]["content"] == ORIGINAL
    return root, run, private, sleep


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_restore_writes_back_the_unredacted_original(tmp_path: Path, make_lab: Callable[..., Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    done = planner("restore", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/app.conf").read_text() == ORIGINAL  # not db_password=********
    assert not processes_with(sleep)
    shared = json.loads((run / "restore.json").read_text())
    assert shared[0]["reverted"] and PASSWORD not in json.dumps(shared)
    assert json.loads(private.read_text())[0]["reverted"]


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_resume_restores_the_unredacted_original(tmp_path: Path, make_lab: Callable[..., Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, _private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    done = planner("apply", "--resume", str(run), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/app.conf").read_text() == ORIGINAL
    assert PASSWORD not in (run / "restore.json").read_text()
    assert not processes_with(sleep)


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_restore_and_resume_refuse_without_the_private_copy(tmp_path: Path, make_lab: Callable[..., Any],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    private.unlink()  # e.g. a run folder moved or received from a colleague
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    for args in (["restore", str(run)], ["apply", "--resume", str(run), "--no-report"]):
        done = planner(*args)
        assert done.returncode == 5, done.stdout + done.stderr
        assert "unredacted original state" in done.stderr and "********" in done.stderr
        assert "Traceback" not in done.stderr
    assert (root / "etc/app.conf").read_text() == "db_password=changed\n"  # nothing written to the host
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before  # nor to the record
    assert processes_with(sleep), "a refused restore must not touch the host"
    planner_kill = planner("restore", str(run))  # still refused, still harmless
    assert planner_kill.returncode == 5
