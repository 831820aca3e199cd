"""fio normal (text) output, pinned on a real fio-3.1 session (tests/data/fio/fio-3.1-randwrite-normal.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.fio.parse import text as fio_text
from planner.parsers import detect, parse_file, summarise

DATA = Path(__file__).parents[2] / "data/fio"


def test_fio31_normal_output_two_runs() -> None:
    f = DATA / "fio-3.1-randwrite-normal.txt"
    assert detect(f.read_text(), "session.txt") == "fio_text"
    p = parse_file(f)
    assert p.kind == "fio_text" and not p.errors and p.fact("fio_version") == "fio-3.1"
    a, b = dict(job="Rand_Write_Testing", dir="write"), dict(job="Rand_Write_Testing#2", dir="write")
    assert (p.value("fio.iops", **a), p.value("fio.bw_mbs", **a), p.value("fio.runtime_ms", **a)) == \
        (19800, 81.1, 13246)
    assert p.value("fio.bw_kib", **a) == pytest.approx(77.3 * 1024)
    assert p.value("fio.clat_ms", stat="mean", **a) == pytest.approx(6.46068)
    assert p.value("fio.lat_ms", stat="max", **a) == pytest.approx(66.692)
    assert p.value("fio.slat_ms", stat="stddev", **a) == pytest.approx(0.01989)
    assert p.value("fio.clat_ms", stat="p99", **a) == pytest.approx(59.507)
    assert p.value("fio.clat_ms", stat="p99.99", **a) == pytest.approx(65.274)
    assert (p.value("fio.usr_cpu_pct", job="Rand_Write_Testing"), p.value("fio.sys_cpu_pct",
                                                                          job="Rand_Write_Testing")) == (4.64, 12.8)
    assert p.value("fio.disk_util_pct", device="vdc") == 99.49
    assert (p.value("fio.iops", **b), p.value("fio.bw_kib", **b), p.value("fio.bw_mbs", **b)) == (2401, 9607, 9.837)
    assert p.value("fio.clat_ms", stat="p50", **b) == pytest.approx(94.897)
    assert p.value("fio.disk_util_pct", device="vdd") == 100.0
    assert [m.value for m in summarise(p) if m.name == "fio.iops"] == [19800, 2401]


def test_json_plus_normal_output_stays_json() -> None:
    f = DATA / "fio-3.42-randwrite-cbt.out"
    assert detect(f.read_text(), f.name) == "fio_json"


def test_fio2_layout_and_unreadable_number() -> None:
    text = ("job1: (groupid=0, jobs=1): err= 0: pid=1\n"
            "  read : io=1024.0MB, bw=104,857KB/s, iops=26,214, runt= 10000msec\n"
            "    clat (usec): min=80, max=9,000, avg=150.25, stdev=12.5\n")
    p = fio_text.parse(text)
    assert (p.value("fio.iops"), p.value("fio.bw_kib"), p.value("fio.runtime_ms")) == (26214, 104857, 10000)
    assert p.value("fio.clat_ms", stat="max") == 9.0
    bad = fio_text.parse(text.replace("iops=26,214", "iops=26,21"))
    assert bad.get("fio.iops") is None and any(e.line == 2 for e in bad.errors)


def test_no_job_is_a_named_error() -> None:
    with pytest.raises(ParseError):
        fio_text.parse("fio-3.1\nStarting 1 process\n")


def test_fio208_padded_commas_bare_version_and_k_suffixed_latencies() -> None:
    """fio 2.0.x: ``iops=79090 , runt= 53032msec``, ``min=1 , max=211 ,``, ``max=1147.1K``, version ``2.0.8``."""
    p = parse_file(DATA / "fio-2.0.8-four-groups-indented.txt")
    assert p.kind == "fio_text" and p.fact("fio_version") == "fio-2.0.8" and not p.errors
    sr, rr = dict(job="seq-read", dir="read"), dict(job="rand-read", dir="read")
    assert (p.value("fio.iops", **sr), p.value("fio.bw_kib", **sr), p.value("fio.runtime_ms", **sr)) == \
        (79090, 316360, 53032)
    assert p.value("fio.slat_ms", stat="max", **sr) == pytest.approx(0.211)
    assert p.value("fio.clat_ms", stat="mean", **sr) == pytest.approx(0.39768)
    assert p.value("fio.clat_ms", stat="max", **rr) == pytest.approx(1147.1)  # 1147.1K usec
    assert p.value("fio.clat_ms", stat="p99", **rr) == 143  # a percentile table in msec
    assert p.value("fio.iops", job="rand-write", dir="write") == 602
    assert p.value("fio.bw_kib", job="rand-write", dir="write") == 2410.2
    assert p.value("fio.disk_util_pct", device="sdb") == 99.71
    assert {m.label("job") for m in p.all("fio.iops")} == {"seq-read", "rand-read", "seq-write", "rand-write"}


def test_fio20_bytes_per_second_with_a_space_and_lower_case_units() -> None:
    text = ("mysql-binlog: (groupid=0, jobs=160): err= 0: pid=2880: Tue Jan  7 16:54:26 2014\n"
            "  read : io=124160KB, bw=422959 B/s, iops=25 , runt=300596msec\n"
            "seq-read: (groupid=1, jobs=1): err= 0: pid=10074\n"
            "read : io=15282mb, bw=260808kb/s, iops=65201 , runt= 60001msec\n")
    p = fio_text.parse(text, "t")
    assert p.value("fio.bw_kib", job="mysql-binlog") == pytest.approx(422959 / 1024)
    assert p.value("fio.iops", job="mysql-binlog") == 25 and p.value("fio.runtime_ms", job="mysql-binlog") == 300596
    assert p.value("fio.bw_kib", job="seq-read") == 260808 and p.value("fio.iops", job="seq-read") == 65201


def test_dm_device_disk_stats_util_not_its_aggrutil() -> None:
    """Lines of index id 22462659576's bcache section: a dm device prints util= then aggrutil= of its slaves."""
    text = ("seq-read: (groupid=0, jobs=1): err= 0: pid=10074\n"
            "read : io=15282mb, bw=260808kb/s, iops=65201 , runt= 60001msec\n"
            "Disk stats (read/write):\n"
            "  dm-2: ios=4315361/16, merge=0/0, ticks=2845276/1736, in_queue=2847916, util=99.33%, "
            "aggrios=4315361/18, aggrmerge=0/0, aggrticks=2841500/1736, aggrin_queue=0, aggrutil=0.00%\n"
            "  sda: ios=3582145/2136, merge=0/45192, ticks=664188/157000, in_queue=822612, util=96.33%\n")
    p = fio_text.parse(text, "t")
    assert p.value("fio.disk_util_pct", device="dm-2") == 99.33
    assert p.value("fio.disk_util_pct", device="sda") == 96.33


