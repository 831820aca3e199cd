"""Helpers for the host prep tests: a StepContext on a sandbox host through the local transport."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner.host import Host
from planner.rehearsal.standins import standin_vars
from planner.steps.base import StepContext
from planner.transport.connection import CommandResult, LocalConnection


def context(root: Path, *, check: bool = False, destructive: bool = False, log: list[CommandResult] | None = None,
            **extra: Any) -> StepContext:
    host = Host(name="alpha", address="127.0.0.1", connection="local", vars={**standin_vars(root), **extra})
    sink = log if log is not None else []
    return StepContext(host=host, conn=LocalConnection(host), vars=dict(host.vars), step_path="plays[0].prep[0]",
                       plan_dir=root, artifacts=root, run_dir=root, log=lambda _h, _s, r: sink.append(r),
                       check_mode=check, diff_mode=True, destructive=destructive)


def newest_run(runs: Path) -> Path:
    """The run folder started last. Not the last by name: two runs in one second sort by their random part."""
    from planner.results.runfolder import read_meta

    return max((p for p in runs.iterdir() if p.is_dir()), key=lambda p: read_meta(p).started or "")
