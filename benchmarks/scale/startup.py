"""Start-up against a bare Python start (issue 47): `planner --version`, `planner --help`, `python -c pass`,
interleaved, each a fresh process of this venv's interpreter (its site, editable finder included, in both).

    python benchmarks/scale/startup.py [--repeat 21] [--plan PLAN -i INVENTORY] [--checkout TREE ...]
                                       [--no-compile]

With --plan, `planner apply --no-report --runs-dir TMP PLAN -i INVENTORY` is timed too (a one-host plan: its
imports, the run, the record and the store's index of it), and the same apply stopped at its first host
command (what it imported and read before touching a host: tests/test_import_time.py checks that module set).
--checkout: the planner tree to run (e.g. `git archive` of a base, for a before figure); given more than once,
every tree's arms run in each round (base and branch interleaved, so the others' load hits both alike).
Prints medians (and the load).

Each tree is byte-compiled first (`compileall`, as `pip install` does): this machine's environment sets
PYTHONDONTWRITEBYTECODE, so an uncompiled tree (an editable checkout, a `git archive`) is compiled from source at
every start, ~0.15 s of CPU for the ~95 modules an apply loads that no installed planner pays (the bare Python's
standard library is compiled). --no-compile times the trees as they are.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time


def once(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system, from wait4) of one run: on a loaded machine the CPU is what start-up costs,
    the wall mostly the others' load."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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


def _arms(py: str, tag: str, plan: str | None, inventory: str | None) -> dict[str, list[str]]:
    arms = {f"planner --version{tag}": [py, "-m", "planner", "--version"],
            f"planner --help{tag}": [py, "-m", "planner", "--help"]}
    if plan:
        runs = tempfile.mkdtemp(prefix="planner-startup-")
        arms[f"planner apply (one host){tag}"] = [py, "-m", "planner", "apply", "--no-report", "--runs-dir", runs,
                                                  plan, "-i", str(inventory)]
        arms[f"planner apply, up to its first host command{tag}"] = [py, "-c", UPTO, "apply", "--no-report",
                                                                     "--runs-dir", runs, plan, "-i", str(inventory)]
    return arms


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--plan")
    p.add_argument("-i", dest="inventory")
    p.add_argument("--checkout", action="append", default=[])
    p.add_argument("--no-compile", action="store_true")
    a = p.parse_args()
    py = sys.executable
    trees: list[str | None] = a.checkout or [None]
    arms: dict[str, list[str]] = {"bare python -c pass": [py, "-c", "pass"]}
    envs: dict[str, dict[str, str]] = {}
    for tree in trees:
        env = dict(os.environ)
        if tree:  # every arm's interpreter imports planner from there
            env["PYTHONPATH"] = tree
        if not a.no_compile:
            where = subprocess.run([py, "-c", "import planner, os; print(os.path.dirname(planner.__file__))"],
                                   env=env, capture_output=True, text=True, check=True).stdout.strip()
            compileall.compile_dir(where, quiet=1)
        tag = f" [{tree}]" if len(trees) > 1 else ""
        for name, argv in _arms(py, tag, a.plan, a.inventory).items():
            arms[name], envs[name] = argv, env
    times: dict[str, list[float]] = {k: [] for k in arms}
    cpu: dict[str, list[float]] = {k: [] for k in arms}
    loads = [os.getloadavg()[0]]
    for _ in range(a.repeat):
        for name, argv in arms.items():  # interleaved: drift hits every arm alike
            wall, used = once(argv, envs.get(name))
            times[name].append(wall)
            cpu[name].append(used)
    loads.append(os.getloadavg()[0])
    bare = statistics.median(times["bare python -c pass"])
    bare_cpu = statistics.median(cpu["bare python -c pass"])
    print(f"load {loads[0]:.2f} → {loads[1]:.2f}, {a.repeat} interleaved rounds, "
          f"{'source (no bytecode)' if a.no_compile else 'byte-compiled'}\n")
    print("| command | wall median (s) | wall min (s) | wall median − bare (s) | CPU median (s) | CPU median − bare "
          "(s) |\n|---|---|---|---|---|---|")
    for name, t in times.items():
        c = statistics.median(cpu[name])
        print(f"| {name} | {statistics.median(t):.3f} | {min(t):.3f} | {statistics.median(t) - bare:+.3f} | "
              f"{c:.3f} | {c - bare_cpu:+.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
