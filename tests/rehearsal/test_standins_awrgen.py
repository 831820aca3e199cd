"""Stand-in AWR / Statspack reports: they parse with the real parsers, and their numbers follow the inputs."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from planner.parsers import detect, parse_text
from planner.rehearsal.standins import awrgen_render as render
from planner.rehearsal.standins.awrgen import MARKER, DbInfo, HostInfo, Interval, Workload, load_db, simulate

HOST = HostInfo("db01.lab.example.com", cpus=16, cores=8, sockets=2, memory_gb=62.5)
IV = Interval(400, 401, datetime(2025, 3, 1, 12, 0, 0), 300.0)
RENDER = {"awr_text": render.awr_text, "awr_html": render.awr_html, "statspack": render.statspack}


def report(kind: str, sessions: int, db: DbInfo | None = None, update_pct: int = 0) -> str:
    db = db or DbInfo()
    fig = simulate(Workload(sessions=sessions, update_pct=update_pct, run_time_s=300), HOST, db)
    return RENDER[kind](fig, HOST, db, IV, sessions)


@pytest.mark.parametrize("kind", sorted(RENDER))
def test_round_trip_through_the_real_parser(kind: str) -> None:
    text = report(kind, 8, update_pct=20)
    assert MARKER in text
    assert detect(text) == kind
    p = parse_text(text, f"x.{kind}", kind)
    assert not p.errors, [str(e) for e in p.errors]
    assert p.value("cpus") == 16 and p.value("cores") == 8 and p.value("memory_gb") == pytest.approx(62.5, abs=0.1)
    assert p.value("snap_id_begin") == 400 and p.value("snap_id_end") == 401
    assert p.value("elapsed_min") == pytest.approx(5.0)
    assert p.value("buffer_cache_mb") == 1024
    assert p.value("physical_reads_per_s") > 1000
    top = p.get("wait.time_s", rank="1")
    assert top is not None and top.label("event") == "db file sequential read"
    assert p.value("db_time_min") == pytest.approx(8 * 5.0, rel=0.01)
    if kind != "statspack":
        assert p.fact("db_name") == "STANDIN" and p.fact("version") == "19.0.0.0.0"
        assert p.value("physical_read_io_requests_per_s") == pytest.approx(p.value("physical_reads_per_s"))
        assert p.value("wait.avg_ms", event="db file sequential read") > 0.2


def test_physical_reads_rise_with_sessions_and_saturate() -> None:
    reads = [parse_text(report("awr_text", n), "a.txt", "awr_text").value("physical_reads_per_s")
             for n in (1, 2, 4, 64, 512, 1024)]
    assert reads == sorted(reads)
    assert reads[1] > 1.8 * reads[0]
    assert reads[5] < 1.02 * reads[4]  # saturated at the device limit
    lat = [simulate(Workload(sessions=n), HOST, DbInfo()).read_latency_ms for n in (1, 1024)]
    assert lat[1] > 10 * lat[0]


def test_a_bigger_buffer_cache_shows_up_and_cuts_physical_reads(tmp_path: Path) -> None:
    (tmp_path / "db.json").write_text(json.dumps({"database": {"name": "BIG", "dbid": 4242424242,
                                                               "instance_name": "big1", "version": "19.0.0.0.0"},
                                                  "memory": {"db_cache_size": str(64 << 30)}}))
    big = load_db(tmp_path)
    small = DbInfo(buffer_cache_mb=64)
    w = Workload(sessions=4, scale_blocks=1_000_000, schemas=4)
    p = parse_text(render.awr_text(simulate(w, HOST, big), HOST, big, IV, 4), "a.txt", "awr_text")
    assert p.value("buffer_cache_mb") == 65536 and p.fact("db_name") == "BIG"
    assert simulate(w, HOST, big).logical_reads / simulate(w, HOST, big).read_blocks > \
        simulate(w, HOST, small).logical_reads / simulate(w, HOST, small).read_blocks


def test_idle_report_still_parses() -> None:
    p = parse_text(report("awr_text", 0), "a.txt", "awr_text")
    assert not p.errors and p.value("physical_reads_per_s") == 0


def test_more_luns_in_the_disk_group_raise_the_device_limit(tmp_path: Path) -> None:
    """The seed's Violin: 8 more LUNs in the SLOB disk group, more IOPS at the same readers (never fewer)."""
    def db_with(luns: int) -> DbInfo:
        disks = [{"path": f"/dev/mapper/violin_lun{i}", "group": "SLOB" if i <= luns else None} for i in range(1, 17)]
        (tmp_path / "db.json").write_text(json.dumps({"database": {}, "memory": {}, "disks": disks}))
        return load_db(tmp_path)

    w = Workload(sessions=64, scale_blocks=1_000_000, schemas=64)
    eight, sixteen = db_with(8), db_with(16)
    assert (eight.asm_disks, sixteen.asm_disks) == (8, 16)
    iops = [simulate(w, HOST, db).read_blocks for db in (db_with(0), eight, sixteen)]
    assert iops[0] < iops[1] < iops[2]
