"""The workload kinds' own findings, gathered: each kind names its functions in its spec (planner.kindspec), and
they are imported only when a run is judged."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from planner import kindspec
from planner.results.finding import Finding
from planner.results.measure import RunData
from planner.results.stats import Series


def _functions(attribute: str) -> list[Callable[..., list[Finding]]]:
    return [kindspec.load(where) for s in kindspec.specs() if (where := getattr(s, attribute))]


def series_findings(all_series: Sequence[Series]) -> list[Finding]:
    """What each kind says of the run's series (its spec's ``findings``)."""
    return [f for fn in _functions("findings") for f in fn(all_series)]


def run_findings(data: RunData) -> list[Finding]:
    """What each kind says reading the whole run (its spec's ``run_findings``: job files, host memory)."""
    return [f for fn in _functions("run_findings") for f in fn(data)]
