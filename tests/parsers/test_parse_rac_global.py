"""AWR global RAC report (awrgrpt HTML): cluster totals and per instance, on SLOB's real awr_rac.html."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import detect, parse_file
from planner.parsers.derived import derive

FILE = Path(__file__).parents[1] / "data/awr_rac/awr_rac_122_slob2.html"


def test_cluster_totals_and_per_instance() -> None:
    assert detect(FILE.read_text(), "x.html") == "awr_rac_html"
    p = parse_file(FILE)
    assert p.kind == "awr_rac_html" and not p.errors
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("db_role"), p.fact("edition"), p.fact("rac"), p.fact("cdb")) \
        == ("SLOB2", "3926536870", "PRIMARY", "EE", "NO", "NO")
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id"), p.fact("version")) == ("400", "401", "12.2.0.1.0")
    assert p.fact("host[1]") == "localhost.local.com" and p.fact("instance[1]") == "SLOB2"
    # cluster totals: no instance label
    cluster = [m for m in p.metrics if not m.label("instance")]
    assert {m.name: m.value for m in cluster} == {"instances": 1, "hosts": 1, "db_time_min": 1368.27,
                                                  "elapsed_min": 21.82, "block_size": 8192, "db_time_s": 82096.39}
    # per instance
    one = {"instance": "1"}
    assert (p.value("elapsed_min", **one), p.value("db_time_min", **one), p.value("aas", **one),
            p.value("uptime_h", **one)) == (21.82, 1368.27, 62.72, 4.33)
    assert (p.value("db_time_s", **one), p.value("db_cpu_s", **one)) == (82096.39, 489.68)
    assert (p.value("cpus", **one), p.value("cores", **one), p.value("sockets", **one)) == (96, 48, 2)
    assert (p.value("host_cpu.load_avg_end", **one), p.value("host_cpu.wio_pct", **one),
            p.value("host_cpu.idle_pct", **one)) == (24.37, 18.46, 99.61)
    # Top Timed Events: '*' is the cluster, then instance 1
    dpr = dict(event="direct path read", instance="*")
    assert (p.value("wait.waits", **dpr), p.value("wait.time_s", **dpr), p.value("wait.avg_ms", **dpr),
            p.value("wait.pct_db_time", **dpr)) == (6904693, 26365.59, 3.82, 32.12)
    assert p.value("wait.avg_ms", event="db file sequential read", instance="*") == 0.47052
    assert p.value("wait.time_s", event="DB CPU", instance="1") == 489.68


def test_derived_shares_count_the_cluster_rows_once() -> None:
    d = {m.key: m.value for m in derive(parse_file(FILE))}
    assert round(d["wait_class_share_pct{wait_class=User I/O}"], 2) == 32.12  # 26365.9 s / 82096.39 s, not twice
    # printed 470.52us beats 0.31 s (rounded) / 663 = 0.468 ms: printed beats recomputed
    assert round(d["single_block_read_latency_ms{event=db file sequential read}"], 3) == 0.471


def test_global_html_gives_the_cluster_iops_from_system_statistics() -> None:
    """Real awrgrpt HTML (SLOB2, tests/data/awr_rac/README.md): before, no cluster IOPS at all."""
    from planner.parsers import summarise
    p = parse_file(Path(__file__).parents[1] / "data" / "awr_rac" / "awr_rac_122_slob2_sysstat.html")
    assert p.kind == "awr_rac_html" and not p.errors
    assert p.value("physical_read_io_requests_per_s") == 8051.28  # physical read total IO requests, per Second
    assert p.value("physical_read_iops", instance="all") == 8051.28
    assert p.get("physical_read_iops", instance="all").label("basis") == "requests"  # type: ignore[union-attr]
    assert p.value("physical_write_iops", instance="all") == 1.89
    assert p.value("physical_read_mb_per_s", instance="all") == pytest.approx(524990867.63 / 1048576)
    assert p.value("physical_reads_per_s", instance="1") == 64077.91  # System Statistics - Per Second, I# 1
    assert p.value("redo_size_per_s", instance="1") == pytest.approx(4.46 * 1024)
    heads = {(m.name, m.label("instance")) for m in summarise(p)}  # the cluster's, never one instance's
    assert ("physical_read_iops", "all") in heads and {i for _, i in heads} == {"all", "*"}
    assert ("wait.avg_ms", "*") in heads  # the printed cluster latency of db file sequential read
