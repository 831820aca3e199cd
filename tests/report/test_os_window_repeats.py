"""Repeats of one SLOB point whose OS windows were cut differently (one cut to SLOB's snapshots, one not) are two
series of the same figure: the report shows one samples row per sampler and says both windows, once each."""

from __future__ import annotations

from planner.metrics import Direction
from planner.report.context import _os
from planner.results.stats import Series


def _samples(tool: str, window: str, value: float) -> Series:
    labels = (("tool", tool), ("window", window))
    return Series("Violin", "oel57", "plays[0].workloads[0]", "SLOB", "slob", (("readers", 16),), "os.samples",
                  f"os.samples[{tool},{window}]", labels, "samples", Direction.NEUTRAL, False, False, (value,), 0)


def test_differently_cut_repeats_make_one_row_per_sampler() -> None:
    cut, whole = "cut to SLOB's own snapshots", "whole point: no sample is stamped inside SLOB's snapshots"
    (point,) = _os([_samples("iostat", cut, 3), _samples("iostat", whole, 9),
                    _samples("mpstat", cut, 3), _samples("mpstat", whole, 9)], lab=False)
    names = [m["name"] for m in point["metrics"]]
    assert names.count("OS statistics window") == 1
    window = next(m for m in point["metrics"] if m["name"] == "OS statistics window")
    assert window["value"] == f"{cut}; {whole}"
    samples = [n for n in names if n.startswith("Samples in the window")]
    assert samples == ["Samples in the window (iostat / mpstat)"], names
