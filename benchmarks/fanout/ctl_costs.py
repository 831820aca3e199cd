"""The controller's own per-host costs, in-process, by CPU (issue 47): no sshd, no children, so a loaded
machine disturbs them less than a whole fan-out.

    python benchmarks/fanout/ctl_costs.py [--hosts 30,200] [--reps 3]

For each N: the restore logs of a warm play's saves (two prep entries a host, as plan.yaml saves: the private
log and restore.json), then of the play's end marking each entry reverted (CPU, and wall: the syncs wait), and
load_inventory of an N-host YAML inventory as bench.py's lab writes one. Prints the smallest of the
repetitions, and per host. Run it from the tree to measure (its planner first on
the path).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from planner.engine.restore import RestoreLog  # noqa: E402
from planner.engine.runrecord import RunRecord  # noqa: E402
from planner.inventory.graph import load_inventory  # noqa: E402
from planner.steps.saved_state import RestoreEntry  # noqa: E402


def _entries(n: int) -> list[RestoreEntry]:
    out = []
    for i in range(n):
        host = f"lab{i + 1:02d}"
        out.append(RestoreEntry("plays[0]", host, "plays[0].prep[0]", "I/O scheduler", "io_scheduler",
                                {"devices": ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"], "scheduler": "none"},
                                {d: "none" for d in ("sdb", "sdc", "sdd", "sde")}, play_index=0, index=0))
        out.append(RestoreEntry("plays[0]", host, "plays[0].prep[1]", "init.ora", "template",
                                {"src": "templates/init_bench.ora.j2", "dest": "/tmp/init_bench.ora"},
                                {"dest": f"/tmp/sandbox/{host}/tmp/init_bench.ora", "content": "x" * 80,
                                 "mode": "0644"}, play_index=0, index=1))
    return out


def restore_cpu(work: Path, n: int) -> tuple[float, float, float, float]:
    """CPU and wall of the saves (two entries a host), then of the end of play's marks (each reverted)."""
    record = RunRecord(work / "runs", "fanout", secrets=("s3cr3t-pw",))
    record.write_meta(run_id=record.id, started="2026-12-07T00:00:00Z", plan_file="plan.yaml", hosts=[], plays=[])
    log = RestoreLog()
    log.attach(record)
    entries = _entries(n)
    t0, w0 = time.process_time(), time.perf_counter()
    for e in entries:
        log.add(e)
    t1, w1 = time.process_time(), time.perf_counter()
    for e in log.pending():
        log.mark(e, True)
    return t1 - t0, w1 - w0, time.process_time() - t1, time.perf_counter() - w1


def inventory_cpu(work: Path, n: int) -> float:
    path = work / f"inv{n}.yml"
    path.write_text("all:\n  hosts:\n" + "".join(
        f"    lab{i + 1:02d}:\n      ansible_host: 127.0.0.1\n      ansible_port: {20000 + i}\n"
        f"      ansible_user: root\n      ansible_ssh_private_key_file: {work}/id_ed25519\n"
        f"      planner_root: {work}/sandbox/lab{i + 1:02d}\n      planner_known_hosts: {work}/known_hosts\n"
        for i in range(n)))
    t0 = time.process_time()
    load_inventory(path)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", default="30,200")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-ctlcosts-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        for n in (int(x) for x in a.hosts.split(",")):
            runs = [restore_cpu(Path(tmp) / f"r{n}-{k}", n) for k in range(a.reps)]
            r, rw, m, mw = (min(x[j] for x in runs) for j in range(4))
            i = min(inventory_cpu(Path(tmp), n) for _ in range(a.reps))
            print(f"N={n}: restore logs {r:.3f} s ({r / n * 1000:.2f} ms a host; wall {rw / n * 1000:.2f}), "
                  f"marks {m:.3f} s ({m / n * 1000:.2f} ms a host; wall {mw / n * 1000:.2f}), "
                  f"load_inventory {i:.3f} s ({i / n * 1000:.2f} ms a host)")


if __name__ == "__main__":
    main()
