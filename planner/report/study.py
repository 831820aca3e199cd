"""The study as a whole: systems side by side, one chart per headline metric, the Result that opens a report.

Metric names are words (planner.metrics.display_name); a label that tells two series apart is printed only
where it differs. Keys stay in the context (``metric``) for templates that want them and for exports.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner import kindspec
from planner.files import slug
from planner.kindspec import ReportWords
from planner.metrics import Direction, display_name, distinguishing_labels
from planner.report.charts import ChartLine, ChartPoint, numeric_values, sweep_chart
from planner.results import runfolder
from planner.results.stats import Series, combine_hosts, fmt

# How a swept parameter reads on an axis: a kind's own words (its spec's param_words) first, then these; a
# parameter not listed reads as its name.
PARAM_WORDS: Mapping[str, str] = {"threads": "threads"}
# Counted parameters read count first: "256 SLOB sessions", "64 virtual users", not "SLOB sessions 256".
COUNTED = frozenset(("threads",))


def _kind_words(kind: str) -> ReportWords | None:
    spec = kindspec.spec(kind)
    return spec.report if spec is not None else None


def _wording_kind(name: str) -> ReportWords | None:
    """For a parameter seen without its kind (a recorded point label): the first kind that words it."""
    return next((s.report for s in kindspec.specs() if name in s.report.param_words), None)


def param_words(name: str, kind: str = "") -> str:
    own = _kind_words(kind) or _wording_kind(name)
    words = own.param_words.get(name) if own is not None else None
    return words or PARAM_WORDS.get(name) or name.replace("_", " ")


def _counted(name: str, kind: str) -> bool:
    own = _kind_words(kind) or _wording_kind(name)
    return name in COUNTED or (own is not None and name in own.counted)


def point_words(params: Sequence[tuple[str, object]], kind: str = "") -> str:
    return ", ".join(f"{v} {param_words(k, kind)}" if _counted(k, kind) else f"{param_words(k, kind)} {v}"
                     for k, v in params) or "—"


# Units that count whole things: a median of them that is whole prints as one ("0 virtual users failed",
# "320 warehouses"), never "0.0" or "320.0"
COUNT_UNITS = frozenset({"users", "warehouses", "transactions", "calls", "snap id"})


def fmt_of(v: float, unit: str) -> str:
    """``fmt``, but a whole count without a decimal."""
    return f"{v:,.0f}" if unit in COUNT_UNITS and float(v).is_integer() else fmt(v)


def label_words_of(label: str, kind: str = "") -> str:
    """A point label as recorded ("readers=256") in words ("256 SLOB reader sessions"); "" for none. ``kind``:
    the step's, so that one kind's ``users=8`` is said in its own words, not in another kind's that has a
    ``users``."""
    pairs: list[tuple[str, object]] = [(k, v) for k, _, v in (p.partition("=") for p in label.split()) if v]
    return point_words(pairs, kind) if pairs else ""


@dataclass(frozen=True, slots=True)
class Row:
    """One summary row: a workload (by kind when every play has one of that kind) and a metric key."""

    workload: str
    key: str


def metric_names(heads: Sequence[Series]) -> dict[str, str]:
    """Key -> words, with the labels that differ between keys of the same metric."""
    by_metric: dict[str, dict[str, tuple[tuple[str, str], ...]]] = defaultdict(dict)
    units: dict[str, str] = {}
    for s in heads:
        by_metric[s.metric][s.key] = s.labels
        units[s.key] = s.unit
    out = {}
    for metric, keys in by_metric.items():
        shown = distinguishing_labels(list(keys.values()))
        for key, labels in keys.items():
            out[key] = display_name(metric, labels, units[key], shown)
    return out


def rows_of(heads: Sequence[Series]) -> dict[Row, list[Series]]:
    # Systems are compared on the same kind of workload even when each play names its step differently
    # ("SLOB read-only, 64 to 256 readers" on one, an unnamed slob step on the other): rows go by kind
    # whenever no play has two workloads of that kind.
    titles: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for s in heads:
        if s.title not in titles[s.kind][s.play]:
            titles[s.kind][s.play].append(s.title)
    by_kind = {k for k, plays in titles.items() if all(len(t) == 1 for t in plays.values())}
    out: dict[Row, list[Series]] = defaultdict(list)
    for s in heads:
        if s.kind in by_kind:
            names = list(dict.fromkeys(t for ts in titles[s.kind].values() for t in ts))
            out[Row(" / ".join(names), row_key(s.key))].append(s)
        else:
            out[Row(s.title, row_key(s.key))].append(s)
    return out


SILENT_FRACTION = 0.01  # a headline row at under 1% of its workload's largest row in the same unit says nothing


def silent_rows(rows: Mapping[Row, list[Series]]) -> list[tuple[Row, float, Row]]:
    """Headline rows that say nothing for this study — write IOPS of 0.4 beside read IOPS of 159,000 in a
    read-only run: (row, its largest value, the row it is measured against). They get no chart and no row."""
    top: dict[tuple[str, str], tuple[float, Row]] = {}
    peak = {row: max((s.summary.max for s in ss), default=0.0) for row, ss in rows.items()}
    for row, ss in rows.items():
        unit = ss[0].unit if ss else ""
        if unit and peak[row] > top.get((row.workload, unit), (0.0, row))[0]:
            top[(row.workload, unit)] = (peak[row], row)
    out = []
    for row, ss in rows.items():
        if not ss:
            continue
        biggest, other = top.get((row.workload, ss[0].unit), (0.0, row))
        if other != row and biggest > 0 and peak[row] < SILENT_FRACTION * biggest:
            out.append((row, peak[row], other))
    return out


def zero_rows(rows: Mapping[Row, list[Series]]) -> list[Row]:
    """Swept or compared headline rows at 0 at every point of every system (a load generator's failed
    transactions in a clean run): their chart is a line along the axis that says nothing; one line says it."""
    return [row for row, ss in rows.items()
            if len({(s.play, repr(s.params)) for s in ss}) > 1 and all(v == 0 for s in ss for v in s.values)]


def row_key(key: str) -> str:
    """A RAC cluster total (``instance=all``, planner.parsers.awr_rac_text) is the system's figure, so it shares
    its row with a single-instance system's: ``physical_read_iops{basis=requests,instance=all}`` ->
    ``physical_read_iops{basis=requests}``."""
    if "instance=all" not in key or "{" not in key:
        return key
    name, _, rest = key.partition("{")
    labels = [x for x in rest.rstrip("}").split(",") if x != "instance=all"]
    return name + ("{" + ",".join(labels) + "}" if labels else "")


@dataclass(frozen=True, slots=True)
class Best:
    """A play's figure on one row: its best point, the play's hosts combined."""

    value: float
    low: float
    high: float
    params: tuple[tuple[str, object], ...]
    points: int  # how many sweep points it was chosen from
    kind: str = ""  # the step kind it was measured by: its parameters' words depend on it


def _by_point(ss: Sequence[Series]) -> dict[tuple[str, str], list[Series]]:
    out: dict[tuple[str, str], list[Series]] = defaultdict(list)
    for s in ss:
        out[(s.step, repr(s.params))].append(s)
    return out


def _combined(ss: Sequence[Series]) -> tuple[float, float, float]:
    unit = ss[0].unit
    return (combine_hosts([s.summary.median for s in ss], unit)[0], combine_hosts([s.summary.min for s in ss], unit)[0],
            combine_hosts([s.summary.max for s in ss], unit)[0])


def best_of(ss: Sequence[Series]) -> Best:
    pts = _by_point(ss)
    cands = [(_combined(g), g[0].params) for g in pts.values()]
    pick = min if ss[0].direction is Direction.LOWER else max
    (med, lo, hi), params = pick(cands, key=lambda c: c[0][0])
    return Best(med, lo, hi, params, len(pts), ss[0].kind)


def _fixed(args: Mapping[tuple[str, str], Mapping[str, Any]], s: Series, name: str) -> str | None:
    """The value a play ran an unswept parameter at (readers: 16), when the plan says it literally."""
    v = args.get((s.play, s.step), {}).get(name)
    return None if v is None or isinstance(v, list | dict) or "{{" in str(v) else str(v)


def _x_parameter(values: Mapping[str, set[str]]) -> str:
    """The swept parameter on the x axis: the one with most values; on a tie a numeric one (iodepth over bs),
    then the one that varies fastest (the last key of a cross product, as the plan lists them)."""
    order = list(values)
    return max(order, key=lambda k: (len(values[k]), numeric_values(sorted(values[k])) is not None, order.index(k)))


def _paired(ss: Sequence[Series], a: str, b: str) -> bool:
    """Whether parameters a and b only restate each other (a zip sweep: one b value per a value and back),
    as opposed to a cross product, where each value of one meets several values of the other."""
    pairs = {(str(dict(s.params).get(a)), str(dict(s.params).get(b))) for s in ss}
    return len(pairs) == len({p for p, _ in pairs}) == len({q for _, q in pairs})


def series_parameters(ss: Sequence[Series], xname: str) -> list[str]:
    """The swept parameters other than x that get a line per value: not those that only restate x (a zip)."""
    values: dict[str, set[str]] = {}
    for s in ss:
        for k, v in s.params:
            values.setdefault(k, set()).add(str(v))
    return [k for k in values if k != xname and len(values[k]) > 1 and not _paired(ss, xname, k)]


def chart_lines(ss: Sequence[Series], plays: Sequence[str],
                args: Mapping[tuple[str, str], Mapping[str, Any]]) -> tuple[str, list[ChartLine]]:
    """(x parameter, lines): one line per play, or per play and value of a second swept parameter."""
    values: dict[str, set[str]] = {}
    for s in ss:
        for k, v in s.params:
            values.setdefault(k, set()).add(str(v))
    xname = _x_parameter(values) if values else ""
    if not xname:  # no sweep: the parameter the plays were run at, when they share one
        xname = next((k for k in ("readers", "threads", "users", "iodepth") if all(_fixed(args, s, k) for s in ss)), "")
    series_by = series_parameters(ss, xname)
    lines: list[ChartLine] = []
    multi = len({s.play for s in ss}) > 1
    for play in plays:
        groups: dict[str, list[ChartPoint]] = defaultdict(list)
        for g in _by_point([s for s in ss if s.play == play]).values():
            params = dict(g[0].params)
            x = str(params.pop(xname)) if xname in params else (_fixed(args, g[0], xname) or play)
            rest = [(k, v) for k, v in params.items() if k in series_by]
            med, lo, hi = _combined(g)
            groups[point_words(rest, g[0].kind) if rest else ""].append(ChartPoint(x, lo, med, hi))
        for other, pts in groups.items():
            label = ", ".join(p for p in (play if multi or not other else "", other) if p)
            lines.append(ChartLine(label or play, tuple(pts)))
    return xname, lines


def charts(rows: Mapping[Row, list[Series]], names: Mapping[str, str], plays: Sequence[str],
           args: Mapping[tuple[str, str], Mapping[str, Any]], run_dir: Path, report_dir: Path,
           simulated: bool = False) -> list[dict[str, Any]]:
    """One chart per headline row of a swept or multi-system study, but a row at 0 everywhere (``zero_rows``)."""
    out: list[dict[str, Any]] = []
    workloads = {r.workload for r in rows}
    zero = set(zero_rows(rows))
    for row, ss in rows.items():
        points = {(s.play, repr(s.params)) for s in ss}
        if len(points) < 2 or row in zero:
            continue
        xname, lines = chart_lines(ss, plays, args)
        words = names[row.key]
        base = words.rsplit(" (", 1)[0]
        unit = ss[0].unit
        xw = param_words(xname, ss[0].kind) if xname else "system"
        per = " and ".join(param_words(k, ss[0].kind) for k in series_parameters(ss, xname))
        title = (f"{base}, by {xw}" + (f", one line per {per}" if per else "")
                 + (f" — {row.workload}" if len(workloads) > 1 else ""))
        stem = "-".join(p for p in (slug(row.workload) if len(workloads) > 1 else "", slug(base), "by",
                                    slug(xw)) if p).lower().replace("_", "-")
        path = run_dir / runfolder.CHARTS / f"{stem}.svg"
        written = sweep_chart(path, title, xw, f"{base} ({unit})" if unit else base, lines,
                              simulated=simulated or any(s.simulated for s in ss))
        if written:
            out.append({"title": title, "metric": row.key, "name": words, "x": xname,
                        "path": os.path.relpath(written, report_dir), "file": str(written),
                        "series": [ln.label for ln in lines]})
    return out


def _of(ss: Sequence[Series], play: str, host: str) -> list[Series]:
    return [s for s in ss if s.play == play and (not host or s.host == host)]


def _summary_row(row: Row, ss: Sequence[Series], names: Mapping[str, str], cells: list[str],
                 supporting: bool) -> dict[str, Any]:
    s0 = ss[0]
    return {"workload": row.workload, "kind": s0.kind, "metric": row.key, "name": names[row.key], "unit": s0.unit,
            "direction": s0.direction.value, "cells": cells, "supporting": supporting}


def summary(rows: Mapping[Row, list[Series]], names: Mapping[str, str], cols: Sequence[tuple[str, str]],
            supporting: Mapping[Row, list[Series]] | None = None) -> dict[str, Any]:
    """Rows (workload, metric), columns plays (or play / host): the best sweep point, as the seed compared
    systems ("I tried numerous values for readers and 256 gave me the best result"). Every other row of a
    system — the later headline rows and the ``supporting`` ones (logical reads, DB CPU ...) — is at the point
    where that system's first headline metric was best: one load point per system, never write IOPS at 64
    sessions beside read IOPS at 256."""
    first: dict[str, list[Series]] = {}
    for row, ss in rows.items():
        first.setdefault(row.workload, ss)
    at = {(w, p): best_of([s for s in ss if s.play == p]).params
          for w, ss in first.items() for p in {s.play for s in ss}}
    out = []
    for row, ss in (supporting or {}).items():
        cells = []
        for p, h in cols:
            mine = [s for s in _of(ss, p, h) if s.params == at.get((row.workload, p))]
            cells.append(fmt_of(_combined(mine)[0], mine[0].unit) if mine else "—")
        if any(c != "—" for c in cells):
            out.append(_summary_row(row, ss, names, cells, True))
    head = []
    for row, ss in rows.items():
        cells = []
        for p, h in cols:
            mine = _of(ss, p, h)
            point = at.get((row.workload, p)) if first[row.workload] is not ss else None
            there = [s for s in mine if s.params == point] if point is not None else mine
            if not there:
                cells.append("—")
                continue
            b = best_of(mine)
            if point is not None:
                b = replace(b, value=_combined(there)[0], params=point)
            cells.append(fmt_of(b.value, mine[0].unit) + (f" ({point_words(b.params, b.kind)})" if b.points > 1
                                                          else ""))
        head.append(_summary_row(row, ss, names, cells, False))
    return {"columns": [f"{p} / {h}" if h else p for p, h in cols], "rows": head + out}


def validity(play: str, findings: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Whether a system's figures can be trusted, and why: a warning says the number may not mean what it
    seems (cached reads, a CPU-bound host, steal, contention ...); notes are worth knowing but do not undo it.
    A finding about the rehearsal itself says nothing of the system: not counted."""
    mine = [f for f in findings if f.get("play") == play and not about_rehearsal(f)]
    warnings = list(dict.fromkeys(str(f["title"]) for f in mine if f.get("severity") == "warning"))
    notes = list(dict.fromkeys(str(f["title"]) for f in mine if f.get("severity") != "warning"))
    if warnings:
        return {"verdict": "read with care", "why": warnings, "notes": notes}
    return {"verdict": "can be trusted", "why": [] if notes else ["none of the checks fired"], "notes": notes}


