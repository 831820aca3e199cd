"""A point that kept only its CPU series (a play collecting mpstat, no iostat) is not "no series": the report says
what it kept and what would give it an IOPS series over time."""

from __future__ import annotations

from pathlib import Path

from planner.report.inside import inside
from planner.results.point_series import PointSeries
from planner.timeseries import TimeSeries


def _point(series: tuple[TimeSeries, ...]) -> PointSeries:
    return PointSeries("Exadata X2-8", "exa", "plays[0].workloads[0]", "TPROC-C", "hammerdb", 0, "virtual_users=8",
                       0, False, series)


def test_cpu_only_points_are_counted_not_called_seriesless(tmp_path: Path) -> None:
    cpu = TimeSeries("mpstat.busy_pct", "%", "mpstat -P ALL", 1, (0, 1, 2), (99.0, 99.5, 100.0),
                     (99.0, 99.5, 100.0), (99.0, 99.5, 100.0), (("cpu", "all"),))
    got = inside([_point((cpu,)), _point((cpu,))], tmp_path, tmp_path, charts=True)
    assert got["verdicts"] == [] and got["best"] == [] and got["kept"] == 2
    assert inside([], tmp_path, tmp_path, charts=True)["kept"] == 0


def test_a_point_of_no_sweep_has_no_empty_brackets_and_a_level_series_is_not_a_fall() -> None:
    from planner.report.inside import _where
    from planner.results.findings_run import steady_words

    flat = TimeSeries("fio.iops", "IO/s", "fio iops log", 1, tuple(range(10)), (100.0,) * 10, (100.0,) * 10,
                      (100.0,) * 10)
    p = PointSeries("ssd", "alpha", "plays[0].workloads[0]", "fio", "fio", 0, "—", 0, False, (flat,))
    assert _where(p) == "fio on alpha"
    said = steady_words(p)
    assert said is not None and said[0] == "IOPS held level over the run"
