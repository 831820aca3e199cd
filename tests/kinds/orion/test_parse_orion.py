"""ORION summary and CSV parser, on real outputs (sources in tests/data/orion/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.orion import parse as orion
from planner.metrics import Direction

DATA = Path(__file__).resolve().parents[2] / "data" / "orion"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def test_seed_old_form_without_at() -> None:
    p = orion.parse(_read("orion-seed-x25m_summary.txt"), "seed")
    assert p.kind == "orion_summary"
    assert p.value("orion.max_large_mbps") == 139.22
    assert p.value("orion.max_small_iops") == 3985
    assert p.value("orion.min_small_latency_ms") == 0.25  # 11.1: no unit, ms
    assert p.get("orion.max_small_iops").labels == ()
    assert p.get("orion.max_small_iops").direction is Direction.HIGHER
    assert p.get("orion.min_small_latency_ms").direction is Direction.LOWER


def test_11107_summary_vdb() -> None:
    p = orion.parse(_read("orion-11.1.0.7-vdb_summary.txt"), "vdb_summary.txt")
    assert p.fact("version") == "11.1.0.7.0"
    assert p.fact("test") == "orion"
    assert p.value("orion.max_large_mbps", small="0", large="2") == 1554.54
    assert p.value("orion.max_small_iops", small="5", large="0") == 19019
    assert p.value("orion.min_small_latency_ms", small="5", large="0") == 0.26
    assert p.value("orion.small_io_kb") == 8
    assert p.value("orion.large_io_kb") == 1024
    assert p.value("orion.write_pct") == 0
    assert p.value("orion.point_duration_s") == 60
    assert p.value("orion.data_points") == 8
    assert p.value("orion.lun_size_bytes", lun="/dev/vdb") == 21474836480
    m = p.get("orion.max_small_iops")
    assert (m.unit, m.source.file, m.source.line) == ("IO/s", "vdb_summary.txt", 23)


def test_11107_summary_sdb() -> None:
    p = orion.parse(_read("orion-11.1.0.7-sdb_summary.txt"), "s")
    assert p.value("orion.max_large_mbps", small="0", large="2") == 362.46
    assert p.value("orion.max_small_iops", small="5", large="0") == 22817
    assert p.value("orion.min_small_latency_ms", small="2", large="0") == 0.19
    assert p.value("orion.lun_size_bytes", lun="/dev/sdb") == 479559942144
    assert p.errors == ()


def test_19c_console_usecs_and_histogram() -> None:
    p = orion.parse(_read("orion-19c-console.txt"), "c")
    assert p.fact("version") == "RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417"
    assert p.value("orion.max_large_mbps", small="0", large="5") == 1571.33
    assert p.value("orion.max_small_iops", small="10", large="0") == 58778
    assert p.value("orion.min_small_latency_ms", small="2", large="0") == pytest.approx(0.097677)
    assert p.value("orion.small_latency_ms", op="read", stat="avg", small="10") == pytest.approx(0.169594)
    assert p.value("orion.small_latency_ms", op="read", stat="min", small="10") == pytest.approx(0.128415)
    assert p.value("orion.small_latency_ms", op="read", stat="max", small="10") == pytest.approx(1.924721)
    assert p.value("orion.small_latency_ms", op="read", stat="stddev", small="10") == pytest.approx(0.013566)
    assert p.value("orion.small_latency_ms", op="read", stat="max", small="2") == pytest.approx(2.133198)
    assert p.value("orion.latency_hist_ios", op="read", bucket_us="64-128") == 1112243
    assert p.value("orion.latency_hist_ios", op="read", bucket_us="4096-268435456") == 0
    assert len(p.all("orion.latency_hist_ios")) == 18


def test_122_oltp_glued_lines() -> None:
    """The public sample glued 'Minimum Small Latency=' onto the previous line."""
    p = orion.parse(_read("orion-12.2-oltp-write50.txt"), "o")
    assert p.value("orion.max_small_iops", small="68", large="0") == 918
    assert p.value("orion.min_small_latency_ms", small="4", large="0") == pytest.approx(4.409929)
    assert p.get("orion.min_small_latency_ms").source.line == 4
    assert p.value("orion.small_latency_ms", op="write", stat="avg", small="68") == pytest.approx(73.935104)
    assert p.value("orion.small_latency_ms", op="write", stat="max", small="4") == pytest.approx(137.914519)
    assert p.value("orion.small_latency_ms", op="read", stat="min", small="4") == pytest.approx(2.947072)
    assert p.value("orion.small_latency_ms", op="read", stat="stddev", small="68") == pytest.approx(12.263553)
    assert p.get("orion.max_large_mbps") is None  # -run oltp prints no MBPS line


def test_csv_iops_and_mbps_matrices() -> None:
    iops = orion.parse(_read("mytest_iops.csv"), "x/mytest_iops.csv")
    assert iops.kind == "orion_csv"
    assert [m.value for m in iops.all("orion.iops")] == [2302, 4398, 5450, 6006, 6210]
    assert iops.value("orion.iops", small="5", large="0") == 6210
    assert iops.get("orion.iops", small="1").source.line == 2
    mbps = orion.parse(_read("mytest_mbps.csv"), "mytest_mbps.csv")
    assert mbps.value("orion.mbps", small="0", large="1") == 271.58
    assert mbps.value("orion.mbps", small="0", large="2") == 374.26
    assert mbps.get("orion.mbps").unit == "MB/s"


def test_csv_unknown_matrix_is_named_not_guessed() -> None:
    p = orion.parse(_read("mytest_iops.csv"), "renamed.csv")
    assert p.all("orion.value") and p.get("orion.iops") is None
    assert "cannot tell iops/mbps/lat" in str(p.errors[0])


def test_csv_bad_cell_keeps_the_rest() -> None:
    text = "Large/Small,      1,      2\n          0,   2302,   oops\n"
    p = orion.parse_csv(text, "t_iops.csv")
    assert p.value("orion.iops", small="1", large="0") == 2302
    assert "not a number" in str(p.errors[0]) and p.errors[0].line == 2


@pytest.mark.parametrize("text", ["", "hello\n", "Large/Small,   1\n   0\n", "Maximum Small IOPS=\n"])
def test_wrong_or_empty_input_raises(text: str) -> None:
    with pytest.raises(ParseError):
        orion.parse(text, "bad_iops.csv")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parsed = orion.parse(text, "f_lat.csv")
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(p.name for p in DATA.iterdir() if p.suffix in (".txt", ".csv"))),
       st.integers(min_value=0, max_value=3000))
def test_truncated_real_files_raise_only_parse_error(name: str, cut: int) -> None:
    try:
        parsed = orion.parse(_read(name)[:cut], name)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success
