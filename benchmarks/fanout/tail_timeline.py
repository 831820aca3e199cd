"""The controller's tail: a warm apply's time from the last SSH packet to the process's exit (issue 47, stop 53).

    python benchmarks/fanout/tail_timeline.py [--hosts 1] [--rtt 50] [--reps 3] [TREE ...]

N lab hosts (as bench.py builds them) behind latency_proxy.py at ``--rtt`` ms; one cold planner run warms them,
then each TREE (a planner source tree, e.g. a ``git archive`` of main; default this checkout) runs warm ``--reps``
times, trees interleaved. Each run is a fresh process under a tracer (``tail_timeline.py --trace LOG -- ARGV``)
that stamps, on the shared monotonic clock and with the process's CPU (every thread), the last SSH packet
paramiko sent or read and the points of the tail: the locks' release, the pool's close, the record finished,
``Runner.run`` returned, the store push, ``main`` returned, Python's thread shutdown and the last atexit handler.
The parent stamps the process's exit (when wait4 returns it, with its whole CPU). Prints, per tree, the median
of each point relative to the last packet (wall and CPU).

The hooks are set as each module is first executed (an import finder), so imports done only at the tail stay in
the tail. A measuring aid, not part of planner.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.abc
import importlib.machinery
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent

# (module, attribute path, label): a function wrapped to stamp its start and end
POINTS = (
    ("planner.engine.pool", "HostPool.connect", "connect"),
    ("planner.engine.pool", "HostPool.release", "release"),
    ("planner.engine.pool", "HostPool.close", "pool.close"),
    ("planner.engine.runrecord", "finish_record", "finish_record"),
    ("planner.engine.runner", "Runner.run", "Runner.run"),
    ("planner.cli.apply", "_report_and_index", "report+index"),
    ("planner.cli.main", "main", "main"),
)

# TAIL_COSTS=FILE (stop 54): the CPU of the calling thread (time.thread_time) inside each of these, summed over
# calls, written to FILE at exit: where a play's CPU after its first command goes, without a profiler's overhead
# (a wrapper's own cost is ~2 us a call). Inclusive: a function's figure holds the wrapped ones it calls.
COSTS = (
    ("planner.engine.runner", "Runner._simple_step"),
    ("planner.engine.runner", "Runner.add"),
    ("planner.engine.runner", "Runner._on_save"),
    ("planner.engine.runner", "Runner.save_results"),
    ("planner.engine.pool", "HostPool._report"),
    ("planner.engine.pool", "HostPool.release"),
    ("planner.engine.pool", "HostPool.close"),
    ("planner.engine.execute", "run_step"),
    ("planner.engine.execute", "make_context"),
    ("planner.engine.execute", "_attempt"),
    ("planner.engine.execute", "artifact_folder"),
    ("planner.engine.restore", "RestoreLog.add"),
    ("planner.engine.restore", "RestoreLog._write_shared"),
    ("planner.engine.restore_log", "SealedLog.save"),
    ("planner.engine.runrecord", "RunRecord.note_resolved"),
    ("planner.engine.runrecord", "RunRecord.log_command"),
    ("planner.engine.runrecord", "RunRecord.scrub_artifacts"),
    ("planner.engine.runrecord", "RunRecord.write"),
    ("planner.engine.runrecord", "RunRecord.write_meta"),
    ("planner.engine.runrecord", "finish_record"),
    ("planner.engine.runstate", "ResultLog.save"),
    ("planner.engine.runstate", "PlayVars.of"),
    ("planner.engine.console", "Console.line"),
    ("planner.engine.console", "Console.result"),
    ("planner.engine.console", "Console.recap"),
    ("planner.plan.templating", "render"),
    ("planner.steps", "step_class"),
    ("planner.steps.prep_os", "IoScheduler.save"),
    ("planner.steps.prep_os", "IoScheduler.apply"),
    ("planner.steps.generic", "_FileStep.save"),
    ("planner.steps.generic", "_FileStep.apply"),
    ("planner.steps.generic", "Command.apply"),
    ("planner.steps.generic", "Fetch.apply"),
    ("planner.engine.probes", "ProbedConnection.run"),
    ("planner.engine.probes", "ProbedConnection.get"),
    ("planner.engine.probes", "unwrap"),
)
COST: dict[str, list[float]] = {}  # label -> [calls, CPU s]


# -- the tracer (runs inside the tool's process) ---------------------------------------------------------------

STAMPS: list[tuple[float, float, str]] = []
LAST_PACKET = [0.0, 0.0]


def stamp(what: str) -> None:
    STAMPS.append((time.monotonic(), time.process_time(), what))


MODULES: list[set[str]] = []  # TAIL_MODULES=FILE: the modules first imported after the first connect
PROFILE: list[Any] = []  # TAIL_PROFILE=FILE: the main thread profiled from the connect's end to main's end


def _wrapped(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
    def inner(*a: Any, **kw: Any) -> Any:
        stamp(f"{label} begins")
        if label == "main" and os.environ.get("TAIL_PROFILE"):
            import cProfile
            PROFILE.append(cProfile.Profile())
        try:
            return fn(*a, **kw)
        finally:
            stamp(f"{label} ends")
            if label == "connect" and os.environ.get("TAIL_MODULES") and not MODULES:
                MODULES.append(set(sys.modules))
            if label == "main" and MODULES:
                with open(os.environ["TAIL_MODULES"], "w") as f:
                    f.write("\n".join(sorted(set(sys.modules) - MODULES[0])) + "\n")
            if label == "connect" and PROFILE:
                PROFILE[0].enable()
                _profile_workers()
            if label == "main" and PROFILE:
                PROFILE[0].disable()
                PROFILE[0].dump_stats(os.environ["TAIL_PROFILE"])
                if len(PROFILE) > 1:
                    PROFILE[1].dump_stats(os.environ["TAIL_PROFILE"] + ".workers")
    return inner


def _profile_workers() -> None:
    """The worker threads' work items, each under the one profile for the workers (one at a time)."""
    import cProfile
    from concurrent.futures import thread

    if len(PROFILE) > 1:
        return
    PROFILE.append(cProfile.Profile())
    lock = threading.Lock()
    real = thread._WorkItem.run

    def run(self):  # type: ignore[no-untyped-def]
        with lock:
            PROFILE[1].enable()
            try:
                return real(self)
            finally:
                PROFILE[1].disable()
    thread._WorkItem.run = run  # type: ignore[method-assign]


