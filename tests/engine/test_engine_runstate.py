"""What a run keeps while it runs (planner.engine.runstate): results.json is appended point by point, written
whole only to create it (or after dropping results it holds), and a resumed run appends to the file of the run
it resumes; each play's variables are resolved once per host. No process starts."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.engine import runstate
from planner.engine.execute import HostState
from planner.engine.runrecord import RunRecord
from planner.engine.runstate import PlayVars, ResultLog
from planner.host import Host
from planner.plan.loader import load_plan
from planner.results import runfolder
from planner.status import Status, StepResult


def _result(step: str, host: str = "h1", point: int | None = None) -> StepResult:
    return StepResult(step, step, host, Status.OK, "", point=point)


def _steps(run: Path) -> list[str]:
    return [e["step"] for e in json.loads((run / runfolder.RESULTS).read_text())]


def test_results_are_appended_and_written_whole_only_to_make_the_file(tmp_path: Path) -> None:
    log = ResultLog()
    log.record = RunRecord(tmp_path / "runs", "study")
    log.save()
    assert not (log.record.path / runfolder.RESULTS).exists()  # nothing yet: the first result makes the file
    for point in range(3):
        log.append(_result("w", point=point))
        log.save()
    assert log.whole_writes == 1 and _steps(log.record.path) == ["w", "w", "w"]
    # a late synchronised start: its results leave before they were saved, nothing is rewritten
    log.append(_result("w", point=3))
    log.drop(lambda r: r.point == 3)
    log.append(_result("w", point=3))
    log.save()
    assert log.whole_writes == 1 and [r.point for r in log.results] == [0, 1, 2, 3]
    # dropping what the file already holds is the one case for a whole write
    log.drop(lambda r: r.point == 0)
    log.save()
    assert log.whole_writes == 2 and len(_steps(log.record.path)) == 3


def test_a_resumed_run_appends_to_the_file_of_the_run_it_resumes(tmp_path: Path) -> None:
    record = RunRecord(tmp_path / "runs", "study")
    first = ResultLog()
    first.record = record
    first.append(_result("prep"))
    first.save()
    previous = runfolder.read_result_entries(record.path)
    resumed = ResultLog(previous, resumed=True)
    resumed.record = record
    resumed.append(_result("w", point=0))
    resumed.save()
    resumed.save(final=True)
    assert resumed.whole_writes == 0 and _steps(record.path) == ["prep", "w"]


def test_a_run_with_no_result_still_leaves_its_results_file(tmp_path: Path) -> None:
    log = ResultLog()
    log.record = RunRecord(tmp_path / "runs", "study")
    log.save(final=True)
    assert json.loads((log.record.path / runfolder.RESULTS).read_text()) == []


def test_each_plays_variables_are_resolved_once_per_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(textwrap.dedent("""\
        plan: p
        vars: {size: "{{ 2 * 4 }}k"}
        plays:
          - name: a
            hosts: all
            workloads:
              - command: {cmd: "echo {{ size }}"}
          - name: b
            hosts: all
            workloads:
              - command: {cmd: "echo {{ size }}"}
        """))
    plan = load_plan(plan_file)
    calls: list[tuple[str, str]] = []
    resolve = runstate.variables_for

    def counted(plan: Any, play: Any, host: Host, extra: Any) -> dict[str, Any]:
        calls.append((play.name, host.name))
        return resolve(plan, play, host, extra)

    monkeypatch.setattr(runstate, "variables_for", counted)
    pv = PlayVars(plan, {})
    h1, h2 = HostState(Host("h1", "localhost"), None), HostState(Host("h2", "localhost"), None)
    for _ in range(3):
        for play in plan.plays:
            for hs in (h1, h2):
                assert pv.of(play, hs)["size"] == "8k"
    assert sorted(calls) == [("a", "h1"), ("a", "h2"), ("b", "h1"), ("b", "h2")]
    h1.facts = {"cpus": 4}  # the facts arrive with the play's first exec: joined at each ask
    got = pv.of(plan.plays[0], h1)
    assert got["planner_facts"] == {"cpus": 4} and len(calls) == 4
    got["size"] = "changed"  # each ask is the caller's own dict
    assert pv.of(plan.plays[0], h1)["size"] == "8k"
