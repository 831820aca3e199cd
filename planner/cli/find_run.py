"""A run named on the command line (a folder path, a run id or a part of one under --runs-dir) found as its
folder: shared by the commands that read a run (show, report, restore, store push, apply --resume)."""

from __future__ import annotations

from pathlib import Path

from planner.errors import InputError, Problem
from planner.results.runfolder import is_run_folder
from planner.runid import ID_CHARS, SHAPE, run_folder


def resolve_run(run: str, runs_dir: Path) -> Path:
    """RUN as a folder path, else a run id (or one part of one) under --runs-dir. An id is checked for the
    run-id shape and to stay inside --runs-dir: ``show ''`` or ``show ../x`` match nothing."""
    direct = Path(run)
    if run and is_run_folder(direct):
        return direct
    if not ID_CHARS.fullmatch(run):
        raise InputError([Problem(None, "", f"no run {run!r}: not a run folder, nor a run id",
                                  "give a run folder path, or a run id (letters, digits, '_', '.', '-') under "
                                  f"--runs-dir; see `planner runs --runs-dir {runs_dir}`")])
    runs = _runs_dir_of(runs_dir)
    if runs is not None and SHAPE.fullmatch(run):
        under = run_folder(runs, run, f"run {run!r}")
        if is_run_folder(under):
            return under
    # a part of a run id, matched as text: `planner show '*'` is not a glob (pathlib refuses '**')
    matches = sorted(p for p in runs.iterdir() if run in p.name and is_run_folder(p)) if runs else []
    if len(matches) == 1:
        return matches[0]
    hint = (f"{len(matches)} runs match: {', '.join(p.name for p in matches[:5])}" if matches
            else f"see `planner runs --runs-dir {runs_dir}`")
    raise InputError([Problem(None, "", f"no run {run!r} (not a run folder, nor a run id under {runs_dir})", hint)])


def _runs_dir_of(runs_dir: Path) -> Path | None:
    """--runs-dir when it is a folder, None when there is nothing there; a file there is refused in words."""
    p = Path(runs_dir)
    if p.is_dir():
        return p
    if p.exists() or p.is_symlink():
        raise runs_dir_not_a_folder(p)
    return None


def runs_dir_not_a_folder(p: Path) -> InputError:
    return InputError([Problem(None, "--runs-dir", f"{p} is not a folder",
                               "give the folder that holds the run folders (default ./runs)")])
