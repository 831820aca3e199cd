"""Parse-speed benchmark for the AWR parsers: seconds per MB of AWR text and a 1,000-report batch.

Run: python benchmarks/parse/bench.py   (uses the real reports under tests/data/awr/)
"""

from __future__ import annotations

import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from planner.parsers import awr_html, awr_text, parse_file  # noqa: E402

DATA = ROOT / "tests" / "data" / "awr"


def main() -> None:
    text = (DATA / "awr_11201_orcl_fabioprado.txt").read_text(encoding="utf-8")
    html = (DATA / "awr_122_slob2.html").read_text(encoding="utf-8")
    # A full report is ~1 MB: the summary followed by detail sections the parser scans past.
    body = text.split("Time Model Statistics")[1]
    big = text + ("\nTime Model Statistics" + body) * (1_000_000 // len(body))
    mb = len(big.encode()) / 1e6
    t0 = time.perf_counter()
    awr_text.parse(big, "big.txt")
    per_mb = (time.perf_counter() - t0) / mb
    t0 = time.perf_counter()
    for i in range(1000):
        awr_text.parse(text, f"r{i}.txt")
    batch_text = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(1000):
        awr_html.parse(html, f"r{i}.html")
    batch_html = time.perf_counter() - t0
    print(f"python {platform.python_version()} on {platform.machine()}")
    print(f"AWR text: {per_mb:.3f} s per MB ({mb:.2f} MB report)")
    print(f"1,000 AWR text reports ({len(text) / 1024:.1f} KiB each): {batch_text:.2f} s")
    print(f"1,000 AWR HTML reports ({len(html) / 1024:.1f} KiB each): {batch_html:.2f} s")
    print(_os_sampler())


def _os_sampler() -> str:
    """parse_file of ten minutes of `iostat -xt 1` over 32 devices (the tests' seeded generator), as show reads it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_parse_bounds import _iostat  # noqa: PLC0415 - the tests' own input

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "iostat.txt"
        path.write_text(_iostat(600))
        mb = path.stat().st_size / 1e6
        t0 = time.perf_counter()
        n = len(parse_file(path, "iostat").metrics)
        took = time.perf_counter() - t0
    return f"iostat -xt 1, 10 min x 32 devices ({mb:.1f} MB, {n} values): {took / mb:.3f} s per MB"


if __name__ == "__main__":
    main()
