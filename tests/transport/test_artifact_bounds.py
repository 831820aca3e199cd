"""Artifacts are not read whole (issue 40): a 2.6 GB sparse awr.txt gave MemoryError in show, report, export
and store push, and apply fetched it, fetches having no default cap. Fetches have a default cap the inventory
may raise (planner_fetch_max_size), and a file over the parse bound is refused by its size, never read."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from test_report_helpers import Exec, write_run

from planner.cli.main import main
from planner.errors import ParseError
from planner.host import Host
from planner.parsers import MAX_PARSE_BYTES, parse_file
from planner.transport.connection import LocalConnection
from planner.transport.streams import DEFAULT_FETCH_MAX, FetchTooLarge, fetch_cap

SPARSE = 2_600_000_000


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as f:
        f.write(b"WORKLOAD REPOSITORY report for\n")
        f.truncate(size)
    return path


def test_a_fetch_has_a_default_cap_the_inventory_may_raise() -> None:
    assert fetch_cap(None, {}) == DEFAULT_FETCH_MAX == 1 << 30
    assert fetch_cap(None, {"planner_fetch_max_size": "4G"}) == 4 << 30
    assert fetch_cap(512, {"planner_fetch_max_size": "4G"}) == 512


def test_a_local_fetch_of_a_huge_sparse_file_is_refused_before_a_byte_is_copied(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "awr.txt", SPARSE)
    conn = LocalConnection(Host(name="alpha", address="127.0.0.1", connection="local"))
    with pytest.raises(FetchTooLarge, match="more than the fetch limit of 1073741824 bytes"):
        conn.get(str(big), tmp_path / "copy.txt")
    assert not (tmp_path / "copy.txt").exists()


def test_a_file_over_the_parse_bound_is_refused_by_its_size_unread(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "awr.txt", SPARSE)
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match=f"over the {MAX_PARSE_BYTES >> 20} MiB planner parses"):
            parse_file(big)
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("verb", ["show", "report", "export"])
def test_show_report_and_export_of_a_run_with_a_huge_artifact(verb: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path, "20260101T100000Z-awr", [Exec("plays[0].workloads[0]", "slob", "vio",
                                                            {"awr.txt": ("WORKLOAD REPOSITORY report\n", "awr_text")},
                                                            {"threads": 8}, 0, 0)],
                    [{"name": "violin", "hosts": ["vio"]}])
    [art] = list(run.rglob("awr.txt"))
    _sparse(art, SPARSE)
    code = main([verb, str(run)])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    assert "Traceback" not in captured.err and "MemoryError" not in captured.err
    assert os.stat(art).st_blocks * 512 < 1 << 20  # still sparse: nothing wrote it out
