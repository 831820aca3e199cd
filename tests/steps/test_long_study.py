"""A long study (issue 47): 3,000 runs of one workload. Nothing may cap a study at a width: point folders,
run ids, series, store rows; and the run record grows by appending, not by rewriting all of it per point.
Not timing tests: they check names and count the work (benchmarks/scale has the times)."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from planner import files, redaction
from planner.engine.runrecord import RunRecord
from planner.results import runfolder
from planner.steps import wl_common
from planner.steps.base import StepContext
from planner.steps.wl_common import fresh_dir

PLAN = """\
plan: long
plays:
  - name: long
    hosts: lab
    prep:
      - copy: {content: "prepped\\n", dest: /prep.txt}
    workloads:
      - name: trivial
        command: {argv: ["true"]}
        repeat: 12
"""


class _Done:
    exit_code, ok, stdout, stderr = 0, True, "", ""


class _Shell:
    """Records the commands a step would run on its host (fresh_dir runs one), as the login user."""

    become = False

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def sh(self, script: str, *args: str, **_options: Any) -> _Done:
        self.calls.append((script, *args))
        return _Done()


@pytest.mark.parametrize("index", [0, 999, 1000, 2999, 123456])
def test_a_point_folder_past_999_is_emptied(index: int) -> None:
    """Run 1,001 crashed: "internal error ValueError: not a point folder: …/point1000" (the check took three
    digits only, the name is at least three)."""
    shell = _Shell()
    path = f"/tmp/planner/20261207T000000Z-long-h-abcdef/plays-0-workloads-0/point{index:03d}"
    fresh_dir(cast(StepContext, shell), path)
    assert shell.calls and shell.calls[0][1] == path


@pytest.mark.parametrize("path", ["/tmp/planner/run/step", "/tmp/planner/run/step/point12", "/home/u/data",
                                  "/tmp/planner/run/step/point1000/..", "/tmp/planner/run/step/pointX000"])
def test_only_a_point_folder_is_emptied(path: str) -> None:
    with pytest.raises(ValueError, match="not a point folder"):
        fresh_dir(cast(StepContext, _Shell()), path)


def test_point_names_grow_past_three_digits() -> None:
    assert wl_common.point_name(7) == "point007" and wl_common.point_name(1000) == "point1000"


def _record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secret: str = "s3cr3t-pw") -> RunRecord:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return RunRecord(tmp_path / "runs", "long", secrets=(secret,))


def _entry(i: int) -> dict[str, Any]:
    return {"step": "plays[0].workloads[0]", "point": i, "msg": f"run {i} as s3cr3t-pw", "data": {"n": [i, "x"]}}


def test_appended_entries_read_as_the_whole_list_written_at_once(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The same bytes as one whole write of every entry (record.write's layout), secrets masked alike."""
    record = _record(tmp_path, monkeypatch)
    entries = [_entry(i) for i in range(5)]
    record.write(runfolder.RESULTS, entries[:1])
    for i in range(1, 5):
        assert record.append(runfolder.RESULTS, entries[i:i + 1])
    appended = (record.path / runfolder.RESULTS).read_bytes()
    record.write(runfolder.RESULTS, entries)
    assert appended == (record.path / runfolder.RESULTS).read_bytes()
    assert b"s3cr3t-pw" not in appended and json.loads(appended)[4]["msg"] == f"run 4 as {redaction.MASK}"


@pytest.mark.parametrize("before", [None, "[]\n", '{"a": 1}\n', "[\n  1\n]"])
def test_append_is_refused_when_the_file_is_not_a_list_it_can_grow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    before: str | None) -> None:
    record = _record(tmp_path, monkeypatch)
    target = record.path / runfolder.RESULTS
    if before is not None:
        target.write_text(before)
    assert not record.append(runfolder.RESULTS, [_entry(0)])
    assert (target.read_text() if before is not None else None) == before


@pytest.mark.slow
def test_an_append_on_a_full_disk_leaves_the_list_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        small_disk: Callable[[Path, str], Path]) -> None:
    """A real ENOSPC (a 64k tmpfs filled to its last block) halfway through an append: the old end is put back,
    the file reads as before, and the next append, once there is room, goes on from there."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    runs = small_disk(tmp_path / "runs", "64k")
    record = RunRecord(runs, "full")
    record.write(runfolder.RESULTS, [_entry(0)])
    before = (record.path / runfolder.RESULTS).read_bytes()
    subprocess.run(["dd", "if=/dev/zero", f"of={runs / 'filler'}", "bs=4k"], capture_output=True, check=False)
    with pytest.raises(files.RecordWriteError, match="No space left"):
        record.append(runfolder.RESULTS, [{**_entry(1), "msg": "x" * 200_000}])
    assert (record.path / runfolder.RESULTS).read_bytes() == before
    (runs / "filler").unlink()
    assert record.append(runfolder.RESULTS, [_entry(2)])
    assert [e["point"] for e in json.loads((record.path / runfolder.RESULTS).read_text())] == [0, 2]
    record.close()


@pytest.mark.slow
def test_results_are_written_whole_once_then_appended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """results.json was rewritten whole at every point: 3,000 points wrote 4.5 million entries (issue 47)."""
    from planner.cli.main import main

    (tmp_path / "host").mkdir()
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path}/host\n")
    writes: Counter[str] = Counter()
    real = files.atomic_write

    def counted(path: Path, data: bytes, mode: int | None = None, **kw: Any) -> None:
        writes[Path(path).name] += 1
        real(path, data, mode, **kw)

    monkeypatch.setattr(files, "atomic_write", counted)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    assert code == 0, capsys.readouterr().out[-2000:]
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    points = [r.point for r in runfolder.read_results(run) if r.step == "plays[0].workloads[0]"]
    assert points == list(range(12))
    assert writes[runfolder.RESULTS] == 1, writes  # the first save; every later one appends


def test_append_never_writes_through_a_symlink(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _record(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('[\n  1\n]\n')
    (record.path / runfolder.RESULTS).symlink_to(elsewhere)
    assert not record.append(runfolder.RESULTS, [_entry(0)])
    assert elsewhere.read_text() == '[\n  1\n]\n'
