"""Programs one warm host starts (issue 47): a 1-host lab, plan.yaml applied twice, the second under strace.

    python benchmarks/fanout/programs.py /tmp/programs          # this checkout
    SRC=/path/to/other/checkout python benchmarks/fanout/programs.py /tmp/programs-base

Every successful execve under the lab host's sshd is counted (strace -f -z -e trace=execve), then printed by
program. sshd (its per-connection re-exec), the login shell and setsid (each command's process-group wrapper) are
not planner's scripts: the total without them is the figure RESULTS.md gives (as for the 31 before). Needs root
(strace -p) and the lab (openssh-server).
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(os.environ.get("SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SRC))
os.environ["PYTHONPATH"] = str(SRC)  # the planner that runs the plan is this checkout's

from planner.rehearsal.lab import build_lab  # noqa: E402
from planner.rehearsal.sandbox import add_devices  # noqa: E402

NOT_PLANNERS = ("sshd", "bash", "setsid")  # the lab login's shell is root's: bash


def main(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    here = SRC / "benchmarks" / "fanout"
    with build_lab(work / "lab", 1) as lab:
        host = lab.hosts[0]
        sandbox = lab.sandbox(host.name)
        add_devices(sandbox, ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"])
        (sandbox / "tmp").mkdir(exist_ok=True)
        (sandbox / "tmp" / "result.txt").write_text("result\n")
        inventory = work / "inventory.yml"
        lab.write_inventory(inventory)
        apply = [sys.executable, "-m", "planner", "apply", str(here / "plan.yaml"), "-i", str(inventory),
                 "--runs-dir", str(work / "runs"), "--no-report", "--keep-prep", "-f", "5"]
        _apply(apply, here)  # cold: the prep is made
        trace = work / "strace.log"
        tracer = subprocess.Popen(["strace", "-f", "-qq", "-z", "-e", "trace=execve", "-o", str(trace),
                                   "-p", str(lab.sshd_pid(host.name))])
        time.sleep(1.0)  # strace attaches before the apply connects (no event to wait on)
        _apply(apply, here)  # warm: nothing to change
        time.sleep(0.5)  # the last exec's children reaped
        tracer.terminate()
        tracer.wait()
    started = collections.Counter(os.path.basename(m) for m in re.findall(r'execve\("([^"]+)"', trace.read_text()))
    planners = sum(n for name, n in started.items() if name not in NOT_PLANNERS)
    print(f"{planners} programs (sshd, login shell, setsid not counted); all: {sorted(started.items())}")


def _apply(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise SystemExit(f"apply failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
