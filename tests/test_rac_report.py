"""The AWR global (RAC) report in text (awrgrpt / AWR_GLOBAL_REPORT_TEXT): cluster totals and per instance rows,
on a real 11.2.0.3 three-instance fragment and on a labelled constructed 19c two-instance sample
(tests/data/awr_rac/README.md says which is which)."""

from __future__ import annotations

from pathlib import Path

from planner.parsers import detect, parse_file, summarise

DATA = Path(__file__).parent / "data/awr_rac"
REAL = DATA / "awrgrpt_11203_dd453_fragment.txt"
CONSTRUCTED = DATA / "awrgrpt_19c_2inst_constructed.txt"


def test_real_11203_fragment_gives_the_cluster_sum_and_each_instance() -> None:
    text = REAL.read_text()
    assert detect(text, "awr_rac.txt") == "awr_rac_text"
    assert detect(text, "notes.txt") == "awr_rac_text"  # by content too: cut above its title
    p = parse_file(REAL)
    assert p.kind == "awr_rac_text" and not p.errors
    assert (p.fact("dbid"), p.fact("db_name"), p.fact("rac"), p.fact("version")) == \
        ("473377021", "DD453", "YES", "11.2.0.3.0")
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id")) == ("35846", "35847")
    assert [p.fact(f"instance[{i}]") for i in "123"] == ["DD4531", "DD4532", "DD4533"]
    assert [p.fact(f"host[{i}]") for i in "123"] == ["y0319t791", "y0319t792", "y0319t793"]
    cluster = {m.name: m.value for m in p.metrics if not m.labels}
    assert (cluster["instances"], cluster["hosts"], cluster["block_size"]) == (3, 3, 8192)
    assert (cluster["db_time_min"], cluster["elapsed_min"]) == (0.45, 30.03)
    # the Sum row is the cluster: never one instance's line
    assert (cluster["logical_reads_per_s"], cluster["physical_reads_per_s"], cluster["physical_writes_per_s"]) == \
        (2379.87, 0.3, 1.1)
    assert round(cluster["redo_size_per_s"], 1) == round(3.7 * 1024, 1)  # the report prints KB/s
    assert p.value("logical_reads_per_s", instance="2") == 807.67
    assert p.value("physical_writes_per_s", instance="3") == 0.3
    assert (p.value("uptime_h", instance="3"), p.value("db_time_min", instance="2")) == (29.89, 0.16)
    # 11.2.0.3 prints blocks, not requests: the cluster's IOPS is counted in blocks, and says so
    iops = p.get("physical_read_iops", instance="all")
    assert iops is not None and iops.value == 0.3 and iops.label("basis") == "blocks" and iops.derived
    assert p.value("physical_write_iops", instance="1") == 0.4
    heads = {m.key for m in summarise(p)}
    assert "physical_read_iops{basis=blocks,instance=all}" in heads
    assert not any("instance=1" in k for k in heads)  # the headline is the cluster's only


def test_constructed_19c_sample_reads_requests_bytes_and_top_events() -> None:
    p = parse_file(CONSTRUCTED)
    assert p.kind == "awr_rac_text" and not p.errors and p.fact("title") == "WORKLOAD REPOSITORY REPORT (RAC)"
    assert p.value("physical_read_io_requests_per_s") == 24802.2  # System Statistics (Global), per Second
    assert p.value("physical_read_iops", instance="all") == 24802.2
    assert p.get("physical_read_iops", instance="all").label("basis") == "requests"  # type: ignore[union-attr]
    assert round(p.value("physical_read_mb_per_s", instance="all") or 0, 2) == round(203188034.2 / 1048576, 2)
    assert p.value("physical_write_iops", instance="all") == 1860.7
    # per instance: blocks (the Global table has no per-instance requests)
    assert p.value("physical_reads_per_s") == 24801.2
    one, two = p.value("physical_read_iops", instance="1"), p.value("physical_read_iops", instance="2")
    assert one and two and abs(one + two - 24801.2) < 0.2
    # Top Timed Events: '*' is cluster-wide, then each instance
    dfsr = dict(event="db file sequential read", instance="*")
    assert (p.value("wait.waits", **dfsr), p.value("wait.time_s", **dfsr), p.value("wait.avg_ms", **dfsr),
            p.value("wait.pct_db_time", **dfsr)) == (14880736, 6623.85, 0.45, 69.0)
    assert p.value("wait.time_s", event="DB CPU", instance="*") == 3072.15
    assert p.get("wait.time_s", event="free buffer waits", instance="*").label("wait_class") == "Configuration"  # type: ignore[union-attr]
    assert p.value("wait.waits", event="db file sequential read", instance="2") is not None


def test_a_global_report_missing_its_per_second_table_says_so() -> None:
    text = REAL.read_text().split("System Statistics - Per Second")[0]
    from planner.parsers import parse_text

    p = parse_text(text, "awr_rac.txt")
    assert [e.section for e in p.errors] == ["System Statistics - Per Second"]
    assert p.get("physical_read_iops") is None  # no IOPS invented from nothing
