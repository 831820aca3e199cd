"""iostat / mpstat / vmstat time series (sysstat 12.6 samples made here, sysstat 10 from public docs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.metrics import Direction
from planner.parsers import ostats, parse_text

DATA = Path(__file__).parents[1] / "data" / "ostats"


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


# iostat -t in each form sysstat prints its timestamp line (common.c write_sample_timestamp: strftime "%x %X" in
# the user's locale, "%FT%T%z" with S_TIME_FORMAT=ISO), generated here by sysstat 12.6.1 under each locale.
LOCALE_STAMPS = {
    "de_DE": "02.12.2026 04:19:00", "en_US": "12/02/2026 04:19:01 AM", "ja_JP": "2026年12月02日 04時19分02秒",
    "ko_KR": "2026년 12월 02일 04시 19분 03초", "zh_CN": "2026年12月02日 04时19分04秒", "ru_RU": "02.12.2026 04:19:06",
}


@pytest.mark.parametrize("locale", sorted(LOCALE_STAMPS))
def test_iostat_t_every_locale_labels_its_time(locale: str) -> None:
    p = ostats.parse(_read(f"iostat-xt-locale-{locale}.txt"), "io")
    assert p.kind == "iostat" and not p.errors
    assert all(m.label("time") for m in p.metrics)  # no value without the time its report printed
    assert p.get("iostat.util_pct", device="vda", sample="1").label("time") == LOCALE_STAMPS[locale]
    assert {m.label("sample") for m in p.metrics} == {"1", "2"}
    assert p.fact("host") == "vm" and p.fact("cpus") == "2"


def test_iostat_t_locale_values_read_with_decimal_commas() -> None:
    p = ostats.parse(_read("iostat-xt-locale-de_DE.txt"), "io")
    assert p.value("iostat.r_kbs", device="vda", sample="1") == 10119.81
    assert p.value("iostat.cpu_user_pct", sample="1") == 56.21


def test_iostat_t_iso() -> None:
    p = ostats.parse(_read("iostat-xt-iso.txt"), "io")
    vda = p.get("iostat.util_pct", device="vda", sample="2")
    assert vda.label("time") == "2026-12-02T04:16:14+0000"
    assert p.fact("date") == "2026-12-02"


@pytest.mark.parametrize(("stamp", "time"), [
    ("Time: 03:15:01 PM", "03:15:01 PM"),  # sysstat before 8.1.6 printed the time only (CHANGES 8.1.6)
    ("1764648853", "1764648853"),  # -U, seconds since the epoch (sysstat 12.7.8, commit e7f9af50)
    ("2026. 12. 02. 04:19:00", "2026. 12. 02. 04:19:00"),  # hu_HU's %x under older glibc
])
def test_iostat_t_other_stamps_constructed(stamp: str, time: str) -> None:
    """Constructed from the real ISO file: only the stamp lines are replaced, by the forms the sysstat source
    prints (no real public paste of these was found)."""
    text = re.sub(r"^2026-12-02T\S+$", stamp, _read("iostat-xt-iso.txt"), flags=re.M)
    p = ostats.parse(text, "io")
    assert not p.errors and all(m.label("time") == time for m in p.metrics)
    assert {m.label("sample") for m in p.metrics} == {"1", "2"}


def test_iostat_o_json_reads_like_the_text() -> None:
    p = parse_text(_read("iostat-xt-o-json.json"), "iostat.json")
    assert p.kind == "iostat" and not p.errors
    first = {"device": "vda", "sample": "1", "time": "12/02/26 04:16:14"}
    assert p.value("iostat.r_iops", **first) == 174.05
    assert p.value("iostat.rrqm_pct", **first) == 3.15  # JSON's "rrqm" is the text's %rrqm
    assert p.value("iostat.util_pct", **first) == 5.67
    assert p.value("iostat.cpu_idle_pct", sample="1") == 26.97
    assert p.get("iostat.util_pct", **first).source.line == 16
    assert (p.fact("host"), p.fact("cpus"), p.fact("first_sample")) == ("vm", "2", "since_boot")


def test_iostat_pretty_device_last_one_report_in_four_parts() -> None:
    p = parse_text(_read("iostat-xt-pretty.txt"), "iostat.txt")
    assert p.kind == "iostat" and not p.errors  # parse_text names any two values under one key
    s1 = {"device": "vda", "sample": "1", "time": "12/02/26 04:19:19"}
    assert (p.value("iostat.r_iops", **s1), p.value("iostat.w_kbs", **s1)) == (212.13, 6798.02)
    assert (p.value("iostat.d_areq_kb", **s1), p.value("iostat.util_pct", **s1)) == (58.58, 5.70)
    assert {m.label("sample") for m in p.metrics} == {"1", "2"}
    d = parse_text(_read("iostat-dx-pretty.txt"), "iostat.txt")  # no -t, no avg-cpu: a repeated header opens
    assert not d.errors and {m.label("sample") for m in d.metrics} == {"1", "2"}


@pytest.mark.parametrize(("locale", "time"), [("de_DE", "04:23:39"), ("ja_JP", "04時23分40秒"),
                                              ("ko_KR", "04시 23분 41초")])
def test_mpstat_every_locale_reads_each_row_and_its_average(locale: str, time: str) -> None:
    """mpstat's time column is the locale's %X and its summary rows' word is translated (sysstat 12.6.1 here)."""
    p = parse_text(_read(f"mpstat-P-ALL-locale-{locale}.txt"), "mpstat.txt")
    assert p.kind == "mpstat" and not p.errors
    assert {m.label("time") for m in p.metrics} == {time, "Average"}
    assert len(p.metrics) == 2 * 3 * 10  # a row and an Average row for all, 0 and 1; ten columns each
    assert p.get("mpstat.usr_pct", cpu="1", time="Average").source.line == 11


