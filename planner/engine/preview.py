"""-C -D for workloads: what each point would run, write and send, built by the step kind, read-only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.engine.execute import ExecSettings, HostState, make_context
from planner.engine.progress import point_label, point_names
from planner.plan.model import StepSpec, SweepPoint
from planner.steps import step_class


def preview_points(spec: StepSpec, hs: HostState, variables: Mapping[str, Any], settings: ExecSettings,
               points: list[tuple[SweepPoint, dict[str, Any]]], db_report: str = "") -> str:
    """-C -D: each point's exact commands, files and SQL (StepType.preview), read-only. The context is the
    one the run gives the point (its database report, its folder), so the preview renders what the run writes."""
    names = point_names([p for p, _ in points])
    out: list[str] = []
    for point, args in points:
        out.append(f"{point_label(point, names)}:")
        try:
            ctx = make_context(spec, hs, variables, settings, None, settings.plan_dir,
                               point)
            ctx.db_report = db_report
            text = step_class(spec.kind)(args).preview(ctx)
        except Exception as e:  # noqa: BLE001 - a preview that cannot be made says why; the check goes on
            text = f"(no preview: {e})"
        out += ["    " + line for line in text.splitlines()]
    return "\n".join(out) + "\n"
