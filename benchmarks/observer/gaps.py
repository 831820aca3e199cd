"""Dead time per point by wall, from the run's own records (issue 47): the gap between one point's fio command
ending and the next one's starting, taken from commands.jsonl (each entry's ``time`` is stamped when the command
returned; its start is ``time - duration_s``), and what fills each gap.

    python benchmarks/observer/gaps.py [--points 21] [--runtime 3] [--collect iostat,mpstat,vmstat,awr]
                                      [--repeat 1] [--checkout TREE] [--pool WORK...]

A fio sweep (``--points`` points, iodepth 1..N, psync-free libaio reads of a 4 MiB file on the stand-in host,
time-based ``--runtime`` s at a fixed 200 IOPS so fio itself hardly loads the shared machine), `planner apply
--no-report`, local transport, the Oracle stand-ins (planner/rehearsal/standins: its sqlplus takes the AWR
snapshots and reports). ``--points`` points give ``--points - 1`` gaps. Per gap: every host command inside it by
what it is (its duration), and the rest, planner's own on the controller (fetch, parse, records, engine).
Printed: median and p90 of the gap and of each part, and the load. No root, no device.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# what a host command is, from the fixed text planner sends (the first key found names it)
DB = "database session (the stand-in's sqlplus)"
KINDS = (("/bin/sqlplus", DB),
         ("fio --output-format", "fio"),
         ("marker=$2", "OS samplers: start"), ("limit=$2", "OS samplers: wait for their first samples"),
         ("kill -s", "OS samplers: stop"), ("ps -e", "OS samplers: stop"), ("ostats.pgid", "OS samplers: stop"),
         ("rm -rf", "point folder emptied"), ('[ -s "$f" ]', "which outputs exist (before the fetch)"),
         ("fiolog_", "which outputs exist (before the fetch)"))
OWN = "planner's own (controller: fetch, parse, records, engine; and any host command not logged)"
COUNT = "host commands in the gap (logged in commands.jsonl), count"


def world(work: Path, points: int, runtime: int, collect: list[str], checkout: Path) -> tuple[Path, Path]:
    """A stand-in host with a 4 MiB data file and a plan of ``points`` fio points; the plan and the inventory."""
    sys.path.insert(0, str(checkout))
    from planner.rehearsal.standins import DEFAULT_HOME, install_standins
    root = work / "hosts" / "alpha"
    if not root.exists():
        install_standins(root)
        (root / "data").mkdir(parents=True)
        (root / "data" / "f.dat").write_bytes(os.urandom(4 << 20))
    (work / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                    f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_diagnostics_pack=true\n")
    items = "\n".join(f"      - {c}: {{}}" for c in collect)
    depths = ", ".join(str(d) for d in range(1, points + 1))
    plan = work / f"gaps{points}.yaml"
    plan.write_text(f"plan: gaps{points}\nplays:\n  - name: sweep\n    hosts: lab\n    collect:\n{items}\n"
                    f"    workloads:\n      - name: fio sweep\n        fio: {{target: /data/f.dat, rw: randread, "
                    f"bs: 4k, iodepth: [{depths}], ioengine: libaio, direct: 0, runtime: {runtime}, "
                    f"job: {{name: gaps, rate_iops: 200}}}}\n")
    return plan, work / "hosts.ini"


def apply(work: Path, plan: Path, inventory: Path, checkout: Path) -> Path:
    runs = Path(tempfile.mkdtemp(dir=work, prefix="runs-"))
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    p = subprocess.run([sys.executable, "-m", "planner", "apply", str(plan), "-i", str(inventory), "--runs-dir",
                        str(runs), "--no-report"], capture_output=True, text=True, env=env, cwd=checkout, check=False)
    if p.returncode != 0:
        raise SystemExit(f"apply failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return next(d for d in runs.iterdir() if d.is_dir())


def _when(stamp: str) -> float:
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC).timestamp()


def gaps(run: Path) -> list[dict[str, float]]:
    """Each gap between two fio commands: its wall ("gap") and its parts, seconds."""
    cmds = []
    for line in (run / "commands.jsonl").read_text().splitlines():
        r = json.loads(line)
        end = _when(r["time"])
        what = next((name for key, name in KINDS if key in r["command"]), "other host commands")
        cmds.append((end - float(r["duration_s"]), end, what))
    cmds.sort()
    fios = [i for i, c in enumerate(cmds) if c[2] == "fio"]
    out = []
    for a, b in zip(fios, fios[1:], strict=False):
        parts: dict[str, float] = {"gap": cmds[b][0] - cmds[a][1], COUNT: float(b - a - 1)}
        for _, _, what in cmds[a + 1:b]:
            parts.setdefault(what, 0.0)
        for start, end, what in cmds[a + 1:b]:
            parts[what] += end - start
        parts[OWN] = parts["gap"] - sum(v for k, v in parts.items() if k not in ("gap", COUNT))
        out.append(parts)
    return out


def p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))]


def table(all_gaps: list[dict[str, float]]) -> list[str]:
    keys = sorted({k for g in all_gaps for k in g if k not in ("gap", COUNT)},
                  key=lambda k: -statistics.median([g.get(k, 0.0) for g in all_gaps]))
    rows = [f"| **the gap** (fio end -> next fio start) | {statistics.median([g['gap'] for g in all_gaps]):.3f} "
            f"| {p90([g['gap'] for g in all_gaps]):.3f} | {statistics.fmean([g['gap'] for g in all_gaps]):.3f} |"]
    for k in keys:
        xs = [g.get(k, 0.0) for g in all_gaps]
        rows.append(f"| {k} | {statistics.median(xs):.3f} | {p90(xs):.3f} | {statistics.fmean(xs):.3f} |")
    db = [g["gap"] - g.get(DB, 0.0) for g in all_gaps]
    if any(DB in g for g in all_gaps):  # what is left when the database's own session is taken out
        rows.insert(1, f"| the gap without the database session | {statistics.median(db):.3f} | {p90(db):.3f} "
                       f"| {statistics.fmean(db):.3f} |")
    n = [g[COUNT] for g in all_gaps]
    rows.append(f"| {COUNT} | {statistics.median(n):.0f} | {p90(n):.0f} | {statistics.fmean(n):.2f} |")
    return ["| per gap, s | median | p90 | mean |", "|---|---:|---:|---:|", *rows]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=21)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--collect", default="iostat,mpstat,vmstat,awr")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the planner tree to run (this one by default)")
    ap.add_argument("--pool", type=Path, nargs="+", default=None, help="no run: the gaps of these earlier runs' "
                    "work folders (as printed), pooled")
    a = ap.parse_args()
    if a.pool:
        found = [g for w in a.pool for run in sorted(w.glob("runs-*/*")) if run.is_dir() for g in gaps(run)]
        print(f"{len(found)} gaps pooled from {', '.join(map(str, a.pool))}\n\n" + "\n".join(table(found)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="planner-gaps-"))
    plan, inv = world(work, a.points, a.runtime, a.collect.split(","), a.checkout)
    load0 = os.getloadavg()
    found: list[dict[str, float]] = []
    for _ in range(a.repeat):
        found += gaps(apply(work, plan, inv, a.checkout))
    load1 = os.getloadavg()
    print(f"collect {a.collect}; {a.repeat} run(s) of {a.points} points of {a.runtime} s, {len(found)} gaps; "
          f"load {'/'.join(f'{x:.2f}' for x in load0)} -> {'/'.join(f'{x:.2f}' for x in load1)}; {work}\n")
    print("\n".join(table(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
