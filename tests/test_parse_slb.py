"""SLB parser on the seed write-up's console output (tests/data/slb/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.metrics import Direction
from planner.parsers import slb

SEED = Path(__file__).parent / "data" / "slb" / "slb-westmere-seed.txt"


def test_seed_test_summaries_parse_to_the_printed_values() -> None:
    p = slb.parse(SEED.read_text(), "seed")
    assert p.kind == "slb"
    assert p.value("slb.rops_per_s", run="1") == 101281934
    assert p.value("slb.wops_per_s", run="1") == 59615316
    assert p.value("slb.total_wops", run="1") == 1859997861
    assert p.value("slb.total_rops", run="1") == 3159996366
    assert p.value("slb.runtime_s", run="1") == 31
    assert p.value("slb.rops_per_s", run="2") == 96178233
    assert p.value("slb.wops_per_s", run="2") == 72611381
    assert p.value("slb.users", run="1") == 6
    assert p.get("slb.rops_per_s").direction is Direction.HIGHER
    assert p.get("slb.rops_per_s").unit == "ops/s"
    assert p.errors == ()


def test_seed_per_process_lines() -> None:
    p = slb.parse(SEED.read_text(), "seed")
    assert len([m for m in p.all("slb.proc_tput") if m.label("run") == "1"]) == 12
    assert p.value("slb.proc_tput", run="1", op="wops", proc="1") == 7978921.92
    assert p.value("slb.proc_tput", run="1", op="rops", proc="1") == 13300920.06
    assert p.value("slb.proc_avg_nsec_per_op", run="1", op="rops", proc="2") == 48
    assert p.value("slb.proc_secs", run="1", op="wops", proc="4") == 31.1
    assert p.value("slb.proc_ops", run="2", op="rops", proc="6") == 499999425
    assert p.get("slb.proc_avg_nsec_per_op").direction is Direction.LOWER
    assert p.get("slb.proc_tput", run="1", op="wops", proc="1").source.line == 36


def test_missing_summary_is_reported() -> None:
    text = "Total wops 239999724  Secs 30.1  Avg nsec/op 125 TPUT ops/sec 7978921.92\n"
    p = slb.parse(text, "t")
    assert p.value("slb.proc_tput", op="wops") == 7978921.92
    assert "no 'Test Summary:' line" in str(p.errors[0])


def test_malformed_summary_is_named() -> None:
    text = "Total rops 1  Secs 1.0  Avg nsec/op 1 TPUT ops/sec 1.0\nTest Summary: Total wops 12 (cut)\n"
    p = slb.parse(text, "t")
    assert any("Test Summary" in str(e) and e.line == 2 for e in p.errors)


@pytest.mark.parametrize("text", ["", "Users: 6\nWaiting for semaphore...\n", "Total wops lots"])
def test_wrong_kind_raises(text: str) -> None:
    with pytest.raises(ParseError):
        slb.parse(text, "x")


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parsed = slb.parse(text)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


def test_per_process_latency_spread_over_processes() -> None:
    """Issue 15 item 14: the per-process "Avg nsec/op" is reported as min/median/max over the processes."""
    p = slb.parse(SEED.read_text(), "seed")
    procs = sorted(m.value for m in p.all("slb.proc_avg_nsec_per_op")
                   if m.label("run") == "1" and m.label("op") == "rops")
    assert len(procs) == 6
    lo = p.value("slb.avg_nsec_per_op", run="1", op="rops", stat="min")
    med = p.value("slb.avg_nsec_per_op", run="1", op="rops", stat="median")
    hi = p.value("slb.avg_nsec_per_op", run="1", op="rops", stat="max")
    assert (lo, hi) == (procs[0], procs[-1]) and med == (procs[2] + procs[3]) / 2
    m = p.get("slb.avg_nsec_per_op", run="1", op="wops", stat="max")
    assert m.unit == "ns" and m.direction is Direction.LOWER and m.derived
