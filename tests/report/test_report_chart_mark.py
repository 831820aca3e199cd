"""Issue 45: a chart file from a rehearsal carries the SIMULATED mark on its face, since chart files get pasted
on their own, without the report's banner."""

from __future__ import annotations

from pathlib import Path

from planner.report.charts import SIMULATED_MARK, ChartLine, ChartPoint, TimeLine, sweep_chart, time_chart

LINES = [ChartLine("Violin", (ChartPoint("8", 1.0, 2.0, 3.0), ChartPoint("16", 2.0, 3.0, 4.0)))]


def test_a_rehearsals_sweep_chart_says_simulated(tmp_path: Path) -> None:
    real = sweep_chart(tmp_path / "real.svg", "IOPS by readers", "readers", "IOPS", LINES)
    sim = sweep_chart(tmp_path / "sim.svg", "IOPS by readers", "readers", "IOPS", LINES, simulated=True)
    assert real and sim
    assert "SIMULATED" not in real.read_text()
    text = sim.read_text()
    assert ">SIMULATED<" in text and SIMULATED_MARK in text


def test_a_rehearsals_time_chart_says_simulated(tmp_path: Path) -> None:
    line = TimeLine("IOPS", (0.0, 1.0, 2.0), (5.0, 6.0, 5.5), (5.0, 6.0, 5.5), (5.0, 6.0, 5.5), 1.0)
    sim = time_chart(tmp_path / "t.svg", "IOPS over time", "IOPS", [line], window_s=3.0, simulated=True)
    assert sim and SIMULATED_MARK in sim.read_text()
