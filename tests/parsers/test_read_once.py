"""Read once, hand down: one apply parses each artifact once, draws each chart once (the plan's report copy
reuses them), reads its run folder once for the report and the store push, and writes results.json once per
workload point (prep results go with the next point: restore.json is what a killed run is restored from),
and resolves each play's variables once per host.
The run folder's meta.json is read, typed and checked in one place (planner.results.runfolder)."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from planner import memo
from planner.engine.runrecord import RunRecord
from planner.errors import InputError
from planner.parsers import parse_file
from planner.results import runfolder
from planner.results.runfolder import PlayHosts, RunMeta

ROOT = Path(__file__).resolve().parents[2]
FIO = ROOT / "tests" / "data" / "fio"


def _a_fio_json() -> Path:
    return next(p for p in sorted(FIO.rglob("*.json")) if p.stat().st_size < 1 << 20)


def test_run_meta_is_typed_and_hostile_input_is_refused(tmp_path: Path) -> None:
    meta = RunMeta.from_mapping({"run_id": "r1", "status": "running", "exit_code": None, "simulated": True,
                                 "plays": [{"name": "a", "hosts": ["h1"]}, "junk"], "hosts": {"h1": {"port": 22}},
                                 "argv": ["apply", 5], "pid": True, "rehearsal_notes": ["n", 3]})
    assert meta.plays == (PlayHosts("a", ("h1",)),) and meta.play_names == ["a"]
    assert meta.argv == ("apply", "5") and meta.pid is None and meta.rehearsal_notes == ("n",)
    assert meta.hosts["h1"]["port"] == 22 and meta.simulated and meta.exit_code is None
    assert RunMeta.from_mapping({"plays": {"not": "a list"}, "hosts": []}).plays == ()
    with pytest.raises(InputError, match="is not a run id"):
        RunMeta.from_mapping({"run_id": "../../etc"})
    (tmp_path / runfolder.META).write_text("[1, 2]")
    with pytest.raises(InputError, match="not an object"):
        runfolder.read_meta(tmp_path)
    (tmp_path / runfolder.META).write_text("{not json")
    with pytest.raises(InputError, match="not readable as JSON"):
        runfolder.read_meta(tmp_path)


def test_a_meta_json_with_fields_of_the_wrong_type_is_shown_and_reported_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli.main import main

    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / runfolder.META).write_text('{"run_id": "r1", "status": "complete", "plays": ["x"], "hosts": ["h"]}')
    (run / runfolder.RESULTS).write_text("[]")
    assert main(["show", str(run)]) == 0
    assert "run r1: plan None — complete" in capsys.readouterr().out
    assert main(["report", str(run), "-o", str(tmp_path / "r.md")]) == 0
    assert (tmp_path / "r.md").read_text().startswith("#")


def test_results_and_restore_entries_round_trip_through_the_module(tmp_path: Path) -> None:
    from planner.status import Status, StepResult

    r = StepResult("plays[0].prep[0]", "init_ora", "h1", Status.CHANGED, "set")
    (tmp_path / runfolder.RESULTS).write_text(json.dumps(runfolder.results_json([r], [{"step": "old"}])))
    assert runfolder.read_result_entries(tmp_path)[0] == {"step": "old"}
    (tmp_path / runfolder.RESULTS).write_text(json.dumps(runfolder.results_json([r])))
    assert runfolder.read_results(tmp_path) == (r,)
    assert runfolder.read_restore_entries(tmp_path) == ()
    runfolder.write_restore_entries(tmp_path, [{"host": "h1", "reverted": False}, ])
    assert runfolder.read_restore_entries(tmp_path) == ({"host": "h1", "reverted": False},)
    (tmp_path / runfolder.RESULTS).write_text('[{"no": "fields"}]')
    with pytest.raises(InputError, match="not a results file"):
        runfolder.read_results(tmp_path)


def test_an_unchanged_file_is_parsed_once_in_a_scope_and_a_rewritten_one_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.parsers as parsers

    calls: Counter[str] = Counter()
    real = parsers.parse_text

    def counted(text: str, source: str = "", kind: str | None = None) -> Any:
        calls[Path(source).name] += 1
        return real(text, source, kind)

    monkeypatch.setattr(parsers, "parse_text", counted)
    f = tmp_path / "fio.json"
    shutil.copy(_a_fio_json(), f)
    parse_file(f, "fio_json")
    parse_file(f, "fio_json")
    assert calls["fio.json"] == 2  # no scope: every call reads the file (planner parse, planner report)
    with memo.remembering():
        first = parse_file(f, "fio_json")
        assert parse_file(tmp_path / "." / "fio.json", "fio_json") is first  # one file, however it is spelt
        assert calls["fio.json"] == 3
        f.write_bytes(f.read_bytes() + b"\n")  # rewritten (e.g. a secret replaced after the fetch)
        os.utime(f, ns=(1, 1))
        assert parse_file(f, "fio_json") is not first
        assert calls["fio.json"] == 4
    parse_file(f, "fio_json")
    assert calls["fio.json"] == 5  # the scope's end forgets what it kept


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, Counter[str]]:
    import planner.engine.runstate as runstate
    import planner.files as files
    import planner.parsers as parsers
    import planner.report.study as study
    import planner.results.measure as measure

    counts: dict[str, Counter[str]] = {k: Counter() for k in ("parses", "charts", "writes", "folder_reads",
                                                              "variables", "appends", "marks")}
    parse_text, sweep_chart, atomic_write = parsers.parse_text, study.sweep_chart, files.atomic_write
    read_run, variables_for = measure.read_run, runstate.variables_for

    def variables(plan: Any, play: Any, host: Any, extra: Any) -> Any:
        counts["variables"][f"{play.name} on {host.name}"] += 1
        return variables_for(plan, play, host, extra)

    def parse(text: str, source: str = "", kind: str | None = None) -> Any:
        counts["parses"][source.split("/artifacts/", 1)[-1]] += 1
        return parse_text(text, source, kind)

    def chart(path: Path, *a: Any, **k: Any) -> Any:
        counts["charts"][Path(path).name] += 1
        return sweep_chart(path, *a, **k)

    def write(path: Path, data: bytes, mode: int | None = None, **kw: Any) -> None:
        counts["writes"][Path(path).name] += 1
        atomic_write(path, data, mode, **kw)

    def folder(run_dir: Path, plan: Any = None) -> Any:
        counts["folder_reads"][Path(run_dir).name] += 1
        return read_run(run_dir, plan)

    monkeypatch.setattr(parsers, "parse_text", parse)
    monkeypatch.setattr(study, "sweep_chart", chart)
    monkeypatch.setattr(files, "atomic_write", write)
    monkeypatch.setattr(measure, "read_run", folder)
    monkeypatch.setattr(runstate, "variables_for", variables)
    appended = RunRecord.append_list_items

    def append(self: RunRecord, relpath: str, items: Any) -> bool:
        counts["appends"][Path(relpath).name] += 1
        return appended(self, relpath, items)

    monkeypatch.setattr(RunRecord, "append_list_items", append)
    append_items, write_at = files.append_json_items, files.write_at

    def file_append(path: Path, items: bytes, **kw: Any) -> bool:
        counts["appends"][Path(path).name] += 1
        return append_items(path, items, **kw)

    def in_place(path: Path, *a: Any, **kw: Any) -> bool:
        counts["marks"][Path(path).name] += 1
        return write_at(path, *a, **kw)

    monkeypatch.setattr(files, "append_json_items", file_append)
    monkeypatch.setattr(files, "write_at", in_place)
    return counts


@pytest.mark.slow
def test_one_headline_rehearsal_parses_each_artifact_once_and_draws_each_chart_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli.main import main

    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("reports"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")
    counts = _counting(monkeypatch)
    code = main(["apply", "--rehearse", str(tmp_path / "plans" / "violin_vs_exadata.yaml"),
                 "--runs-dir", str(tmp_path / "runs"), "-e", "run_time=30"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    parses, charts, writes = counts["parses"], counts["charts"], counts["writes"]
    assert parses and max(parses.values()) == 1, parses.most_common(5)
    # 3 headline charts: the read-only study's write IOPS say nothing and get none (report.study.silent_rows)
    assert len(charts) == 3 and set(charts.values()) == {1}, charts
    assert (tmp_path / "plans" / "reports" / "violin_vs_exadata.md").is_file() and (run / "report.md").is_file()
    assert sum(counts["folder_reads"].values()) == 1  # report, its plan copy and the store push share it
    assert writes[runfolder.RESULTS] == 1, writes  # written whole once, then appended (issue 47)
    # the engine resolves each play's variables once per host (22 times for these 3 plays before issue 42)
    assert len(counts["variables"]) == 3 and set(counts["variables"].values()) == {1}, counts["variables"]
    # restore.json: each prep save is written before its change is applied (appended after the first, which
    # writes the file), and each revert is marked in place (its entry's flag, not the file rewritten)
    saved = len(runfolder.read_restore_entries(run))
    appends, marks = counts["appends"][runfolder.RESTORE], counts["marks"][runfolder.RESTORE]
    assert writes[runfolder.RESTORE] == 1 and appends == saved - 1, (writes, counts["appends"])
    assert marks == saved, (saved, counts["marks"])
