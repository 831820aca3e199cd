"""Hostile inputs, round 3, the store's half (issue 24): run ids from outside, pushes that would replace
another run, and what the store's readers print and write. Every store test runs on SQLite and on a real
PostgreSQL (``store_url``, tests/pg_cluster.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from test_report_helpers import seed_study
from test_store_backends import cli, migrated

from planner.results.measure import read_run
from planner.store import open_store, parse_store_url
from planner.store.record import capture

ESCAPES = ("../../x", "/tmp/planner-hostile-abs", "..", ".hidden", "-rf", "a/b", "a\nb", "")


def plant(url: str, run: Path, run_id: str) -> None:
    """What a colleague with a modified planner (or plain SQL) can put in the team store."""
    real = capture(read_run(run))
    stored = dataclasses.replace(real, run_id=run_id, measurements=tuple(
        dataclasses.replace(m, run_id=run_id) for m in real.measurements))
    with open_store(parse_store_url(url, Path("."))) as st:
        st.put_stored(stored)


def tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["pull", "report", "show", "export"])
def test_a_store_row_whose_run_id_escapes_writes_nothing(store_url: str, tmp_path: Path, verb: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "src")
    (tmp_path / "home" / "victim" / ".ssh").mkdir(parents=True)
    absolute = tmp_path / "home" / "victim" / ".ssh"
    for rid in ("../../x", str(absolute)):
        plant(store_url, run, rid)
    runs = tmp_path / "w" / "runs"
    runs.mkdir(parents=True)
    before = tree(tmp_path)
    for rid in ("../../x", str(absolute)):
        argv = {"pull": ["store", "pull", rid], "report": ["report", rid], "show": ["show", rid],
                "export": ["export", rid]}[verb]
        code, _, err = cli(capsys, *argv, "--store", store_url, "--runs-dir", str(runs))
        assert code == 5, err
        assert "is not a run id" in err and "Traceback" not in err
    assert tree(tmp_path) == before  # not a file written: not ../../x, not the victim's .ssh
    assert not (tmp_path / "x").exists() and not list(absolute.iterdir())


@pytest.mark.slow
def test_a_received_folder_whose_meta_names_an_escaping_id_is_refused(store_url: str, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "recv")
    meta = json.loads((run / "meta.json").read_text())
    (run / "meta.json").write_text(json.dumps({**meta, "run_id": "../../x"}))
    code, _, err = cli(capsys, "store", "push", str(run), "--store", store_url)
    assert code == 5 and "is not a run id" in err and "meta.json run_id" in err
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert st.runs() == []  # refused before the upload: no store reader can meet it
    code, _, err = cli(capsys, "show", str(run))
    assert code == 5 and "is not a run id" in err


@pytest.mark.parametrize("bad", ESCAPES)
def test_run_ids_have_one_strict_shape(bad: str) -> None:
    from planner.errors import InputError
    from planner.runid import check_run_id, is_run_id, new_run_id

    assert not is_run_id(bad)
    with pytest.raises(InputError):
        check_run_id(bad, "here")
    assert is_run_id(new_run_id("My plan/../x", "ctl.example.com"))


@pytest.mark.slow
def test_a_folder_under_runs_dir_that_is_a_symlink_out_is_not_pulled_through(
        store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "src")
    assert cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    runs, outside = tmp_path / "runs", tmp_path / "outside"
    runs.mkdir()
    outside.mkdir()
    (runs / run.name).symlink_to(outside)
    code, _, err = cli(capsys, "store", "pull", run.name, "--store", store_url, "--runs-dir", str(runs))
    assert code == 5 and "leads outside" in err
    assert not list(outside.iterdir())


def test_two_controllers_starting_the_same_plan_in_the_same_second_get_two_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    from planner.engine import runrecord
    from planner.engine.runrecord import RunRecord
    from planner.runid import is_run_id, new_run_id

    now = dt.datetime(2026, 12, 1, 20, 0, 0, tzinfo=dt.UTC)
    a, b = new_run_id("slob", "ctl-a", now), new_run_id("slob", "ctl-b", now)
    assert a != b and a.startswith("20261201T200000Z-slob-ctl-a-") and is_run_id(a) and is_run_id(b)
    assert new_run_id("slob", "ctl-a", now) != a  # the random part: one controller, two runs, one second
    assert min(new_run_id("slob", "zz", now + dt.timedelta(seconds=1)), a) == a  # sorts by start
    monkeypatch.setattr(runrecord, "controller_name", lambda: "ctl-one")
    first = RunRecord(tmp_path / "one", "slob")
    monkeypatch.setattr(runrecord, "controller_name", lambda: "ctl-two")
    second = RunRecord(tmp_path / "two", "slob")
    assert first.id != second.id and "-slob-ctl-one-" in first.id and "-slob-ctl-two-" in second.id
    first.close()
    second.close()


def other_controllers_copy(run: Path, dest: Path) -> Path:
    """The same run id, made by another controller (another folder, other numbers)."""
    import shutil

    copy = dest / run.name
    shutil.copytree(run, copy)
    meta = json.loads((copy / "meta.json").read_text())
    (copy / "meta.json").write_text(json.dumps({**meta, "controller": "ctl-two"}))
    (copy / "plan.yaml").write_text((copy / "plan.yaml").read_text() + "\n# the other controller's run\n")
    return copy


@pytest.mark.slow
def test_a_push_of_an_existing_id_with_other_content_is_refused_unless_replace(
        store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "one")
    assert cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    with open_store(parse_store_url(store_url, Path("."))) as st:
        first = st.run(run.name)
    assert first is not None
    copy = other_controllers_copy(run, tmp_path / "two")
    code, out, err = cli(capsys, "store", "push", str(copy), "--store", store_url)
    assert code == 5 and "already in the results store with other content" in err and "--replace" in err
    assert cli(capsys, "index", "--runs-dir", str(tmp_path / "two"), "--store", store_url)[0] == 5
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert st.run(run.name) == first  # the first controller's run is still the stored one
    code, out, err = cli(capsys, "store", "push", str(copy), "--store", store_url, "--replace")
    assert code == 0 and "pushed" in out, err
    with open_store(parse_store_url(store_url, Path("."))) as st:
        now = st.run(run.name)
    assert now is not None and now.content_hash != first.content_hash and now.path == str(copy.resolve())


@pytest.mark.slow
def test_the_same_folder_pushed_again_after_it_changed_updates_its_run(store_url: str, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "one")
    assert cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    (run / "plan.yaml").write_text((run / "plan.yaml").read_text() + "\n# resumed and finished\n")
    code, out, err = cli(capsys, "store", "push", str(run), "--store", store_url)
    assert code == 0 and "pushed" in out, err  # one run, its own folder: a resume's push is not refused


@pytest.mark.slow
def test_a_nul_in_a_text_field_is_pushed_on_both_backends(store_url: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "one")
    meta = json.loads((run / "meta.json").read_text())
    (run / "meta.json").write_text(json.dumps({**meta, "plan": "slob\x00x", "status": "complete\x00"}))
    code, out, err = cli(capsys, "store", "push", str(run), "--store", store_url)
    assert code == 0 and "pushed" in out, err  # was exit 4 "unreachable" on PostgreSQL
    with open_store(parse_store_url(store_url, Path("."))) as st:
        row = st.run(run.name)
    assert row is not None and row.plan == "slob\ufffdx"