def _costed(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
    got = COST.setdefault(label, [0, 0.0])

    def inner(*a: Any, **kw: Any) -> Any:
        t = time.thread_time()
        try:
            return fn(*a, **kw)
        finally:
            got[0] += 1
            got[1] += time.thread_time() - t
    return inner


def _hook(module: ModuleType) -> None:
    if os.environ.get("TAIL_COSTS"):
        for name, attr in COSTS:
            if name == module.__name__:
                owner: Any = module
                *path, last = attr.split(".")
                for p in path:
                    owner = getattr(owner, p)
                setattr(owner, last, _costed(getattr(owner, last), attr))
    for name, attr, label in POINTS:
        if name != module.__name__:
            continue
        owner: Any = module
        *path, last = attr.split(".")
        for p in path:
            owner = getattr(owner, p)
        setattr(owner, last, _wrapped(getattr(owner, last), label))


class _Finder(importlib.abc.MetaPathFinder):
    names = frozenset(p[0] for p in POINTS + COSTS)

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in self.names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            real(module)
            _hook(module)
        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _gc_costs() -> None:
    """The garbage collector's passes, by generation, as costs ("gc.genN"): their count and CPU (thread time)."""
    import gc

    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.thread_time()
            if info["generation"] == 2:
                stamp("gc.gen2 begins")
            return
        got = COST.setdefault(f"gc.gen{info['generation']}", [0, 0.0])
        got[0] += 1
        got[1] += time.thread_time() - began[0]
    gc.callbacks.append(timed)


def _trace(log_path: str, argv: list[str]) -> None:
    stamp("start")
    if os.environ.get("TAIL_COSTS"):
        _gc_costs()

    def dump() -> None:  # registered first: runs last of the atexit handlers
        stamp("last atexit")
        if os.environ.get("TAIL_GC"):  # an experiment: "collect", "freeze" or "collect,freeze"
            import gc
            for what in os.environ["TAIL_GC"].split(","):
                getattr(gc, what)()
            stamp(f"gc {os.environ['TAIL_GC']}")
        if os.environ.get("TAIL_COSTS"):
            with open(os.environ["TAIL_COSTS"], "a") as out:
                out.write("".join(f"{k} {n} {c * 1000:.3f}\n" for k, (n, c) in COST.items()) + "--\n")
        with open(log_path, "w") as out:
            out.write(f"{LAST_PACKET[0]:.6f} {LAST_PACKET[1]:.6f} last packet\n")
            for t, c, what in STAMPS:
                out.write(f"{t:.6f} {c:.6f} {what}\n")
    atexit.register(dump)
    sys.meta_path.insert(0, _Finder())
    import paramiko.packet as pk

    real_send, real_read = pk.Packetizer.send_message, pk.Packetizer.read_message

    def send_message(self, data):  # type: ignore[no-untyped-def]
        try:
            return real_send(self, data)
        finally:
            LAST_PACKET[:] = [time.monotonic(), time.process_time()]

    def read_message(self):  # type: ignore[no-untyped-def]
        got = real_read(self)
        LAST_PACKET[:] = [time.monotonic(), time.process_time()]
        return got

    pk.Packetizer.send_message, pk.Packetizer.read_message = send_message, read_message  # type: ignore[method-assign]
    real_shutdown = threading._shutdown  # type: ignore[attr-defined]

    def shutdown() -> None:
        stamp("thread shutdown begins")
        real_shutdown()
        stamp("thread shutdown ends")
    threading._shutdown = shutdown  # type: ignore[attr-defined]
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            runpy.run_path(argv[0], run_name="__main__")
    finally:
        stamp("module returned")


# -- the parent ------------------------------------------------------------------------------------------------

def run_traced(argv: list[str], env: dict[str, str], log: Path, out: Path) -> list[tuple[str, float, float]]:
    """(point, wall s, CPU s) from the last packet, in order; the exit with the process's whole CPU."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--trace", str(log), "--", *argv[1:]]
    with out.open("wb") as f:
        proc = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        exited = time.monotonic()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed (rc {proc.returncode}): see {out}")
    rows = [line.split(" ", 2) for line in log.read_text().splitlines() if line.strip()]
    t0, c0 = float(rows[0][0]), float(rows[0][1])
    got = [(what, float(t) - t0, float(c) - c0) for t, c, what in rows]
    got.append(("process exit", exited - t0, usage.ru_utime + usage.ru_stime - c0))
    return got


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--trace":
        _trace(sys.argv[2], sys.argv[4:])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--rtt", type=int, default=50)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bare", action="store_true", help="bare.py's tail too (a last column of rounds)")
    ap.add_argument("trees", nargs="*", type=Path)
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import bench

    trees = a.trees or [HERE.parents[1]]
    work = Path(tempfile.mkdtemp(prefix="planner-tail-"))
    lab = bench.build_lab(work / "lab", a.hosts)
    proxy = None
    try:
        proxy = bench.Proxy(lab, a.rtt, work / "proxy.log")
        bench.write_known_hosts(lab, proxy.endpoints, work / "known_hosts")
        bench.write_inventories(lab, proxy.endpoints, work / "known_hosts", work)
        bench.reset_sandboxes(lab)
        argv = bench.tools(None)["planner"].argv(a.hosts, work, "tail")
        envs = []
        for tree in trees:
            env = bench.tool_env(work, "tail", "planner")
            env["PYTHONPATH"] = str(tree.resolve())
            envs.append(env)
        run_traced(argv, envs[0], work / "cold.trace", work / "cold.out")
        runs_of = [(argv, env) for env in envs]
        names = [str(t) for t in trees]
        if a.bare:
            (work / "fetch" / "tail").mkdir(parents=True, exist_ok=True)
            bare = bench.tools(None)["bare"].argv(a.hosts, work, "tail")
            runs_of.append((bare, bench.tool_env(work, "tail", "bare")))
            names.append("bare.py")
        got: list[list[list[tuple[str, float, float]]]] = [[] for _ in runs_of]
        load0 = os.getloadavg()[0]
        for i in range(a.reps):
            for k, (av, env) in enumerate(runs_of):
                got[k].append(run_traced(av, env, work / f"{k}-{i}.trace", work / f"{k}-{i}.out"))
        print(f"N={a.hosts} warm at {a.rtt} ms RTT, {a.reps} interleaved rounds, load {load0:.2f} -> "
              f"{os.getloadavg()[0]:.2f}; ms from the last packet, medians: wall / CPU")
        for tree, runs in zip(names, got, strict=True):
            print(f"--- {tree}")
            for j, (what, _, _) in enumerate(runs[0]):
                walls = [r[j][1] * 1000 for r in runs if len(r) > j]
                cpus = [r[j][2] * 1000 for r in runs if len(r) > j]
                print(f"  {what:40} {statistics.median(walls):8.1f} {statistics.median(cpus):8.1f}")
            whole = [(r[-1][1] - r[1][1], r[-1][2] - r[1][2]) for r in runs]  # r[1]: the tracer's start
            print(f"  {'(start to exit)':40} {statistics.median(w for w, _ in whole) * 1000:8.1f} "
                  f"{statistics.median(c for _, c in whole) * 1000:8.1f}")
    finally:
        if proxy is not None:
            proxy.stop()
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
