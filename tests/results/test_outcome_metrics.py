"""Outcome.metrics: one typed field from the step to the results, written as results.json's list form.

A step's own figures (a plugin's) are measured; the headline of a parsed output names its artifact as source
and is measured from that artifact only, never twice; results.json written before metrics were typed (a
mapping {key: value}) still reads.
"""

from __future__ import annotations

import json
from pathlib import Path

from planner.metrics import Direction, Metric, Source
from planner.results import runfolder
from planner.results.measure import read_run
from planner.status import Artifact, Status, StepResult

FIO = Path(__file__).parents[1] / "data" / "fio"


def _run(tmp_path: Path, entries: list[dict[str, object]]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / runfolder.META).write_text(json.dumps({"run_id": "r1", "status": "complete"}))
    (run / runfolder.RESULTS).write_text(json.dumps(entries))
    return run


def _result(**kw: object) -> StepResult:
    return StepResult("plays[0].workloads[0]", "w", "h1", Status.CHANGED, point=0, play=0, section="workloads",
                      index=0, **kw)  # type: ignore[arg-type]


def test_metrics_round_trip_through_results_json() -> None:
    m = Metric("sleep.seconds", 1.5, "s", Direction.LOWER, Source("artifacts/x.txt", 3), (("run", "1"),), True)
    entry = runfolder.result_to_json(_result(metrics=(m,)))
    assert entry["data"]["metrics"] == [{"name": "sleep.seconds", "value": 1.5, "unit": "s", "direction": "lower",
                                         "labels": {"run": "1"}, "source": {"file": "artifacts/x.txt", "line": 3},
                                         "derived": True}]
    assert runfolder.result_from_json(json.loads(json.dumps(entry))).metrics == (m,)


def test_a_steps_own_metrics_are_measured_once(tmp_path: Path) -> None:
    own = Metric("sleep.seconds", 2.0, "s", Direction.LOWER)
    run = _run(tmp_path, [runfolder.result_to_json(_result(metrics=(own,)))])
    got = [(m.metric, m.value, m.unit) for m in read_run(run).measurements]
    assert got == [("sleep.seconds", 2.0, "s")]


def test_a_headline_from_an_artifact_is_not_counted_twice(tmp_path: Path) -> None:
    run = _run(tmp_path, [])
    src = FIO / "fio-3.33-randread.json"
    (run / "artifacts").mkdir()
    (run / "artifacts" / "fio.json").write_bytes(src.read_bytes())
    art = Artifact("artifacts/fio.json", "fio_json")
    head = Metric("fio.iops", 123.0, "IOPS", Direction.HIGHER, Source(art.path, 1), (("job", "x"),))
    only_artifact = read_run(_write(run, [_result(artifacts=(art,))])).measurements
    with_head = read_run(_write(run, [_result(artifacts=(art,), metrics=(head,))])).measurements
    assert only_artifact and len(with_head) == len(only_artifact)
    assert not any(m.value == 123.0 and m.metric == "fio.iops" for m in with_head)


def test_old_shapes_still_read(tmp_path: Path) -> None:
    art = {"path": "artifacts/fio.json", "kind": "fio_json"}
    old_dict = {"step": "plays[0].workloads[0]", "title": "fio", "host": "h1", "status": "changed", "point": 0,
                "artifacts": [art], "data": {"metrics": {"fio.iops{job=x,dir=read}": 10.0}}}
    old_list = {**old_dict, "artifacts": [], "data": {"metrics": [{"name": "x.ops", "value": "4", "unit": "ops"},
                                                                  {"name": "broken"}]}}
    a, b = (runfolder.result_from_json(d) for d in (old_dict, old_list))
    assert a.metrics == (Metric("fio.iops", 10.0, "", source=Source("artifacts/fio.json"),
                                labels=(("job", "x"), ("dir", "read"))),)
    assert b.metrics == (Metric("x.ops", 4.0, "ops"),) and b.extra is None
    run = _run(tmp_path, [old_list])
    assert [(m.metric, m.value) for m in read_run(run).measurements] == [("x.ops", 4.0)]


def _write(run: Path, results: list[StepResult]) -> Path:
    (run / runfolder.RESULTS).write_text(json.dumps(runfolder.results_json(results)))
    return run
