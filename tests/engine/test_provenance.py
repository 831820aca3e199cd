"""Provenance counts only changes that can alter a result: what installing and running planner leaves in a
clone (pip's build/, a venv, egg-info, run folders) is not "uncommitted changes"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.engine import provenance
from planner.engine.runrecord import git_provenance

pytestmark = [pytest.mark.slow]

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _repo(tmp_path: Path) -> Path:
    plan = tmp_path / "plans" / "p.yaml"
    plan.parent.mkdir()
    plan.write_text("plan: p\n")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "c"]):
        subprocess.run(argv, cwd=tmp_path, env=ENV, check=True, capture_output=True)
    return plan


def test_provenance_ignores_what_installing_planner_leaves(tmp_path: Path) -> None:
    plan = _repo(tmp_path)  # no .gitignore: an older clone's, or the user's own repository
    for leftover in ("build/lib/planner/x.py", ".venv/bin/python", "planner.egg-info/PKG-INFO",
                     "runs/20260101T000000Z-p/meta.json", "plans/reports/p.md", "tests/__pycache__/a.pyc"):
        (tmp_path / leftover).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / leftover).write_text("x")
    git = git_provenance(plan)
    assert git["dirty"] is False and git["changed"] == [], git


def test_a_change_that_matters_is_named(tmp_path: Path) -> None:
    plan = _repo(tmp_path)
    (tmp_path / "build").mkdir()
    plan.write_text("plan: p\nvars: {x: 1}\n")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "mine.md.j2").write_text("# x\n")
    git = git_provenance(plan)
    assert git["dirty"] is True and git["plan_dirty"] is True
    assert git["changed"] == ["plans/p.yaml", "templates/mine.md.j2"], git


def test_a_changed_path_is_named_as_it_is_and_two_git_processes_tell_it(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``git status --porcelain`` quotes a path with non-ASCII or odd characters (``"plans/pl\\303\\244n.yaml"``):
    meta.json named it in that escaped form. Read with -z, the path as it is; and the commit, the work tree's
    top and every change come from two git processes, not three."""
    plan = _repo(tmp_path)
    odd = plan.with_name("plän \"x\".yaml")
    odd.write_text("plan: p\n")
    runs = _counting_runs(monkeypatch)
    git = git_provenance(odd)
    assert git["changed"] == ['plans/plän "x".yaml'] and git["plan_dirty"] is True and git["dirty"] is True, git
    assert runs[0] == 2
    assert git_provenance(plan)["plan_dirty"] is False  # the plan itself is committed: another file changed


def _counting_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]

    class Counted(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *a: object, **k: object) -> None:
            calls[0] += 1
            super().__init__(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess, "Popen", Counted)
    return calls


def test_a_prefetched_provenance_is_the_same_and_taken_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An apply starts the git processes as soon as its command line is read (issue 47): the record's answer is
    the one read in place, and a later read (another record, a changed tree) reads again."""
    plan = _repo(tmp_path)
    (tmp_path / "notes.md").write_text("x")
    direct = git_provenance(plan)
    runs = _counting_runs(monkeypatch)
    provenance.prefetch(tmp_path / "plans" / ".." / "plans" / "p.yaml")  # the same file, however named
    assert git_provenance(plan) == direct and runs[0] == 2
    plan.write_text("plan: p\nvars: {x: 1}\n")
    again = git_provenance(plan)
    assert runs[0] == 4 and again["plan_dirty"] is True and direct["plan_dirty"] is False


def test_a_valid_apply_starts_its_provenance_before_setting_up_its_run(tmp_path: Path) -> None:
    """Before, the two git processes ran inside open_record, between the run's setup and the first host connect
    (~15-60 ms of wall at every apply's head): now in a thread from the moment every input is checked, while
    the run's modules are imported. A plan refused (exit 5), a check (-C) and --list-hosts open no record and
    start none."""
    plan = _repo(tmp_path)
    plan.write_text("plan: p\nplays:\n  - name: one\n    hosts: localhost\n    workloads:\n"
                    "      - name: say\n        command: {argv: [\"true\"]}\n")
    bad = plan.with_name("bad.yaml")
    bad.write_text("plan: p\n")
    probe = ("import contextlib, io, sys\nfrom planner.engine import provenance\nseen = []\n"
             "provenance.prefetch = lambda p: seen.append(('planner.engine.runner' in sys.modules, str(p)))\n"
             "from planner.cli.main import main\nruns = ['--runs-dir', 'runs', '--no-report']\n"
             "with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):\n"
             f"    codes = [main(['apply', *a, *runs]) for a in ([{str(plan)!r}], [{str(bad)!r}], "
             f"['-C', {str(plan)!r}], ['--list-hosts', {str(plan)!r}])]\n"
             "print([int(c) for c in codes], seen)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout.strip()
    assert out == f"[0, 5, 0, 0] [(False, {str(plan)!r})]", out
