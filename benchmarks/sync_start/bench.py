"""Start skew of ``sync_start: true`` across N loopback SSH hosts (issue 15 item 11).

    python benchmarks/sync_start/bench.py [--hosts 30] [--points 5] [--out RESULTS.md]

A lab of N real sshd processes on loopback (planner.rehearsal.lab) runs a plan whose workload is
``date +%s%N``: each host's measured command prints its own clock the moment it starts. Two figures per point:

- planner's: the spread of the wrapper's recorded exec instants (sync_start.json, controller clock);
- independent: max - min of what the commands themselves printed, each corrected by the host's measured clock
  offset (on loopback every host shares the controller's clock, so the offsets are ~0 and this is raw).

The same plan with ``sync_start: false`` gives the unsynchronised spread for comparison (planner's fan-out
starts the hosts' commands one SSH exec after another from its worker threads).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from planner.cli.main import main  # noqa: E402
from planner.rehearsal.lab import build_lab  # noqa: E402

PLAN = """\
plan: sync_bench
plays:
  - name: together
    hosts: all
    sync_start: {sync}
    workloads:
      - name: clock
        command: {{argv: [date, "+%s%N"]}}
        repeat: {points}
"""


def run(tmp: Path, inv: Path, n: int, points: int, sync: bool) -> tuple[list[float], list[float], list[float]]:
    plan = tmp / f"plan-{sync}.yaml"
    plan.write_text(PLAN.format(sync=str(sync).lower(), points=points))
    runs = tmp / f"runs-{sync}"
    rc = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", "-f", str(n)])
    if rc != 0:
        raise SystemExit(f"apply failed: {rc}")
    run_dir = next(p for p in runs.iterdir() if p.is_dir())
    results = [r for r in json.loads((run_dir / "results.json").read_text()) if r["title"] == "clock"]
    synced = json.loads((run_dir / "sync_start.json").read_text()) if sync else []
    offsets = {h: v["clock_offset_ms"] for e in synced for h, v in e["hosts"].items()}
    own: list[float] = []
    planner_spread = [e["spread_ms"] for e in synced]
    lateness = [statistics.quantiles([v["start_ms"] for v in e["hosts"].values()], n=10)[-1] for e in synced]
    for point in sorted({r["point"] for r in results}):
        t = [int(r["data"]["stdout"].strip()) / 1e6 - (offsets.get(r["host"]) or 0.0)
             for r in results if r["point"] == point]
        own.append(max(t) - min(t))
    return planner_spread, own, lateness


def fmt(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} / {max(values):.2f}"


def main_bench() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=30)
    ap.add_argument("--points", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="syncbench-") as d:
        tmp = Path(d)
        t0 = time.monotonic()
        with build_lab(tmp / "lab", a.hosts) as lab:
            inv = tmp / "lab.yml"
            lab.write_inventory(inv)
            load0 = os.getloadavg()[0]
            s_planner, s_own, s_late = run(tmp, inv, a.hosts, a.points, True)
            _, u_own, _ = run(tmp, inv, a.hosts, a.points, False)
            load1 = os.getloadavg()[0]
        took = time.monotonic() - t0
    lines = [
        f"hosts: {a.hosts} loopback sshd, points: {a.points}; {platform.platform()}, "
        f"{os.cpu_count()} CPUs, load average {load0:.1f} -> {load1:.1f}; {took:.0f} s in all",
        "",
        "| start spread across hosts, ms (median / max over points) | value |",
        "|---|---:|",
        f"| sync_start: true — planner's record (sync_start.json) | {fmt(s_planner)} |",
        f"| sync_start: true — the commands' own clocks | {fmt(s_own)} |",
        f"| sync_start: true — 90th percentile host's start after the start time | {fmt(s_late)} |",
        f"| sync_start: false — the commands' own clocks | {fmt(u_own)} |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with a.out.open("a") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
