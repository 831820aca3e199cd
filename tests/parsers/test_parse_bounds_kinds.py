"""Every kind's parse is bounded in memory, not only the OS samplers' (issue 40): a kind read whole took 5-9 MB of
RSS per MB of input (benchmarks/memory/parse_kinds.py), so under the one 128 MiB bound an AWR text with a huge SQL
section, fio JSON of many jobs or hours of pgbench -P lines could take 0.7-1.2 GB. Each kind's bound
(planner.parsers.parse_bound) times its parse's peak per input byte (tracemalloc, deterministic, on a megabyte of
the benchmark's own input) must stay under the issue's 400 MB; a file over it is refused by its size, unread."""

from __future__ import annotations

import importlib.util
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from planner.errors import ParseError
from planner.metrics import Parsed
from planner.parsers import parse_bound, parse_file

GOAL = 400 << 20
_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "memory" / "parse_kinds.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_kinds", _BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()


@pytest.mark.slow  # no process, but eight parses under tracemalloc (~10 s)
@pytest.mark.parametrize("kind", sorted(BENCH.GENERATORS))
def test_a_kind_s_parse_at_its_bound_stays_under_400_mb(kind: str, tmp_path: Path) -> None:
    name, gen = BENCH.GENERATORS[kind]
    path = tmp_path / name
    path.write_text(gen(500_000))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        parsed = parse_file(path, kind)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert parsed.metrics and not parsed.errors, parsed.errors[:3]
    at_bound = peak / size * parse_bound(kind)
    assert at_bound <= GOAL, f"{peak / size:.1f} bytes per input byte: {at_bound / 2**20:.0f} MiB at the bound"


@pytest.mark.parametrize("kind", ["awr_text", "fio_json", "pgbench", "iostat"])
def test_a_file_over_its_kind_s_bound_is_refused_by_its_size_unread(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    with path.open("wb") as f:  # sparse: nothing written, its size is what is refused
        f.truncate(parse_bound(kind) + 1)
    tracemalloc.start()
    try:
        with pytest.raises(ParseError) as err:
            parse_file(path, kind)
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()
    assert f"{parse_bound(kind) + 1} bytes is over the {parse_bound(kind) >> 20} MiB planner parses" in str(err.value)
    assert "so that its parse stays under 400 MB" in str(err.value)
    assert os.stat(path).st_blocks * 512 < 1 << 20


@pytest.mark.slow  # no process, but 40 MiB read and detected (~15 s)
def test_a_file_of_unknown_kind_over_its_detected_kind_s_bound_is_refused(tmp_path: Path) -> None:
    # read up to the largest bound, then detected: a pgbench output over the whole-read bound is not parsed
    name, gen = BENCH.GENERATORS["pgbench"]
    path = tmp_path / name
    path.write_text(gen(parse_bound("pgbench") + 1000))
    with pytest.raises(ParseError, match=f"over the {parse_bound('pgbench') >> 20} MiB planner parses"):
        parse_file(path)


def _traced(parse: Callable[[], Parsed]) -> tuple[int, Parsed]:
    tracemalloc.start()
    try:
        parsed = parse()
        return tracemalloc.get_traced_memory()[1], parsed
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # no process, but two iostat parses under tracemalloc (~6 s)
def test_a_big_os_sampler_file_of_unknown_kind_is_read_a_line_at_a_time(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # a file of unknown kind was read whole up to the largest bound: 80 MiB of iostat took 460 MB, as its known
    # kind (a line at a time) 318. Here the whole-read bound is made small so that a small file is "big".
    import planner.parsers as parsers

    name, gen = BENCH.GENERATORS["iostat"]
    path = tmp_path / name
    path.write_text(gen(600_000))
    monkeypatch.setattr(parsers, "WHOLE_PARSE_BYTES", 256 << 10)
    known_peak, known = _traced(lambda: parse_file(path, "iostat"))
    peak, parsed = _traced(lambda: parse_file(path))
    assert parsed.kind == "iostat" and len(parsed.metrics) == len(known.metrics) and not parsed.errors
    assert list(parsed.metrics)[-3:] == list(known.metrics)[-3:]
    assert peak <= known_peak * 1.1, f"{peak / known_peak:.2f} times the known kind's peak"