@pytest.mark.parametrize(("name", "row", "time"), [
    ("vmstat-w.txt", {"free": 17043672, "cache": 6654656, "bi": 28568, "us": 79, "gu": 0}, ""),
    ("vmstat-tw.txt", {"free": 17038444, "buff": 376416, "bi": 78484, "cs": 6995}, "2026-12-02 04:29:37"),
    ("vmstat-t-locale-de_DE.txt", {"free": 16995928, "cache": 6658020, "bi": 52800, "r": 30}, "2026-12-02 04:29:39"),
    ("vmstat-t-locale-fr_FR.txt", {"free": 17149832, "buff": 368600, "cache": 6659632, "bo": 572},
     "2026-12-02 04:30:40"),
    ("vmstat-t-locale-zh_CN.txt", {"swpd": 0, "free": 17190100, "buff": 368600, "bo": 56}, "2026-12-02 04:30:41"),
    ("vmstat-a-locale-de_DE.txt", {"free": 17178088, "inact": 4673256, "active": 2063400, "bo": 556}, ""),
])
def test_vmstat_wide_and_translated_headers(name: str, row: dict[str, float | None], time: str | None) -> None:
    """procps 4.0.2 here: -w widens the group line, a locale translates the memory column names (by position)."""
    p = parse_text(_read(name), "vmstat.txt")
    assert p.kind == "vmstat" and not p.errors
    assert {m.label("sample") for m in p.metrics} == {"1", "2"}
    for col, value in row.items():
        got = p.get(f"vmstat.{col}", sample="2")
        assert got is not None, col
        if value is not None:
            assert got.value == value, col
    if time is not None:
        assert p.get("vmstat.bi", sample="2").label("time") == time
    assert p.get("vmstat.free", sample="2").unit == "KiB"


def test_iostat_human_readable_values_in_their_column_unit() -> None:
    """iostat -xh (sysstat 12.6.1 here): sizes as 11.4M / 4.0k, 1024 apart, and percentages with a %."""
    p = parse_text(_read("iostat-xht.txt"), "iostat.txt")
    assert p.kind == "iostat" and not p.errors
    vda = {"device": "vda", "sample": "1", "time": "12/02/26 04:33:56"}
    assert p.value("iostat.r_kbs", **vda) == pytest.approx(11.4 * 1024)
    assert p.value("iostat.w_areq_kb", **vda) == 132.9
    assert p.value("iostat.rrqm_pct", **vda) == 1.8
    assert p.value("iostat.d_areq_kb", device="loop0", sample="1") == 7.0 * 1024
    assert p.value("iostat.cpu_user_pct", sample="1") == 57.7
    basic = parse_text(_read("iostat-h.txt"), "iostat.txt")
    assert not basic.errors
    assert basic.value("iostat.kb_read", device="vda", sample="1") == pytest.approx(155.8 * 1024 ** 2)
    assert basic.get("iostat.kb_read_s").unit == "KB/s"


@pytest.mark.parametrize(("name", "cpu", "values"), [  # cpu "0#2": CPU 0 in the second run
    ("mpstat-el5-commented-in-bash-fence.md", "all", {"usr_pct": 3.89, "iowait_pct": 4.04, "idle_pct": 91.18,
                                                      "intr_s": 1050.99}),
    ("mpstat-el5-commented-in-bash-fence.md", "0#2", {"usr_pct": 3.86, "intr_s": 1050.81}),
    ("mpstat-el5-P-ALL-fenced.md", "all", {"usr_pct": 5.26, "iowait_pct": 25.06, "intr_s": 1446.00}),
    ("mpstat-el5-P-ALL-fenced.md", "2", {"iowait_pct": 100.00}),
    ("mpstat-2001-mailing-list.txt", "all", {"usr_pct": 3.00, "sys_pct": 9.50, "intr_s": 5711.00}),
    ("mpstat-decimal-comma-fenced.md", "3", {"irq_pct": 25.63, "idle_pct": 73.64, "intr_s": 2022.19}),
    ("mpstat-indented-list-fenced.md", "all", {"usr_pct": 4.74, "soft_pct": 1.25, "intr_s": 3593.07}),
    ("mpstat-single-spaced-fenced.md", "all", {"usr_pct": 23.28, "idle_pct": 74.47, "intr_s": 1018.59}),
])
def test_mpstat_real_pastes_read_exactly(name: str, cpu: str, values: dict[str, float]) -> None:
    p = parse_text(_read(name), name)
    assert p.kind == "mpstat" and not p.errors
    cpu, _, sample = cpu.partition("#")
    for col, value in values.items():
        assert p.value(f"mpstat.{col}", cpu=cpu, sample=sample or "1") == value, col


def test_iostat_sysstat11_h_name_on_its_own_line_constructed() -> None:
    """sysstat 11.0-11.6 -h prints the device name, a newline and 13 spaces before the values (iostat.c
    write_ext_stat, "%s\\n%13s"). Constructed from the real sysstat 10 file in that layout: no public paste
    was found."""
    real = _read("iostat-xz-sysstat10.txt")
    split = re.sub(r"^(xvd\w|dm-\d)\s+(?=\d)", lambda m: f"{m.group(1)}\n{' ' * 13}", real, flags=re.M)
    assert split != real
    a, b = ostats.parse(real, "io"), ostats.parse(split, "io")
    assert not b.errors
    assert [(m.name, m.value, m.labels) for m in b.metrics] == [(m.name, m.value, m.labels) for m in a.metrics]
