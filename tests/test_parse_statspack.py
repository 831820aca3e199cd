"""Statspack parser on real reports (tests/data/statspack/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import statspack

DATA = Path(__file__).parent / "data" / "statspack"


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
