"""Around every workload point: OS statistics for exactly the point's window, and AWR/Statspack snapshots for
workloads that do not write their own database report. (The host lock lives in planner.engine.hostlock.)
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.errors import PlannerError
from planner.plan.model import Play
from planner.status import Artifact
from planner.steps.base import StepContext
from planner.steps.wl_common import fresh_dir
from planner.transport import ostats

OS_TOOLS = ("iostat", "mpstat", "vmstat")
DB_REPORTS = ("awr", "statspack")
WINDOW_KINDS = frozenset(OS_TOOLS + DB_REPORTS)  # collect items that wrap workloads rather than run as steps


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """What to collect around each workload point of a play (from its `collect:` section)."""

    os_tools: tuple[str, ...] = ()
    interval_s: int = 5
    db_report: str | None = None  # "awr" | "statspack"


def window_spec(play: Play) -> WindowSpec:
    """What the play's `collect:` asks to wrap around each workload point."""
    tools = tuple(s.kind for s in play.collect if s.kind in OS_TOOLS)
    intervals = [int(s.args.get("interval", 5)) for s in play.collect
                 if s.kind in OS_TOOLS and isinstance(s.args, Mapping)]
    db = next((s.kind for s in play.collect if s.kind in DB_REPORTS), None)
    return WindowSpec(tools, min(intervals, default=5), db)


def run_in_window(ctx: StepContext, spec: WindowSpec, workdir: str, writes_db_report: bool,
                  body: Callable[[], Any]) -> tuple[Any, list[Artifact], list[str]]:
    """Run ``body`` with OS sampling and DB snapshots around it; returns (body result, artifacts, warnings).

    ``workdir`` is the engine's point folder: emptied first (one round trip), as every attempt of a point
    (a first run, a ``--resume``, a retry after a connection drop) must never find an earlier attempt's files.
    The workload steps write their output there (planner.steps.wl_common.point_dir) and never empty it again.
    """
    fresh_dir(ctx, workdir)
    artifacts: list[Artifact] = []
    warnings: list[str] = []
    sampler = None
    token = None
    dbmod: Any = None
    if spec.db_report and not writes_db_report:
        try:
            from planner.steps import dbreport as dbmod  # arrives with the Oracle workloads
        except ImportError:
            warnings.append(f"collect {spec.db_report}: not available yet")
        if dbmod is not None:
            token = dbmod.begin(ctx, spec.db_report)
    if spec.os_tools:
        osdir = posixpath.join(workdir, "ostats")
        sampler = ostats.start(ctx.conn, osdir, spec.interval_s, spec.os_tools)
        warnings += [f"{t} not installed on {ctx.host.name}: no {t} data" for t in sampler.skipped]
    failure: BaseException | None = None
    result: Any = None
    try:
        result = body()
    except BaseException as e:  # keep what the window collected, then let the step's failure through
        failure = e
    if sampler is not None:
        try:
            for f in sampler.stop():
                name = posixpath.basename(f)
                kind = name.rsplit(".", 1)[0]
                try:
                    artifacts.append(ctx.fetch(f, name, kind if kind in OS_TOOLS else ""))
                except OSError as e:
                    warnings.append(f"could not fetch {f}: {e}")
        except PlannerError as e:
            if failure is None:
                raise
            # the point already failed (e.g. the host went away): its own error is the one to report
            warnings.append(f"OS statistics not collected: {e}")
    if dbmod is not None and token is not None and spec.db_report and failure is None:
        artifacts += dbmod.end(ctx, token, spec.db_report)
    if failure is not None:
        failure.window_artifacts = tuple(artifacts)  # type: ignore[attr-defined]  # read by the runner
        raise failure
    return result, artifacts, warnings
