"""Start-up against a bare Python start (issue 47): `planner --version`, `planner --help`, `python -c pass`,
interleaved, each a fresh process of this venv's interpreter (its site, editable finder included, in both).

    python benchmarks/scale/startup.py [--repeat 21] [--plan PLAN -i INVENTORY]

With --plan, `planner apply --check --no-report PLAN -i INVENTORY` is timed too (a one-host plan: what a
verb that reaches hosts loads before the first connection, plus that check). Prints medians (and the load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--plan")
    p.add_argument("-i", dest="inventory")
    a = p.parse_args()
    py = sys.executable
    arms = {"bare python -c pass": [py, "-c", "pass"],
            "planner --version": [py, "-m", "planner", "--version"],
            "planner --help": [py, "-m", "planner", "--help"]}
    if a.plan:
        arms["planner apply --check (one host)"] = [py, "-m", "planner", "apply", "--check", "--no-report", a.plan,
                                                     "-i", a.inventory]
    times: dict[str, list[float]] = {k: [] for k in arms}
    loads = [os.getloadavg()[0]]
    for _ in range(a.repeat):
        for name, argv in arms.items():  # interleaved: drift hits every arm alike
            times[name].append(once(argv))
    loads.append(os.getloadavg()[0])
    bare = statistics.median(times["bare python -c pass"])
    print(f"load {loads[0]:.2f} → {loads[1]:.2f}, {a.repeat} interleaved rounds\n")
    print("| command | median (s) | min (s) | median − bare (s) |\n|---|---|---|---|")
    for name, t in times.items():
        print(f"| {name} | {statistics.median(t):.3f} | {min(t):.3f} | {statistics.median(t) - bare:+.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
