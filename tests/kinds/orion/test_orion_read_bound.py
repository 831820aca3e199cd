"""ORION's fetched summary and _lat.csv are read at apply time to decide the CSV's unit: a fetched file may be as
large as the fetch cap (1 GiB), and was read whole (issue 40). Over the parse bound it is refused by its size,
unread, and the version decides, as when the summary has no minimum-latency line."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from types import SimpleNamespace

from planner.kinds.orion.step import _latency_units
from planner.status import Artifact


def test_a_huge_fetched_lat_csv_is_not_read_and_the_version_decides(tmp_path: Path) -> None:
    (tmp_path / "t_summary.txt").write_text("ORION VERSION 12.2.0.1.0\n")
    with (tmp_path / "t_lat.csv").open("wb") as f:
        f.write(b"Large/Small,      1\n")
        f.truncate(2_600_000_000)  # sparse
    arts = [Artifact("t_summary.txt", "orion_summary", ""), Artifact("t_lat.csv", "orion_csv", "")]
    tracemalloc.start()
    try:
        kinds = [a.kind for a in _latency_units(SimpleNamespace(run_dir=tmp_path), arts)]  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert kinds == ["orion_summary", "orion_csv_us"]
    assert peak < 1 << 20
