"""Findings that read the run folder beyond its series: synchronised starts that were late
(sync_start.json) and points not in steady state (each point's series, planner.results.point_series)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from planner import kindspec
from planner.metrics import display_name
from planner.results import runfolder
from planner.results.finding import Finding, Severity
from planner.results.measure import RunData, play_name
from planner.results.point_series import PointSeries, UnreadSeries
from planner.results.stats import fmt
from planner.status import legacy_place
from planner.timeseries import Steadiness

_SYNC_LOG_MAX = 4 << 20  # sync_start.json of a received folder is input: a bounded read


def late_starts(data: RunData) -> list[Finding]:
    """A synchronised point where a host started later than the play's tolerance (sync_start.json "late")."""
    path = data.run_dir / runfolder.SYNC_START
    try:
        entries = json.loads(path.read_text()) if path.is_file() and path.stat().st_size <= _SYNC_LOG_MAX else []
    except (OSError, ValueError):
        return []
    out = []
    for e in entries if isinstance(entries, list) else []:
        late = [h for h in e.get("late") or [] if isinstance(h, str)] if isinstance(e, dict) else []
        if not late:
            continue
        hosts = e.get("hosts") if isinstance(e.get("hosts"), dict) else {}
        worst = max((_num(h.get("start_ms")) for n, h in hosts.items() if n in late and isinstance(h, dict)),
                    default=0.0)
        rerun = bool(e.get("rerun"))
        out.append(Finding(
            "late_sync_start", Severity.NOTE if rerun else Severity.WARNING, "Synchronised start was late",
            play_name(_sync_play(e), data.play_names()), ", ".join(late), str(e.get("title", "")),
            str(e.get("name", "")),
            f"{', '.join(late)} started {worst:.1f} ms after the common start time, later than the tolerance of "
            f"{fmt(_num(e.get('tolerance_ms')))} ms: for that time the hosts did not run together"
            + ("; the point was run again and its figures are the second run's" if rerun else ""),
            (("latest start after the start time", f"{worst:.1f} ms"), ("re-run", "yes" if rerun else "no"))))
    return out


def _sync_play(e: Any) -> int | None:
    """The play of a sync_start.json entry; an entry from before it said (no "play") has it in its step path."""
    play = e.get("play")
    return play if isinstance(play, int) else legacy_place(str(e.get("step", "")))[0]


def _num(value: object) -> float:
    """A number of a record file (input): 0 when it is none."""
    try:
        return float(value) if isinstance(value, int | float | str) else 0.0
    except ValueError:
        return 0.0


# -- steady state: every point judged from its series (planner.results.point_series, docs/series.md) --------

TREND_PCT = 20.0  # a best-fit rise or fall across the whole run beyond this, without a steady_state: spec
SERIES_WORDS = {**kindspec.series_words(), "iostat.iops": "device IOPS (iostat)"}


def steady_words(p: PointSeries) -> tuple[str, Steadiness] | None:
    """How the point's headline series moved, as a reader says it, and the verdict; None without a series."""
    s, v = p.headline, p.steadiness()
    if s is None or v is None:
        return None
    what = SERIES_WORDS.get(s.metric, display_name(s.metric))
    if abs(v.trend_pct) < 0.5:  # "fell 0%" reads as a fall
        return f"{what} held level over the run", v
    moved = "fell" if v.trend_pct < 0 else "rose"
    return f"{what} {moved} {abs(v.trend_pct):.0f}% over the run", v


def not_steady(points: Sequence[PointSeries], trend_pct: float = TREND_PCT) -> list[Finding]:
    """A finding for every measured point whose series did not settle: with a steady_state: spec, no window
    met it; without one, the whole run's best-fit line rose or fell by more than ``trend_pct``."""
    out: list[Finding] = []
    for p in points:
        said = None if p.warmup or p.too_short() else steady_words(p)
        if said is None:
            continue
        words, v = said
        if (v.reached if p.spec else abs(v.trend_pct) <= trend_pct):
            continue
        spec = p.spec
        why = (f"no {v.window_s:g}s window stayed within ±{spec.max_range_pct:g}% and a slope of "
               f"{spec.max_slope_pct:g}%" if spec else f"more than {trend_pct:g}% is a trend, not noise")
        out.append(Finding("not_steady", Severity.WARNING, "not in steady state", p.play, p.host, p.title,
                           p.point_label, f"{words} — not steady ({why}); the point's average mixes two states",
                           (("trend over the run", f"{v.trend_pct:+.0f}%"),
                            ("range in the last window", f"±{v.range_pct:.0f}%"),
                            ("slope in the last window", f"{v.slope_pct:+.0f}%"),
                            ("measured", f"{v.run_s:g}s"))))
    return out


def unread_series(unread: Sequence[UnreadSeries]) -> list[Finding]:
    """A note for each series file that could not be read: the point is reported without its chart and its
    steady-state verdict, and the reader is told why instead of finding the chart simply missing."""
    return [Finding("series_unread", Severity.NOTE, "series not read", u.play, u.host, u.title, u.point_label,
                    f"{u.file}: {u.reason} — the point's figures stand, but it is neither charted nor judged for "
                    "steady state", ())
            for u in unread]
