"""SLOB's own findings: what a DBA says of a SLOB point's AWR window (the spec's ``findings``, gathered by
planner.results.kind_findings)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.results.finding import Finding, Severity, groups, index
from planner.results.stats import Series, fmt


@dataclass(frozen=True, slots=True)
class WindowThresholds:
    """Active sessions in the window against the point's SLOB sessions (planner's own ratios)."""

    outside_sessions_ratio: float = 1.25
    window_short_ratio: float = 0.5


_SESSION_PARAMS = ("sessions", "readers", "schemas", "users")


def _sessions(params: tuple[tuple[str, object], ...]) -> float | None:
    d = dict(params)
    for name in _SESSION_PARAMS:
        try:
            return float(str(d[name]))
        except (KeyError, ValueError):
            continue
    return None


def slob_window(all_series: Sequence[Series], t: WindowThresholds = WindowThresholds()) -> list[Finding]:
    """A SLOB session is on CPU or waiting all the time (no think time by default: SLOB README, slob.conf
    THINK_TM_FREQUENCY=0), so the AWR window's active sessions should be about the point's sessions. Far more
    is DB time from sessions outside the benchmark; far fewer is a window longer than the run, or its ramp."""
    out = []
    mine = [s for s in all_series if s.kind == "slob"]
    by_place = index(mine)
    for place, ss in groups(mine).items():
        ms = by_place[place]
        aas_s, sessions = ms.get("db_time_per_s"), _sessions(ss[0].params) if ss else None
        if aas_s is None or not sessions:
            continue
        aas = aas_s.summary.median
        if aas > t.outside_sessions_ratio * sessions:
            out.append(Finding(
                "outside_sessions", Severity.WARNING, f"{fmt(aas)} active sessions for {sessions:g} SLOB sessions",
                *place, f"AWR counts {fmt(aas)} active sessions in the window where SLOB ran {sessions:g}: DB time "
                "came from sessions outside the benchmark, and the figures are theirs as much as SLOB's",
                (("average active sessions", fmt(aas)), ("SLOB sessions", fmt(sessions)),
                 ("threshold", f"{t.outside_sessions_ratio:g} x sessions"))))
        elif aas < t.window_short_ratio * sessions:
            out.append(Finding(
                "window_misses_run", Severity.NOTE, f"{fmt(aas)} active sessions for {sessions:g} SLOB sessions",
                *place, f"the AWR window holds {fmt(aas)} active sessions where SLOB ran {sessions:g}: the window "
                "is longer than the run, or holds its ramp, so per-second rates understate the load (or think time "
                "was set)", (("average active sessions", fmt(aas)), ("SLOB sessions", fmt(sessions)),
                             ("threshold", f"{t.window_short_ratio:g} x sessions"))))
    return out
