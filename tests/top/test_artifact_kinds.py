"""Issue 42: artifact kinds are one typed enum (planner.status.ArtifactKind), read by the records; a kind no parser
or workload kind declares, from an old or received run folder, is refused by name, exit 5, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_helpers import Exec, awr_excerpt, write_run

from planner import kindspec, parsers
from planner.cli.main import main
from planner.errors import InputError
from planner.results.runfolder import read_results
from planner.status import ArtifactKind


def test_the_members_are_the_shared_parsers_kinds_and_the_records_own() -> None:
    own = {k.kind for k in parsers.PARSER_KINDS} - {p.kind for p in kindspec.parser_kinds()}
    assert {m.value for m in ArtifactKind} == own | {"", "series", "facts", "log"}


def test_every_parser_and_workload_kind_reads_as_a_member() -> None:
    for name in {k.kind for k in parsers.PARSER_KINDS} | kindspec.artifact_kinds():
        kind = ArtifactKind(name)
        assert isinstance(kind, ArtifactKind) and kind == name and ArtifactKind(name) is kind


def _run_with_kind(tmp_path: Path, kind: str) -> Path:
    return write_run(tmp_path, "20260101T100000Z-kinds", [Exec("plays[0].workloads[0]", "slob", "h1", {
        "awr.txt": (awr_excerpt(1000.0), kind)}, {}, 0, 0)], [{"name": "p", "hosts": ["h1"]}])


def test_an_old_folders_kinds_are_read_typed(tmp_path: Path) -> None:
    (result,) = read_results(_run_with_kind(tmp_path, "awr_excerpt"))
    assert [type(a.kind) for a in result.artifacts] == [ArtifactKind]
    assert result.artifacts[0].kind is ArtifactKind.AWR_EXCERPT


def test_an_unknown_kind_in_a_received_folder_is_refused_by_name(tmp_path: Path) -> None:
    run = _run_with_kind(tmp_path, "awr_txt")  # a misspelt kind: before, carried on as text no reader knew
    with pytest.raises(InputError) as e:
        read_results(run)
    assert "'awr_txt'" in str(e.value) and "no parser or workload kind" in str(e.value)


def test_the_report_of_such_a_folder_exits_5_without_a_traceback(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_with_kind(tmp_path, "awr_txt")
    assert main(["report", str(run)]) == 5
    err = capsys.readouterr().err
    assert "'awr_txt'" in err and "Traceback" not in err
    assert json.loads((run / "results.json").read_text())[0]["artifacts"][0]["kind"] == "awr_txt"
