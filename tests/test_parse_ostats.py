"""iostat / mpstat / vmstat time series (sysstat 12.6 samples made here, sysstat 10 from public docs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.metrics import Direction
from planner.parsers import ostats

DATA = Path(__file__).parent / "data" / "ostats"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def test_iostat_x_t_sysstat12() -> None:
    p = ostats.parse(_read("iostat-x-t.txt"), "io")
    assert p.kind == "iostat"
    assert (p.fact("host"), p.fact("cpus"), p.fact("first_sample")) == ("vm", "2", "since_boot")
    first = {"device": "vda", "sample": "1", "time": "11/30/26 07:54:40"}
    assert p.value("iostat.r_iops", **first) == 333.00
    assert p.value("iostat.r_kbs", **first) == 4937.12
    assert p.value("iostat.w_kbs", **first) == 2427.95
    assert p.value("iostat.r_await_ms", **first) == 0.10
    assert p.value("iostat.w_await_ms", **first) == 0.56
    assert p.value("iostat.queue_size", **first) == 0.07
    assert p.value("iostat.util_pct", **first) == 2.11
    assert p.value("iostat.w_iops", device="vda", sample="2", time="11/30/26 07:54:41") == 1.00
    assert p.value("iostat.cpu_idle_pct", sample="2") == 98.99
    assert p.get("iostat.r_await_ms").direction is Direction.LOWER
    assert p.get("iostat.r_iops").unit == "IO/s"
    assert p.get("iostat.util_pct", sample="2").source.line == 16


def test_iostat_xm_megabytes() -> None:
    p = ostats.parse(_read("iostat-t-xm.txt"), "io")
    assert p.value("iostat.r_mbs", device="vda", sample="1") == 4.71
    assert p.get("iostat.r_mbs").unit == "MB/s"


def test_iostat_sysstat10_columns() -> None:
    p = ostats.parse(_read("iostat-xz-sysstat10.txt"), "io")
    dm1 = {"device": "dm-1", "sample": "1"}
    assert p.value("iostat.await_ms", **dm1) == 345.84
    assert p.value("iostat.w_await_ms", **dm1) == 346.81
    assert p.value("iostat.queue_size", **dm1) == 0.33
    assert p.value("iostat.svctm_ms", device="xvda") == 2.44
    assert p.value("iostat.avgrq_sectors", device="xvdc") == 146.50
    assert p.value("iostat.cpu_user_pct") == 73.96
    assert p.get("iostat.await_ms").label("time") == ""  # no -t: no time label, only sample


def test_iostat_am_pm_timestamps() -> None:
    p = ostats.parse(_read("iostat-xmtp-sysstat10.txt"), "io")
    assert p.value("iostat.w_iops", device="sda", time="05/31/2018 10:04:45 AM") == 7135.00
    assert p.value("iostat.util_pct", device="dm-0") == 77.87


def test_iostat_decimal_commas() -> None:
    text = ("Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await "
            "r_await w_await  svctm  %util\n"
            "sda               0,39    53,89   56,27    6,38     1,25     0,49    56,67     0,07    1,04    "
            "0,77    3,43   0,47   2,97\n")
    p = ostats.parse(text, "c")
    assert p.value("iostat.r_iops", device="sda") == 56.27
    assert p.value("iostat.util_pct", device="sda") == 2.97


def test_iostat_bad_row_is_named() -> None:
    text = _read("iostat-x-t.txt").replace("   0.10    14.83", "   x.yz    14.83", 1)
    p = ostats.parse(text, "io")
    assert p.get("iostat.r_iops", sample="1") is None and p.get("iostat.r_iops", sample="2")
    assert "does not match the Device header" in str(p.errors[0]) and p.errors[0].line == 8


def test_mpstat_per_cpu_and_average() -> None:
    p = ostats.parse(_read("mpstat-P-ALL.txt"), "mp")
    assert p.kind == "mpstat"
    assert p.value("mpstat.usr_pct", cpu="0", time="07:54:42") == 0.99
    assert p.value("mpstat.sys_pct", cpu="0", time="07:54:42") == 0.99
    assert p.value("mpstat.idle_pct", cpu="all", time="07:54:42") == 98.51
    assert p.value("mpstat.idle_pct", cpu="1", time="07:54:43") == 100.00
    assert p.value("mpstat.usr_pct", cpu="all", time="Average") == 0.50
    assert p.value("mpstat.idle_pct", cpu="1", time="Average") == 99.50
    assert p.value("mpstat.iowait_pct", cpu="all", time="Average") == 0.00
    assert len(p.all("mpstat.gnice_pct")) == 9


def test_mpstat_old_user_column_and_am_pm() -> None:
    text = ("10:00:01 AM  CPU   %user   %nice    %sys %iowait    %irq   %soft  %steal   %idle    intr/s\n"
            "10:00:02 AM  all   12.50    0.00    2.00    5.00    0.00    0.50    0.00   80.00   1200.00\n")
    p = ostats.parse(text, "m")
    assert p.value("mpstat.usr_pct", cpu="all", time="10:00:02 AM") == 12.50
    assert p.value("mpstat.intr_s", cpu="all") == 1200.0


def test_vmstat_timestamped_and_plain() -> None:
    p = ostats.parse(_read("vmstat-t.txt"), "vm")
    assert p.kind == "vmstat"
    assert p.value("vmstat.free", sample="1", time="2026-11-30 07:54:43") == 23311412
    assert p.value("vmstat.bi", sample="1") == 2443
    assert p.value("vmstat.id", sample="2", time="2026-11-30 07:54:44") == 99
    assert p.value("vmstat.cs", sample="2") == 206
    assert p.get("vmstat.free").unit == "KiB"
    q = ostats.parse(_read("vmstat-n.txt"), "vm")
    assert q.value("vmstat.in", sample="2") == 90
    assert q.value("vmstat.us", sample="1") == 9
    assert q.get("vmstat.us").label("time") == ""


@pytest.mark.parametrize("text", ["", "Device: r/s\n", "procs ---memory---\n r b swpd free\n",
                                  "10:00 CPU %usr\n"])
def test_wrong_kind_or_empty_raises(text: str) -> None:
    with pytest.raises(ParseError):
        ostats.parse(text, "x")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    for fn in (ostats.parse, ostats.parse_iostat, ostats.parse_mpstat, ostats.parse_vmstat):
        try:
            parsed = fn(text)
        except ParseError as e:
            assert e.parser and e.section  # a named error
        else:
            assert parsed.metrics or parsed.errors  # never an empty success


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(p.name for p in DATA.glob("*.txt"))), st.integers(0, 3000),
       st.text(max_size=4))
def test_damaged_real_files_raise_only_parse_error(name: str, cut: int, junk: str) -> None:
    text = _read(name)
    try:
        parsed = ostats.parse(text[:cut] + junk + text[cut:], name)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success
