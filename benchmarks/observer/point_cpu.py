"""planner's own CPU per point and database sessions per point (issue 47), without root or a device.

    python benchmarks/observer/point_cpu.py [--points 2,16] [--repeat 3] [--collect iostat,mpstat,vmstat,awr]
                                           [--profile N] [--checkout TREE]

A fio sweep (psync reads of a 256 KiB file, one point per block size) on a stand-in host (local transport,
planner/rehearsal/standins: sqlplus answers the AWR snapshots and reports), `planner apply --no-report`, each
run a fresh process. planner's own CPU is the apply process's RUSAGE_SELF (every thread of it, none of its
children: fio, the samplers, the stand-in sqlplus are what a bare loop would run too); the per point cost is
the marginal one, (CPU(big) - CPU(small)) / (big - small), so start-up and the run's end are paid once.
Sessions per point: sqlplus commands in the run's commands.jsonl. CPU, not wall: the machine is shared. With
--profile N the big sweep runs once more under cProfile (every thread) and the N costliest functions print.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import resource, sys
sys.path.insert(0, {root!r})
from planner.cli.main import main
code = main({argv!r})
r = resource.getrusage(resource.RUSAGE_SELF)
c = resource.getrusage(resource.RUSAGE_CHILDREN)
print("CPU", code, r.ru_utime + r.ru_stime, c.ru_utime + c.ru_stime, file=sys.__stderr__)
"""

SIZES = ["1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"]


def world(work: Path, npoints: int, collect: list[str]) -> tuple[Path, Path]:
    """A stand-in host and a plan of ``npoints`` fio points; the plan and the inventory."""
    from planner.rehearsal.standins import DEFAULT_HOME, install_standins
    root = work / "hosts" / "alpha"
    if not root.exists():
        install_standins(root)
        (root / "data").mkdir(parents=True)
    (work / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                    f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_diagnostics_pack=true\n")
    sizes = SIZES[:min(npoints, len(SIZES))]
    repeat = -(-npoints // len(sizes))  # a multiple of the sizes: points_of says how many it is
    items = "\n".join(f"      - {c}: {{}}" for c in collect)
    plan = work / f"sweep{npoints}.yaml"
    plan.write_text(f"plan: sweep{npoints}\nplays:\n  - name: sweep\n    hosts: lab\n    collect:\n{items}\n"
                    f"    workloads:\n      - name: fio sweep\n        fio: {{target: /data/f.dat, rw: read, "
                    f"bs: [{', '.join(sizes)}], size: 256k, ioengine: psync, repeat: {repeat}}}\n")
    return plan, work / "hosts.ini"


def once(work: Path, plan: Path, inventory: Path, checkout: Path) -> tuple[float, float, int]:
    """planner's own CPU in one apply, its children's, and its sqlplus sessions."""
    runs = Path(tempfile.mkdtemp(dir=work, prefix="runs-"))
    argv = ["apply", str(plan), "-i", str(inventory), "--runs-dir", str(runs), "--no-report"]
    p = subprocess.run([sys.executable, "-c", CHILD.format(root=str(checkout), argv=argv)], capture_output=True,
                       text=True, check=False)
    line = next((x for x in p.stderr.splitlines() if x.startswith("CPU ")), None)
    if line is None or line.split()[1] != "0":
        raise SystemExit(f"apply failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    run = next(d for d in runs.iterdir() if d.is_dir())
    sessions = sum(1 for x in (run / "commands.jsonl").read_text().splitlines()
                   if "/bin/sqlplus" in json.loads(x)["command"])
    return float(line.split()[2]), float(line.split()[3]), sessions


def points_of(plan: Path) -> int:
    text = plan.read_text()
    bs = text.split("bs: [")[1].split("]")[0].split(",")
    repeat = int(text.split("repeat: ")[1].split("}")[0])
    return len(bs) * repeat


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", default="2,16", help="the small and the big sweep (points)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--collect", default="iostat,mpstat,vmstat,awr")
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the planner tree to run (e.g. a `git archive` of "
                    "the base), this one by default")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="planner-pointcpu-"))
    small, big = (int(x) for x in a.points.split(","))
    plans = {n: world(work, n, a.collect.split(",")) for n in (small, big)}
    npts = {n: points_of(p) for n, (p, _) in plans.items()}
    cpu: dict[int, list[float]] = {n: [] for n in plans}
    kids: dict[int, list[float]] = {n: [] for n in plans}
    sess: dict[int, int] = {}
    load0 = os.getloadavg()
    for _ in range(a.repeat):
        for n, (plan, inv) in plans.items():  # interleaved: drift hits both sizes alike
            used, theirs, sess[n] = once(work, plan, inv, a.checkout)
            cpu[n].append(used)
            kids[n].append(theirs)
    load1 = os.getloadavg()
    s, b = npts[small], npts[big]
    per = (statistics.median(cpu[big]) - statistics.median(cpu[small])) / (b - s)
    per_kids = (statistics.median(kids[big]) - statistics.median(kids[small])) / (b - s)
    print(f"collect {a.collect}; load {load0[0]:.2f} -> {load1[0]:.2f}; {a.repeat} interleaved rounds; {work}\n")
    print("| points | planner CPU, median (s) | runs (s) | its children's CPU, median (s) | sqlplus sessions |\n"
          "|---:|---:|---|---:|---:|")
    for n in plans:
        print(f"| {npts[n]} | {statistics.median(cpu[n]):.3f} | {', '.join(f'{c:.2f}' for c in cpu[n])} "
              f"| {statistics.median(kids[n]):.3f} | {sess[n]} |")
    print(f"\nper point (marginal): planner's own CPU {per * 1000:.0f} ms, its children's (fio, samplers, shells, "
          f"the stand-in sqlplus) {per_kids * 1000:.0f} ms; sqlplus sessions {(sess[big] - sess[small]) / (b - s):.2f}")
    if a.profile:
        plan, inv = plans[big]
        runs = tempfile.mkdtemp(dir=work, prefix="prof-")
        subprocess.run([sys.executable, str(ROOT / "benchmarks/observer/profile_apply.py"), str(a.profile), "--",
                        "apply", str(plan), "-i", str(inv), "--runs-dir", runs, "--no-report"], check=False,
                       stdout=sys.stdout, stderr=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
