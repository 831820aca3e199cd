"""A run's results are computed once (planner.results.evaluate): the report, `planner show` and the results
store hold the same findings and verdicts for the same run folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.report.context import build_context
from planner.results.measure import read_run
from planner.store import SqliteStore


def _study_with_every_family(tmp_path: Path) -> Path:
    """The seed study, with what the findings beyond the series read: a working set in the plan (cached reads
    against it) and a synchronised start that was late (sync_start.json)."""
    run = seed_study(tmp_path)
    plan = run / "plan.yaml"
    plan.write_text(plan.read_text().replace("plays:\n", "vars: {working_set_mb: 200}\nplays:\n", 1))
    (run / "sync_start.json").write_text(json.dumps([{
        "play": 0, "title": "slob", "name": "readers=16", "late": ["exa"], "tolerance_ms": 50,
        "hosts": {"exa": {"start_ms": 180.0}}}]))
    return run


def test_the_report_show_and_the_store_hold_one_list_of_findings(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run = _study_with_every_family(tmp_path)
    data = read_run(run)
    report = build_context(data, run, charts=False)["findings"]
    codes = [f["code"] for f in report]
    assert "late_sync_start" in codes and "cached_reads" in codes  # the families the store and show missed
    with SqliteStore(":memory:") as st:
        st.put_run(data)
        stored = st.stored_run(data.run_id)
    assert stored is not None
    assert [(f.code, f.play, f.host, f.step, f.point) for f in stored.findings] == \
        [(f["code"], f["play"], f["host"], f["step"], f["point"]) for f in report]
    assert main(["show", str(run)]) == 0
    shown = capsys.readouterr().out.split("\nfindings:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(" (", 1)[0].strip() for line in shown] == \
        [f"{f['severity']}: {f['title']}" for f in report]
    assert len(set(shown)) == len(shown)  # one finding at two sweep points: two lines told apart
    assert any("(exadata exa, 256 SLOB reader sessions)" in line for line in shown)
    verdicts = build_context(data, run, charts=False)["verdicts"]
    assert [(v.source, v.play, v.verdict.value) for v in stored.verdicts] == \
        [(v["source"], v["play"], v["verdict"]) for v in verdicts]


def test_analyze_judges_a_run_folder_as_its_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`planner analyze RUN_FOLDER` gives the run's findings, not its record files read as reports one by one
    (a report.md of excerpts read as an AWR paste, meta.json "not a recognised benchmark output", exit 2)."""
    run = _study_with_every_family(tmp_path)
    (run / "report.md").write_text("Load Profile  Per Second\n  Physical reads:  1.0  1.0\n")
    report = build_context(read_run(run), run, charts=False)["findings"]
    assert main(["analyze", str(run), "--format", "json"]) == 0
    (judged,) = json.loads(capsys.readouterr().out)["runs"]
    assert judged["run"] == str(run)
    assert [(f["code"], f["play"], f["host"], f["point"]) for f in judged["findings"]] == \
        [(f["code"], f["play"], f["host"], f["point"]) for f in report]


def test_evaluate_is_computed_once_per_run_read(tmp_path: Path) -> None:
    from planner.results.evaluate import evaluate

    data = read_run(_study_with_every_family(tmp_path))
    first = evaluate(data)
    assert evaluate(data) is first  # the report and the store push of one apply share it
    again = evaluate(read_run(data.run_dir))  # a fresh read of the same folder: the same results
    assert again is not first and (again.findings, again.verdicts) == (first.findings, first.verdicts)


def test_the_documented_context_is_the_typed_one() -> None:
    """docs/report-context.md's table names every top-level key of the context, and no other."""
    import re

    from planner.report.context_types import CONTEXT_KEYS

    doc = (Path(__file__).parents[2] / "docs" / "report-context.md").read_text()
    documented = {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", doc, re.M)}
    assert documented == CONTEXT_KEYS
