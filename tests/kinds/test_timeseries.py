"""Per-interval series: the streaming downsampler, the series file read back bounded, fio's log rows, and the
steady-state verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.fio.parse.log import LogKind, log_kind, rows
from planner.kinds.fio.series import build
from planner.timeseries import (
    MAX_BUCKETS,
    Downsampler,
    SteadySpec,
    TimeSeries,
    combine,
    dumps,
    read,
    steadiness,
)


def series(values: list[float], step: float = 1.0, warmup: float = 0.0) -> TimeSeries:
    d = Downsampler("fio.iops", "IO/s", "test", step)
    for i, v in enumerate(values):
        d.add(i * step, v)
    return d.result(warmup)


def test_a_long_run_is_merged_into_wider_buckets_keeping_mean_min_max() -> None:
    d = Downsampler("fio.iops", "IO/s", "test", 1.0)
    for i in range(3600):  # an hour at 1 s
        d.add(float(i), float(i % 10))
    s = d.result()
    assert len(s.t) <= MAX_BUCKETS and s.step_s == 8.0
    assert s.t[:2] == (0.0, 8.0)
    assert s.low[0] == 0.0 and s.high[0] == 7.0 and s.values[0] == pytest.approx(3.5)
    assert sum(s.values[:-1]) / len(s.values[:-1]) == pytest.approx(4.5, abs=0.3)


def test_jobs_are_summed_for_iops_and_averaged_for_latency() -> None:
    a, b = series([100, 100, 100]), series([50, 50, 50])
    total = combine([a, b], total=True)
    mean = combine([a, b], total=False)
    assert total is not None and total.values == (150.0, 150.0, 150.0)
    assert mean is not None and mean.values == (75.0, 75.0, 75.0)


def test_the_file_reads_back_what_was_written(tmp_path: Path) -> None:
    s = series([1.5, 2.0, 2.5], warmup=1.0)
    path = tmp_path / "series.json"
    path.write_bytes(dumps([s]))
    assert read(path) == (s,)


@pytest.mark.parametrize("doc, words", [
    ({"format": "other", "version": 1, "series": []}, "not a planner-series"),
    ({"format": "planner-series", "version": 1, "series": [{"t": [0, 1], "values": [1]}]}, "'values'"),
    ({"format": "planner-series", "version": 1, "series": [{"t": list(range(MAX_BUCKETS + 1))}]}, "'t'"),
    ({"format": "planner-series", "version": 1, "series": [
        {"metric": "m", "unit": "u", "source": "s", "step_s": 1, "t": [0], "values": [1], "low": [1],
         "high": ["1"]}]}, "finite numbers"),
])
def test_a_damaged_file_is_named_not_trusted(tmp_path: Path, doc: object, words: str) -> None:
    path = tmp_path / "series.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ParseError, match=words):
        read(path)


def test_an_oversized_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "series.json"
    path.write_bytes(b" " * (5 * 1024 * 1024))
    with pytest.raises(ParseError, match="larger than 4 MiB"):
        read(path)


def test_fio_log_rows_by_version_and_a_bad_line_by_number() -> None:
    three = ["1001, 5340, 0, 0, 0", "2000, 5650, 1, 4096, 0, 0"]  # fio 3.x, the second with a priority column
    assert [(r.time_ms, r.value, r.direction, r.block_size) for r in rows(three)] == [
        (1001, 5340, "read", 0), (2000, 5650, "write", 4096)]
    assert [r.value for r in rows(["1000, 7, 0, 4096"])] == [7]  # fio 2.x: four columns
    with pytest.raises(ParseError, match=r"x\.log:2: .*expected"):
        list(rows(["1000, 7, 0, 4096", "1000 7 0"], "x.log"))
    assert log_kind("fiolog_clat.3.log") == (LogKind.CLAT, 3) and log_kind("fio.json") is None


def test_fio_logs_become_one_series_per_metric_and_direction(tmp_path: Path) -> None:
    (tmp_path / "fiolog_iops.1.log").write_text("1001, 100, 0, 0, 0\n2000, 110, 0, 0, 0\n")
    (tmp_path / "fiolog_iops.2.log").write_text("1000, 50, 0, 0, 0\n2001, 60, 0, 0, 0\n")
    (tmp_path / "fiolog_clat.1.log").write_text("1000, 2000000, 0, 0, 0\n1000, 4000000, 1, 0, 0\n")
    got = {(s.metric, s.label("direction")): s for s in build(sorted(tmp_path.iterdir()))}
    assert got[("fio.iops", "read")].values == (150.0, 170.0)  # two jobs summed per second
    assert got[("fio.clat_ms", "read")].values == (2.0,) and got[("fio.clat_ms", "write")].values == (4.0,)


def test_a_steady_series_settles_and_a_falling_one_does_not() -> None:
    flat = steadiness(series([100, 104, 98, 101, 99, 102] * 3), SteadySpec(window_s=5))
    assert flat is not None and flat.reached and flat.after_s == 5.0 and flat.range_pct < 5
    falling = steadiness(series([100] * 6 + [60] * 6), SteadySpec(window_s=12))
    assert falling is not None and not falling.reached and falling.after_s is None
    assert falling.trend_pct == pytest.approx(-40.0) and falling.range_pct == pytest.approx(25.0)


def test_warmup_buckets_are_not_judged() -> None:
    s = steadiness(series([10, 50, 100, 100, 100, 100], warmup=2.0), SteadySpec(window_s=3))
    assert s is not None and s.reached and s.range_pct == 0.0 and s.run_s == 4.0
