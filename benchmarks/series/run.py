"""Memory of a 1-hour point's series: fio logs of an hour (per job and kind) streamed into the point's series.

    python benchmarks/series/run.py [--hours 1] [--jobs 16] [--rows-per-s 1]

Writes the logs fio would write (``<prefix>_<kind>.<job>.log``, fio 3.x columns) into a temporary folder, then
builds the series with tracemalloc on and reports the peak of Python allocations while building, the series
file's size and the buckets kept. Bound (issue 30): the peak stays under 4 MiB whatever the point's length, as
the series are streamed through a fixed number of buckets. Prints a Markdown row for RESULTS.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from planner.steps.fio_series import build
from planner.timeseries import dumps

BOUND_MIB = 4.0


def write_logs(folder: Path, hours: float, jobs: int, per_s: int) -> int:
    rows = int(hours * 3600 * per_s)
    step_ms = 1000 // per_s
    for kind, base in (("iops", 5000), ("bw", 20000), ("clat", 180000), ("lat", 181000)):
        for job in range(1, jobs + 1):
            with open(folder / f"fiolog_{kind}.{job}.log", "w") as f:
                for i in range(1, rows + 1):
                    v = int(base * (1 + 0.1 * math.sin(i / 50)))
                    f.write(f"{i * step_ms}, {v}, 0, 0, 0\n")
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--rows-per-s", type=int, default=1)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = write_logs(folder, a.hours, a.jobs, a.rows_per_s)
        logs = sorted(folder.glob("*.log"))
        size_mb = sum(p.stat().st_size for p in logs) / 1e6
        tracemalloc.start()
        started = time.monotonic()
        series = build(logs)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1] / (1024 * 1024)
        tracemalloc.stop()
        file_kb = len(dumps(series)) / 1024
    buckets = max(len(s.t) for s in series)
    ok = "yes" if peak < BOUND_MIB else "NO"
    print("| hours | jobs | rows/s | log rows per file | logs (MB) | series | buckets | step (s) | "
          "series file (KiB) | peak while building (MiB) | under 4 MiB | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {a.hours:g} | {a.jobs} | {a.rows_per_s} | {rows} | {size_mb:.1f} | {len(series)} | {buckets} | "
          f"{series[0].step_s:g} | {file_kb:.0f} | {peak:.2f} | {ok} | {elapsed:.1f} |")
    return 0 if peak < BOUND_MIB else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
