"""Smoke test of the fan-out benchmark's planner plan (benchmarks/fanout/plan.yaml) on 2 lab hosts: not a timing
test. The first apply changes the hosts, the second finds nothing to change."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.rehearsal.sandbox import add_devices

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PLAN = Path(__file__).resolve().parents[3] / "benchmarks" / "fanout" / "plan.yaml"
DEVICES = ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]


def apply_fanout(inventory: Path, runs: Path) -> dict[str, dict[str, int]]:
    before = set(runs.iterdir()) if runs.exists() else set()
    assert main(["apply", str(PLAN), "-i", str(inventory), "--runs-dir", str(runs), "--no-report",
                 "--keep-prep", "-f", "10"]) == 0
    (record,) = {p for p in runs.iterdir() if p.is_dir()} - before
    recap: dict[str, dict[str, int]] = json.loads((record / "recap.json").read_text())
    return recap


def fanout_inventory(lab: Lab, tmp_path: Path) -> Path:
    """Every lab host gets the benchmark's 4 devices and a result file; returns the lab's inventory."""
    for h in lab.hosts:
        sandbox = lab.sandbox(h.name)
        add_devices(sandbox, DEVICES)
        (sandbox / "tmp").mkdir(exist_ok=True)
        (sandbox / "tmp" / "result.txt").write_text(f"result of {h.name}\n")
    inventory = tmp_path / "inventory.yml"
    lab.write_inventory(inventory)
    return inventory


def test_plan_applies_twice_and_the_second_apply_changes_nothing(make_lab: Callable[..., Lab],
                                                                 tmp_path: Path) -> None:
    lab = make_lab(10)  # issue 3: a plan applies to 10 lab hosts over real SSH, twice
    inventory = fanout_inventory(lab, tmp_path)

    first = apply_fanout(inventory, tmp_path / "runs")
    assert sorted(first) == sorted(h.name for h in lab.hosts)
    assert all(r["changed"] == 2 and r["failed"] == 0 and r["unreachable"] == 0 for r in first.values())
    for h in lab.hosts:
        sandbox = lab.sandbox(h.name)
        for dev in ("sdb", "sdc", "sdd", "sde"):
            assert "[none]" in (sandbox / "sys/block" / dev / "queue/scheduler").read_text()
        assert "*.cpu_count=16" in (sandbox / "tmp" / "init_bench.ora").read_text()

    second = apply_fanout(inventory, tmp_path / "runs")
    assert all(r["changed"] == 0 and r["failed"] == 0 and r["ok"] >= 5 for r in second.values())


def test_the_benchmark_writes_no_absolute_path_of_this_machine() -> None:
    """RESULTS.md is read on other machines: the checkout, the temporary folder and the home folder are named
    portably in the command line and the versions line the benchmark writes."""
    import importlib.util
    import sys
    import tempfile

    spec = importlib.util.spec_from_file_location("fanout_bench", PLAN.parent / "bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)
    repo = PLAN.parent.parent.parent
    line = (f"planner 0.1.0 (from {repo}/planner/__init__.py) --pyinfra {tempfile.gettempdir()}/pyinfra-venv/bin/x "
            f"--out {Path.home()}/r.md --work {tempfile.gettempdir()}")
    shown = bench.portable(line)
    assert str(repo) not in shown and tempfile.gettempdir() + "/" not in shown and str(Path.home()) + "/" not in shown
    assert shown == ("planner 0.1.0 (from ./planner/__init__.py) --pyinfra $TMPDIR/pyinfra-venv/bin/x "
                     "--out ~/r.md --work $TMPDIR")
