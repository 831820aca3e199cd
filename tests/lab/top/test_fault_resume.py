"""Fault suite, issue 9 item 2: the controller is killed (SIGKILL) mid-workload, over the SSH lab.

- ``planner restore RUN`` stops what the dead controller left running on the host, restores prep, releases
  the host lock and marks the run interrupted;
- ``planner apply --resume RUN`` stops the leftover workload, takes over the run's own lock, re-applies prep
  while keeping the ORIGINAL state for the final restore, skips the sweep points already done, runs the rest
  and completes the same run folder.

The workload has 4 points (repeat: 4). Each point numbers itself from the "end" lines already in a marker
file on the host, writes "start N", then "end N"; point 3 blocks (a sleep unique to the test) the first time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_fault_interrupts import (
    finish,
    kill_when_blocked,
    meta_of,
    processes_with,
    run_dirs,
    start_apply,
    unique_sleep,
)

pytestmark = [pytest.mark.slow, pytest.mark.ssh]

PLAN = """\
plan: resume_me
plays:
  - name: sweep
    hosts: all
    prep:
      - copy: {{content: "prepped\\n", dest: /etc/prep.txt}}
    workloads:
      - name: marker
        command: {{argv: [sh, -c, '{script}', sh, "{{{{ planner_root }}}}", "{sleep}"]}}
        repeat: 4
"""

SCRIPT = ('f="$1/markers"; n=$(cat "$f" 2>/dev/null | grep -c "^end"); n=$((n+1)); echo "start $n" >>"$f"; '
          'if [ "$n" = 3 ] && [ ! -e "$1/blocked" ]; then : >"$1/blocked"; sleep "$2"; fi; echo "end $n" >>"$f"')


def project(tmp_path: Path, make_lab: Callable[..., Any]) -> tuple[Path, Path, Path, Path, str]:
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    (root / "etc/prep.txt").write_text("original\n")
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(script=SCRIPT, sleep=sleep))
    lab.write_inventory(inv)
    return root, plan, inv, runs, sleep


def kill_at_point_3(root: Path, plan: Path, inv: Path, runs: Path, sleep: str) -> Path:
    """Start the run, SIGKILL the controller while point 3 blocks; returns the run folder."""
    run = kill_when_blocked(plan, inv, runs, root / "blocked", sleep)
    # the state a killed controller leaves: prep in place, the workload still running, the lock held
    assert (root / "etc/prep.txt").read_text() == "prepped\n"
    assert processes_with(sleep), "the killed controller's workload should still run on the host"
    assert json.loads((next(root.glob("tmp/planner.lock.*")) / "holder.json").read_text())["run_id"] == run.name
    assert meta_of(run)["status"] == "running"
    return run


def planner(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, timeout=120)


def workload_results(run: Path) -> list[dict[str, Any]]:
    return [r for r in json.loads((run / "results.json").read_text()) if r["step"] == "plays[0].workloads[0]"]


@pytest.mark.timeout(90)
def test_restore_after_sigkill(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    started = time.monotonic()
    done = planner("restore", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "changed=2" in done.stdout  # stopping the leftover workload, restoring the copy
    assert not processes_with(sleep), "restore left the dead run's workload running"
    assert (root / "etc/prep.txt").read_text() == "original\n"
    assert not list(root.glob("tmp/planner.lock*")), "restore did not release the dead run's lock"
    meta = meta_of(run)
    assert meta["status"] == "interrupted" and meta["restores"][-1]["done"] == 1
    again = planner("restore", str(run))
    assert again.returncode == 0 and "changed" not in again.stdout.split("PLAY RECAP")[-1].split("changed=")[0]
    assert (root / "etc/prep.txt").read_text() == "original\n"
    assert time.monotonic() - started < 30


@pytest.mark.timeout(90)
def test_resume_after_sigkill(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    commands_before = (run / "commands.jsonl").read_text()
    assert [r["point"] for r in workload_results(run)] == [0, 1]
    started = time.monotonic()
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert not processes_with(sleep), "the dead run's workload still runs"
    lines = (root / "markers").read_text().split()
    marks = [" ".join(lines[i:i + 2]) for i in range(0, len(lines), 2)]
    # points 1 and 2 ran once (not redone); 3 started twice (killed, then resumed); 3 and 4 ended once
    assert marks == ["start 1", "end 1", "start 2", "end 2", "start 3", "start 3", "end 3", "start 4", "end 4"]
    # the ORIGINAL state is back, not the half-prepped one the resumed run found
    assert (root / "etc/prep.txt").read_text() == "original\n"
    assert not list(root.glob("tmp/planner.lock*"))
    assert [run] == run_dirs(runs), "the resumed run must use the same folder"
    meta = meta_of(run)
    assert meta["status"] == "complete" and meta["exit_code"] == 0
    assert len(meta["resumed"]) == 1 and meta["resumed"][0]["found_status"] == "running"
    wl = workload_results(run)
    assert sorted(r["point"] for r in wl) == [0, 1, 2, 3] and all(r["status"] == "changed" for r in wl)
    entries = json.loads((run / "restore.json").read_text())
    assert len(entries) == 1 and entries[0]["reverted"]
    assert entries[0]["saved"]["content"].startswith("(9 bytes, sha256 ")  # the original: in the private log
    commands = (run / "commands.jsonl").read_text()
    assert commands.startswith(commands_before), "commands.jsonl must be appended to, not rewritten"
    assert all(json.loads(line) for line in commands.splitlines())
    stopped = [r for r in json.loads((run / "results.json").read_text()) if r["step"] == "resume"]
    assert stopped and "left running by the dead controller" in stopped[0]["msg"]
    # 1-based n/m names (issue 15 item 13); the ETA counts only the two repeats left
    assert "point 1/1, repeat 1/4: done before the resume" in done.stdout
    assert "point 1/1, repeat 2/4: done before the resume" in done.stdout
    assert "point 1/1, repeat 4/4 done in" in done.stdout
    assert elapsed < 30


def test_resume_refuses_a_changed_plan(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    plan.write_text(plan.read_text().replace("repeat: 4", "repeat: 5"))
    done = planner("apply", "--resume", str(run), "--no-report")
    assert done.returncode == 5, done.stdout + done.stderr
    assert "the plan changed since run" in done.stderr and "-        repeat: 4" in done.stderr \
        and "+        repeat: 5" in done.stderr
    assert processes_with(sleep), "a refused resume must not touch the host"
    # the same file (content) is accepted: put it back, resume, complete
    plan.write_text(plan.read_text().replace("repeat: 5", "repeat: 4"))
    done = planner("apply", str(plan), "--resume", str(run), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert meta_of(run)["status"] == "complete"
    assert not processes_with(sleep)


def test_resume_refuses_options_and_complete_runs(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    (root / "blocked").write_text("")  # point 3 does not block: the run completes
    proc = start_apply(plan, inv, runs, "--no-report")
    out = finish(proc)
    assert proc.returncode == 0, out
    [run] = run_dirs(runs)
    done = planner("apply", "--resume", str(run))
    assert done.returncode == 5 and "is complete: nothing to resume" in done.stderr
    done = planner("apply", "--resume", str(run), "--limit", "all")
    assert done.returncode == 5 and "--limit" in done.stderr
