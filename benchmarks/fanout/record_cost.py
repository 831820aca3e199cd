"""The run record's CPU in a warm N-host play, in-process, without hosts (issue 47, stop 53).

    python benchmarks/fanout/record_cost.py [--tree DIR] [--hosts 30] [--reps 5]

What a warm play of benchmarks/fanout/plan.yaml does to its run record (planner.engine.runrecord/runstate), in
the order the runner does it: open the record (meta.json, plan.yaml), meta.json's cwd/pid, inventory and
remote fields, each host's facts file and its facts command, per step each host's resolved arguments noted
then written once, a command logged per host per step, results.json saved after prep and at the end, the
recap and the final meta.json. ``--tree`` measures another checkout's planner (a ``git archive`` of main), so
base and branch run the same script: interleave them (base, branch, base, branch). Prints the CPU of the
process (time.process_time: user + system, every thread) per rep and the median; the machine is shared, so
CPU, not wall. The runs folder is a fresh temp folder per rep (removed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STEPS = (("plays[0].prep[0]", "I/O scheduler none on the 4 data devices", "io_scheduler"),
         ("plays[0].prep[1]", "init.ora fragment", "template"),
         ("plays[0].prep[2]", "kernel", "command"),
         ("plays[0].collect[0]", "fetch the result file", "fetch"))


def _facts(i: int) -> dict[str, Any]:
    """About the size and shape of a lab host's facts file."""
    return {"hostname": f"lab{i:03d}", "os": "Linux", "kernel": "6.1.0-18-amd64", "arch": "x86_64",
            "distribution": "debian", "distribution_version": "12", "cpus": 2, "cores": 2, "sockets": 1,
            "memory_mb": 7960, "swap_mb": 0, "hugepages": {"total": 0, "free": 0, "size_kb": 2048},
            "devices": [{"name": f"sd{c}", "size_bytes": 10737418240, "rotational": False, "scheduler": "none",
                         "model": "QEMU HARDDISK", "queue_depth": 32} for c in "abcde"],
            "mounts": [{"source": f"/dev/sd{c}1", "target": f"/u0{k}", "fstype": "xfs",
                        "options": "rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota"}
                       for k, c in enumerate("bcde")],
            "programs": {p: f"/usr/bin/{p}" for p in ("fio", "iostat", "vmstat", "mpstat", "sqlplus", "python3")},
            "missing": [], "oracle": {"homes": [], "sids": []}, "selinux": "disabled", "tz": "UTC",
            "sysctl": {f"kernel.sem{k}": "250 32000 100 128" for k in range(8)}}


def one_play(planner: Any, runs: Path, hosts: int) -> None:
    from planner.engine import runrecord
    from planner.engine.runstate import ResultLog
    from planner.host import Host
    from planner.plan.loader import load_plan
    from planner.status import Artifact, ArtifactKind, Status, StepResult
    from planner.transport.connection import CommandResult

    plan = load_plan(HERE / "plan.yaml", inventory_must_exist=False)
    names = [f"lab{i:03d}" for i in range(hosts)]
    hs = [Host(n, "127.0.0.1", port=20000 + i, user="bench", key_file=Path("/var/tmp/k"), groups=("all",),
               vars={"planner_root": f"/var/tmp/lab/{n}"}) for i, n in enumerate(names)]
    rec = runrecord.open_record(runs, plan, {plan.plays[0].name: hs}, argv=["apply", "plan.yaml", "-f", "30"])
    rec.write_meta(cwd=os.getcwd(), pid=os.getpid())
    rec.write_meta(inventory={"sources": ["inventory.yml"], "snapshot": ["inventory/inventory.yml"],
                              "files": {"inventory/inventory.yml": "0" * 64}})
    log = ResultLog()
    log.record = rec
    rec.write_meta(remote={n: {"workdir": f"/var/tmp/lab/{n}/runs/{rec.id}/{n}", "lock": "/var/tmp/x.lock"}
                           for n in names})
    for i, n in enumerate(names):
        out = "planner-facts 1\n" + "\n".join(f"k{j}=v{j} " * 4 for j in range(60))
        rec.log_command(n, "facts", CommandResult("sh -c 'facts; lock'", 0, out, "", 0.05))
        rec.write(f"facts/{n}.json", _facts(i))
        log.append(StepResult("facts", "Gathering Facts", n, Status.OK))
    for k, (path, title, kind) in enumerate(STEPS):
        for n in names:
            args = {"devices": ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"], "scheduler": "none"} if k == 0 else {
                "src": "templates/init_bench.ora.j2", "dest": "/tmp/init_bench.ora", "mode": "0644"}
            rec.note_resolved("host prep", n, path, {"title": title, "kind": kind, "args": args}, write=False)
            if k in (2, 3):  # the batched steps log no command of their own
                rec.log_command(n, path, CommandResult("uname -a", 0, "Linux lab 6.1.0-18-amd64 x86_64\n", "", 0.01))
            arts = (Artifact(f"artifacts/host_prep/{n}/result.txt", ArtifactKind.NONE, "f" * 64),) if k == 3 else ()
            log.append(StepResult(path, title, n, Status.CHANGED if k < 2 else Status.OK, artifacts=arts,
                                  started=runrecord.utc_now(), ended=runrecord.utc_now(), play=0,
                                  section="collect" if k == 3 else "prep", index=k % 3))
        rec.note_resolved("host prep", "", path, None)
        if k == 2:
            log.save()
    log.save(final=True)
    runrecord.finish_record(rec, {"hosts": {n: {"ok": 2, "changed": 2, "failed": 0} for n in names}},
                            ["PLAY [host prep]", "TASK [kernel]"], planner.status.ExitCode.OK)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=str(HERE.parent.parent), help="the checkout whose planner is measured")
    ap.add_argument("--hosts", type=int, default=30)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    sys.path.insert(0, str(Path(a.tree).resolve()))
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="record-cost-config-"))
    import planner
    import planner.status
    from planner.engine import runrecord
    assert Path(runrecord.__file__).is_relative_to(Path(a.tree).resolve()), runrecord.__file__
    used = []
    for _ in range(a.reps + 1):  # the first warms what is made once per process (the origin key, caches)
        runs = Path(tempfile.mkdtemp(prefix="record-cost-"))
        t = time.process_time()
        one_play(planner, runs, a.hosts)
        used.append(time.process_time() - t)
        shutil.rmtree(runs)
    print(f"{a.tree}: N={a.hosts} record CPU per play median {statistics.median(used[1:]) * 1000:.1f} ms "
          f"({', '.join(f'{x * 1000:.1f}' for x in used[1:])}; first {used[0] * 1000:.1f}), "
          f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
