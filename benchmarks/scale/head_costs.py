"""What a planner apply does before it touches a host, counted (issue 47, stop 54): modules imported,
dataclasses created, enums created and regexes compiled, each with the CPU it took, per module.

    python benchmarks/scale/head_costs.py [--plan local|fanout] [--hosts 1] [--reps 5] [--tree PATH ...]
                                          [--top 25] [--no-compile]

``local``: a one-host `command: {argv: ["true"]}` plan on the local transport, stopped at its first host command
(LocalConnection.run: what benchmarks/scale/startup.py's "up to its first host command" arm times). ``fanout``:
benchmarks/fanout/plan.yaml over SSH to ``--hosts`` hosts, stopped at the first TCP connect
(socket.create_connection: nothing listens, none is needed). Each repetition is a fresh process of ``TREE``'s
planner; trees are interleaved (tree A, tree B, tree A, ...) and byte-compiled first (as pip install does).

In the process, before planner is imported: dataclasses._process_class, re's compiler (a pattern not in re's
cache) and enum.EnumType.__new__ are wrapped to note each call's CPU (time.process_time) against the module whose
code made it (the class's module; the first frame outside re/enum/functools for a pattern). Nested costs are not
double counted: an enum or a pattern made inside a dataclass's creation is the dataclass's. The wrapping adds a
few µs a call. CPU at the stop, median over the repetitions; per-module figures from the same runs.

A measuring aid, not part of planner.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
FANOUT = HERE.parent / "fanout"

PROBE = r"""
import time
start = time.process_time()  # the wrapped modules are imported by planner anyway: counted
import json, os, sys, dataclasses, enum, re, re._compiler as _rc
notes = []  # (what, module, seconds, detail)
depth = [0]

def _who():
    f = sys._getframe(3)  # past this, the lambda and the wrapper
    while f is not None and f.f_globals.get("__name__", "").split(".")[0] in ("re", "enum", "functools", "sre_compile"):
        f = f.f_back
    return f.f_globals.get("__name__", "?") if f is not None else "?"

def timed(what, real, module_of, detail_of):
    def call(*a, **kw):
        depth[0] += 1
        t = time.process_time()
        try:
            return real(*a, **kw)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                notes.append((what, module_of(a), time.process_time() - t, detail_of(a)))
    return call

def _doc(a):  # a class without a docstring pays inspect.signature for one
    return a[0].__qualname__ + ("" if a[0].__dict__.get("__doc__") else " (no docstring)")

dataclasses._process_class = timed("dataclass", dataclasses._process_class, lambda a: a[0].__module__, _doc)
_rc.compile = timed("regex", _rc.compile, lambda a: _who(), lambda a: repr(a[0])[:60])
_enum_new = enum.EnumType.__new__
enum.EnumType.__new__ = timed("enum", _enum_new, lambda a: a[3].get("__module__", "?"), lambda a: a[1])

import threading
_first = threading.Lock()

def stop(*a, **kw):  # the first caller (of many hosts' threads) writes, then ends the process; the others wait
    _first.acquire()
    cpu = time.process_time() - start
    out = {"cpu": cpu, "modules": sorted(sys.modules), "notes": notes}
    with open(os.environ["HEAD_COSTS_OUT"] + ".tmp", "w") as f:
        json.dump(out, f)
    os.rename(os.environ["HEAD_COSTS_OUT"] + ".tmp", os.environ["HEAD_COSTS_OUT"])
    os._exit(0)

if os.environ["HEAD_COSTS_STOP"] == "command":
    from planner.transport.connection import LocalConnection
    LocalConnection.run = stop
    import planner.cli.early_imports as early  # the tail's import thread would race the head: not measured here
    early.start = lambda names, kind_findings: None
else:
    import socket
    socket.create_connection = stop
