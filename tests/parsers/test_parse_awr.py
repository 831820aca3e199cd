"""AWR text and HTML parsers on real reports (tests/data/awr/README.md lists their sources)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.parsers import awr_html, awr_text

DATA = Path(__file__).parents[1] / "data" / "awr"


def load(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_11201_single_instance_text() -> None:
    p = awr_text.parse(load("awr_11201_orcl_fabioprado.txt"), "a.txt")
    assert p.kind == "awr_text" and not p.errors
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("version"), p.fact("rac")) == \
        ("ORCL", "1344731332", "11.2.0.1.0", "NO")
    assert p.fact("host_name") == "fabioprado.net" and p.fact("platform") == "Linux x86 64-bit"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (2, 2, 1, 1.96)
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id")) == ("37", "38")
    assert p.value("elapsed_min") == 6.03 and p.value("db_time_min") == 141.41
    assert p.value("buffer_cache_mb") == 424 and p.value("log_buffer_kb") == 5424
    assert p.value("physical_reads_per_s") == 130.9 and p.value("physical_reads_per_txn") == 5.3
    assert p.value("logical_reads_per_s") == 2021.9 and p.value("redo_size_per_s") == 56890.1
    assert p.value("executes_per_s") == 256.5 and p.value("transactions_per_s") == 24.9
    assert p.value("db_time_per_call") == 0.68
    assert p.value("efficiency.buffer_hit_pct") == 93.53
    ev = dict(event="db file sequential read")
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.avg_ms", **ev),
            p.value("wait.pct_db_time", **ev)) == (35732, 6575, 184, 77.5)
    assert p.get("wait.waits", event="resmgr:cpu quantum").label("wait_class") == "Scheduler"
    assert p.value("host_cpu.wio_pct") == 80.5 and p.value("host_cpu.load_avg_end") == 17.70
    assert p.value("instance_cpu.busy_pct") == 47.5 and p.value("db_time_s") == 8484.3
    m = p.get("physical_reads_per_s")
    assert m.source.file == "a.txt" and m.source.line == 35 and m.unit == "blocks/s"
    assert m.direction.value == "higher" and p.get("wait.avg_ms").direction.value == "lower"
    assert p.get("cpus").direction.value == "neutral"


def test_11203_rac_text_aix_blank_sockets() -> None:
    p = awr_text.parse(load("awr_11203_rac_askmaclean.txt"))
    assert p.fact("rac") == "YES" and p.fact("instance") == "askmaclean.com" and p.fact("inst_num") == "1"
    assert p.fact("platform") == "AIX-Based Systems (64-bit)"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (128, 32, None, 320)
    assert p.value("db_time_min") == 7633.76 and p.value("elapsed_min") == 29.75
    assert p.value("buffer_cache_mb") == 49152 and p.value("log_buffer_kb") == 334848
    assert p.value("physical_reads_per_s", instance="1") == 5076.7
    assert p.value("rollbacks_per_s") == 1126.3 and p.value("transactions_per_s") == 1235.3
    assert p.value("load_profile.rows_per_sort") == 73.70
    assert p.value("efficiency.parse_cpu_to_parse_elapsd_pct") == 1.75
    assert all(m.label("instance") == "1" for m in p.all("physical_reads_per_s"))
    # the file was trimmed before the Top 5 section: named error, the rest still read
    assert [e.section for e in p.errors] == ["Top Events"] and "awr_text" in str(p.errors[0])


def test_19c_rac_pdb_text_with_sqlplus_page_breaks() -> None:
    p = awr_text.parse(load("awr_19c_racdb_pdb.txt"))
    assert not p.errors
    assert (p.fact("db_name"), p.fact("version"), p.fact("rac"), p.fact("cdb")) == ("RACDB", "19.0.0.0.0", "YES", "YES")
    assert (p.fact("instance"), p.fact("inst_num"), p.fact("host_name")) == ("racdb1", "1", "rac1")
    assert (p.value("cpus"), p.value("sockets"), p.value("memory_gb")) == (2, 2, 7.31)
    assert p.value("db_time_min") == 0.89
    assert p.value("db_cpu_per_txn") == 0.2  # row after the OUTPUT page heading
    assert p.value("logical_reads_per_txn") == 3712.0 and p.value("executes_per_txn") == 1062.5
    assert p.value("gc_blocks_served_per_txn") == 1.0 and p.value("physical_read_io_requests_per_txn") == 10.0
    assert p.value("wait.avg_ms", event="enq: TX - row lock contention") == pytest.approx(52860)
    assert p.value("wait.avg_ms", event="control file sequential read") == pytest.approx(0.26869)
    assert p.get("wait.waits", event="control file sequential read").label("wait_class") == "System I/O"
    assert p.value("wait.time_s", event="DB CPU") == 0.4
    assert len({m.label("event") for m in p.all("wait.time_s")}) == 10
    assert p.value("wait_class.avg_ms", wait_class="Application") == 3524.27
    assert p.value("io_profile.total_requests", scope="read") == 0.0


def test_122_html_slob() -> None:
    p = awr_html.parse(load("awr_122_slob2.html"), "awr.html")
    assert p.kind == "awr_html" and not p.errors
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("version"), p.fact("rac")) == \
        ("SLOB2", "3926536870", "12.2.0.1.0", "NO")
    assert p.fact("host_name") == "localhost.local.com" and p.fact("inst_num") == "1"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (96, 48, 2, 747.58)
    assert p.value("db_time_min") == 1368.27 and p.value("elapsed_min") == 21.82
    assert p.value("physical_reads_per_s") == 64077.9
    assert p.value("physical_read_io_requests_per_s") == 8047.3  # IOPS, not blocks
    assert p.value("read_io_mb_per_s") == 500.6 and p.value("db_time_per_call") == 103.14
    assert p.value("wait.time_s", event="direct path read") == 26400  # "26.4K"
    assert p.value("wait.avg_ms", event="direct path read") == 3.82
    assert p.value("wait.waits", event="direct path read") == 6904693
    assert p.value("efficiency.flash_cache_hit_pct") == 0.0
    assert p.get("physical_reads_per_s").source.line == 51


def test_19c_html_cdb() -> None:
    p = awr_html.parse(load("awr_19c_orclcdb.html"))
    assert (p.fact("db_name"), p.fact("version"), p.fact("cdb"), p.fact("instance")) == \
        ("ORCLCDB", "19.0.0.0.0", "YES", "orclcdb")
    assert (p.value("cpus"), p.value("memory_gb"), p.value("snap_id_begin")) == (2, 7.75, 155)
    assert p.value("db_time_min") == 243.34 and p.value("redo_size_per_s") == 364992.1
    assert p.value("executes_per_s") == 1919.1 and p.value("transactions_per_s") == 62.1
    assert p.value("wait.avg_ms", event="enq: HW - contention") == 385.77
    assert p.value("wait.waits", event="log file sync") == 216614
    assert p.value("wait.time_s", event="DB CPU") == 1436.2


def test_truncated_text_report_names_sections() -> None:
    text = load("awr_11201_orcl_fabioprado.txt")
    cut = text[: text.index("Load Profile")]
    p = awr_text.parse(cut)
    assert {e.section for e in p.errors} == {"Load Profile", "Top Events"}
    assert p.value("cpus") == 2  # what could be read still is


def test_unknown_version_header_is_an_error_not_a_crash() -> None:
    text = load("awr_11201_orcl_fabioprado.txt").replace("11.2.0.1.0", "banana")
    p = awr_text.parse(text)
    assert [e.section for e in p.errors] == ["header"] and p.value("physical_reads_per_s") == 130.9


@pytest.mark.parametrize("bad", ["", "   \n", "hello world", "\x00\x01\x02garbage" * 50, "<html></html>"])
def test_not_an_awr_raises(bad: str) -> None:
    for mod in (awr_text, awr_html):
        with pytest.raises(ParseError):
            mod.parse(bad)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=6000))
def test_any_input_gives_parsed_or_parse_error(noise: str, cut: int) -> None:
    base = load("awr_11201_orcl_fabioprado.txt")
    for text in (noise, base[:cut] + noise, "WORKLOAD REPOSITORY report for\n" + noise):
        try:
            p = awr_text.parse(text)
        except ParseError:
            continue
        assert all(m.value == m.value for m in p.metrics)  # no NaN
    html = load("awr_122_slob2.html")
    with contextlib.suppress(ParseError):
        awr_html.parse(html[: cut * 2] + noise)
