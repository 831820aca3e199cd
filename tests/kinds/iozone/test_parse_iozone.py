"""iozone throughput-mode parser on real outputs (tests/data/iozone/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.iozone import parse as iozone

DATA = Path(__file__).parents[2] / "data" / "iozone"


def test_seed_line_gives_585_iops_with_the_command_line_record_size() -> None:
    p = iozone.parse((DATA / "iozone-seed-x25m.txt").read_text(), "seed")
    assert p.value("iozone.throughput", view="parent", test="random readers", procs="4") == 4681.36
    assert p.get("iozone.throughput").unit == "KB/s"
    iops = p.get("iozone.iops", view="parent")
    assert iops.value == pytest.approx(585.17) and round(iops.value) == 585 and iops.derived
    assert p.fact("record_kb") == "8"


def test_record_kb_argument_wins() -> None:
    text = "Parent sees throughput for 4 random readers     =    4681.36 KB/sec\n"
    p = iozone.parse(text, "t", record_kb=4)
    assert p.value("iozone.iops") == pytest.approx(1170.34)
    q = iozone.parse(text, "t")
    assert q.get("iozone.iops") is None
    assert "IOPS not computed" in str(q.errors[0])


def test_3_506_random_block() -> None:
    p = iozone.parse((DATA / "iozone-3.506-t4-random.txt").read_text(), "r")
    rr = {"test": "random readers", "procs": "4"}
    assert p.value("iozone.throughput", view="children", **rr) == 11936.20
    assert p.value("iozone.throughput", view="parent", **rr) == 11234.51
    assert p.value("iozone.per_process", stat="min", **rr) == 2852.01
    assert p.value("iozone.per_process", stat="max", **rr) == 3148.24
    assert p.value("iozone.per_process", stat="avg", **rr) == 2984.05
    assert p.value("iozone.min_xfer", **rr) == 909.00
    assert p.value("iozone.throughput", view="parent", test="random writers") == 1464.39
    assert p.value("iozone.throughput", view="children", test="initial writers") == 4215.40
    assert p.value("iozone.throughput", view="parent", test="rewriters") == 1415.93
    assert p.value("iozone.iops", view="parent", **rr) == pytest.approx(11234.51)  # 1 kB records
    assert p.fact("record_kb") == "1"
    assert p.errors == ()


def test_3_420_uppercase_kb_and_1m_records() -> None:
    p = iozone.parse((DATA / "iozone-3.420-t1-write.txt").read_text(), "w")
    assert p.value("iozone.throughput", view="parent", test="initial writers", procs="1") == 363772.88
    assert p.value("iozone.throughput", view="children", test="initial writers") == 363782.66
    assert p.value("iozone.throughput", view="parent", test="rewriters") == 351421.89
    assert p.value("iozone.min_xfer", test="rewriters") == 8388608.00
    assert p.value("iozone.iops", view="parent", test="initial writers") == pytest.approx(363772.88 / 1024)
    assert p.fact("record_kb") == "1024"


def test_ops_mode_and_truncation() -> None:
    text = ("        Iozone: Performance Test of File I/O\n"
            "        Children see throughput for  1 initial writers  =    1074.97 ops/sec\n"
            "        Min xfer                                        =     512.00 ops\n")
    p = iozone.parse(text, "o")
    assert p.value("iozone.iops", view="children") == 1074.97
    assert p.get("iozone.min_xfer").unit == "ops"
    assert any("truncated" in str(e) for e in p.errors)


@pytest.mark.parametrize("text", ["", "iozone test complete.\n", "Record Size 8 KB\n"])
def test_wrong_kind_raises(text: str) -> None:
    with pytest.raises(ParseError):
        iozone.parse(text, "x")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text(), st.one_of(st.none(), st.floats(allow_nan=True)))
def test_arbitrary_text_raises_only_parse_error(text: str, rec: float | None) -> None:
    try:
        parsed = iozone.parse(text, "x", record_kb=rec)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


# The result table (auto mode, or a run without -t): real files, values as printed (README).

def _cell(p: object, test: str, **labels: str) -> float:
    return p.value("iozone.throughput", mode="auto", test=test, **labels)  # type: ignore[attr-defined]


def test_table_3_424_lower_case_kb_one_row() -> None:
    p = iozone.parse((DATA / "iozone-3.424-table-i012.txt").read_text(), "t")
    row = {"file_kb": "1048576", "reclen_kb": "4096", "run": "1"}
    assert [_cell(p, t, **row) for t in ("write", "rewrite", "read", "reread", "random read", "random write")] \
        == [145374, 244325, 202032, 163068, 163827, 221012]
    assert p.get("iozone.throughput", test="random read").unit == "KB/s"
    assert p.value("iozone.iops", test="random write") == pytest.approx(221012 / 4096)
    assert len(p.all("iozone.throughput")) == 6  # no value invented for the blank columns
    assert p.fact("version") == "3.424" and p.errors == ()


def test_table_blank_columns_place_values_by_position() -> None:
    p = iozone.parse((DATA / "iozone-3.408-table-sparse.txt").read_text(), "s")
    got = {m.label("test"): m.value for m in p.all("iozone.throughput")}
    assert got == {"write": 31782, "rewrite": 22524, "random read": 816017, "random write": 10411,
                   "stride read": 3779260}
    assert p.errors == ()


def test_table_2009_forum_paste_random_columns() -> None:
    p = iozone.parse((DATA / "iozone-auto-2009-forum.txt").read_text(), "f")
    assert _cell(p, "random read", file_kb="16384", reclen_kb="4") == 24719
    assert _cell(p, "random write") == 11304
    assert p.value("iozone.iops", test="random write") == pytest.approx(11304 / 4)
    assert p.get("iozone.throughput", test="read") is None


def test_table_auto_mode_every_row_and_two_tables_two_runs() -> None:
    text = (DATA / "iozone-auto-zram-ramdisk.txt").read_text()
    p = iozone.parse(text, "z")
    assert len(p.all("iozone.throughput")) == 18 * 9
    assert _cell(p, "bkwd read", file_kb="1048576", reclen_kb="512") == 1093451
    assert _cell(p, "stride read", file_kb="2097152", reclen_kb="16384") == 563297
    assert _cell(p, "record rewrite", file_kb="2097152", reclen_kb="64") == 313568
    twice = iozone.parse(text + "\n" + text, "z2")  # a second table is a second run, never the same key
    keys = [(m.name, m.labels) for m in twice.metrics]
    assert len(keys) == len(set(keys)) and {m.label("run") for m in twice.metrics} == {"1", "2"}


def test_table_headline_in_summary() -> None:
    from planner.parsers import summarise
    p = iozone.parse((DATA / "iozone-3.424-table-i012.txt").read_text(), "t")
    assert {(m.name, m.label("test")) for m in summarise(p)} >= {("iozone.throughput", "random read"),
                                                                  ("iozone.iops", "random write")}


def test_banner_only_run_is_refused_as_such() -> None:
    text = (DATA / "iozone-3.424-table-i012.txt").read_text().split("\tRecord Size")[0]
    assert iozone.looks_like(text)
    with pytest.raises(ParseError, match=r"iozone 3\.424 \(single run\): banner only, no result table"):
        iozone.parse(text, "b")


def test_table_row_with_junk_is_named_not_dropped_silently() -> None:
    text = (DATA / "iozone-auto-zram-ramdisk.txt").read_text().replace(
        "1048576     128  359506  390935   608138   870010  493423  310893  783716   391109   654727",
        "1048576     128  359506  390935   608138   870010  493423  310893  783716   391109   654727<br>")
    p = iozone.parse(text, "j")
    assert len(p.all("iozone.throughput")) == 17 * 9  # the rows after it still read
    assert [(e.section, e.line) for e in p.errors] == [("auto table", 13)]
