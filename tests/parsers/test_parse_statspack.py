"""Statspack parser on real reports (tests/data/statspack/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import statspack
from planner.parsers.derived import derive

DATA = Path(__file__).parents[1] / "data" / "statspack"


def test_11204_statspack() -> None:
    p = statspack.parse((DATA / "sp_11204_igt.txt").read_text(), "sp.txt")
    assert p.kind == "statspack" and not p.errors
    assert (p.fact("dbid"), p.fact("instance"), p.fact("version"), p.fact("rac")) == \
        ("1066102538", "igt", "11.2.0.4.0", "NO")
    assert p.fact("db_name") == ""  # blank in the report, not invented
    assert p.fact("host_name") == "my_server-aps-1"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (12, 6, 1, 31.3)
    assert (p.value("snap_id_begin"), p.value("snap_id_end")) == (6693, 6723)
    assert p.value("elapsed_min") == 1439.98 and p.value("db_time_min") == 10.30
    assert p.value("buffer_cache_mb") == 72 and p.value("shared_pool_mb") == 552
    assert p.value("log_buffer_kb") == 5120
    assert p.value("physical_reads_per_s") == 17.5 and p.value("physical_reads_per_txn") == 30.7
    assert p.value("executes_per_s") == 21.2 and p.value("transactions_per_s") == 0.6
    assert p.value("efficiency.optimal_w_a_exec_pct") == 100.0 and p.value("efficiency.library_hit_pct") == 90.53
    assert p.value("wait.time_s", event="CPU time") == 524 and p.value("wait.pct_db_time", event="CPU time") == 88.6
    assert p.value("wait.waits", event="control file parallel write") == 74394
    assert p.value("wait.avg_ms", event="db file async I/O submit") == 2
    # Statspack's Host CPU order is User System Idle WIO
    assert p.value("host_cpu.idle_pct") == 98.56 and p.value("host_cpu.wio_pct") == 0.0



def test_12102_statspack_complete() -> None:
    """getperf/t_Oracle's spreport__orcl.lst: a whole 12.1.0.2 report, values read by eye from the file."""
    p = statspack.parse((DATA / "sp_12102_getperf.txt").read_text(), "sp.txt")
    assert p.kind == "statspack" and not p.errors
    assert (p.fact("dbid"), p.fact("instance"), p.fact("version"), p.fact("rac")) == \
        ("1440056671", "orcl", "12.1.0.2.0", "NO")
    assert (p.fact("host_name"), p.fact("platform")) == ("TSOL415425", "Linux x86 64-bit")
    assert (p.fact("begin_snap_time"), p.fact("end_snap_time")) == ("23-May-16 10:52:25", "23-May-16 11:02:26")
    # the report says Cores 0 / Sockets 0 (a VM): kept as read, and no per-core figure is invented from it
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (4, 0, 0, 3.7)
    assert (p.value("snap_id_begin"), p.value("snap_id_end")) == (21, 22)
    assert p.value("elapsed_min") == 10.02 and p.value("db_time_min") == 0.80
    assert p.value("buffer_cache_mb") == 240 and p.value("shared_pool_mb") == 432
    assert p.value("log_buffer_kb") == 13016 and p.value("std_block_size_kb") == 8
    assert p.value("redo_size_per_s") == 10606.6 and p.value("redo_size_per_txn") == 155477.1
    assert p.value("logical_reads_per_s") == 745.2 and p.value("physical_reads_per_s") == 129.3
    assert p.value("physical_reads_per_txn") == 1894.9 and p.value("executes_per_txn") == 314.9
    assert p.value("workarea_mb_per_s") == 1.2 and p.value("db_time_per_call") == 0.04
    assert p.value("efficiency.buffer_hit_pct") == 82.94 and p.value("efficiency.execute_to_parse_pct") == 52.94
    assert p.value("efficiency.parse_cpu_to_parse_elapsd_pct") == 60.43
    # 12c lists idle background events (lreg timer, AQPC idle) in its Top 5: read as printed, in order
    assert [m.label("event") for m in p.metrics if m.name == "wait.time_s" and m.label("section") == "top"] == \
        ["lreg timer", "AQPC idle", "heartbeat redo informer", "db file sequential read", "CPU time"]
    assert p.value("wait.waits", event="db file sequential read") == 76367
    assert p.value("wait.avg_ms", event="AQPC idle") == 30009
    assert p.value("wait.time_s", event="CPU time") == 15 and p.value("wait.pct_db_time", event="CPU time") == 0.4
    assert (p.value("host_cpu.load_avg_begin"), p.value("host_cpu.user_pct")) == (0.17, 1.39)
    assert (p.value("host_cpu.idle_pct"), p.value("host_cpu.wio_pct")) == (97.82, 2.07)


def test_12102_statspack_derived() -> None:
    p = statspack.parse((DATA / "sp_12102_getperf.txt").read_text(), "sp.txt")
    d = {m.key: m for m in derive(p)}
    # Statspack has no "Read IO requests" row: blocks/s, labelled so
    assert d["physical_read_iops{basis=blocks}"].value == 129.3
    assert "read_iops_per_core" not in {m.name for m in d.values()}  # Cores: 0 must not divide
    assert d["single_block_read_latency_ms{event=db file sequential read}"].value == pytest.approx(42 / 76367 * 1000)
    assert d["redo_mb_per_s"].value == pytest.approx(10606.6 / 1048576)
    assert d["logical_to_physical_ratio"].value == pytest.approx(745.2 / 129.3)


def test_12102_statspack_fragment() -> None:
    p = statspack.parse((DATA / "sp_12102_testing.txt").read_text())
    assert (p.fact("dbid"), p.fact("instance"), p.fact("version")) == ("402000462", "testing", "12.1.0.2.0")
    assert p.fact("host_name") == "oracle11g"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (1, 1, 1, 1.9)
    assert p.value("elapsed_min") == 10.32 and p.value("db_time_min") == 0.03
    assert p.value("buffer_cache_mb") == 216 and p.value("shared_pool_mb") == 264
    assert p.value("log_buffer_kb") == 5068 and p.value("std_block_size_kb") == 8
    assert p.value("db_time_per_call") == 0.03
    assert [e.section for e in p.errors] == ["Top Events"]


def test_not_statspack() -> None:
    assert not statspack.looks_like("WORKLOAD REPOSITORY report for")
    with pytest.raises(ParseError):
        statspack.parse("WORKLOAD REPOSITORY report for\n")
