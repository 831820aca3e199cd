"""Apply-time and read-time parses stream (issue 40): an OS sampler's file is read a line at a time into its
columns, never held whole; a file over the parse bound is refused by its size, also at apply time, with the
bound named, and nothing is read of it."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from test_parse_bounds import _iostat, _mpstat

from planner.engine import os_series
from planner.host import Host
from planner.parsers import decode, parse_bound, parse_file, parse_text
from planner.status import Artifact, Status
from planner.steps.base import StepContext
from planner.steps.wl_common import finish
from planner.transport.connection import LocalConnection

DATA = Path(__file__).parents[1] / "data" / "ostats"
SPARSE = 2_600_000_000


def _sparse(path: Path, first_line: bytes) -> Path:
    with path.open("wb") as f:
        f.write(first_line)
        f.truncate(SPARSE)
    return path


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*") if p.name.startswith(("iostat", "mpstat",
                                                                                            "vmstat", "sar"))))
def test_a_file_read_a_line_at_a_time_reads_as_its_whole_text(name: str, tmp_path: Path) -> None:
    kind = "mpstat" if name.startswith("sar") else name.split("-")[0]
    path = tmp_path / name
    path.write_bytes((DATA / name).read_bytes().replace(b"\n", b"\r\n") if "locale-de" in name
                     else (DATA / name).read_bytes())
    try:
        whole = parse_text(path.read_bytes().decode("utf-8").replace("\r\n", "\n"), str(path), kind)
    except Exception as e:  # noqa: BLE001 - a sample its kind does not read is refused both ways alike
        with pytest.raises(type(e)):
            parse_file(path, kind)
        return
    streamed = parse_file(path, kind)
    assert tuple(streamed.metrics) == tuple(whole.metrics)
    assert (streamed.facts, streamed.errors) == (whole.facts, whole.errors)


def test_a_file_not_in_utf_8_reads_as_decode_reads_it_whole(tmp_path: Path) -> None:
    # decode() keeps a few bad bytes of mostly-UTF-8 as U+FFFD and reads a legacy code page as latin-1: a file
    # whose first 64 KiB are not UTF-8 is read whole, as before, so that choice stays decode()'s
    text = (DATA / "iostat-x-t.txt").read_text().replace("vda ", "vdä ")
    path = tmp_path / "iostat.txt"
    for data in (text.encode("latin-1"), ("é" * 2000).encode("latin-1") + b"\n" + text.encode("latin-1")):
        path.write_bytes(data)
        whole = parse_text(decode(data, str(path)), str(path), "iostat")
        assert tuple(parse_file(path, "iostat").metrics) == tuple(whole.metrics)


@pytest.mark.parametrize(("kind", "make"), [("iostat", _iostat), ("mpstat", _mpstat)])
def test_an_os_samplers_file_is_not_held_beside_its_series(kind: str, make: Callable[[int], str],
                                                           tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.txt"
    path.write_text(make(60))
    size = path.stat().st_size
    parse_file(path, kind)  # the parser's modules and their tables, once
    tracemalloc.start()
    try:
        parsed = parse_file(path, kind)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert parsed.metrics
    # the file's bytes and its text, read whole, were each its size again on top of the parse (5 a byte)
    assert peak - kept <= 2 * size, f"{(peak - kept) / size:.2f} bytes per input byte beside the series"


def _ctx(run_dir: Path) -> StepContext:
    host = Host(name="alpha", address="127.0.0.1", connection="local")
    return StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].workloads[0]",
                       plan_dir=run_dir, artifacts=run_dir / "artifacts", run_dir=run_dir, log=None)


def test_apply_time_parse_of_a_huge_sparse_artifact_is_refused_by_its_size(tmp_path: Path) -> None:
    _sparse(tmp_path / "awr.txt", b"WORKLOAD REPOSITORY report for\n")
    iostat = _sparse(tmp_path / "iostat.txt", _iostat(3).encode())
    mpstat = tmp_path / "mpstat.txt"
    mpstat.write_text(_mpstat(5))
    tracemalloc.start()
    try:
        out = finish(_ctx(tmp_path), "slob", [Artifact("awr.txt", "awr_text")], Artifact("awr.txt", "awr_text"),
                     None, lambda p: parse_file(p, "awr_text"))
        series = os_series.build([(iostat, "iostat"), (mpstat, "mpstat")], 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.status is Status.FAILED
    assert f"{SPARSE} bytes is over the {parse_bound('awr_text') >> 20} MiB planner parses: not read" in out.msg
    assert [s.metric for s in series] == ["mpstat.busy_pct"]  # the sparse iostat refused, the mpstat read
    assert peak < 4 << 20
    for path in (tmp_path / "awr.txt", iostat):
        assert os.stat(path).st_blocks * 512 < 1 << 20  # still sparse: nothing wrote it out
