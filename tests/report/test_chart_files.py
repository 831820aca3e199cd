"""Issue 40 Medium: `planner report` wrote chart files through a received folder's `charts` symlink, at 0644.
Charts are now written as every record file is (0600, atomically) and never through a link."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from planner.errors import PlannerError
from planner.report.charts import ChartLine, ChartPoint, sweep_chart

LINES = [ChartLine("a", (ChartPoint("1", 1.0, 1.0, 1.0), ChartPoint("2", 2.0, 2.0, 2.0)))]


@pytest.mark.slow  # matplotlib may start fc-list to build its font cache
def test_charts_are_0600_and_never_written_through_a_link(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    path = sweep_chart(run / "charts/c.svg", "t", "x", "y", LINES)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and "<svg" in path.read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    received = tmp_path / "received"
    received.mkdir()
    (received / "charts").symlink_to(elsewhere)
    with pytest.raises(PlannerError, match="is a symbolic link"):
        sweep_chart(received / "charts/c.svg", "t", "x", "y", LINES)
    assert list(elsewhere.iterdir()) == []
