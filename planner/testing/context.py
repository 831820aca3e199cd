"""The StepContext a step kind's check, preview, save, apply and revert take, built around any Connection."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.host import Host
from planner.steps.base import StepContext
from planner.transport.connection import Connection


def scripted_host(name: str = "alpha", *, user: str | None = "oracle", **host_vars: Any) -> Host:
    """A host as an inventory line would give it: ``scripted_host(planner_root="/sandbox", oracle_sid="orcl")``."""
    return Host(name=name, address="192.0.2.10", user=user, vars=dict(host_vars))  # TEST-NET-1: never reached


def step_context(conn: Connection, folder: Path, *, check_mode: bool = False, diff_mode: bool = True,
                 variables: Mapping[str, Any] | None = None, step_path: str = "plays[0].prep[0]",
                 **fields: Any) -> StepContext:
    """A context on ``conn``'s host, its run folder and artifacts under ``folder`` (a test's tmp_path).

    ``variables``: the step's variables beyond the host's own (a plan's ``vars``, ``-e``). Any other
    StepContext field (``become``, ``point``, ``destructive``, ``facts``...) is passed through as given.
    """
    artifacts = folder / "artifacts" / conn.host.name
    artifacts.mkdir(parents=True, exist_ok=True)
    return StepContext(host=conn.host, conn=conn, vars={**conn.host.vars, **(variables or {})},
                       step_path=step_path, plan_dir=folder, artifacts=artifacts, run_dir=folder,
                       log=lambda _host, _step, _result: None, check_mode=check_mode, diff_mode=diff_mode, **fields)
