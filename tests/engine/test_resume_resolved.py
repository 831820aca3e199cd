"""A resumed run's plan.resolved.yaml keeps what the run before it resolved: the reopened record starts from the
file, so the plays and steps finished before the interruption (which the resume does not run again) keep their
arguments there, and the report's settings with them. No process starts."""

from __future__ import annotations

from pathlib import Path

from planner.engine.resume import ReopenedRecord
from planner.engine.runrecord import RunRecord
from planner.results import runfolder


def test_a_resumed_record_keeps_the_first_runs_resolved_steps(tmp_path: Path) -> None:
    first = RunRecord(tmp_path / "runs", "study")
    first.write_meta(run_id=first.id, status="interrupted")
    first.note_resolved("violin", "h1", "plays[0].workloads[0]", {"title": "slob", "kind": "slob", "args": {"a": 1}})
    reopened = ReopenedRecord(first.path)
    reopened.note_resolved("exadata", "h2", "plays[1].workloads[0]", {"title": "slob", "kind": "slob",
                                                                       "args": {"a": 2}})
    plays = {p["name"]: p["hosts"] for p in runfolder.read_resolved_plan(first.path)["plays"]}
    assert plays["violin"]["h1"]["plays[0].workloads[0]"]["args"] == {"a": 1}
    assert plays["exadata"]["h2"]["plays[1].workloads[0]"]["args"] == {"a": 2}
