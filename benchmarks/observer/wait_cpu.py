"""CPU of the samplers' first-samples wait alone (issue 47), on the local host, by getrusage, not wall time.

    python benchmarks/observer/wait_cpu.py [--repeat 5] [--checkout TREE]

Each round starts iostat, mpstat and vmstat (interval 1 s) through LocalConnection, waits for their first
samples at once (a point shorter than the interval: the case that waits longest) and stops them. The wait's
CPU is RUSAGE_CHILDREN across wait_for_samples: its shell and every program that shell runs (the samplers
themselves are in a detached group, not our children). Prints each round and the median.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the planner tree to run (a `git archive` of a base)")
    a = ap.parse_args()
    sys.path.insert(0, str(a.checkout))
    from planner.host import Host
    from planner.transport import ostats
    from planner.transport.connection import LocalConnection

    conn = LocalConnection(Host(name="localhost", address="localhost", connection="local"))
    costs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeat):
            sampler = ostats.start(conn, str(Path(tmp, str(i))), interval_s=1)
            try:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                samples = sampler.wait_for_samples()
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
            finally:
                sampler.stop()
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            costs.append(cpu)
            print(f"round {i + 1}: {cpu * 1000:.1f} ms CPU, samples {samples}")
    print(f"median {statistics.median(costs) * 1000:.1f} ms CPU per wait ({a.checkout})")


if __name__ == "__main__":
    main()
