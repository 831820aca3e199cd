"""The controller's CPU per host in a warm fan-out, and where it goes (issue 47).

    python benchmarks/fanout/profile_warm.py [--hosts 10] [--reps 3] [--top 30 (0: no profile)] [--sort tottime]

One lab of N sshds (as bench.py builds it), a cold planner run to make it warm, then ``--reps`` warm runs of
planner and of bare.py interleaved, each a fresh process: CPU (user + system from wait4, the children it reaped
included; the sshds are not its children). Then one warm planner run under cProfile over every thread
(benchmarks/observer/profile_apply.py), the functions with the most own time (tottime) first: CPU, where the
cumulative view mostly shows the threads waiting. CPU, not wall: the machine is shared.
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
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

import bench  # noqa: E402


def cpu(argv: list[str], env: dict[str, str], log: Path) -> float:
    with log.open("wb") as out:
        p = subprocess.Popen(argv, cwd=HERE, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"{argv[:4]} failed: see {log}")
    return ru.ru_utime + ru.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sort", default="tottime", help="pstats order: tottime (own time) or cumulative")
    ap.add_argument("--clock", default="wall", help="cpu: profile each thread by its CPU (time.thread_time)")
    ap.add_argument("--dump", default="", help="write the profile's merged stats (pstats) to this file")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="planner-fanout-prof-"))
    lab = bench.build_lab(work / "lab", a.hosts)
    try:
        bench.write_inventories(lab, {h.name: (h.address, h.port or 22) for h in lab.hosts}, lab.known_hosts, work)
        bench.reset_sandboxes(lab)
        tools = bench.tools(None)
        envs = {t: bench.tool_env(work, "prof", t) for t in ("planner", "bare")}
        (work / "fetch" / "prof").mkdir(parents=True, exist_ok=True)
        cpu(tools["planner"].argv(a.hosts, work, "prof"), envs["planner"], work / "cold.log")  # warms the lab
        used: dict[str, list[float]] = {"planner": [], "bare": []}
        load0 = os.getloadavg()[0]
        for i in range(a.reps):
            for t in used:
                used[t].append(cpu(tools[t].argv(a.hosts, work, "prof"), envs[t], work / f"{t}-{i}.log"))
        load1 = os.getloadavg()[0]
        p, b = statistics.median(used["planner"]), statistics.median(used["bare"])
        print(f"N={a.hosts} warm, load {load0:.2f} -> {load1:.2f}, {a.reps} interleaved rounds")
        print(f"planner CPU {p:.3f} s ({', '.join(f'{x:.2f}' for x in used['planner'])}), bare {b:.3f} s "
              f"({', '.join(f'{x:.2f}' for x in used['bare'])}): planner / bare {p / b:.2f}")
        if not a.top:
            return 0
        argv = tools["planner"].argv(a.hosts, work, "prof")
        prof = [sys.executable, str(HERE.parent / "observer" / "profile_apply.py"), str(a.top), "--sort", a.sort,
                "--clock", a.clock, *(["--dump", a.dump] if a.dump else []), "--", *argv[argv.index("apply"):]]
        out = subprocess.run(prof, cwd=HERE, env=envs["planner"], capture_output=True, text=True, check=False)
        print(out.stdout[-12000:])
    finally:
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
