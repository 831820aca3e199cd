"""The run's work folder on a host (``<planner_workdir>/<run id>/<host>``: point folders, the process-group
records) goes when the run releases the host at its end, over the real loopback sshd, on both release paths:
the end of the run, and the play's one exec when that releases the host itself. It stays while something is
left for ``planner restore`` (prep kept, restore pending, or an interrupt), and ``rm -rf`` only ever runs on
planner's own folders: a symlink or another user's folder there is left alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_fault_interrupts import finish, processes_with, run_dirs, start_apply, unique_sleep, wait_for
from test_fault_resume import kill_at_point_3, planner
from test_fault_resume import project as resume_project
from test_semantics_when_locks import LOCK_PLAN, one_machine_inventory

from planner.cli.main import main
from planner.engine.hostlock import release_lock
from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.transport.connection import LocalConnection

WORKLOAD_PLAN = """\
plan: cleanup
plays:
  - name: measure
    hosts: all
    prep:
      - copy: {content: "prepped\\n", dest: /etc/cleanup.txt}
    workloads:
      - command: {argv: [echo, measured]}
"""

# every step of the host's last play is answered by the play's one exec, which then releases the host itself
BATCHED_PLAN = """\
plan: batched
plays:
  - name: reads
    hosts: all
    prep:
      - command: {argv: [echo, one], changed_when: false}
      - command: {argv: [echo, two], changed_when: false}
"""


def _apply(lab: Lab, tmp_path: Path, plan_text: str, *extra: str) -> tuple[int, Path]:
    inv, plan, runs = tmp_path / "inv.yml", tmp_path / "plan.yaml", tmp_path / "runs"
    lab.write_inventory(inv)
    plan.write_text(plan_text)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", "--limit",
                 lab.hosts[0].name, *extra])
    [run] = [p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()]
    return code, run


def _workdir(run: Path) -> Path:
    """The host's work folder, as the run recorded it (meta.json ``remote``)."""
    meta = json.loads((run / "meta.json").read_text())
    [(_, where)] = meta["remote"].items()
    return Path(where["workdir"])


@pytest.mark.ssh
@pytest.mark.slow
def test_a_finished_run_leaves_no_work_folder_on_the_host(lab: Lab, tmp_path: Path) -> None:
    code, run = _apply(lab, tmp_path, WORKLOAD_PLAN)
    assert code == 0
    workdir = _workdir(run)
    assert workdir.parent.name == run.name and workdir.parent.parent.is_dir(), "the base folder stays"
    assert not workdir.parent.exists(), f"the run's folder on the host was left: {sorted(workdir.parent.rglob('*'))}"
    assert not list(workdir.parent.parent.parent.glob("planner.lock*")), "the host was released"
    results = json.loads((run / "results.json").read_text())
    assert any(r["step"] == "plays[0].workloads[0]" and r["status"] == "changed" for r in results)


@pytest.mark.ssh
@pytest.mark.slow
def test_the_plays_one_exec_that_releases_the_host_removes_its_work_folder(lab: Lab, tmp_path: Path) -> None:
    code, run = _apply(lab, tmp_path, BATCHED_PLAN)
    assert code == 0
    workdir = _workdir(run)
    assert not workdir.parent.exists(), f"the run's folder on the host was left: {sorted(workdir.parent.rglob('*'))}"


