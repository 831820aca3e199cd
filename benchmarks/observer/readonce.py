"""Read once: the time from the last workload point's end to the report written, in the headline rehearsal.

    python benchmarks/observer/readonce.py [--checkout DIR] [--reps 3] [--profile N]

Runs ``planner apply --rehearse plans/violin_vs_exadata.yaml -e run_time=30`` (local transport) in this process
with the checkout DIR first on sys.path (default: this one), ``--reps`` times, and prints the median of:
last point's end (the engine's _point returns: WorkloadLoop, or Runner before) -> the last report file
written (files.atomic_write of a ``.md``), and the whole apply. ``--profile N``: the N functions with the most
cumulative time after the last point (cProfile, enabled when each point ends and thrown away when the next
one starts; main thread).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def one(checkout: Path, work: Path, profile: int) -> tuple[float, float, str]:
    import importlib

    import planner.files as files
    from planner.cli.main import main

    for d in ("plans", "inventory"):
        shutil.copytree(checkout / d, work / d, ignore=shutil.ignore_patterns("reports"))
    marks: dict[str, float] = {}
    prof: list[cProfile.Profile] = []
    try:  # the point loop's home: engine.workload now, engine.runner before the typed seams
        owner: Any = importlib.import_module("planner.engine.workload").WorkloadLoop
    except ModuleNotFoundError:
        owner = importlib.import_module("planner.engine.runner").Runner
    point, atomic_write = owner._point, files.atomic_write

    def timed_point(self: Any, *a: Any, **k: Any) -> Any:
        if prof:
            prof.pop().disable()
        try:
            return point(self, *a, **k)
        finally:
            marks["point_end"] = time.monotonic()
            if profile:
                prof.append(cProfile.Profile())
                prof[-1].enable()

    def timed_write(path: Path, data: bytes, mode: int | None = None) -> None:
        atomic_write(path, data, mode)
        if str(path).endswith(".md"):
            marks["report"] = time.monotonic()

    owner._point, files.atomic_write = timed_point, timed_write
    os.environ.setdefault("PLANNER_REHEARSE_TRANSPORT", "local")
    cwd = Path.cwd()
    os.chdir(work)
    start = time.monotonic()
    try:
        code = main(["apply", "--rehearse", str(work / "plans" / "violin_vs_exadata.yaml"), "--runs-dir",
                     str(work / "runs"), "-e", "run_time=30"])
    finally:
        os.chdir(cwd)
        owner._point, files.atomic_write = point, atomic_write
    total = time.monotonic() - start
    if code != 0:
        raise SystemExit(f"rehearsal failed: exit code {code}")
    text = ""
    if prof:
        prof[-1].disable()
        out = io.StringIO()
        pstats.Stats(prof[-1], stream=out).sort_stats("cumulative").print_stats(profile)
        text = out.getvalue()
    return marks["report"] - marks["point_end"], total, text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", type=int, default=0)
    a = ap.parse_args()
    sys.path.insert(0, str(a.checkout))
    after, totals, text = [], [], ""
    for _ in range(a.reps):
        with tempfile.TemporaryDirectory(prefix="planner-readonce-") as tmp:
            tail, total, text = one(a.checkout, Path(tmp), a.profile)
        after.append(tail)
        totals.append(total)
        print(f"last point -> report: {tail:.2f} s; whole apply {total:.1f} s; load {os.getloadavg()[0]:.2f}",
              file=sys.__stdout__, flush=True)
    print(f"median of {a.reps}: last point -> report written {statistics.median(after):.2f} s, whole apply "
          f"{statistics.median(totals):.1f} s", file=sys.__stdout__)
    if text:
        print(text, file=sys.__stdout__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
