"""A run's results, computed once: ``evaluate(run) -> RunResults``.

Every findings family (the series checks, the kinds' set-up checks, late starts, points not steady), the
reproduction verdicts, the plan's rated figures and working sets: the report, the store, ``planner show``
read this one value, so a run's findings are one list wherever they are shown or kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planner.extras import LoadGenerator
from planner.results.finding import Finding
from planner.results.findings import all_findings
from planner.results.findings_run import late_starts, not_steady, unread_series
from planner.results.kind_findings import run_findings
from planner.results.measure import RunData
from planner.results.point_series import PointSeries, read_points
from planner.results.stats import Series, series
from planner.results.verdicts import ClaimVerdict, verdicts


@dataclass(frozen=True, slots=True)
class RunResults:
    """What planner concludes from one run folder; built by ``evaluate`` only."""

    series: tuple[Series, ...]  # the measurements grouped over repeats
    rated: Mapping[str, Mapping[str, float]]  # play -> metric -> the rated figure the plan states
    working_sets: Mapping[str, float]  # play -> MB of data the workload touches (plan vars)
    points: tuple[PointSeries, ...]  # each point's series, for the steady-state verdicts
    findings: tuple[Finding, ...]
    verdicts: tuple[ClaimVerdict, ...]
    simulated: bool  # any part simulated: no claim is reproduced by stand-in numbers


def rated_figures(run: RunData) -> dict[str, dict[str, float]]:
    return {p.name: dict(p.rated) for p in run.plan.plays} if run.plan else {}


def working_sets(run: RunData) -> dict[str, float]:
    """play -> working set in MB, from the play's (else the plan's) ``working_set_mb`` / ``working_set_gb``."""
    out: dict[str, float] = {}
    plan_vars = dict(run.plan.vars) if run.plan else {}
    for p in run.plan.plays if run.plan else ():
        v = {**plan_vars, **dict(p.vars)}
        if isinstance(v.get("working_set_mb"), int | float):
            out[p.name] = float(v["working_set_mb"])
        elif isinstance(v.get("working_set_gb"), int | float):
            out[p.name] = float(v["working_set_gb"]) * 1024
    return out


# An apply renders the report and pushes the same RunData: the second asker gets the first one's results.
# One entry, held by identity (a RunData is frozen), so memory stays one run's worth.
_LAST: list[tuple[RunData, RunResults]] = []


def evaluate(run: RunData) -> RunResults:
    if _LAST and _LAST[0][0] is run:
        return _LAST[0][1]
    all_series = tuple(series(run.measurements))
    rated, sets, read = rated_figures(run), working_sets(run), read_points(run)
    points = read.points
    elsewhere = {(r.host, r.step): r.extra.host for r in run.results if isinstance(r.extra, LoadGenerator)}
    found = (*all_findings(all_series, rated, sets, elsewhere=elsewhere, rehearsal=run.meta.simulated),
             *run_findings(run),
             *late_starts(run), *not_steady(points), *unread_series(read.unread))
    claims = run.plan.reproduces if run.plan else ()
    results = RunResults(all_series, rated, sets, points, found,
                         tuple(verdicts(claims, all_series, run.simulated)), run.simulated)
    _LAST[:] = [(run, results)]
    return results
