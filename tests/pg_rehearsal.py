"""Rehearsing a shipped PostgreSQL study for real, as its tests do (pgbench, sysbench, pg_conf): the plan and the
lab inventory copied into the test's folder, the rehearsal run there, and the processes left behind found by what
their command lines name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def rehearse_shipped(plan: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    """``planner apply --rehearse plans/<plan>.yaml`` from a copy in ``tmp_path``: (exit code, what it printed)."""
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    (tmp_path / "plans").mkdir()
    shutil.copy(ROOT / "plans" / f"{plan}.yaml", tmp_path / "plans")
    monkeypatch.chdir(tmp_path)
    code = main(["apply", "--rehearse", f"plans/{plan}.yaml", "--runs-dir", str(tmp_path / "runs"), *extra])
    return code, "".join(capsys.readouterr())


def processes_naming(*words: str) -> list[str]:
    """Command lines (/proc) holding every one of ``words``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if all(w in text for w in words):
            found.append(text)
    return found