def test_fio2_flush_left_paste_reads_every_value() -> None:
    """A real paste that lost all of fio's indentation was refused as not a benchmark output."""
    p = parse_file(DATA / "fio-2.x-randread-flush-left.txt")
    assert p.kind == "fio_text" and not p.errors
    job = {"job": "Rand_Read_Testing", "dir": "read"}
    assert (p.value("fio.iops", **job), p.value("fio.bw_kib", **job), p.value("fio.runtime_ms", **job)) == \
        (20126, 80505, 13025)
    assert p.value("fio.clat_ms", **job, stat="mean") == pytest.approx(6.3539)
    assert p.value("fio.lat_ms", **job, stat="mean") == pytest.approx(6.35828)
    assert p.value("fio.clat_ms", **job, stat="p99") == pytest.approx(81.408)
    assert p.value("fio.usr_cpu_pct", job="Rand_Read_Testing") == 3.19


@pytest.mark.parametrize(("name", "job", "iops", "lat_mean_ms", "p99_ms", "usr"), [
    ("fio-2.2.10-randwrite-one-space-fenced.md", {"job": "randwrite", "dir": "write"}, 636271, 0.00203, 0.001, 15.14),
    ("fio-2.2.10-randread-prompt-fenced.md", {"job": "hdd_randread_test", "dir": "read"}, 15365, 0.0637, 0.177, 4.31),
    ("fio-2.0.9-randread-quoted-blank-lines.md", {"job": "test", "dir": "read"}, 15686, None, None, 5.94),
])
def test_fio2_real_pastes(name: str, job: dict[str, str], iops: float, lat_mean_ms: float | None,
                          p99_ms: float | None, usr: float) -> None:
    p = parse_file(DATA / name)
    assert p.kind == "fio_text" and not p.errors
    assert p.value("fio.iops", **job) == iops and p.value("fio.usr_cpu_pct", job=job["job"]) == usr
    if lat_mean_ms is not None:
        assert p.value("fio.lat_ms", **job, stat="mean") == pytest.approx(lat_mean_ms)
        assert p.value("fio.clat_ms", **job, stat="p99") == pytest.approx(p99_ms)