def result(rows: Mapping[Row, list[Series]], names: Mapping[str, str], plays: Sequence[str],
           verdict_rows: Sequence[Mapping[str, Any]], findings: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The answer first: per system its headline figure (best point named), each claim's verdict, the finding
    that matters most (warnings before notes, in the order the checks rank them; never a note on the rehearsal)."""
    systems = []
    first_by_workload: dict[str, Row] = {}
    for row in rows:
        first_by_workload.setdefault(row.workload, row)
    for play in plays:
        lines = []
        for row in first_by_workload.values():
            mine = [s for s in rows[row] if s.play == play]
            if not mine:
                continue
            b = best_of(mine)
            unit = mine[0].unit
            words = names[row.key].rsplit(" (", 1)[0]
            where = (f" at {point_words(b.params, b.kind)} (best of {b.points} points)" if b.points > 1
                     else f" at {point_words(b.params)}" if b.params else "")
            spread = f", {fmt(b.low)}–{fmt(b.high)} over repeats" if b.high > b.low else ""
            lines.append({"name": words, "value": fmt(b.value), "unit": unit, "point": point_words(b.params),
                          "text": f"{fmt(b.value)} {'' if _unit_said(unit, words) else unit + ' '}{words}{where}"
                                  f"{spread}"
                          .replace("  ", " ")})
        if lines:
            systems.append({"play": play, "lines": lines, "validity": validity(play, findings)})
    # a finding about the rehearsal itself (its caps, the rehearsing machine's CPU) is not about the study:
    # never the report's lead, counted apart
    ranked = sorted((f for f in findings if not about_rehearsal(f)),
                    key=lambda f: 0 if f.get("severity") == "warning" else 1)
    compared = [c for row in first_by_workload.values() if (c := _compared(row, rows[row], names, plays))]
    return {"systems": systems, "compared": compared, "verdicts": list(verdict_rows),
            "top_finding": ranked[0] if ranked else None, "more_findings": max(len(ranked) - 1, 0),
            "rehearsal_findings": len(findings) - len(ranked)}


def about_rehearsal(finding: Mapping[str, Any]) -> bool:
    """The finding's own ``about`` (planner.results.finding.About), set where it was made; a row without one
    (a template's own list, an older context) is about the study."""
    return finding.get("about") == "rehearsal"


def _unit_said(unit: str, words: str) -> bool:
    """The metric's words already say its unit: "transactions per second" is in transactions/s."""
    spelled = unit.replace("/s", " per second").replace("/min", " per minute")
    return not unit or unit in words or spelled in words


def _compared(row: Row, ss: Sequence[Series], names: Mapping[str, str], plays: Sequence[str]) -> dict[str, str]:
    """Which system won a headline metric and by how much, each at its best point ({} for one system or a
    metric with no better direction): the sentence a DBA reads before the table."""
    mine = [(p, best_of(got)) for p in plays if (got := [s for s in ss if s.play == p])]
    if len(mine) < 2 or ss[0].direction not in (Direction.HIGHER, Direction.LOWER):
        return {}
    lower = ss[0].direction is Direction.LOWER
    mine.sort(key=lambda pb: pb[1].value, reverse=not lower)
    (lead, b), rest = mine[0], mine[1:]

    def at(x: Best) -> str:
        return f" at {point_words(x.params, x.kind)}" if x.points > 1 else ""

    def than(p: str, x: Best) -> str:
        pct = abs(b.value / x.value - 1) * 100 if x.value else 0.0
        gap = f"{pct:.0f}% {'lower' if lower else 'more'} than" if round(pct) else "level with"
        return f"{gap} {p} ({fmt(x.value)}{at(x)})"

    return {"what": f"{names[row.key].rsplit(' (', 1)[0]}, {row.workload}", "lead": lead,
            "text": f"{fmt(b.value)}{at(b)}, " + "; ".join(than(p, x) for p, x in rest)}
