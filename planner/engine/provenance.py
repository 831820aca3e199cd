"""The run record's git provenance: the plan's commit and whether anything that can change a result is
uncommitted. Two git processes (every record pays them); an apply starts them once its inputs are checked
(``prefetch``), so they run while the run is set up, not between its setup and the first host connect."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# What installing and running planner leaves in a clone (pip's build/, a venv, egg-info, run folders, report
# copies, caches): never a change to what produced the result.
_SETUP_LEFTOVERS = frozenset({"build", "dist", ".venv", "venv", "runs", "reports", "__pycache__", ".pytest_cache",
                              ".mypy_cache", ".ruff_cache", ".hypothesis"})
_CHANGES_LISTED = 20
_TIMEOUT = 10.0


def _status_paths(porcelain_z: str) -> list[str]:
    """The paths of ``git status --porcelain -z`` (a rename's or copy's new path; its old one dropped)."""
    fields = porcelain_z.split("\0")
    paths, i = [], 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) > 3:
            paths.append(entry[3:])
            if entry[0] in "RC":  # -z: the old path follows as its own field
                i += 1
    return paths


def _changes(paths: Sequence[str]) -> list[str]:
    """The paths of ``git status --porcelain`` that can change a result: planner's own leftovers dropped."""
    kept = []
    for path in paths:
        parts = path.rstrip("/").split("/")
        if any(p in _SETUP_LEFTOVERS or p.endswith(".egg-info") for p in parts) or path.endswith(".pyc"):
            continue
        kept.append(path)
    return kept


def _git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=_TIMEOUT)


def _provenance(path: Path) -> dict[str, Any]:
    cwd = path.parent if path.is_file() else path
    try:
        head = _git(["rev-parse", "--show-toplevel", "HEAD"], cwd)
        if head.returncode != 0:
            return {"commit": None, "dirty": None, "note": "not in a git repository"}
        top, commit = (head.stdout.splitlines() + ["", ""])[:2]
        # every untracked file by name: a folder holding only leftovers (tests/__pycache__) is not a change
        tree = _status_paths(_git(["status", "--porcelain", "-z", "--untracked-files=all"], cwd).stdout)
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None, "note": "git not available"}
    changed = _changes(tree)
    return {"commit": commit.strip(), "plan_dirty": _plan_changed(path, Path(top), tree),
            "dirty": bool(changed), "changed": changed[:_CHANGES_LISTED]}


def _plan_changed(path: Path, top: Path, changed: Sequence[str]) -> bool:
    """Whether ``git status -- path`` would list anything: the plan (or, for a folder, a file in it)."""
    try:
        rel = path.resolve().relative_to(top.resolve()).as_posix()
    except (OSError, ValueError):
        return False
    return any(c == rel or c.startswith(f"{rel}/") or rel == "." for c in changed)


class _Pending:
    """One prefetch: the answer, or what went wrong, when its thread is done."""

    def __init__(self, path: Path) -> None:
        self.value: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(path,), daemon=True, name="git-provenance")
        self.thread.start()

    def _run(self, path: Path) -> None:
        try:
            self.value = _provenance(path)
        except BaseException as e:  # handed to the caller of git_provenance, in its thread
            self.error = e

    def result(self) -> dict[str, Any]:
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.value is not None
        return self.value


_pending: dict[Path, _Pending] = {}
_lock = threading.Lock()


def _key(path: Path) -> Path | None:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return None


def prefetch(path: Path) -> None:
    """Start reading ``path``'s provenance in a thread; the next ``git_provenance(path)`` takes the answer."""
    key = _key(path)
    if key is None:
        return
    with _lock:
        if key not in _pending:
            _pending[key] = _Pending(path)


def git_provenance(path: Path) -> dict[str, Any]:
    """The commit of the plan file's repository and whether the plan (or anything that can change the result)
    is uncommitted, naming the first few changed paths: a prefetch's answer for this path (taken once), else
    read now."""
    key = _key(path)
    with _lock:
        pending = _pending.pop(key, None) if key is not None else None
    return pending.result() if pending is not None else _provenance(path)
