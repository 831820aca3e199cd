"""The CPU redaction costs a warm fan-out, base tree against branch tree (issue 47, stop 53).

    python benchmarks/fanout/redact_cost.py capture [--hosts 30] --out /var/tmp/redact-corpus.pickle
    python benchmarks/fanout/redact_cost.py measure --corpus FILE --tree base=/tmp/base --tree branch=. [--rounds 3]

``capture`` builds the fan-out lab (as profile_warm.py does), makes it warm with one run, then runs one warm
``planner apply`` in this process with planner.redaction's public functions wrapped: every outermost call's
arguments (text or value, and the secrets) are kept, in order, and pickled. ``measure`` replays that corpus
against each tree's planner.redaction in a fresh process per tree and round, interleaved (base, branch, base,
branch...), twice: with the run's own secrets, and with two made-up ones (the bench plan has none; an Oracle
plan has a few), and prints each process's CPU (time.process_time) for the replay alone, not its imports.
CPU, not wall: the machine is shared.
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Secrets an Oracle plan could hold, with the characters JSON and the shell write otherwise
MADE_UP = ("Tiger_Scott#2026", 'sys"pw\\x1', "pässwört'99")
_REPLAY = r"""
import pickle, sys, time
import planner.redaction as r
calls, secrets, reps = pickle.load(open(sys.argv[1], "rb")), sys.argv[2], int(sys.argv[3])
made_up = tuple(sys.argv[4:])
t0 = time.process_time()
for _ in range(reps):
    getattr(r, "_MEMOS", {}).clear()  # each replay as a fresh run's: no result kept from the one before
    for name, arg, own in calls:
        s = own if secrets == "own" else made_up
        if name == "mask_logins":
            r.mask_logins(arg)
        elif name == "redact_text":
            r.redact_text(arg, s)
        else:
            r.redact_value(arg, s)
print(f"{time.process_time() - t0:.6f}")
"""


def capture(hosts: int, out: Path) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent.parent))
    import bench

    import planner.redaction as red

    calls: list[tuple[str, Any, tuple[str, ...]]] = []
    inside = threading.local()

    def wrap(name: str) -> None:
        real = getattr(red, name)

        def recorded(arg: Any, *rest: Any) -> Any:
            outer = not getattr(inside, "depth", 0)
            if outer:
                calls.append((name, copy.deepcopy(arg), tuple(rest[0]) if rest else ()))
            inside.depth = getattr(inside, "depth", 0) + 1
            try:
                return real(arg, *rest)
            finally:
                inside.depth -= 1

        setattr(red, name, recorded)

    for name in ("mask_logins", "redact_text", "redact_value"):
        wrap(name)  # before planner's modules import them by name
    from planner.cli.main import main

    work = Path(tempfile.mkdtemp(prefix="planner-redact-"))
    lab = bench.build_lab(work / "lab", hosts)
    try:
        bench.write_inventories(lab, {h.name: (h.address, h.port or 22) for h in lab.hosts}, lab.known_hosts, work)
        bench.reset_sandboxes(lab)
        env = bench.tool_env(work, "prof", "planner")
        (work / "fetch" / "prof").mkdir(parents=True, exist_ok=True)
        argv = bench.tools(None)["planner"].argv(hosts, work, "prof")
        subprocess.run(argv, cwd=HERE, env=env, check=True, capture_output=True)  # the cold run: warms the lab
        os.environ.update(env)
        os.chdir(HERE)
        calls.clear()
        code = main(argv[argv.index("apply"):])
    finally:
        lab.stop()
    with out.open("wb") as f:
        pickle.dump(calls, f)
    kinds = {n: sum(1 for c in calls if c[0] == n) for n in ("mask_logins", "redact_text", "redact_value")}
    print(f"exit {code}; {len(calls)} outermost calls {kinds}; secrets {sorted({len(c[2]) for c in calls})}")


def measure(corpus: Path, trees: list[tuple[str, Path]], rounds: int, reps: int) -> None:
    print(f"load {os.getloadavg()[0]:.2f}; corpus {corpus}; {reps} replays per process, {rounds} rounds")
    for secrets in ("own", "made-up"):
        used: dict[str, list[float]] = {t: [] for t, _ in trees}
        for _ in range(rounds):
            for tag, root in trees:
                env = dict(os.environ, PYTHONPATH=str(root.resolve()))
                out = subprocess.run([sys.executable, "-c", _REPLAY, str(corpus), secrets, str(reps), *MADE_UP],
                                     env=env, capture_output=True, text=True, check=True, cwd="/")
                used[tag].append(float(out.stdout))
        line = ", ".join(f"{t} {statistics.median(v) / reps * 1000:.1f} ms "
                         f"({' '.join(f'{x / reps * 1000:.1f}' for x in v)})" for t, v in used.items())
        print(f"secrets {secrets}: CPU per replay of the corpus, median (rounds): {line}")
    print(f"load {os.getloadavg()[0]:.2f} at the end")


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--hosts", type=int, default=30)
    c.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("measure")
    m.add_argument("--corpus", type=Path, required=True)
    m.add_argument("--tree", action="append", required=True, help="tag=path of a tree holding planner/")
    m.add_argument("--rounds", type=int, default=3)
    m.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if a.cmd == "capture":
        capture(a.hosts, a.out)
    else:
        measure(a.corpus, [(t.partition("=")[0], Path(t.partition("=")[2])) for t in a.tree], a.rounds, a.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
