"""ORION's _lat.csv unit is read from each run itself (issue 16 row 8): the 12c+ unit is UNVERIFIED in public
sources, so the summary's own "usecs" minimum-latency point decides which unit the CSV cell is in."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from planner.kinds.orion.step import _csv_unit, _latency_units
from planner.status import Artifact

# Summary lines as real ORION prints them (shared/reference/output-formats.md §3.2, §3.3)
SUMMARY_19C = ("ORION: ORacle IO Numbers -- Version RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417\n"
               "Minimum Small Latency=97.677 usecs @ Small=2 and Large=0\n")
SUMMARY_11_1 = "ORION VERSION 11.1.0.7.0\nMinimum Small Latency=0.43 @ Small=1 and Large=0\n"
CSV_US = "Large/Small,      1,      2\n          0, 120.50,  97.68\n          1\n"
CSV_MS = "Large/Small,      1,      2\n          0,   0.12,   0.10\n          1\n"
CSV_11_1 = "Large/Small,      1,      2,      3,      4,      5\n          0,   0.43,   0.45,   0.55,   0.67,   0.80\n"


def test_the_summary_point_decides_the_csv_unit() -> None:
    assert _csv_unit(SUMMARY_19C, CSV_US) == "us"
    assert _csv_unit(SUMMARY_19C, CSV_MS) == "ms"  # were 12c+ CSVs in ms after all, no 1000x error
    assert _csv_unit(SUMMARY_11_1, CSV_11_1) == "ms"
    assert _csv_unit("no minimum line\n", CSV_US) is None
    assert _csv_unit(SUMMARY_19C, "Large/Small,      1\n          0,   5.00\n") is None  # point not in the CSV


def test_a_19c_run_with_a_millisecond_csv_is_not_divided_by_1000(tmp_path: Path) -> None:
    """Before: any 12+ version made the CSV microseconds (orion.latency_ms 1000x too low if the belief is wrong)."""
    (tmp_path / "t_summary.txt").write_text(SUMMARY_19C)
    (tmp_path / "t_lat.csv").write_text(CSV_MS)
    arts = [Artifact("t_summary.txt", "orion_summary", ""), Artifact("t_lat.csv", "orion_csv", "")]
    ctx = SimpleNamespace(run_dir=tmp_path)
    assert [a.kind for a in _latency_units(ctx, arts)] == ["orion_summary", "orion_csv"]  # type: ignore[arg-type]
    (tmp_path / "t_lat.csv").write_text(CSV_US)
    assert [a.kind for a in _latency_units(ctx, arts)] == ["orion_summary", "orion_csv_us"]  # type: ignore[arg-type]
    (tmp_path / "t_summary.txt").write_text("ORION VERSION 12.2.0.1.0\n")  # no minimum line: the version decides
    assert [a.kind for a in _latency_units(ctx, arts)] == ["orion_summary", "orion_csv_us"]  # type: ignore[arg-type]


def test_a_rendered_write_of_0_is_no_write_on_a_simple_run() -> None:
    """A template or an -e value renders to text: ``write: "0"`` writes nothing, so -run simple takes it (it was
    refused as an option only -run advanced reads)."""
    from planner.kinds.orion.step import Orion

    step = Orion({"testname": "t", "luns": ["/dev/sdb"], "run": "simple", "write": "0"})
    step.validate()
    assert step.opts.write == 0 and not Orion.writes_devices(step.args)
