"""Fault suite, issue 9 item 9: two planner runs against one host, over the SSH lab.

- while a run holds the host (blocked in a workload), a second ``planner apply`` is refused, naming the
  holder's run id, and changes nothing on the host;
- after the holder's controller is killed (SIGKILL), the lock is reported as stale with the way out, and
  ``--break-stale-lock`` breaks it: the new run stops the dead run's leftover workload, says which run's prep
  may still need ``planner restore``, and completes.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_fault_interrupts import finish, processes_with, run_dirs, start_apply, unique_sleep, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.ssh]

PLAN = """\
plan: lock_me
plays:
  - name: one workload
    hosts: all
    prep:
      - copy: {{content: "{who}\\n", dest: /etc/who.txt}}
    workloads:
      - command: {{argv: [sh, -c, 'echo "$2" >>"$1/ran"; [ "$2" != first ] || sleep "$3"', sh,
                          "{{{{ planner_root }}}}", "{who}", "{sleep}"]}}
"""


def setup(tmp_path: Path, make_lab: Callable[..., Any]) -> tuple[Path, Path, Path, Path, str]:
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    sleep = unique_sleep()
    inv = tmp_path / "inv.yml"
    lab.write_inventory(inv)
    for who in ("first", "second"):
        (tmp_path / f"{who}.yaml").write_text(PLAN.format(who=who, sleep=sleep))
    return root, inv, tmp_path / "runs-first", tmp_path / "runs-second", sleep


def start_first(tmp_path: Path, root: Path, inv: Path, runs: Path, sleep: str) -> Any:
    proc = start_apply(tmp_path / "first.yaml", inv, runs, "--no-report")
    wait_for(lambda: (root / "ran").exists() and processes_with(sleep), "the first run's workload", proc)
    return proc


def lock_result(runs: Path) -> dict[str, Any]:
    [run] = run_dirs(runs)
    return next(r for r in json.loads((run / "results.json").read_text()) if r["step"] == "lock")


@pytest.mark.timeout(90)
def test_second_run_is_refused_naming_the_holder(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, inv, runs1, runs2, sleep = setup(tmp_path, make_lab)
    first = start_first(tmp_path, root, inv, runs1, sleep)
    try:
        [run1] = run_dirs(runs1)
        second = start_apply(tmp_path / "second.yaml", inv, runs2, "--no-report")
        out = finish(second)
        assert second.returncode == 2, out
        assert f"host is held by run {run1.name} (in progress" in out
        lock = lock_result(runs2)
        assert lock["status"] == "failed" and run1.name in lock["msg"]
        assert (root / "etc/who.txt").read_text() == "first\n", "the refused run changed the host"
        assert (root / "ran").read_text() == "first\n", "the refused run ran its workload"
        # --break-stale-lock does not break a live holder's lock
        third = start_apply(tmp_path / "second.yaml", inv, runs2, "--no-report", "--break-stale-lock")
        out = finish(third)
        assert third.returncode == 2 and "in progress" in out, out
        assert json.loads((next(root.glob("tmp/planner.lock.*")) / "holder.json").read_text())["run_id"] == run1.name
    finally:
        first.send_signal(signal.SIGINT)
        finish(first)
    assert first.returncode == 99
    assert not list(root.glob("tmp/planner.lock*"))


@pytest.mark.timeout(90)
def test_stale_lock_is_reported_and_broken_explicitly(tmp_path: Path, make_lab: Callable[..., Any]) -> None:
    root, inv, runs1, runs2, sleep = setup(tmp_path, make_lab)
    first = start_first(tmp_path, root, inv, runs1, sleep)
    [run1] = run_dirs(runs1)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    second = start_apply(tmp_path / "second.yaml", inv, runs2, "--no-report")
    out = finish(second)
    assert second.returncode == 2, out
    assert f"host is held by run {run1.name} (stale: its controller process is gone" in out
    assert "--break-stale-lock" in out
    assert (root / "ran").read_text() == "first\n"
    broke = start_apply(tmp_path / "second.yaml", inv, runs2, "--no-report", "--break-stale-lock")
    out = finish(broke)
    assert broke.returncode == 0, out
    assert f"broke the stale lock of run {run1.name}" in out and f"planner restore {run1.name}" in out
    assert not processes_with(sleep), "the dead run's workload was left running beside the new run"
    assert (root / "ran").read_text() == "first\nsecond\n"
    assert not list(root.glob("tmp/planner.lock*"))
    # the dead run's prep ("first") was in place when the second run saved its state, so restoring the
    # second run brings back "first": the dead run's own record restores the original
    assert (root / "etc/who.txt").read_text() == "first\n"
