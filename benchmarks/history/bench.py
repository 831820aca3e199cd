"""AWR history mining: ``planner analyze`` over N AWR HTML reports of one database (issue 45: 500 in under 60 s
on 2 cores), parsed in worker processes, against the control: the same files parsed in one process.

The reports are the real 19c report tests/data/awr/awr_19c_orclcdb_waits_activity.html (108 KB: summary, wait
events, activity statistics), padded to a real report's size with copies of its own wait event tables under a
summary planner does not read (as the SQL sections of a real report are), snapshot ids and times rewritten per
file. Run from the repository root:

    python benchmarks/history/bench.py [--reports 500] [--kb 900] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from planner.results.analyze import analyze  # noqa: E402

REAL = ROOT / "tests/data/awr/awr_19c_orclcdb_waits_activity.html"


def make_reports(folder: Path, n: int, kb: int) -> list[Path]:
    real = REAL.read_text()
    tables = re.findall(r"<table[^>]*summary=\"This table displays (?:foreground wait events|instance activity).*?"
                        r"</table>", real, re.S | re.I)
    pad = "".join(t.replace("This table displays", "This table displays SQL-like padding:") for t in tables)
    body_end = real.rfind("</body>")
    filler = ""
    while len(real) + len(filler) < kb * 1024 and pad:
        filler += pad
    base = real[:body_end] + filler + real[body_end:]
    out = []
    for i in range(n):
        text = base.replace(">156<", f">{156 + i}<", 1).replace(">155<", f">{155 + i}<", 1)
        hour, day = i % 24, 4 + i // 24
        text = text.replace("03-Oct-23 21:00:48", f"{day:02d}-Oct-23 {hour:02d}:00:48")
        path = folder / f"awrrpt_1_{155 + i}_{156 + i}.html"
        path.write_text(text)
        out.append(path)
    return out


def timed(paths: list[Path], workers: int | None) -> float:
    start = time.perf_counter()
    a = analyze(paths, workers=workers)
    took = time.perf_counter() - start
    assert len(a.histories) == 1 and len(a.histories[0].snapshots) == len(paths), "every report in the history"
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", type=int, default=500)
    ap.add_argument("--kb", type=int, default=900, help="size of each report")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="planner-history-bench-"))
    try:
        paths = make_reports(folder, args.reports, args.kb)
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(f"{len(paths)} reports, {size:,.0f} MB, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} at start")
        serial, parallel = [], []
        for _ in range(args.repeat):  # interleaved, so drift in the machine's load hits both arms
            serial.append(timed(paths, 1))
            parallel.append(timed(paths, None))
        for name, times in (("control, one process", serial), ("worker processes", parallel)):
            print(f"{name:22} median {statistics.median(times):6.1f} s  ({', '.join(f'{t:.1f}' for t in times)})")
        print(f"load at end {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
