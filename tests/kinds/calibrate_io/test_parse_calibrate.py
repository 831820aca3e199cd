"""CALIBRATE_IO results as printed by DBMS_OUTPUT and as a DBA_RSRC_IO_CALIBRATE listing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.calibrate_io import parse as calibrate_io
from planner.metrics import Direction

# From the seed write-up (/work/shared/seeds/ssd-calibrate-io-orion-iozone.txt).
SEED = "Results:\nmax_iops = 3913\nlatency  = 0\nmax_mbps = 137\n"

# A 19c session quoted in a public Korean benchmark guide (public code index id 21236009254):
# two DBMS_OUTPUT blocks of the same run, then the DBA_RSRC_IO_CALIBRATE row.
SESSION_19C = """SYSTEM@orcl> @disk
max_iops = 24002
latency  = 10.868
max_mbps = 175

Note: The high I/O latencies from the calibration run indicate that the calibration I/Os are being serviced mostly from
disk.

max_iops = 24002
latency = 11
max_mbps = 175

PL/SQL procedure successfully completed.

SYSTEM@orcl> SELECT max_iops, max_mbps, max_pmbps, latency, num_physical_disks FROM dba_rsrc_io_calibrate;

  MAX_IOPS   MAX_MBPS  MAX_PMBPS    LATENCY NUM_PHYSICAL_DISKS
---------- ---------- ---------- ---------- ------------------
     24002        175        186     10.868                  1
"""

LISTING_WITH_TIMES = ("START_TIME                     END_TIME                         MAX_IOPS   MAX_MBPS  "
                      "MAX_PMBPS    LATENCY NUM_PHYSICAL_DISKS\n"
                      "------------------------------ ------------------------------ ---------- ---------- ---------- "
                      "---------- ------------------\n"
                      "22-JAN-13 04.32.13.000000 PM   22-JAN-13 04.41.20.000000 PM         2249        190        "
                      "201          8                 12\n"
                      "\n"
                      "1 row selected.\n")


def test_seed_values() -> None:
    p = calibrate_io.parse(SEED, "seed")
    assert p.kind == "calibrate_io"
    assert p.value("calibrate.max_iops") == 3913
    assert p.value("calibrate.latency_ms") == 0  # a real printed zero, kept
    assert p.value("calibrate.max_mbps") == 137
    assert p.get("calibrate.max_iops").direction is Direction.HIGHER
    # the OUT actual_latency is whole milliseconds: its 0 means "under 1 ms", never the best latency
    assert p.get("calibrate.latency_ms").direction is Direction.NEUTRAL
    assert p.get("calibrate.latency_ms").label("resolution") == "under 1 ms (whole ms)"
    assert p.get("calibrate.max_mbps").source.line == 4


def test_19c_session_blocks_and_listing() -> None:
    p = calibrate_io.parse(SESSION_19C, "s")
    assert p.value("calibrate.latency_ms", form="dbms_output", block="1") == 10.868
    assert p.value("calibrate.latency_ms", form="dbms_output", block="2") == 11
    assert p.value("calibrate.max_iops", block="2") == 24002
    row = {"form": "dba_rsrc_io_calibrate", "row": "1"}
    assert p.value("calibrate.max_iops", **row) == 24002
    assert p.value("calibrate.max_mbps", **row) == 175
    assert p.value("calibrate.max_pmbps", **row) == 186
    assert p.value("calibrate.latency_ms", **row) == 10.868
    assert p.value("calibrate.num_physical_disks", **row) == 1
    assert p.errors == ()


def test_listing_with_time_columns() -> None:
    p = calibrate_io.parse(LISTING_WITH_TIMES, "l")
    assert p.value("calibrate.max_iops") == 2249
    assert p.value("calibrate.latency_ms") == 8
    assert p.value("calibrate.num_physical_disks") == 12
    assert p.fact("row1.start_time") == "22-JAN-13 04.32.13.000000 PM"


def test_guy_harrison_style_labels() -> None:
    p = calibrate_io.parse("Max IOPS = 1200\nMax MBps = 95\nLatency = 7\n", "g")
    assert (p.value("calibrate.max_iops"), p.value("calibrate.max_mbps"), p.value("calibrate.latency_ms")) == \
        (1200, 95, 7)
    assert calibrate_io.looks_like("Max IOPS = 1200\nMax MBps = 95\nLatency = 7\n")


def test_bad_listing_cell_is_named() -> None:
    bad = LISTING_WITH_TIMES.replace("2249", "####")
    p = calibrate_io.parse(bad, "b")
    assert p.value("calibrate.max_mbps") == 190
    assert "MAX_IOPS is not a number" in str(p.errors[0])


@pytest.mark.parametrize("text", ["", "max_iops =\n", "MAX_IOPS MAX_MBPS\n", "latency = 3\n"])
def test_wrong_kind_raises(text: str) -> None:
    with pytest.raises(ParseError):
        calibrate_io.parse(text, "x")


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parsed = calibrate_io.parse(text)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=len(SESSION_19C)), st.text(max_size=4))
def test_damaged_session_raises_only_parse_error(cut: int, junk: str) -> None:
    try:
        parsed = calibrate_io.parse(SESSION_19C[:cut] + junk + SESSION_19C[cut:])
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


def test_one_calibration_printed_three_times_is_one_headline() -> None:
    from planner.parsers import summarise

    heads = summarise(calibrate_io.parse(SESSION_19C, "s"))
    assert [(m.name, m.value) for m in heads] == [
        ("calibrate.max_iops", 24002), ("calibrate.max_mbps", 175), ("calibrate.latency_ms", 10.868)]
    assert {m.labels for m in heads} == {(("form", "dbms_output"), ("block", "1"))}
    listing = summarise(calibrate_io.parse(LISTING_WITH_TIMES, "l"))  # the view alone still has a headline
    assert [m.value for m in listing if m.name == "calibrate.max_iops"] == [2249]
