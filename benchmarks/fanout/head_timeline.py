"""The controller's head: from process start to the first TCP connect of a warm apply (issue 47, stop 53).

    python benchmarks/fanout/head_timeline.py [--hosts 1] [--reps 5] [--rtt 0] [--tree PATH] [--report] [--ssh-config]

One lab of N sshds (as bench.py builds it; behind latency_proxy.py at ``--rtt`` ms when not 0), one cold planner
run, then ``--reps`` warm runs, each a fresh process of ``TREE``'s planner under a tracer that stamps (wall:
time.monotonic, CPU: time.process_time) the process's milestones: start (the tracer's first line, before any of
planner is imported), imports of the CLI done (apply.load entered), plan loaded (load_plan_partly returned),
inventory loaded, plan checked, templates compiled (apply's own check of them), load returned, run record
opened (open_record returned: git provenance in it), first TCP connect (socket.create_connection), first exec
(hostlock.start_host entered: the first host's connection is up and its one exec goes out). The tracer
wraps each function the moment its module is executed (a meta-path hook), so it imports nothing early. Medians
per milestone; the process continues to the end (its exit is stamped too).

A measuring aid, not part of planner.
"""

from __future__ import annotations

import argparse
import importlib.abc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# (module, attribute) wrapped; the milestone is stamped when the call returns ("enter:" when it is entered)
MARKS = (("planner.cli.apply", "load", "enter:cli imported"),
         ("planner.plan.loader", "load_plan_partly", "plan loaded"),
         ("planner.inventory.graph", "load_inventory", "inventory loaded"),
         ("planner.plan.check", "check_plan", "plan checked"),
         ("planner.cli.apply", "_template_problems", "templates compiled"),
         ("planner.cli.apply", "load", "load returned"),
         ("planner.engine.runrecord", "open_record", "record opened"),
         ("planner.engine.hostlock", "start_host", "enter:first exec"))
ORDER = ("start", "cli imported", "plan loaded", "inventory loaded", "plan checked", "templates compiled",
         "load returned", "record opened", "first connect", "first exec", "exit")


def _trace(log_path: str, argv: list[str]) -> None:
    import runpy
    import socket
    import threading

    out = open(log_path, "w", buffering=1)  # noqa: SIM115  (held for the whole process)
    lock = threading.Lock()
    seen: set[str] = set()

    def note(what: str) -> None:
        with lock:
            if what not in seen:  # the first of each
                seen.add(what)
                out.write(f"{time.monotonic():.6f} {time.process_time():.6f} {what}\n")

    note("start")
    real_connect = socket.create_connection

    def create_connection(*a: Any, **kw: Any) -> Any:
        note("first connect")
        return real_connect(*a, **kw)

    socket.create_connection = create_connection  # type: ignore[assignment]

    def wrap(fn: Any, label: str) -> Any:
        enter = label.startswith("enter:")

        def wrapped(*a: Any, **kw: Any) -> Any:
            if enter:
                note(label[6:])
            try:
                return fn(*a, **kw)
            finally:
                if not enter:
                    note(label)
        return wrapped

    class Patch(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            if not any(m == name for m, _, _ in MARKS):
                return None
            sys.meta_path.remove(self)
            try:
                import importlib.util
                spec = importlib.util.find_spec(name)
            finally:
                sys.meta_path.insert(0, self)
            loader = spec.loader
            real_exec = loader.exec_module  # type: ignore[union-attr]

            def exec_module(module: Any) -> None:
                real_exec(module)
                for m, attr, label in MARKS:
                    if m == name:
                        setattr(module, attr, wrap(getattr(module, attr), label))
            loader.exec_module = exec_module  # type: ignore[union-attr]
            return spec

    sys.meta_path.insert(0, Patch())
    sys.argv = argv[1:]
    try:
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        note("exit")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--trace":
        _trace(sys.argv[2], sys.argv[4:])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rtt", type=int, default=0)
    ap.add_argument("--tree", action="append", default=[], help="a planner tree (several: interleaved)")
    ap.add_argument("--report", action="store_true", help="without --no-report: the run imports the report's "
                                                          "modules (matplotlib) before its first play, as by default")
    ap.add_argument("--ssh-config", action="store_true", help="with --ssh-config FILE: a file whose one block "
                                                              "matches every host (a controller's ~/.ssh/config)")
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import bench

    trees = [Path(t).resolve() for t in a.tree] or [HERE.parent.parent]
    work = Path(tempfile.mkdtemp(prefix="planner-head-"))
    lab = bench.build_lab(work / "lab", a.hosts)
    proxy = None
    try:
        if a.rtt:
            proxy = bench.Proxy(lab, a.rtt, work / "proxy.log")
            endpoints = proxy.endpoints
            bench.write_known_hosts(lab, endpoints, work / "known_hosts")
        else:
            endpoints = {h.name: (h.address, h.port or 22) for h in lab.hosts}
        bench.write_inventories(lab, endpoints, work / "known_hosts" if a.rtt else lab.known_hosts, work)
        bench.reset_sandboxes(lab)
        argv = bench.tools(None)["planner"].argv(a.hosts, work, "head")
        argv = [x for x in argv if not (a.report and x == "--no-report")]
        if a.ssh_config:  # the inventory's address, port, user and key win (Fabric's precedence): read, then merged
            (work / "ssh_config").write_text("Host *\n  ServerAliveInterval 15\n  ServerAliveCountMax 3\n")
            argv += ["--ssh-config", str(work / "ssh_config")]
        got: dict[Path, list[dict[str, tuple[float, float]]]] = {t: [] for t in trees}
        load0 = os.getloadavg()[0]
        for i in range(a.reps + 1):
            for tree in trees:
                env = bench.tool_env(work, "head", "planner")
                env["PYTHONPATH"] = str(tree)
                log = work / f"{tree.name}-{i}.trace"
                cmd = [sys.executable, str(Path(__file__).resolve()), "--trace", str(log), "--", *argv[1:]]
                with (work / f"{tree.name}-{i}.out").open("wb") as f:
                    rc = subprocess.run(cmd, cwd=HERE, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
                if rc != 0:
                    raise SystemExit(f"planner failed (rc {rc}): see {work}/{tree.name}-{i}.out")
                rows = [line.split(" ", 2) for line in log.read_text().splitlines()]
                if i:  # the first round is cold
                    got[tree].append({w: (float(t), float(c)) for t, c, w in rows})
        print(f"N={a.hosts} warm at {a.rtt} ms RTT, {a.reps} rounds, load {load0:.2f} -> {os.getloadavg()[0]:.2f}")
        for tree, runs in got.items():
            print(f"--- {tree}: milestone, median ms since start (wall / CPU), median ms since the one before")
            before = "start"
            seen = [w for w in ORDER if all(w in r for r in runs)]  # in the order they came (connects may be early)
            for what in sorted(seen, key=lambda w: statistics.median(r[w][0] - r["start"][0] for r in runs)):
                wall = statistics.median((r[what][0] - r["start"][0]) * 1000 for r in runs)
                cpu = statistics.median((r[what][1] - r["start"][1]) * 1000 for r in runs)
                dw = statistics.median((r[what][0] - r[before][0]) * 1000 for r in runs)
                dc = statistics.median((r[what][1] - r[before][1]) * 1000 for r in runs)
                print(f"  {what:20} {wall:8.1f} {cpu:8.1f}   {dw:8.1f} {dc:8.1f}")
                before = what
    finally:
        if proxy is not None:
            proxy.stop()
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
