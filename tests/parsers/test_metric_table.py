"""An OS sampler's long series is held as columns (planner.metrics.MetricTable, issue 40): the figures that
show, report and the charts make of it are the ones the one-object-per-value parse made."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest
from test_parse_bounds import _iostat, _mpstat

from planner.engine.os_series import iostat_series, mpstat_series
from planner.kinds.slob.window import SnapWindow
from planner.metrics import MetricTable, Parsed
from planner.parsers import ostats, parse_text
from planner.results import os_window
from planner.results.measure import os_summary


def _as_tuple(p: Parsed) -> Parsed:
    """The same parse as the tuple of Metric objects it was before."""
    return replace(p, metrics=tuple(p.metrics))


def test_the_window_figures_are_the_ones_the_parse_gave_before_columns() -> None:
    # figures of the base (one frozen Metric per value) on the same seeded input
    p = ostats.parse_iostat(_iostat(20), "io")
    assert isinstance(p.metrics, MetricTable) and len(p.metrics) == 20 * (32 * 22 + 6)
    assert [(m.name, m.value) for m in os_summary(p)] == [
        ("os.read_iops", 83401.23684210527), ("os.write_iops", 80660.99315789473),
        ("os.util_pct_max", 3490.597894736842), ("os.samples", 19.0)]
    first = iostat_series(p, 1.0)[0]
    assert (first.metric, first.labels, len(first.values)) == ("iostat.iops", (("device", "sda"),), 19)
    assert list(first.values)[:3] == [2225.0099999999998, 7675.43, 4545.4]
    q = ostats.parse_mpstat(_mpstat(20), "mp")
    assert [(m.name, m.value) for m in os_summary(q)] == [
        ("os.cpu_busy_pct", 39.899), ("os.cpu_iowait_pct", 8.863), ("os.cpu_steal_pct", 0.0), ("os.samples", 20.0)]


def test_a_table_reads_as_the_tuple_of_its_metrics() -> None:
    p = ostats.parse_iostat(_iostat(12, 4), "io")
    t = _as_tuple(p)
    assert p.metrics == t.metrics and t.metrics == tuple(p.metrics)
    assert p.metrics[-1] == t.metrics[-1] and p.metrics[3:9] == t.metrics[3:9]
    with pytest.raises(IndexError):
        p.metrics[len(p.metrics)]
    assert p.all("iostat.util_pct") == t.all("iostat.util_pct")
    assert p.get("iostat.r_iops", device="sdb", sample="3") == t.get("iostat.r_iops", device="sdb", sample="3")
    assert os_summary(p) == os_summary(t)
    assert iostat_series(p, 1.0) == iostat_series(t, 1.0)
    q = ostats.parse_mpstat(_mpstat(12, 4), "mp")
    assert mpstat_series(q, 1.0) == mpstat_series(_as_tuple(q), 1.0)


def test_a_cut_to_the_kits_window_stays_columns_and_keeps_the_same_samples() -> None:
    p = ostats.parse_iostat(_iostat(20, 4), "io")
    window = SnapWindow(datetime(2026, 12, 7, 1, 0, 5), datetime(2026, 12, 7, 1, 0, 12), "awr", "1", "2")
    cut, words = os_window.cut(p, window)
    cut_t, words_t = os_window.cut(_as_tuple(p), window)
    assert isinstance(cut.metrics, MetricTable) and words == words_t == os_window.CUT.format(window.within)
    assert tuple(cut.metrics) == cut_t.metrics
    assert {m.label("sample") for m in cut.metrics} == {str(s) for s in range(7, 14)}
    assert os_summary(p, window) == os_summary(_as_tuple(p), window)


def test_two_rows_for_one_device_in_one_report_are_named_by_their_lines() -> None:
    lines = _iostat(2, 2).splitlines()
    sdb = next(i for i, line in enumerate(lines) if line.startswith("sdb"))
    text = "\n".join([*lines[: sdb + 1], lines[sdb], *lines[sdb + 1:]]) + "\n"
    p = parse_text(text, "io", "iostat")
    said = [str(e) for e in p.errors]
    assert len(said) == 22 and all("two values under one key iostat." in s for s in said), said
    assert f"(lines {sdb + 1} and {sdb + 2})" in said[0]
