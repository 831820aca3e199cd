"""The report's axis for SLOB with THREADS_PER_SCHEMA > 1 (docs/oracle-behaviour.md 25.5b): runit.sh connects
schemas x threads sessions, so the points read as sessions, never as "reader sessions" that are schemas."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from planner.cli.main import main
from planner.extras import Notes, RanAs
from planner.kinds.slob.points import kit_params
from planner.report.study import point_words
from planner.results.measure import read_run
from tests.kinds.test_oracle_varies import KIT, project


def test_a_point_with_threads_per_schema_reads_as_schemas_threads_and_sessions() -> None:
    got = kit_params((("readers", 64),), 4, 256)
    assert got == (("reader_schemas", 64), ("threads_per_schema", 4), ("sessions", 256))
    assert point_words(got) == "64 SLOB reader schemas, 4 threads per schema, 256 SLOB sessions"
    # one thread per schema, SLOB 1's sessions, other kinds, an unreadable record: as recorded
    assert kit_params((("readers", 64),), 1, 64) == (("readers", 64),)
    assert not isinstance(Notes(MappingProxyType({"numjobs": 4})), RanAs)  # another kind's record: as recorded
    assert point_words((("readers", 64),)) == "64 SLOB reader sessions"


@pytest.mark.slow
def test_the_report_axis_says_sessions_when_the_kit_runs_threads_per_schema(tmp_path: Path) -> None:
    root = project(tmp_path, step="readers: [2, 4]")
    conf = root / KIT.lstrip("/") / "slob.conf"
    conf.write_text(conf.read_text().replace("THREADS_PER_SCHEMA=1", "THREADS_PER_SCHEMA=4"))
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"])
    assert code == 0
    out = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    points = {m.point_label for m in read_run(out).measurements if m.kind == "slob"}
    assert points == {"reader_schemas=2 threads_per_schema=4 sessions=8",
                      "reader_schemas=4 threads_per_schema=4 sessions=16"}
    assert main(["report", str(out), "-o", str(tmp_path / "r.md")]) == 0
    text = (tmp_path / "r.md").read_text()
    assert "by SLOB sessions" in text and "16 SLOB sessions" in text
    assert "SLOB reader sessions" not in text


def test_the_2_4_2_kit_is_a_2_4_kit_as_its_readme_documents(tmp_path: Path) -> None:
    """SLOB 2.4.2's README (SLOB-PDB @ e8d9167 doc/SLOB-2.4.2_README.pdf): -s/-t override THREADS_PER_SCHEMA, sessions
    are their product, DATABASE_STATISTICS_TYPE defaults to statspack (docs/oracle-behaviour.md 25.5c)."""
    from planner.kinds.slob.kit import KitVersion, detect_version
    from planner.kinds.slob.standin import install_slob_kit
    from planner.kinds.slob.step import Slob
    from planner.rehearsal.standins.profile import SLOB_FACTS, SlobRelease

    facts = SLOB_FACTS[SlobRelease.V2_4_2]
    assert facts.getopts and facts.statistics_type
    kit = install_slob_kit(tmp_path / "SLOB", release=SlobRelease.V2_4_2)
    conf = (kit / "slob.conf").read_text()
    assert detect_version((kit / "runit.sh").read_text(), conf) is KitVersion.SLOB24
    argv, sessions, _ = Slob({"kit": KIT, "readers": 2, "threads_per_schema": 5}).command(
        KitVersion.SLOB24, "THREADS_PER_SCHEMA=3\n")  # the README's Figure 15: 5 threads each to 2 schemas
    assert argv[-4:] == ["-s", "2", "-t", "5"] and sessions == 10
    # the stand-in's runit.sh defaults to statspack when slob.conf does not say, as the README documents
    assert "DATABASE_STATISTICS_TYPE=${DATABASE_STATISTICS_TYPE:-statspack}" in (kit / "runit.sh").read_text()
