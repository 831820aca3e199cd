"""Issue 45: the summary table shows each system at one load point — every headline row at the point where the
system's first headline was best — never write IOPS at 64 sessions beside read IOPS at 256."""

from __future__ import annotations

from planner.metrics import Direction
from planner.report.study import metric_names, rows_of, summary
from planner.results.measure import Measurement
from planner.results.stats import series


def _m(metric: str, readers: int, value: float, direction: Direction = Direction.HIGHER) -> Measurement:
    return Measurement("run1", "violin", "db1", "plays[0].workloads[0]", "slob", "slob", "awr.txt", "awr_text",
                       (("readers", readers),), 0, 0, False, metric, (), value, "IOPS", direction, False, False,
                       True, "awr.txt:1")


def test_every_headline_row_at_the_first_rows_best_point() -> None:
    heads = series([_m("physical_read_iops", 64, 100_000.0), _m("physical_read_iops", 256, 159_000.0),
                    _m("physical_write_iops", 64, 0.9), _m("physical_write_iops", 256, 0.4)])
    rows = rows_of(heads)
    table = summary(rows, metric_names(heads), [("violin", "")])
    cells = {r["metric"]: r["cells"][0] for r in table["rows"]}
    assert cells["physical_read_iops"] == "159,000 (256 SLOB reader sessions)"
    assert cells["physical_write_iops"] == "0.4 (256 SLOB reader sessions)"  # was 0.9 at 64: its own best


def test_a_headline_that_says_nothing_for_this_study_is_left_out() -> None:
    """Read-only SLOB: write IOPS of 0.4 beside read IOPS of 159,000 got a row and a chart of their own."""
    from planner.report.study import silent_rows

    heads = series([_m("physical_read_iops", 64, 100_000.0), _m("physical_read_iops", 256, 159_000.0),
                    _m("physical_write_iops", 64, 0.9), _m("physical_write_iops", 256, 0.4)])
    ((row, peak, against),) = silent_rows(rows_of(heads))
    assert (row.key, peak, against.key) == ("physical_write_iops", 0.9, "physical_read_iops")
    busy = series([_m("physical_read_iops", 64, 100_000.0), _m("physical_write_iops", 64, 20_000.0)])
    assert silent_rows(rows_of(busy)) == []


def test_each_system_says_whether_its_figures_can_be_trusted() -> None:
    from planner.report.study import validity

    findings = [{"play": "violin", "severity": "warning", "title": "CPU-bound run"},
                {"play": "violin", "severity": "note", "title": "Latency cannot be computed"},
                {"play": "exadata", "severity": "note", "title": "RAC figures are not IOPS"}]
    assert validity("violin", findings) == {"verdict": "read with care", "why": ["CPU-bound run"],
                                            "notes": ["Latency cannot be computed"]}
    assert validity("exadata", findings) == {"verdict": "can be trusted", "why": [],
                                             "notes": ["RAC figures are not IOPS"]}
    assert validity("other", findings) == {"verdict": "can be trusted", "why": ["none of the checks fired"],
                                           "notes": []}
