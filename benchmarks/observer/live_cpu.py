"""The live progress line's CPU (issue 47): planner's Console.live_start on a pseudo-terminal for ``--seconds``,
the process's CPU (every thread: the redraws and the pty reader, which reads what a terminal would).

    python benchmarks/observer/live_cpu.py [--seconds 10] [--checkout TREE]

Each measurement is a fresh process; run it against two checkouts interleaved (e.g. ``git archive`` of the base
into TREE) to compare them. No root, no device.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os, resource, sys, threading, time
sys.path.insert(0, {root!r})
master, slave = os.openpty()
threading.Thread(target=lambda: [os.read(master, 65536) for _ in iter(int, 1)], daemon=True).start()
os.environ["TERM"] = "xterm-256color"
from planner.engine.console import Console
from planner.engine.progress import duration
con = Console(stream=os.fdopen(slave, "w"))
started = time.monotonic()
con.live_start(lambda: f"running: random reads point 1/1: {{duration(time.monotonic() - started)}} of ? expected; "
               "about ? left in the run")
time.sleep(0.5)
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
time.sleep({seconds})
r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
con.live_stop()
cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
print(f"{{cpu * 1000:.1f}} ms of CPU in {{t1 - t0:.1f}} s: {{100 * cpu / (t1 - t0):.3f}}% of a core")
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the planner tree to run (this one by default)")
    a = ap.parse_args()
    out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(a.checkout), seconds=a.seconds)],
                         capture_output=True, text=True, check=True).stdout.strip()
    print(f"{a.checkout}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