@pytest.mark.ssh
@pytest.mark.slow
def test_a_run_whose_prep_is_kept_keeps_its_work_folder_for_planner_restore(
        lab: Lab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _apply(lab, tmp_path, WORKLOAD_PLAN, "--keep-prep")
    assert code == 0
    workdir = _workdir(run)
    try:
        assert workdir.is_dir(), "the prep stays on the host: `planner restore` may still need the folder"
        # the folder left behind is named, with why and what removes it
        # naming what was not put back (the headline rehearsal's "prep on it is not restored" read as if none was)
        assert (f"work folder kept on {lab.hosts[0].name}: {workdir} (prep not put back there: copy; kept for "
                f"planner restore {run.name})") in capsys.readouterr().out
        assert (lab.sandbox(lab.hosts[0].name) / "etc/cleanup.txt").read_text() == "prepped\n"
    finally:
        assert main(["restore", str(run)]) == 0


INTERRUPTED_PLAN = """\
plan: interrupted
plays:
  - name: p
    hosts: all
    workloads:
      - command: {{argv: [sh, -c, '{block}', sh, "{{{{ planner_root }}}}", "{sleep}"]}}
"""
# $1 the sandbox root, $2 a sleep unique to the test: the point blocks until the test unblocks it
BLOCK = '[ -e "$1/unblocked" ] || { echo started > "$1/workload.started"; sleep "$2"; }; echo done'



@pytest.mark.ssh
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_interrupted_run_keeps_its_work_folder_until_its_resume_ends(tmp_path: Path,
                                                                       make_lab: Callable[..., Any]) -> None:
    """Interrupted: the folder stays (a resume stops what a point there may have left, such as OS samplers);
    the resume that finishes the run removes it."""
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(INTERRUPTED_PLAN.format(block=BLOCK, sleep=sleep))
    lab.write_inventory(inv)
    proc = start_apply(plan, inv, runs, "--no-report")
    try:
        wait_for(lambda: (root / "workload.started").exists() and processes_with(sleep), "the workload", proc)
        proc.send_signal(signal.SIGINT)
        out = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 99, out
    [run] = run_dirs(runs)
    workdir = _workdir(run)
    assert workdir.is_dir(), "an interrupted run keeps its work folder on the host"
    assert not list(root.glob("tmp/planner.lock*")), "the host was released all the same"
    (root / "unblocked").write_text("")
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not workdir.parent.exists(), f"the resume left the folder: {sorted(workdir.parent.rglob('*'))}"


def _folders(tmp_path: Path, run_id: str) -> tuple[LocalConnection, Path, Path]:
    """A lock held by ``run_id`` and that run's work folder below a base only the login user may write."""
    base = tmp_path / "planner"
    workdir = base / run_id / "h"
    (workdir / ".running").mkdir(parents=True)
    base.chmod(0o755)
    lock = tmp_path / "planner.lock.h"
    lock.mkdir()
    (lock / "holder.json").write_text(json.dumps({"run_id": run_id, "controller": "c", "pid": 1, "since": "s"}))
    return LocalConnection(Host("h", "localhost")), lock, workdir


def _release(conn: LocalConnection, lock: Path, run_id: str, workdir: Path) -> None:
    release_lock(conn, str(lock), run_id, str(workdir / ".running"), str(workdir))


@pytest.mark.slow
def test_the_work_folder_goes_with_the_lock_and_only_when_the_lock_is_ours(tmp_path: Path) -> None:
    conn, lock, workdir = _folders(tmp_path, "r1")
    (workdir / "step/point000").mkdir(parents=True)
    (workdir / "step/point000/out.txt").write_text("x")
    _release(conn, lock, "other", workdir)
    assert lock.is_dir() and workdir.is_dir(), "another run's lock: nothing is touched"
    _release(conn, lock, "r1", workdir)
    assert not lock.exists() and not workdir.parent.exists() and workdir.parent.parent.is_dir()


@pytest.mark.slow
def test_a_symlinked_work_folder_is_not_followed(tmp_path: Path) -> None:
    conn, lock, workdir = _folders(tmp_path, "r1")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep")
    (workdir / ".running").rmdir()
    workdir.rmdir()
    workdir.symlink_to(victim)
    _release(conn, lock, "r1", workdir)
    assert (victim / "keep.txt").read_text() == "keep" and workdir.is_symlink()
    assert not lock.exists(), "the lock is released all the same"


@pytest.mark.slow
def test_a_symlinked_run_folder_is_not_followed(tmp_path: Path) -> None:
    conn, lock, workdir = _folders(tmp_path, "r1")
    elsewhere = tmp_path / "elsewhere"
    (workdir.parent).rename(elsewhere)
    workdir.parent.symlink_to(elsewhere)
    _release(conn, lock, "r1", workdir)
    assert (elsewhere / "h").is_dir() and workdir.parent.is_symlink()


@pytest.mark.slow
def test_a_base_others_may_write_leaves_the_work_folder_alone(tmp_path: Path) -> None:
    conn, lock, workdir = _folders(tmp_path, "r1")
    workdir.parent.parent.chmod(0o1777)  # /tmp-like: what lies below could have been swapped
    _release(conn, lock, "r1", workdir)
    assert workdir.is_dir()


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="another user's folder: needs root to make one")
def test_another_users_work_folder_is_left_alone(tmp_path: Path) -> None:
    conn, lock, workdir = _folders(tmp_path, "r1")
    (workdir / "theirs.txt").write_text("theirs")
    subprocess.run(["chown", "-R", "65534:65534", str(workdir)], check=True)
    _release(conn, lock, "r1", workdir)
    assert (workdir / "theirs.txt").read_text() == "theirs"


@pytest.mark.ssh
@pytest.mark.slow
def test_three_inventory_hosts_on_one_machine_leave_no_run_folder(make_lab: Callable[..., Lab],
                                                                  tmp_path: Path) -> None:
    """Released side by side, each removes its own folder; the last one out removes the run's."""
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    inv, plan, runs = tmp_path / "inv.yml", tmp_path / "plan.yaml", tmp_path / "runs"
    one_machine_inventory(lab, inv, ["db1", "db2", "db3"])
    plan.write_text(LOCK_PLAN)
    assert main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"]) == 0
    assert sorted((root / "ran").read_text().split()) == ["db1", "db2", "db3"]
    [run] = [p.name for p in runs.iterdir() if p.is_dir()]
    assert (root / "tmp/planner").is_dir() and not (root / "tmp/planner" / run).exists()


@pytest.mark.ssh
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_planner_restore_of_a_killed_run_removes_its_work_folder(tmp_path: Path,
                                                                 make_lab: Callable[..., Any]) -> None:
    """The controller was killed: the folder stays for `planner restore`, which removes it with the lock once
    it has stopped what was left running and put the prep back."""
    root, plan, inv, runs, sleep = resume_project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    workdir = _workdir(run)
    assert workdir.is_dir()
    done = planner("restore", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/prep.txt").read_text() == "original\n" and not processes_with(sleep)
    assert not workdir.parent.exists(), f"restore left the folder: {sorted(workdir.parent.rglob('*'))}"
