"""iozone's fetched output is parsed at apply time with the step's record size: it was read whole, with no bound
(a fetched file may be as large as the fetch cap, 1 GiB; issue 40). Over the parse bound it is refused by its size,
unread, with the bound named."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.iozone.step import parse_iozone
from planner.parsers import parse_bound


def test_a_huge_fetched_iozone_output_is_refused_by_its_size(tmp_path: Path) -> None:
    out = tmp_path / "iozone.txt"
    with out.open("wb") as f:
        f.write(b"\tIozone: Performance Test of File I/O\n")
        f.truncate(2_600_000_000)  # sparse
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match=f"2600000000 bytes is over the {parse_bound('iozone') >> 20} MiB planner "
                                             "parses: not read"):
            parse_iozone(out, 8.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
