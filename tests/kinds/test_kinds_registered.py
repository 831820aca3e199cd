"""pgbench and sysbench through the parse registry, registered as kinds (planner.kindspec.KINDS): every sample
read by planner.parsers.parse_file is unwrapped, detected as its kind and read with no warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import parse_file

ROOT = Path(__file__).parents[2]
SAMPLES = [f for kind in ("pgbench", "sysbench") for f in sorted((ROOT / "tests" / "data" / kind).iterdir())
           if f.name != "README.md"]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_reads_through_the_registry_as_its_kind_with_no_warning(path: Path) -> None:
    p = parse_file(path)
    assert p.kind == ("sysbench" if path.name.startswith(("sysbench", "local_1_0")) else "pgbench")
    assert [str(e) for e in p.errors] == []


def test_the_headline_figures_of_two_samples() -> None:
    assert parse_file(ROOT / "tests/data/pgbench/pg_docs_15_latency_limit_r.txt").value("pgbench.tps") == 346.224794
    assert parse_file(ROOT / "tests/data/sysbench/sysbench_1_1_0_oltp_point_select.md").value("sysbench.tps") == 1714.17
