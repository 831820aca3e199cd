"""Issue 18: numbers are read whole or warned about, never truncated. One regression per misread the issue
names (each was a silent wrong value before planner/parsers/numbers.py), plus the reader's own rules."""

from __future__ import annotations

import pytest

from planner.parsers import parse_text
from planner.parsers.numbers import read

THREEPAR_LP = ("Load Profile Per Second Per Transaction Per Exec Per Call\n"
               "~~~~~~~~~~~~ ————— ————— ———- ———-\n"
               "DB Time(s): 79.5 2,184.2 0.01 14.51\n"
               "Logical reads: 3,262,027.4 89,607,002.5\n"
               "Physical reads: 586,285.5 16,105,101.7\n")


@pytest.mark.parametrize("token,value,unit", [
    ("13,985", 13985, ""), ("1,139.22", 1139.22, ""), ("31,681.06", 31681.06, ""), ("1.61E+07", 1.61e7, ""),
    ("-72.07", -72.07, ""), (".7", 0.7, ""), ("3.82ms", 3.82, "ms"), ("31,681.06KB/sec", 31681.06, "KB/sec"),
    ("21,628,695", 21628695, ""), ("26.4K", 26.4, "K"), ("3985,", 3985, ""), ("-0.6%", -0.6, "%"),
])
def test_reader_reads_the_whole_token(token: str, value: float, unit: str) -> None:
    r = read(token)
    assert (r.value, r.unit, r.problem) == (value, unit, "")


@pytest.mark.parametrize("token", ["1,23", "12,34,567", "1.2.3", "1,2345", "0.."])
def test_reader_refuses_what_it_cannot_read_whole(token: str) -> None:
    r = read(token)
    assert r.value is None and r.problem and r.problem != "blank"


@pytest.mark.parametrize("token", ["", "N/A", "#####", "  "])
def test_blank_cells_are_blank_not_zero(token: str) -> None:
    assert read(token).value is None and read(token).problem == "blank"


def test_orion_small_iops_with_thousands_separator() -> None:
    """Was 13 (exit 0, no warning): `Maximum Small IOPS=13,985`."""
    p = parse_text("Maximum Small IOPS=13,985 @ Small=5 and Large=0\n", "orion.txt")
    assert p.kind == "orion_summary" and p.value("orion.max_small_iops") == 13985 and not p.errors


def test_orion_large_mbps_with_thousands_separator() -> None:
    """Was 1: `Maximum Large MBPS=1,139.22`."""
    p = parse_text("Maximum Large MBPS=1,139.22 @ Small=0 and Large=2\n", "orion.txt")
    assert p.value("orion.max_large_mbps") == 1139.22 and not p.errors


def test_orion_unreadable_number_is_a_warning_with_its_line() -> None:
    p = parse_text("Maximum Large MBPS=139.22 @ Small=0 and Large=2\nMaximum Small IOPS=13,98,5 @ Small=5 and "
                   "Large=0\n", "orion.txt")
    assert p.get("orion.max_small_iops") is None
    assert [(e.section, e.line) for e in p.errors] == [("summary", 2)] and "13,98,5" in str(p.errors[0])


def test_iozone_throughput_with_thousands_separator() -> None:
    """Was 31 with unit ',681.06': `31,681.06 KB/sec`."""
    text = "\tRecord Size 8 kB\n\tParent sees throughput for  4 random readers   =   31,681.06 KB/sec\n"
    p = parse_text(text, "iozone.txt")
    m = p.get("iozone.throughput")
    assert m is not None and (m.value, m.unit) == (31681.06, "KB/s") and not p.errors


def test_wrapped_load_profile_keeps_physical_and_logical_reads() -> None:
    """Was: the rows after a wrapped line were lost without a word."""
    text = ("Load Profile                    Per Second   Per Transaction  Per Exec  Per Call\n"
            "~~~~~~~~~~~~~~~            ---------------   --------------- --------- ---------\n"
            "             DB Time(s):              79.5           2,184.2      0.01\n"
            "     14.51\n"
            "  Logical read (blocks):\n"
            "        3,262,027.4      89,607,002.5\n"
            " Physical read (blocks):       586,285.5\n"
            "   16,105,101.7\n")
    p = parse_text(text, "lp.txt")
    assert (p.value("db_time_per_s"), p.value("db_time_per_call")) == (79.5, 14.51)
    assert (p.value("logical_reads_per_s"), p.value("logical_reads_per_txn")) == (3262027.4, 89607002.5)
    assert (p.value("physical_reads_per_s"), p.value("physical_reads_per_txn")) == (586285.5, 16105101.7)
    assert p.get("physical_reads_per_s").source.line == 7 and not p.errors


def test_load_profile_flattened_onto_one_line() -> None:
    """Was ignored: the whole block on one line (a blog comment)."""
    p = parse_text(THREEPAR_LP.replace("\n", " "), "lp.txt")
    assert p.value("db_time_per_call") == 14.51 and p.value("logical_reads_per_s") == 3262027.4
    assert (p.value("physical_reads_per_s"), p.value("physical_reads_per_txn")) == (586285.5, 16105101.7)


def test_load_profile_row_with_more_values_than_columns_is_a_warning() -> None:
    text = THREEPAR_LP.replace("Physical reads: 586,285.5 16,105,101.7", "Physical reads: 586,285.5 16,105 101.7 "
                               "5 6")
    p = parse_text(text, "lp.txt")
    assert p.get("physical_reads_per_s") is None
    assert any(e.section == "Load Profile" and e.line == 5 and "5 values for 4 columns" in str(e) for e in p.errors)


def test_load_profile_number_not_read_whole_is_a_warning() -> None:
    p = parse_text(THREEPAR_LP.replace("586,285.5", "586,28.5"), "lp.txt")
    assert p.get("physical_reads_per_s") is None and p.value("physical_reads_per_txn") == 16105101.7
    assert any("586,28.5" in str(e) and e.line == 5 for e in p.errors)


def test_awr_cell_with_decimal_comma_is_not_a_wrong_number() -> None:
    from planner.parsers.awr_common import parse_number

    assert parse_number("1,23") is None and parse_number("1,368.27") == 1368.27 and parse_number("26.4K") == 26400
