"""The host's CPU for one warm host's batch exec (issue 47): what the programs it starts cost the host.

    python benchmarks/fanout/host_cpu.py [REPS]                              # this checkout
    SRC=/path/to/other/checkout python benchmarks/fanout/host_cpu.py [REPS]  # another one (its batch script)

The exec is tests/transport/test_batch_programs.py's warm host of plan.yaml (lock, facts, io_scheduler's read of 4
devices, the template's read, `uname -a`, a fetch, release), as sent over SSH (the process-group wrapper
included, sshd's login shell not), run REPS times on this machine after one run that makes the work folder's base.
Printed: user + system CPU of the exec's whole process tree per exec (getrusage RUSAGE_CHILDREN: sh waits for
every program it starts), the wall time per exec, and the load average. No sshd, no network: only the host side.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(os.environ.get("SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SRC))

from planner.engine import batch, hostlock  # noqa: E402
from planner.engine.probes import _run_line  # noqa: E402
from planner.rehearsal.sandbox import add_devices  # noqa: E402
from planner.steps.base import READ_TEXT, Probe  # noqa: E402
from planner.steps.prep_os import RESOLVE  # noqa: E402
from planner.transport.ssh import scripts  # noqa: E402

DEVICES = ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]


def main(reps: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "host"
        add_devices(root, DEVICES)
        (root / "tmp" / "init_bench.ora").write_text("cpu_count=16\n")
        (root / "tmp" / "result.txt").write_text("result\n")
        reads = [Probe(("sh", "-c", RESOLVE, "sh", str(root), *DEVICES), own=True, plain=True),
                 Probe(("sh", "-c", READ_TEXT, "sh", f"{root}/tmp/init_bench.ora"), own=True),
                 Probe(("uname", "-a")), Probe((f"{root}/tmp/result.txt",), fetch=True)]
        lines = [_run_line(p, {"planner_root": str(root)}) for p in reads]

        def once(run: str) -> None:
            lock = hostlock.lock_args(f"{root}/tmp/planner.lock.h", run, "2026-01-01T00:00:00Z",
                                      f"{root}/tmp/planner/{run}/h/procs")
            line = scripts.in_process_group(batch.argv(lines, lock=lock, facts_root=str(root), release=True,
                                                       run_id=run), become=False, become_user="root", login=False,
                                            env=None, cwd=None, mark="M")
            out = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, check=True).stdout
            reply = batch.parse(out)
            assert reply.released and len(reply.runs) == len(reads), out

        once("cold")  # makes the work folder's base: the runs after it are warm
        load = os.getloadavg()
        r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        for i in range(reps):
            once(f"run{i}")
        r1, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t0
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) / reps
    print(f"{SRC}: {cpu * 1000:.2f} ms CPU per warm exec (user+sys of its process tree), {wall / reps * 1000:.2f} ms "
          f"wall, {reps} execs; load average at start {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, at end "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
