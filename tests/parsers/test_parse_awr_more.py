"""More real AWR reports (tests/data/awr/README.md lists their sources); every value below was read by eye
from the report file itself, not from the parser's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import awr_html

DATA = Path(__file__).parents[1] / "data" / "awr"


def load(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_18c_rac_exadata_html_header_and_host() -> None:
    p = awr_html.parse(load("awr_18c_rac_prdg.html"), "prdg.html")
    assert p.kind == "awr_html" and not p.errors
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("version"), p.fact("rac"), p.fact("cdb")) == \
        ("PRDG", "1336253677", "18.0.0.0.0", "YES", "NO")
    assert (p.fact("instance"), p.fact("inst_num")) == ("PRDG1", "1")
    assert p.fact("host_name") == "ex4adm01vm01.bawag.com" and p.fact("platform") == "Linux x86 64-bit"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (14, 7, 2, 471.98)
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id")) == ("237812", "237837")
    assert p.fact("end_snap_time") == "18-Jun-20 16:00:11"
    assert p.value("elapsed_min") == 499.99 and p.value("db_time_min") == 128.14
    # Cache Sizes sits after the Memory Statistics table in 18c, not under the snapshot table
    assert p.value("buffer_cache_mb") == 11584 and p.value("shared_pool_mb") == 4210
    assert p.value("std_block_size_kb") == 16 and p.value("log_buffer_kb") == 29668


def test_18c_rac_html_load_profile_is_per_instance() -> None:
    p = awr_html.parse(load("awr_18c_rac_prdg.html"))
    assert p.value("redo_size_per_s", instance="1") == 29444.5
    assert p.value("logical_reads_per_txn") == 9813.1
    assert p.value("physical_reads_per_s") == 345.5 and p.value("physical_reads_per_txn") == 334.7
    assert p.value("physical_read_io_requests_per_s") == 42.6 and p.value("read_io_mb_per_s") == 5.4
    assert p.value("gc_blocks_received_per_s") == 8.1 and p.value("gc_blocks_served_per_s") == 9.9
    assert p.value("hard_parses_per_s") == 7.4 and p.value("executes_per_s") == 58.3
    assert p.value("transactions_per_s") == 1.0 and p.value("db_time_per_call") == 0.01
    # RAC=YES: every Load Profile value is labelled with the instance it belongs to
    assert {m.label("instance") for m in p.metrics if m.name.endswith("_per_s")} == {"1"}
    assert p.value("efficiency.library_hit_pct") == 33.41
    assert p.value("efficiency.flash_cache_hit_pct") == -30.52  # negative, printed by Oracle as such


def test_18c_rac_html_top_events_with_microsecond_averages() -> None:
    p = awr_html.parse(load("awr_18c_rac_prdg.html"))
    assert p.value("wait.time_s", event="DB CPU") == 6117 and p.value("wait.pct_db_time", event="DB CPU") == 79.6
    ev = dict(event="cell single block physical read")
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.pct_db_time", **ev)) == \
        (1075359, 452.2, 5.9)
    assert p.value("wait.avg_ms", **ev) == pytest.approx(0.42051)  # "420.51us"
    assert p.value("wait.avg_ms", event="PX Deq: reap credit") == pytest.approx(0.02025)  # "20.25us"
    assert p.value("wait.avg_ms", event="recovery area: computing backed up files") == 1452.89
    assert p.get("wait.waits", event="gc cr grant 2-way").label("wait_class") == "Cluster"
    assert p.value("wait.pct_db_time", event="log file sync") == 0.8  # printed ".8"
    assert len({m.label("event") for m in p.all("wait.time_s")}) == 10
    assert p.value("wait_class.time_s", wait_class="Other") == 2436
    assert p.value("wait_class.avg_ms", wait_class="Administrative") == 27.77


def test_18c_rac_html_host_cpu_instance_cpu_io_profile() -> None:
    p = awr_html.parse(load("awr_18c_rac_prdg.html"))
    assert (p.value("host_cpu.load_avg_begin"), p.value("host_cpu.load_avg_end")) == (3.92, 7.33)
    assert (p.value("host_cpu.user_pct"), p.value("host_cpu.sys_pct"), p.value("host_cpu.wio_pct"),
            p.value("host_cpu.idle_pct")) == (35.0, 8.9, 0.2, 54.9)
    # Instance CPU table: read from HTML too (was only read from text reports)
    assert (p.value("instance_cpu.total_pct"), p.value("instance_cpu.busy_pct"),
            p.value("instance_cpu.rsrc_mgr_wait_pct")) == (2.3, 5.2, 0.0)
    assert p.get("instance_cpu.busy_pct").label("instance") == "1"
    assert p.value("io_profile.total_requests", scope="read") == 159.7
    assert p.value("io_profile.optimized_requests", scope="total") == 173.5
    assert p.value("io_profile.redo_requests", scope="write") == 9.5
    assert p.get("io_profile.total_mb", scope="total").unit == "MB/s"
    assert p.value("io_profile.direct_blocks", scope="read") == 305.5


@pytest.mark.slow
def test_122_noncdb_html_pga_limit_report() -> None:
    p = awr_html.parse(load("awr_122_aimsdb_noncdb.html"), "aims.html")
    assert not p.errors
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("version"), p.fact("rac"), p.fact("cdb")) == \
        ("AIMSDB", "4253805188", "12.2.0.1.0", "NO", "NO")
    assert p.fact("host_name") == "azvaimsproddb1"
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (8, 8, 8, 15.51)
    assert (p.value("snap_id_begin"), p.value("snap_id_end")) == (38483, 38484)
    assert p.value("elapsed_min") == 60.25 and p.value("db_time_min") == 5.89
    assert p.value("logical_reads_per_s") == 12168.0 and p.value("redo_size_per_txn") == 19617.7
    assert p.value("physical_reads_per_s") == 0.9 and p.value("physical_write_io_requests_per_s") == 1.6
    assert p.value("workarea_mb_per_s") == 8.5 and p.value("executes_per_txn") == 68.1
    assert p.value("transactions_per_s") == 0.7
    # not RAC: no instance label
    assert p.get("physical_reads_per_s").labels == ()
    ev = dict(event="acknowledge over PGA limit")
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.avg_ms", **ev)) == \
        (3583, 35, 9.77)
    assert p.get("wait.waits", **ev).label("wait_class") == "Scheduler"
    assert p.value("wait.avg_ms", event="Disk file operations I/O") == pytest.approx(0.12258)
    assert p.value("wait.time_s", event="SQL*Net message to client") == 0.0
    assert p.value("wait_class.pct_db_time", wait_class="Scheduler") == 10.0
    assert p.value("efficiency.execute_to_parse_pct") == 78.98
    assert p.value("host_cpu.idle_pct") == 96.5 and p.value("host_cpu.load_avg_begin") == 0.24
    assert p.get("physical_reads_per_s").source.line == 44


def test_instance_cpu_html_and_text_share_metric_names() -> None:
    from planner.parsers import awr_text
    text = awr_text.parse(load("awr_11201_orcl_fabioprado.txt"))
    html = awr_html.parse(load("awr_18c_rac_prdg.html"))
    names = {m.name for m in text.metrics if m.name.startswith("instance_cpu.")}
    assert names and names <= {m.name for m in html.metrics if m.name.startswith("instance_cpu.")}
