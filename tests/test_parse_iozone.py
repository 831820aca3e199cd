"""iozone throughput-mode parser on real outputs (tests/data/iozone/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.parsers import iozone

DATA = Path(__file__).parent / "data" / "iozone"


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


@settings(max_examples=150, deadline=None)
@given(st.text(), st.one_of(st.none(), st.floats(allow_nan=True)))
def test_arbitrary_text_raises_only_parse_error(text: str, rec: float | None) -> None:
    try:
        parsed = iozone.parse(text, "x", record_kb=rec)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success
