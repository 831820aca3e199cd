"""fio JSON parser on output from three fio versions (sources in tests/data/fio/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.fio.parse import json_report as fio
from planner.metrics import Direction, Parsed

DATA = Path(__file__).parents[2] / "data" / "fio"


def _parse(name: str):
    return fio.parse((DATA / name).read_text(), name)


def test_fio_2_2_10_usec_latencies_and_duplicate_zero_keys() -> None:
    p = _parse("fio-2.2.10-write.json")
    w = {"job": "test", "dir": "write"}
    assert p.fact("fio_version") == "fio-2.2.10"
    assert p.value("fio.iops", **w) == 15624.70
    assert p.value("fio.bw_kib", **w) == 62499
    assert p.value("fio.bw_mbs", **w) == pytest.approx(62499 * 1024 / 1e6)
    assert p.value("fio.runtime_ms", **w) == 600008
    assert p.value("fio.total_ios", **w) == 9374944
    assert p.value("fio.clat_ms", stat="mean", **w) == pytest.approx(8.15119)  # 8151.19 usec
    assert p.value("fio.lat_ms", stat="mean", **w) == pytest.approx(8.18226)
    assert p.value("fio.slat_ms", stat="mean", **w) == pytest.approx(0.03218)
    assert p.value("fio.clat_ms", stat="p50", **w) == pytest.approx(8.160)
    assert p.value("fio.clat_ms", stat="p95", **w) == pytest.approx(8.256)
    assert p.value("fio.clat_ms", stat="p99", **w) == pytest.approx(8.640)
    assert p.value("fio.clat_ms", stat="p99.9", **w) == pytest.approx(14.912)
    assert p.value("fio.clat_ms", stat="max", **w) == pytest.approx(261.110)
    assert p.value("fio.usr_cpu_pct", job="test") == 0.41
    assert p.value("fio.disk_util_pct", device="xvda") == 100.0
    assert p.get("fio.iops", dir="read") is None  # the job issued no reads: no metric, not a zero
    assert p.get("fio.clat_ms", stat="p0") is None
    assert p.get("fio.iops").direction is Direction.HIGHER
    assert p.get("fio.clat_ms").direction is Direction.LOWER


def test_fio_3_42_with_banner_and_normal_output_around_the_json() -> None:
    p = _parse("fio-3.42-randwrite-cbt.out")
    w = {"job": "/dev/nvme8n4", "dir": "write"}
    assert p.fact("fio_version") == "fio-3.42-6-g219f"
    assert p.fact("global.iodepth") == "7"
    assert p.fact("global.rw") == "randwrite"
    assert p.value("fio.iops", **w) == pytest.approx(3095.171449)
    assert p.value("fio.bw_kib", **w) == 12383
    assert p.value("fio.bw_mbs", **w) == pytest.approx(12.680279)
    assert p.value("fio.runtime_ms", **w) == 10003
    assert p.value("fio.total_ios", **w) == 30961
    assert p.value("fio.clat_ms", stat="mean", **w) == pytest.approx(2.250426442310)
    assert p.value("fio.lat_ms", stat="mean", **w) == pytest.approx(2.256890390448)
    assert p.value("fio.clat_ms", stat="p50", **w) == pytest.approx(2.146304)
    assert p.value("fio.clat_ms", stat="p95", **w) == pytest.approx(3.489792)
    assert p.value("fio.clat_ms", stat="p99", **w) == pytest.approx(4.358144)
    assert p.value("fio.clat_ms", stat="p99.9", **w) == pytest.approx(5.931008)
    assert p.value("fio.clat_ms", stat="p99.99", **w) == pytest.approx(9.633792)
    assert p.value("fio.disk_util_pct", device="nvme8n4") == pytest.approx(99.527643)
    assert p.value("fio.sys_cpu_pct", job="/dev/nvme8n4") == pytest.approx(2.529494)
    assert p.get("fio.iops").source.line == 76  # the "write" object, below the 3 banner lines


def test_fio_3_33_json_generated_here() -> None:
    p = _parse("fio-3.33-randread.json")
    r = {"job": "randread", "dir": "read"}
    assert p.fact("fio_version") == "fio-3.33"
    assert p.fact("job[randread].bs") == "4k"
    assert p.value("fio.iops", **r) == pytest.approx(29267.732268)
    assert p.value("fio.bw_kib", **r) == 117070
    assert p.value("fio.bw_mbs", **r) == pytest.approx(119.880631)
    assert p.value("fio.runtime_ms", **r) == 1001
    assert p.value("fio.total_ios", **r) == 29297
    assert p.value("fio.clat_ms", stat="mean", **r) == pytest.approx(0.033323974366)
    assert p.value("fio.lat_ms", stat="mean", **r) == pytest.approx(0.033372091648)
    assert p.value("fio.clat_ms", stat="p50", **r) == pytest.approx(0.029056)
    assert p.value("fio.clat_ms", stat="p95", **r) == pytest.approx(0.046848)
    assert p.value("fio.clat_ms", stat="p99", **r) == pytest.approx(0.136192)
    assert p.value("fio.clat_ms", stat="p99.9", **r) == pytest.approx(0.428032)
    assert p.get("fio.iops", dir="write") is None


def test_fio_3_33_json_plus_both_directions() -> None:
    p = _parse("fio-3.33-randrw-jsonplus.json")
    assert p.value("fio.iops", job="randrw", dir="read") == pytest.approx(16081.918082)
    assert p.value("fio.iops", job="randrw", dir="write") == pytest.approx(16027.972028)
    assert p.value("fio.bw_kib", dir="read") == 128655
    assert p.value("fio.bw_kib", dir="write") == 128223
    assert p.value("fio.total_ios", dir="read") == 16098
    assert p.value("fio.total_ios", dir="write") == 16044
    assert p.value("fio.sys_cpu_pct") == pytest.approx(38.7)
    assert p.value("fio.disk_util_pct", device="vda") == pytest.approx(62.650602)
    assert p.get("fio.clat_ms", dir="write", stat="p99") is not None


def test_truncated_json_names_the_line() -> None:
    text = (DATA / "fio-3.33-randread.json").read_text()[:3000]
    with pytest.raises(ParseError, match="truncated or invalid JSON") as e:
        fio.parse(text, "t.json")
    assert e.value.line is not None and e.value.source == "t.json"


def test_job_error_and_bad_direction_are_reported_and_the_rest_kept() -> None:
    doc = json.loads((DATA / "fio-3.33-randrw-jsonplus.json").read_text())
    doc["jobs"][0]["error"] = 5
    doc["jobs"][0]["write"]["iops"] = "n/a"
    p = fio.parse(json.dumps(doc), "e.json")
    assert p.value("fio.iops", dir="read") == pytest.approx(16081.918082)
    assert p.get("fio.iops", dir="write") is None
    messages = " | ".join(str(e) for e in p.errors)
    assert "fio reported error 5" in messages and "no numeric iops/bw" in messages


@pytest.mark.parametrize("text", ["", "{}", '{"fio version": "fio-3.1", "jobs": []}', "[1, 2]",
                                  '{"fio version": "fio-3.1", "jobs": [{"jobname": "x", "read": {}}]}'])
def test_wrong_kind_or_empty_raises(text: str) -> None:
    with pytest.raises(ParseError):
        fio.parse(text, "x.json")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parsed = fio.parse(text)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(p.name for p in DATA.iterdir() if p.suffix in (".json", ".out"))),
       st.integers(min_value=0, max_value=21000), st.text(max_size=5))
def test_damaged_real_files_raise_only_parse_error(name: str, cut: int, junk: str) -> None:
    text = (DATA / name).read_text()
    try:
        parsed = fio.parse(text[:cut] + junk + text[cut + len(junk):], name)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


def _ss(parsed: Parsed) -> dict[str, tuple[float, dict[str, str]]]:
    return {m.name: (m.value, dict(m.labels)) for m in parsed.metrics if m.name.startswith("fio.ss_")}


def test_fio_own_steady_state_verdict_is_parsed_from_real_fio() -> None:
    got = _ss(fio.parse((DATA / "fio-3.33-steadystate-iops-slope.json").read_text()))
    labels = {"job": "j", "criterion": "iops_slope", "limit": "50%", "window_s": "3"}
    assert got == {"fio.ss_attained": (1.0, labels), "fio.ss_criterion": (0.0, labels)}


@pytest.mark.parametrize("ss", [None, "x", {"ss": "iops_slope"}, {"ss": "rm -rf:5%", "attained": 1},
                                {"ss": "iops:abc%", "attained": 1}, {"ss": "iops:5%", "attained": "yes"}])
def test_a_malformed_steadystate_block_gives_no_verdict(ss: object) -> None:
    doc = json.loads((DATA / "fio-3.33-steadystate-iops-slope.json").read_text())
    doc["jobs"][0]["steadystate"] = ss
    assert _ss(fio.parse(json.dumps(doc))) == {}
