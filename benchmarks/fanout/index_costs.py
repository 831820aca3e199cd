"""The apply's plan load/check and its store push, each in a fresh process, by CPU (issue 47, stop 53).

    python benchmarks/fanout/index_costs.py RUN_FOLDER [--hosts 30,200] [--rounds 7] [--base TREE]

RUN_FOLDER: a warm run of plan.yaml with its runs-dir's planner.sqlite beside it (profile_warm.py --top 0 leaves
one under its work folder; TMPDIR=/var/tmp/... keeps it). For each tree (this checkout, and --base, interleaved
base, branch, base, branch): ``push``: an apply's modules imported, then the first push_after_apply into a copy of
the store without the run (the plan handed down where the tree takes it); ``load N``: cli.apply.load of plan.yaml
with an N-host inventory shaped as bench.py's, its first call and a second. Medians of process CPU. Both trees
should have their bytecode compiled (python -m compileall -q planner): this environment sets
PYTHONDONTWRITEBYTECODE, and a module compiled at every start is not what a user's install pays.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PUSH = r"""
import argparse, inspect, shutil, sqlite3, sys, tempfile, time
from pathlib import Path
import planner.cli.apply, planner.engine.runner, planner.engine.runrecord, planner.engine.pool, planner.steps
from planner.plan.loader import load_plan
run, plan = Path(sys.argv[1]), load_plan(Path(sys.argv[2]))  # the apply holds its plan already
d = Path(tempfile.mkdtemp())
shutil.copy(run.parent / "planner.sqlite", d / "planner.sqlite")
c = sqlite3.connect(d / "planner.sqlite", isolation_level=None)
for t in ("measurements", "run_hosts", "run_files", "artifacts", "findings", "verdicts", "series", "runs"):
    c.execute(f"DELETE FROM {t} WHERE {'id' if t == 'runs' else 'run_id'} = ?", (run.name,))
c.close()
from planner.cli.store import push_after_apply, store_url
url = store_url(argparse.Namespace(store=None, runs_dir=d))
kw = {"plan": plan} if "plan" in inspect.signature(push_after_apply).parameters else {}
t = time.process_time()
push_after_apply(url, run, print, **kw)
print(time.process_time() - t)
shutil.rmtree(d)
"""

LOAD = r"""
import sys, time
from pathlib import Path
from planner.cli.apply import load
plan, inv = Path(sys.argv[1]), Path(sys.argv[2])
for _ in range(2):
    t = time.process_time(); load(plan, inv, []); print(time.process_time() - t)
"""


def inventory(n: int, folder: Path) -> Path:
    """An n-host YAML inventory as bench.py writes one (hosts need not exist: load connects to none)."""
    lines = ["all:", "  hosts:"]
    for i in range(1, n + 1):
        lines += [f"    lab{i:03d}:", f"      ansible_host: 127.0.{i // 250}.{i % 250 + 2}",
                  f"      ansible_port: {30000 + i}", "      ansible_user: root",
                  f"      ansible_ssh_private_key_file: {folder}/client_key",
                  f"      ansible_ssh_common_args: -o UserKnownHostsFile={folder}/known_hosts"
                  " -o StrictHostKeyChecking=yes",
                  f"      planner_root: {folder}/hosts/lab{i:03d}", f"      planner_known_hosts: {folder}/known_hosts"]
    path = folder / f"inventory{n}.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def cpu(tree: Path, code: str, *args: str) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=tree, capture_output=True, text=True,
                         check=True).stdout.split()
    return [float(x) for x in out[-2:]] if code is LOAD else [float(out[-1])]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run", type=Path)
    ap.add_argument("--hosts", default="30,200")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--base", type=Path, help="another tree to measure, interleaved (git archive of main)")
    a = ap.parse_args()
    trees = {"branch": HERE.parent.parent, **({"base": a.base.resolve()} if a.base else {})}
    work = Path(tempfile.mkdtemp(prefix="planner-index-costs-"))
    cells = [("push", PUSH, (str(a.run.resolve()), str(HERE / "plan.yaml")))]
    cells += [(f"load N={n}", LOAD, (str(HERE / "plan.yaml"), str(inventory(n, work))))
              for n in (int(x) for x in a.hosts.split(","))]
    load0 = os.getloadavg()[0]
    for name, code, args in cells:
        got: dict[str, list[list[float]]] = {t: [] for t in trees}
        for _ in range(a.rounds):
            for t, tree in trees.items():
                got[t].append(cpu(tree, code, *args))
        for t, rows in got.items():
            meds = " / ".join(f"{statistics.median(col) * 1000:.1f}" for col in zip(*rows, strict=True))
            calls = "; first / second call" if code is LOAD else ""
            print(f"{name:10} {t:6} {meds} ms CPU (median of {a.rounds}{calls})")
    print(f"load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
