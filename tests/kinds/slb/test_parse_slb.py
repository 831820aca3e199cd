"""SLB parser on the seed write-up's console output (tests/data/slb/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.slb import parse as slb
from planner.metrics import Direction

SEED = Path(__file__).resolve().parents[2] / "data" / "slb" / "slb-westmere-seed.txt"


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


@pytest.mark.slow
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


def test_2009_memhammer_layout_blocks_are_runs() -> None:
    """The first kit's lines (no Test Summary) were refused as not a recognised benchmark output."""
    from planner.parsers import detect, parse_file, summarise
    f = Path(__file__).resolve().parents[2] / "data" / "slb" / "slb-2009-memhammer-nehalem.txt"
    assert detect(f.read_text()) == "slb"
    p = parse_file(f)
    assert p.fact("layout").startswith("2009") and not p.errors
    one = {"run": "1", "op": "ops", "proc": "1"}
    assert (p.value("slb.proc_ops", **one), p.value("slb.proc_avg_nsec_per_op", **one),
            p.value("slb.proc_secs", **one), p.value("slb.proc_tput", **one)) == \
        (1572864000, 30.6, 48.204156, 32629219.8)
    assert [p.value("slb.users", run=r) for r in "1234"] == [1, 1, 2, 4]
    assert p.value("slb.ops_per_s", run="3") == pytest.approx(31224462.9 + 31222829.0)
    assert (p.value("slb.avg_nsec_per_op", run="4", stat="min"), p.value("slb.avg_nsec_per_op", run="4", stat="max")) \
        == (36.6, 36.7)
    assert p.fact("run[3]") == "2 threads .25GB each:"
    assert {m.label("run") for m in summarise(p) if m.name == "slb.ops_per_s"} == {"1", "2", "3", "4"}
    keys = [(m.name, m.labels) for m in p.metrics]
    assert len(keys) == len(set(keys))
