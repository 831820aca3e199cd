"""A long study's cost as it grows (issue 47): one trivial `command` workload repeated N times on localhost.

    python benchmarks/scale/bench.py [--runs 20,200,1000,1500,3000] [--rounds 1] [--out DIR]

Arms, interleaved size by size so the shared machine's drift hits both:
- planner: `planner apply` of a one-play plan, `command: {argv: ["true"]}` with `repeat: N`, local transport;
  then `planner report RUN` of that run on its own (the report of an N-run study: time and peak RSS);
- control: a bare Python loop running `true` N times (subprocess.run), the same programs without planner.

Each arm is a fresh process: wall time, CPU (user+sys of the process and its children) and peak RSS come from
wait4's rusage. The load (os.getloadavg) is noted before each arm. The cost per run at N is the marginal one,
(T(N) - T(smallest)) / (N - smallest): start-up and the run's end are paid once. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PLAN = """\
plan: scale
plays:
  - name: long
    hosts: all
    workloads:
      - name: trivial
        command: {{argv: ["true"]}}
        repeat: {n}
"""
INVENTORY = "all:\n  hosts:\n    localhost:\n      ansible_connection: local\n"
CONTROL = "import subprocess, sys\nfor _ in range(int(sys.argv[1])):\n    subprocess.run(['true'], check=True)\n"


@dataclass(frozen=True)
class Arm:
    name: str
    n: int
    wall_s: float
    cpu_s: float
    peak_mb: float
    load: float


def timed(name: str, n: int, argv: list[str], cwd: Path) -> Arm:
    load = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{name} N={n} exited {proc.returncode}: {err[-2000:]}")
    # ru_maxrss of wait4: the process's own peak (KiB); children (`true`) are tiny and are not planner's
    return Arm(name, n, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, load)


def one_size(n: int, work: Path) -> list[Arm]:
    d = work / f"n{n}"
    d.mkdir()
    (d / "plan.yaml").write_text(PLAN.format(n=n))
    (d / "inv.yml").write_text(INVENTORY)
    (d / "control.py").write_text(CONTROL)
    py = sys.executable
    arms = [timed("control", n, [py, "control.py", str(n)], d),
            timed("planner apply", n, [py, "-m", "planner", "apply", "plan.yaml", "-i", "inv.yml", "--runs-dir",
                                       "runs", "--no-report"], d)]
    [run] = [p for p in (d / "runs").iterdir() if p.is_dir()]
    arms.append(timed("planner report", n, [py, "-m", "planner", "report", str(run), "-o", str(d / "report.md")],
                      d))
    return arms


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", default="20,200,1000,1500,3000")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="keep the run folders here (default: a temp folder)")
    a = p.parse_args()
    sizes = [int(x) for x in a.runs.split(",")]
    arms: list[Arm] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = a.out or Path(tmp)
        for r in range(a.rounds):
            for n in sizes:
                work = base / f"round{r}"
                work.mkdir(parents=True, exist_ok=True)
                arms += one_size(n, work)
                print(" ".join(f"{x.name}={x.wall_s:.1f}s" for x in arms[-3:]), f"N={n}", file=sys.stderr)
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, {platform.platform()}\n")
    print("| arm | N | wall (s) | CPU (s) | peak RSS (MB) | load before | marginal wall per run (ms) | "
          "marginal CPU per run (ms) |\n|---|---|---|---|---|---|---|---|")
    small = min(sizes)
    for x in arms:
        first = next(y for y in arms if y.name == x.name and y.n == small)
        if x.n == small:
            mw = mc = "—"
        else:
            mw = f"{1000 * (x.wall_s - first.wall_s) / (x.n - small):.1f}"
            mc = f"{1000 * (x.cpu_s - first.cpu_s) / (x.n - small):.1f}"
        print(f"| {x.name} | {x.n} | {x.wall_s:.2f} | {x.cpu_s:.2f} | {x.peak_mb:.1f} | {x.load:.2f} | {mw} | {mc} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
