"""Start-up against a bare Python start (issue 47): `planner --version`, `planner --help`, `python -c pass`,
interleaved, each a fresh process of this venv's interpreter (its site, editable finder included, in both).

    python benchmarks/scale/startup.py [--repeat 21] [--plan PLAN -i INVENTORY] [--checkout TREE]

With --plan, `planner apply --no-report --runs-dir TMP PLAN -i INVENTORY` is timed too (a one-host plan: its
imports, the run, the record and the store's index of it), and the same apply stopped at its first host
command (what it imported and read before touching a host: tests/test_import_time.py checks that module set).
--checkout: the planner tree to run (e.g. `git archive` of a base, for a before figure). Prints medians (and
the load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system, from wait4) of one run: on a loaded machine the CPU is what start-up costs,
    the wall mostly the others' load."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - start, ru.ru_utime + ru.ru_stime


# The apply's first host command on the local transport: stop there (what start-up cost, without the run).
UPTO = """
import os, sys
from planner.transport.connection import LocalConnection
def first(self, *args, **kwargs):
    os._exit(0)
LocalConnection.run = first
from planner.cli.main import main
main(sys.argv[1:])
"""


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--plan")
    p.add_argument("-i", dest="inventory")
    p.add_argument("--checkout", default=None)
    a = p.parse_args()
    if a.checkout:  # every arm's interpreter imports planner from there
        os.environ["PYTHONPATH"] = a.checkout
    py = sys.executable
    arms = {"bare python -c pass": [py, "-c", "pass"],
            "planner --version": [py, "-m", "planner", "--version"],
            "planner --help": [py, "-m", "planner", "--help"]}
    if a.plan:
        runs = tempfile.mkdtemp(prefix="planner-startup-")
        arms["planner apply (one host)"] = [py, "-m", "planner", "apply", "--no-report", "--runs-dir", runs, a.plan,
                                            "-i", a.inventory]
        arms["planner apply, up to its first host command"] = [py, "-c", UPTO, "apply", "--no-report", "--runs-dir",
                                                                runs, a.plan, "-i", a.inventory]
    times: dict[str, list[float]] = {k: [] for k in arms}
    cpu: dict[str, list[float]] = {k: [] for k in arms}
    loads = [os.getloadavg()[0]]
    for _ in range(a.repeat):
        for name, argv in arms.items():  # interleaved: drift hits every arm alike
            wall, used = once(argv)
            times[name].append(wall)
            cpu[name].append(used)
    loads.append(os.getloadavg()[0])
    bare = statistics.median(times["bare python -c pass"])
    bare_cpu = statistics.median(cpu["bare python -c pass"])
    print(f"load {loads[0]:.2f} → {loads[1]:.2f}, {a.repeat} interleaved rounds\n")
    print("| command | wall median (s) | wall min (s) | wall median − bare (s) | CPU median (s) | CPU median − bare "
          "(s) |\n|---|---|---|---|---|---|")
    for name, t in times.items():
        c = statistics.median(cpu[name])
        print(f"| {name} | {statistics.median(t):.3f} | {min(t):.3f} | {statistics.median(t) - bare:+.3f} | "
              f"{c:.3f} | {c - bare_cpu:+.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
