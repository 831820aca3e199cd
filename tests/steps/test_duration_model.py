"""One duration model per step kind (StepType.duration): the rehearsal's lab-time estimate (preflight), the
live progress and the sampling window (window.expected_seconds) and the default timeouts all ask it, so they
cannot disagree (SLB was 10 s to the window and 20 s to preflight; SLOB without run_time none and 300 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.engine.window import expected_seconds
from planner.host import Host
from planner.plan.loader import load_plan
from planner.rehearsal import preflight
from planner.steps import step_class
from planner.steps.base import DEFAULT_TIMEOUT_S, Duration

CASES = [("slb", {"users": 2}, 20.0), ("slb", {"users": 2, "seconds": 30}, 60.0),
         ("slob", {"kit": "/k"}, 300.0), ("slob", {"kit": "/k", "run_time": 120}, 120.0),
         ("fio", {"target": "/d/f", "runtime": "1m", "ramp_time": 5}, 65.0), ("fio", {"target": "/d/f"}, 60.0),
         ("calibrate_io", {"num_physical_disks": 4, "max_latency": 20}, 600.0),
         ("orion", {"luns": ["/dev/sdb"], "run": "oltp", "num_disks": 1, "duration": 10}, None)]


@pytest.mark.parametrize(("kind", "args", "seconds"), CASES)
def test_the_window_and_the_timeout_ask_the_kinds_one_model(kind: str, args: dict[str, object],
                                                            seconds: float | None) -> None:
    model = step_class(kind).duration(args, {})
    assert isinstance(model, Duration)
    if seconds is not None:
        assert model.expected_s == seconds
    assert expected_seconds(kind, args) == model.expected_s
    timeout = step_class(kind)(args).default_timeout_s({})
    assert timeout == (model.budget_s if model.budget_s is not None else DEFAULT_TIMEOUT_S)


def test_slob_without_run_time_is_expected_at_the_kits_300_s_but_budgeted_at_the_hosts_default() -> None:
    slob = step_class("slob")
    assert slob.duration({"kit": "/k"}) == Duration(300.0, None)
    assert slob({"kit": "/k"}).default_timeout_s({"planner_default_timeout_s": 7}) == 7
    assert slob.duration({"kit": "/k", "run_time": "{{ x }}"}).expected_s == 300.0  # unrendered: not a length


def test_preflights_lab_time_is_the_sum_of_the_same_expected_times(tmp_path: Path) -> None:
    (tmp_path / "inventory.yaml").write_text("all:\n  hosts:\n    db1: {ansible_host: 127.0.0.1}\n")
    (tmp_path / "p.yaml").write_text(
        "plan: d\ninventory: inventory.yaml\nplays:\n  - name: p\n    hosts: db1\n    workloads:\n"
        "      - slb: {users: [1, 2]}\n      - calibrate_io: {num_physical_disks: 1, max_latency: 20}\n")
    plan = load_plan(tmp_path / "p.yaml")
    pf = preflight.check(plan, {"p": [Host("db1", "127.0.0.1")]}, {})
    assert pf.lab_seconds == 2 * expected_seconds("slb", {"users": 1}) + expected_seconds("calibrate_io", {})