from planner.cli.main import main
main(sys.argv[1:])
"""

LOCAL_PLAN = 'plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n      - name: say\n' \
             '        command: {argv: ["true"]}\n'


def _setup(work: Path, plan: str, hosts: int) -> tuple[list[str], str]:
    """The apply's arguments and where it stops."""
    runs = str(work / "runs")
    if plan == "local":
        (work / "plan.yaml").write_text(LOCAL_PLAN)
        (work / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
        return ["apply", "--no-report", "--runs-dir", runs, str(work / "plan.yaml"), "-i",
                str(work / "hosts.ini")], "command"
    key = work / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    known = work / "known_hosts"
    known.write_text("")
    lines = ["all:", "  hosts:"]
    for i in range(hosts):
        lines += [f"    h{i:03}:", "      ansible_host: 127.0.0.1", f"      ansible_port: {40000 + i}",
                  "      ansible_user: oracle", f"      ansible_ssh_private_key_file: {key}",
                  f"      ansible_ssh_common_args: -o UserKnownHostsFile={known} -o StrictHostKeyChecking=yes",
                  f"      planner_root: {work / 'sandbox'}", f"      planner_known_hosts: {known}"]
    (work / "inventory.yml").write_text("\n".join(lines) + "\n")
    return ["apply", str(FANOUT / "plan.yaml"), "-i", str(work / "inventory.yml"), "--runs-dir", runs,
            "--no-report", "--keep-prep", "-f", str(max(hosts, 5))], "connect"


def _once(tree: Path, argv: list[str], stop: str, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), HEAD_COSTS_OUT=str(out), HEAD_COSTS_STOP=stop)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=out.parent, env=env, capture_output=True,
                          text=True)
    if not out.exists():
        raise SystemExit(f"{tree}: the probe did not reach its stop (rc {done.returncode}):\n{done.stderr[-3000:]}")
    got: dict = json.loads(out.read_text())
    out.unlink()
    return got


def _report(tree: Path, runs: list[dict], top: int) -> None:
    first = runs[0]
    by_kind: dict[str, list[float]] = defaultdict(list)
    for r in runs:
        sums: dict[str, float] = defaultdict(float)
        for what, _, secs, _ in r["notes"]:
            sums[what] += secs
        for what in ("dataclass", "enum", "regex"):
            by_kind[what].append(sums[what])
    counts = defaultdict(int)
    for what, _, _, _ in first["notes"]:
        counts[what] += 1
    mods = first["modules"]
    ours = [m for m in mods if m.split(".")[0] == "planner"]
    print(f"--- {tree}: {len(runs)} runs, CPU at the stop median {1000 * statistics.median(r['cpu'] for r in runs):.1f}"
          f" ms (min {1000 * min(r['cpu'] for r in runs):.1f}); modules {len(mods)} (planner's {len(ours)})")
    for what in ("dataclass", "enum", "regex"):
        print(f"  {what + 's':11} {counts[what]:4}  median {1000 * statistics.median(by_kind[what]):6.1f} ms")
    per: dict[tuple[str, str], list[float]] = defaultdict(list)
    n_per: dict[tuple[str, str], int] = defaultdict(int)
    for r in runs:
        acc: dict[tuple[str, str], float] = defaultdict(float)
        for what, module, secs, _ in r["notes"]:
            acc[(module, what)] += secs
        for k, v in acc.items():
            per[k].append(v)
    for what, module, _, _ in first["notes"]:
        n_per[(module, what)] += 1
    rows = sorted(per, key=lambda k: -statistics.median(per[k]))[:top]
    print("  | module | made | n | median ms |")
    for module, what in rows:
        print(f"  | {module} | {what} | {n_per[(module, what)]} | {1000 * statistics.median(per[(module, what)]):.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", choices=("local", "fanout"), default="local")
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], help="a planner tree (several: interleaved)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--modules", action="store_true", help="print the first run's module list too")
    ap.add_argument("--details", action="store_true", help="print each class and pattern of the first run")
    a = ap.parse_args()
    trees = [Path(t).resolve() for t in a.tree] or [HERE.parent.parent]
    if not a.no_compile:
        for t in trees:
            compileall.compile_dir(str(t / "planner"), quiet=1)
    work = Path(tempfile.mkdtemp(prefix="planner-head-costs-"))
    argv, stop = _setup(work, a.plan, a.hosts)
    load0 = os.getloadavg()[0]
    got: dict[Path, list[dict]] = {t: [] for t in trees}
    for i in range(a.reps + 1):
        for t in trees:
            r = _once(t, argv, stop, work / "out.json")
            if i:  # the first is cold (page cache)
                got[t].append(r)
    print(f"plan {a.plan}, {a.hosts} host(s), stop at the first {'host command' if stop == 'command' else 'connect'},"
          f" {a.reps} runs per tree, load {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    for t, runs in got.items():
        _report(t, runs, a.top)
        if a.modules:
            print("  modules:", " ".join(runs[0]["modules"]))
        if a.details:
            for what, module, secs, detail in sorted(runs[0]["notes"], key=lambda n: (n[0], n[1])):
                print(f"  {what:9} {module:40} {1000 * secs:6.2f} ms  {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
