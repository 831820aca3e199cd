"""Hostile inputs, round 3 (issue 24): an inventory host name that is a path, control bytes in records and
store rows on the terminal, and the modes of what planner keeps on the controller."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
import yaml
from test_fault_hostile import _apply, _run_dir

TRUE_PLAN = """
plan: names
plays:
  - name: one
    hosts: all
    prep:
      - command: {argv: ['true']}
"""


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
@pytest.mark.ssh
def test_an_inventory_host_named_like_a_path_keeps_its_facts_inside_the_run(lab, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    doc = yaml.safe_load(inv.read_text())
    hosts = doc["all"]["hosts"]
    hosts["../../x"] = hosts.pop(lab.hosts[0].name)
    inv.write_text(yaml.safe_dump(doc))
    before = files_under(tmp_path)
    assert _apply(tmp_path, TRUE_PLAN, inv) == 0, capsys.readouterr().err
    run = _run_dir(tmp_path)
    expected = {tmp_path / "plan.yaml", tmp_path / "runs" / "planner.sqlite"}
    outside = {p for p in files_under(tmp_path) - before - expected if not p.is_relative_to(run)}
    assert not outside, sorted(map(str, outside))
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "runs" / "x.json").exists()
    (facts,) = [p for p in (run / "facts").iterdir() if "inventory_name" in json.loads(p.read_text())]
    assert json.loads(facts.read_text())["inventory_name"] == "../../x" and facts.parent == run / "facts"
    from planner.results.measure import read_run

    assert "../../x" in read_run(run).facts  # read back under the inventory name
    assert stat.S_IMODE(facts.stat().st_mode) == 0o600


HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m[link=http://127.0.0.1/x]click[/link]\x00\r"


def _shown_safely(text: str) -> None:
    assert not any(c in text for c in "\x1b\x07\x00\r\x9b"), repr(text)
    assert r"\x1b]0;pwned\x07" in text and "[link=http://127.0.0.1/x]click[/link]" in text


def test_show_and_runs_print_control_bytes_from_records_escaped(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from test_report_helpers import seed_study
    from test_store_backends import cli

    run = seed_study(tmp_path / "runs")
    meta = json.loads((run / "meta.json").read_text())
    meta.update(plan=f"plan{HOSTILE}", started=f"2026{HOSTILE}", hosts={f"h{HOSTILE}": {}})
    (run / "meta.json").write_text(json.dumps(meta))
    code, out, err = cli(capsys, "show", str(run))
    assert code == 0, err
    _shown_safely(out)
    code, out, err = cli(capsys, "runs", "--runs-dir", str(tmp_path / "runs"))
    assert code == 0, err
    _shown_safely(out)


@pytest.mark.slow
def test_runs_and_errors_print_store_rows_escaped(store_url: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from test_hostile_store import plant
    from test_report_helpers import seed_study
    from test_store_backends import cli, migrated

    migrated(store_url)
    run = seed_study(tmp_path / "runs")
    plant(store_url, run, f"20260101T100000Z-{HOSTILE}")
    plant(store_url, run, f"20260101T100000Z-b{HOSTILE}")
    code, out, err = cli(capsys, "runs", "--store", store_url)
    assert code == 0, err
    _shown_safely(out)
    code, _, err = cli(capsys, "show", "20260101T100000Z", "--store", store_url, "--runs-dir", str(tmp_path / "x"))
    assert code == 5  # two runs match: their ids are listed in the hint
    _shown_safely(err)


def test_the_index_and_saved_artifacts_are_private(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os
    from types import SimpleNamespace

    from test_report_helpers import seed_study
    from test_store_backends import cli

    from planner.steps.wl_common import save_text

    runs = tmp_path / "runs"
    seed_study(runs)
    assert cli(capsys, "index", "--runs-dir", str(runs))[0] == 0
    assert stat.S_IMODE((runs / "planner.sqlite").stat().st_mode) == 0o600
    os.chmod(runs / "planner.sqlite", 0o644)  # made by an older planner
    assert cli(capsys, "runs", "--runs-dir", str(runs))[0] == 0
    assert stat.S_IMODE((runs / "planner.sqlite").stat().st_mode) == 0o600
    team = tmp_path / "team.sqlite"
    assert cli(capsys, "store", "migrate", "--store", f"sqlite:///{team}")[0] == 0
    assert stat.S_IMODE(team.stat().st_mode) == 0o600
    ctx = SimpleNamespace(artifacts=tmp_path / "run" / "artifacts" / "h" / "exec001", run_dir=tmp_path / "run",
                          simulated=False)
    art = save_text(ctx, "runit.log", "kit output\n")  # type: ignore[arg-type]
    assert stat.S_IMODE((tmp_path / "run" / art.path).stat().st_mode) == 0o600


def test_a_reading_verb_never_turns_a_file_into_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_store_backends import cli

    empty = tmp_path / "EMPTYFILE"
    empty.write_bytes(b"")
    for argv in (["runs"], ["show", "x"], ["export", "x"], ["store", "pull", "x"]):
        code, _, err = cli(capsys, *argv, "--store", f"sqlite:///{empty}", "--runs-dir", str(tmp_path / "r"))
        assert code == 5 and "is not a planner results store" in err and "store migrate" in err, err
        assert empty.read_bytes() == b""
    code, _, err = cli(capsys, "runs", "--store", f"sqlite:///{tmp_path}/none.sqlite")
    assert code == 5 and "no results store at" in err and not (tmp_path / "none.sqlite").exists()
