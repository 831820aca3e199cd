"""fio terse output (--minimal, terse versions 3-5) on real lines (tests/data/fio/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.fio.parse import terse as fio_terse
from planner.parsers import describe, detect, parse_file, summarise

DATA = Path(__file__).parents[2] / "data/fio"


def test_terse3_fio31_pasted_with_its_normal_report_reads_the_terse_line() -> None:
    f = DATA / "fio-3.1-terse3-and-normal.txt"
    assert detect(f.read_text(), "fio.txt") == "fio_terse"  # even with a fio_text file name hint
    p = parse_file(f)
    r = {"job": "Rand_Read_Latency_Testingrandwrite", "dir": "read"}
    assert (p.value("fio.iops", **r), p.value("fio.bw_kib", **r), p.value("fio.runtime_ms", **r)) == \
        (3697, 14790, 141787)
    assert p.value("fio.slat_ms", stat="mean", **r) == pytest.approx(0.008432369)
    assert p.value("fio.clat_ms", stat="mean", **r) == pytest.approx(0.525634168)  # normal: avg=525.63
    assert p.value("fio.lat_ms", stat="max", **r) == pytest.approx(35.667)
    assert p.value("fio.clat_ms", stat="p99", **r) == pytest.approx(2.211)
    assert p.value("fio.clat_ms", stat="p99.99", **r) == pytest.approx(16.449)
    assert p.value("fio.usr_cpu_pct", job=r["job"]) == 0.998455
    assert p.value("fio.disk_util_pct", device="vdc", job=r["job"]) == 89.18
    assert p.get("fio.iops", dir="write") is None  # the empty write half is no result
    assert p.fact("fio_version") == "fio-3.1" and p.fact("terse_version") == "3" and not p.errors
    assert str(describe(p)).endswith("everything read")


def test_terse3_fio332_read_and_write_halves() -> None:
    p = parse_file(DATA / "fio-3.32-terse3-rw-head.txt")
    assert p.value("fio.iops", dir="read") == 1639 and p.value("fio.iops", dir="write") == 1639
    assert (p.value("fio.bw_kib", dir="read"), p.value("fio.bw_kib", dir="write")) == (6558, 6556)
    assert p.value("fio.clat_ms", dir="write", stat="mean") == pytest.approx(0.260127496)
    assert p.value("fio.clat_ms", dir="read", stat="p95") == pytest.approx(2.023)
    assert p.get("fio.slat_ms") is None  # psync prints slat 0;0;0;0: not measured, not 0 ms
    assert p.value("fio.disk_util_pct", device="vda") == 93.07
    heads = {(m.name, m.label("dir")) for m in summarise(p)}
    assert ("fio.iops", "write") in heads and ("fio.clat_ms", "read") in heads


@pytest.mark.parametrize(("name", "version", "iops", "bw", "clat_mean_us", "util"), [
    ("fio-3.33-randread.terse4", "4", 6731, 26924, 145.846122, 32.05),
    ("fio-3.33-randread.terse5", "5", 7168, 28675, 134.859582, 34.15),
])
def test_terse4_and_5_trim_block_and_v5_iops_fields_keep_cpu_and_disk_in_place(
        name: str, version: str, iops: float, bw: float, clat_mean_us: float, util: float) -> None:
    p = parse_file(DATA / name)
    assert p.kind == "fio_terse" and p.fact("terse_version") == version
    assert (p.value("fio.iops", dir="read"), p.value("fio.bw_kib", dir="read")) == (iops, bw)
    assert p.value("fio.clat_ms", stat="mean") == pytest.approx(clat_mean_us / 1000)
    assert p.value("fio.disk_util_pct", device="vda") == util
    assert 0 < p.value("fio.sys_cpu_pct") < 100 and not p.errors


def test_two_lines_same_job_name_are_two_runs() -> None:
    line = (DATA / "fio-3.33-randread.terse5").read_text()
    p = fio_terse.parse(line + line, "x")
    keys = [(m.name, m.labels) for m in p.metrics]
    assert len(keys) == len(set(keys)) and p.value("fio.iops", job="randread#2") == 7168


def test_cut_short_line_and_terse_v2_are_named() -> None:
    line = (DATA / "fio-3.33-randread.terse5").read_text().strip()
    with pytest.raises(ParseError, match="has 100 fields, expected at least 180"):
        fio_terse.parse(";".join(line.split(";")[:100]), "cut")
    v2 = "2;card0;0;0;7139336;121836;60004;1;10109;27.932460;116.933948;" + ";".join(["1"] * 90)
    with pytest.raises(ParseError, match="terse version 2 .* is not read"):
        fio_terse.parse(v2, "v2")
