"""Words, not keys: display names, labels only where they differ, chart series per system and per second
parameter, readable chart files; the keys themselves stay in exports and `planner parse --format json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_helpers import DATA, seed_study

from planner.cli.main import main
from planner.metrics import Direction, display_name
from planner.report.charts import ChartLine, ChartPoint, sweep_chart
from planner.report.study import chart_lines, metric_names
from planner.results.stats import Series


def test_display_names_from_the_table_and_the_readable_fallback() -> None:
    assert display_name("physical_read_iops", (("basis", "requests"),), "IOPS") == "Physical read IOPS"
    assert (display_name("single_block_read_latency_ms", (("event", "db file sequential read"),), "ms")
            == "db file sequential read, avg wait (ms)")
    assert display_name("single_block_read_latency_ms", (), "ms") == "Single-block read, avg wait (ms)"
    assert (display_name("calibrate.max_iops", (("form", "dbms_output"), ("block", "1")), "IO/s")
            == "CALIBRATE_IO max IOPS")
    assert display_name("logical_reads_per_txn", (), "blocks/txn") == "Logical reads per transaction (blocks/txn)"
    # a metric nobody named yet still reads as words, never as the raw key
    assert display_name("iozone.per_process", (), "KB/s") == "iozone throughput per process (KB/s)"
    assert display_name("load_profile.im_scan_rows_per_s", (), "rows/s") == "Load profile im scan rows (rows/s)"
    assert display_name("mpstat.usr_pct", (), "%") == "mpstat usr %"


def _s(play: str, params: tuple[tuple[str, object], ...], value: float, key: str = "fio.iops",
       labels: tuple[tuple[str, str], ...] = ()) -> Series:
    return Series(play, "h", "plays[0].workloads[0]", "fio", "fio", params, "fio.iops", key, labels, "IO/s",
                  Direction.HIGHER, True, False, (value * 0.9, value, value * 1.1), 0)


def test_labels_are_shown_only_where_they_differ() -> None:
    one = [_s("a", (), 1, "fio.iops{job=randread}", (("job", "randread"),))]
    assert metric_names(one) == {"fio.iops{job=randread}": "fio IOPS"}
    two = [*one, _s("a", (), 1, "fio.iops{job=seqread}", (("job", "seqread"),))]
    assert metric_names(two) == {"fio.iops{job=randread}": "fio IOPS, job randread",
                                 "fio.iops{job=seqread}": "fio IOPS, job seqread"}


def test_two_parameter_sweep_gets_a_line_per_value_of_the_second() -> None:
    ss = [_s("ssd", (("iodepth", d), ("bs", b)), d * (2 if b == "4k" else 1))
          for b in ("4k", "8k") for d in (1, 4, 16)]
    x, lines = chart_lines(ss, ["ssd"], {})
    assert x == "iodepth" and [ln.label for ln in lines] == ["block size 4k", "block size 8k"]
    assert [p.x for p in lines[0].points] == ["1", "4", "16"] and lines[0].points[2].median == 32
    assert lines[0].points[2].low == pytest.approx(28.8) and lines[0].points[2].high == pytest.approx(35.2)


def test_square_cross_product_is_two_dimensional_not_a_zip() -> None:
    # bs x iodepth with two values each: equal value counts do not make it a zip (each bs meets every iodepth)
    ss = [_s("disk", (("bs", b), ("iodepth", d)), d * (2 if b == "8k" else 1)) for b in ("4k", "8k") for d in (1, 4)]
    x, lines = chart_lines(ss, ["disk"], {})
    assert x == "iodepth"  # the numeric parameter on the axis, the other one a series each
    assert [ln.label for ln in lines] == ["block size 4k", "block size 8k"]
    assert [[p.x for p in ln.points] for ln in lines] == [["1", "4"], ["1", "4"]]
    # with two systems, each series says its system and its second value
    two = ss + [_s("nvme", (("bs", b), ("iodepth", d)), 9) for b in ("4k", "8k") for d in (1, 4)]
    _, lines = chart_lines(two, ["disk", "nvme"], {})
    assert [ln.label for ln in lines] == ["disk, block size 4k", "disk, block size 8k", "nvme, block size 4k",
                                          "nvme, block size 8k"]


def test_zip_sweep_is_one_line_and_systems_are_series() -> None:
    zipped = [_s("ssd", (("iodepth", d), ("numjobs", j)), d) for d, j in ((1, 1), (4, 2), (16, 4))]
    x, lines = chart_lines(zipped, ["ssd"], {})
    assert x in ("iodepth", "numjobs") and len(lines) == 1
    two = [_s("ssd", (("iodepth", 1),), 1), _s("ssd", (("iodepth", 4),), 2), _s("nvme", (("iodepth", 1),), 5)]
    x, lines = chart_lines(two, ["ssd", "nvme"], {})
    assert [ln.label for ln in lines] == ["ssd", "nvme"]


@pytest.mark.slow
def test_chart_starts_at_zero_has_words_and_keeps_the_legend_off_the_data(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    lines = [ChartLine("Exadata X2-8", (ChartPoint("64", 95, 100, 103), ChartPoint("128", 99, 103, 104)))]
    svg = sweep_chart(tmp_path / "physical-read-iops-by-readers.svg", "Physical read IOPS, by SLOB reader sessions",
                      "SLOB reader sessions", "Physical read IOPS (IOPS)", lines)
    assert svg is not None
    text = svg.read_text()
    assert "Physical read IOPS (IOPS)" in text and "Exadata X2-8" in text and "<dc:date>" not in text
    assert ">0<" in text or ">0 <" in text or "0</text>" in text  # the y axis has a 0 tick: it starts at zero


@pytest.mark.slow
def test_keys_stay_in_exports_and_parse_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path)
    assert main(["export", str(run), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert any(r["metric"] == "physical_read_iops" and r["labels"] == {"basis": "blocks"} for r in rows)
    assert main(["parse", str(DATA / "orion" / "orion-seed-x25m_summary.txt"), "--format", "json"]) == 0
    assert "orion.max_small_iops" in capsys.readouterr().out


@pytest.mark.slow
def test_report_of_a_recorded_run_keeps_its_plan_when_the_inventory_is_relative(tmp_path: Path) -> None:
    """The run folder's plan.yaml says inventory: ../inventory/lab.yaml, which is beside the original plan,
    not in the run folder: `planner report RUN` once lost the plan (template, claims, step kinds) over it."""
    run = seed_study(tmp_path)
    plan = run / "plan.yaml"
    plan.write_text(plan.read_text().replace("plays:", "inventory: ../inventory/lab.yaml\nreport: "
                                             "{template: slob_comparison.md.j2}\nplays:", 1))
    out = tmp_path / "again.md"
    assert main(["report", str(run), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# SLOB comparison") and "**reproduced**" in text


@pytest.mark.slow
def test_runs_columns_stay_aligned_with_long_run_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed_study(tmp_path, "20260101T100000Z-a")
    long_id = "20260102T100000Z-" + "a-much-longer-run-id-than-forty-characters" * 2
    seed_study(tmp_path, long_id)
    assert main(["runs", "--runs-dir", str(tmp_path)]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "slob_violin_vs_exadata" in ln]
    assert len(lines) == 2 and long_id in lines[1]  # never cut
    assert len({ln.index("slob_violin_vs_exadata") for ln in lines}) == 1  # the PLAN column lines up


def test_percentile_metrics_say_which_percentile() -> None:
    # the fio headline completion latency is the p99; alone in a table it must not read as the mean
    assert display_name("fio.clat_ms", (("stat", "p99"),), "ms", frozenset()) == \
        "fio completion latency, 99th percentile (ms)"
    assert display_name("fio.clat_ms", (("stat", "p99.9"),), "ms") == "fio completion latency, 99.9th percentile (ms)"
    assert display_name("fio.lat_ms", (("stat", "mean"),), "ms", frozenset()) == "fio total latency (ms)"


def test_figures_keep_three_significant_digits() -> None:
    from planner.results.stats import fmt

    assert fmt(0.107) == "0.107" and fmt(3.084) == "3.08" and fmt(49.83) == "49.8"  # was 0.1 / 3.1 / 49.8
    assert fmt(0.2) == "0.2" and fmt(2.0) == "2.0"  # no digits it does not have
    assert fmt(15619.4) == "15,619.4" and fmt(138000.0) == "138,000" and fmt(0.0492) == "0.0492"
