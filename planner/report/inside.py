"""Inside the points: the steady-state verdict of every point, charts over time (IOPS, latency) for each
system's best point shown in the report, and the other points' charts linked (docs/series.md)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planner import kindspec
from planner.files import slug
from planner.metrics import display_name
from planner.report.charts import TimeLine, time_chart
from planner.results import runfolder
from planner.results.findings_run import steady_words
from planner.results.measure import Measurement
from planner.results.point_series import PointSeries
from planner.timeseries import TimeSeries

MAX_CHARTED = 24  # points charted in one report; a larger sweep links its first ones and says so
_LINE_WORDS = {**kindspec.series_words(), "iostat.iops": "device IOPS", "iostat.await_ms": "device await"}


def _mean(s: TimeSeries) -> float:
    return sum(s.values) / len(s.values) if s.values else 0.0


def _where(p: PointSeries) -> str:
    rep = f"repeat {p.repeat + 1}" if p.repeat else ""
    said = ", ".join(w for w in (p.point_label if p.point_label != "—" else "", rep) if w)
    return f"{p.title} on {p.host}" + (f" ({said})" if said else "")  # a point of no sweep has no label


def own_steady(p: PointSeries, measurements: Sequence[Measurement], run_s: float) -> tuple[bool | None, str] | None:
    """The tool's own steady-state verdict for the point, from the first kind that gives one (KindSpec.series)."""
    for where in kindspec.own_verdicts():
        said: tuple[bool | None, str] | None = kindspec.load(where)(p, measurements, run_s)
        if said is not None:
            return said
    return None


def with_tool(state: str, reached: bool | None, tool: tuple[bool | None, str] | None) -> str:
    """planner's state with the tool's own beside it; a disagreement is said as such, since either may be the one
    wrong."""
    if tool is None:
        return state
    if reached is None or tool[0] is None or tool[0] == reached:
        return f"{state}; {tool[1]}"
    return f"planner: {state}; {tool[1]} — they disagree"


def verdict(p: PointSeries, measurements: Sequence[Measurement] = ()) -> dict[str, Any] | None:
    """The point's steady-state verdict in words and numbers; None when it has no headline series."""
    said = steady_words(p)
    if said is None:
        return None
    words, v = said
    state = (f"steady after {v.after_s:g}s" if v.reached else "not steady") if p.spec else \
        ("steady" if v.reached else "not steady")
    short = p.too_short()
    state = with_tool(short or state, None if short else v.reached, own_steady(p, measurements, v.run_s))
    return {"play": p.play, "host": p.host, "title": p.title, "point": p.point_label, "repeat": p.repeat,
            "asked": p.spec is not None, "reached": v.reached, "state": state, "trend": words,
            "after_s": v.after_s, "window_s": v.window_s, "window_text": f"{v.window_s:g}s",
            "range_text": f"±{v.range_pct:.1f}%",
            "slope_text": f"{v.slope_pct:+.1f}%", "trend_text": f"{v.trend_pct:+.0f}%", "measured_s": v.run_s,
            "limits": (f"±{p.spec.max_range_pct:g}%, slope {p.spec.max_slope_pct:g}% over {p.spec.window_s:g}s"
                       if p.spec else "")}


def _charts(p: PointSeries, run_dir: Path, report_dir: Path, index: int, simulated: bool) -> list[dict[str, Any]]:
    out = []
    v = p.steadiness()
    end = max(s.end_s for s in p.series)
    steady = (v.after_s - v.window_s, v.after_s) if v is not None and v.reached and v.after_s else None
    for s in (p.headline, p.latency):
        if s is None:
            continue
        what = _LINE_WORDS.get(s.metric) or display_name(s.metric)
        title = f"{what} over time — {p.play}: {_where(p)}"
        line = TimeLine(s.label("device") or s.label("direction") or what, s.t, s.values, s.low, s.high, s.step_s)
        path = run_dir / runfolder.CHARTS / f"time-{index:03d}-{slug(s.metric)}.svg"
        written = time_chart(path, title, f"{what} ({s.unit})", [line], window_s=end, warmup_s=s.warmup_s,
                             steady=steady if s is p.headline else None, simulated=simulated or p.simulated)
        if written is not None:
            link = "latency" if s is p.latency else "TPS" if s.metric.endswith(".tps") else "IOPS"
            out.append({"title": title, "path": os.path.relpath(written, report_dir), "file": str(written),
                        "link": link})
    return out


def inside(points: Sequence[PointSeries], run_dir: Path, report_dir: Path, charts: bool,
           measurements: Sequence[Measurement] = (), simulated: bool = False) -> dict[str, Any]:
    """``inside`` of the report context: verdicts, the best point of each system charted, the rest linked."""
    measured = [p for p in points if not p.warmup and p.headline is not None]
    best: dict[str, PointSeries] = {}
    for p in measured:
        h = p.headline
        if h is not None and (p.play not in best or _mean(h) > _mean(best[p.play].headline or h)):
            best[p.play] = p
    shown: list[dict[str, Any]] = []
    linked: list[dict[str, Any]] = []
    for i, p in enumerate(measured[:MAX_CHARTED] if charts else ()):
        entry = {"play": p.play, "where": _where(p), "charts": _charts(p, run_dir, report_dir, i, simulated)}
        (shown if best.get(p.play) is p else linked).append(entry)
    verdicts = [v for p in measured if (v := verdict(p, measurements)) is not None]
    return {"verdicts": verdicts, "best": shown, "others": linked, "kept": len(points),
            "not_charted": max(0, len(measured) - MAX_CHARTED) if charts else 0}
