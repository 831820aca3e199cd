"""Hostile Swingbench XML under the 64 MiB size bound (issue 40): 63 MB of nested elements, a 62 KB gzip,
parsed to 2.6 GB as a tree. The parse itself is bounded now: depth and element count, checked as it reads."""

from __future__ import annotations

import tracemalloc

import pytest

from planner.errors import ParseError
from planner.kinds.swingbench import parse as swingbench

_HEAD = '<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview><TotalCompletedTransactions>1'


def _peak_of_refusal(text: str) -> tuple[int, str]:
    tracemalloc.start()
    try:
        with pytest.raises(ParseError) as refused:
            swingbench.parse(text, "results.xml")
        return tracemalloc.get_traced_memory()[1], str(refused.value)
    finally:
        tracemalloc.stop()


def test_a_flood_of_elements_is_refused_in_bounded_memory() -> None:
    text = _HEAD + "<x/>" * 60_000 + "</TotalCompletedTransactions></Overview></Results>"
    peak, said = _peak_of_refusal(text)
    assert "over 50000 elements" in said
    assert peak <= 16 << 20, f"{peak >> 20} MiB"


def test_deep_nesting_is_refused_before_it_is_a_tree() -> None:
    text = _HEAD + "<x>" * 100_000 + "</x>" * 100_000 + "</TotalCompletedTransactions></Overview></Results>"
    peak, said = _peak_of_refusal(text)
    assert "nested over 64 deep" in said
    assert peak <= 16 << 20, f"{peak >> 20} MiB"
