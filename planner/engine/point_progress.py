"""How much of a run is left, for the live line: a step's executions still to run and the line's text."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from planner.engine import window as win
from planner.engine.progress import Progress, duration
from planner.engine.resume import Previous
from planner.plan.model import StepSpec, SweepPoint


def plan_progress(progress: Progress, previous: Previous | None, spec: StepSpec,
              plans: Mapping[str, list[tuple[SweepPoint, dict[str, Any]]]], npoints: int) -> None:
    """The step's executions still to run (after a --resume: without those done before it)."""
    left = sum(1 for i in range(npoints) if any(
        i < len(pts) and not (previous is not None and previous.is_done(host, spec.path, pts[i][0].index))
        for host, pts in plans.items()))
    first = next((pts[0][1] for pts in plans.values() if pts), {})
    progress.plan(spec.path, left, win.expected_seconds(spec.kind, first))

def live_text(progress: Progress, spec: StepSpec, name: str, started: float,
          expected_s: float | None) -> Callable[[], str]:
    def text() -> str:
        elapsed = time.monotonic() - started
        left = progress.left_s(spec.path, elapsed)
        return (f"running: {spec.title} {name}: {duration(elapsed)} of {duration(expected_s)} expected; "
                f"about {duration(left)} left in the run")
    return text
