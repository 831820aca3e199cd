"""``planner analyze``: findings for reports a user already has, without a run.

Each file is parsed (planner.parsers), its derived metrics are added (planner.parsers.derived), and its
values become one-value ``Series`` so that every check of planner.results.findings runs on them exactly as
on a run's measurements: the file is the "play", a Compare Period report's two snapshot sets are two
points (``set=1st`` / ``set=2nd``), a RAC global report's instances are hosts (``cluster`` for its totals).
``--rated METRIC=VALUE`` states a rated figure (a datasheet's IOPS) for every file. A run folder given whole
is not read file by file: its findings are the run's own (planner.results.evaluate), the list its report,
`planner show` and the results store hold.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.errors import InputError, ParseError, Problem
from planner.metrics import Direction, Metric, Parsed, Source
from planner.parsers import DbReport, Described, describe, kinds_where, parse_file, summarise
from planner.results import history
from planner.results.evaluate import evaluate
from planner.results.findings import Finding, Severity, all_findings, latency_missing
from planner.results.history import History
from planner.results.mdtext import md_text
from planner.results.measure import read_run
from planner.results.stats import Series, fmt

AWR_FAMILY = kinds_where(lambda k: k.db_report is not DbReport.NONE)
ONE_REPORT = kinds_where(lambda k: k.db_report is DbReport.ONE)  # one instance's report: a point of a history


@dataclass(frozen=True, slots=True)
class FileAnalysis:
    path: str
    parsed: Parsed | None
    error: str  # why the file could not be read at all ('' when it was)
    described: Described | None
    derived: tuple[Metric, ...] = ()
    headline: tuple[Metric, ...] = ()


@dataclass(frozen=True, slots=True)
class Analysis:
    files: tuple[FileAnalysis, ...]
    findings: tuple[Finding, ...]
    rated: tuple[tuple[str, float], ...]
    rated_unmatched: tuple[str, ...]  # rated metrics no file has
    histories: tuple[History, ...] = ()  # many reports of one database, as a time series
    runs: tuple[tuple[str, tuple[Finding, ...]], ...] = ()  # (run folder, its findings as evaluate gives them)

    @property
    def failed(self) -> bool:
        return any(f.error for f in self.files)


def parse_rated(items: Sequence[str]) -> dict[str, float]:
    """``METRIC=VALUE`` options; every bad one reported at once (exit 5)."""
    out: dict[str, float] = {}
    problems: list[Problem] = []
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = float(value.replace(",", "").replace("_", ""))
        except ValueError:
            number = float("nan")
        if not sep or not name.strip() or number != number or number <= 0:
            problems.append(Problem(None, "--rated", f"{item!r} is not METRIC=VALUE with a positive number",
                                    "e.g. --rated physical_read_iops=1500000"))
            continue
        out[name.strip()] = number
    if problems:
        raise InputError(problems)
    return out


def _strip_set(m: Metric, tag: str) -> Metric:
    return dataclasses.replace(m, labels=tuple(kv for kv in m.labels if kv != ("set", tag)))


def _derive(parsed: Parsed) -> list[Metric]:
    from planner.parsers.derived import derive

    out = list(derive(parsed))
    if parsed.fact("rac") == "YES" and parsed.fact("report") != "global (RAC)":  # a global report is the cluster's
        out.append(Metric("awr.rac", 1.0, "flag", Direction.NEUTRAL, Source(parsed.source), (), True))
    return out


def _views(parsed: Parsed) -> list[tuple[tuple[tuple[str, object], ...], list[Metric], list[Metric]]]:
    """(point params, metrics, derived) per view: one, or one per snapshot set of a Compare Period report."""
    if parsed.kind not in AWR_FAMILY:
        return [((), list(parsed.metrics), [])]
    sets = sorted({m.label("set") for m in parsed.metrics if m.label("set")})
    if not sets:
        return [((), list(parsed.metrics), _derive(parsed))]
    out: list[tuple[tuple[tuple[str, object], ...], list[Metric], list[Metric]]] = []
    for tag in sets:
        own = [_strip_set(m, tag) for m in parsed.metrics if m.label("set") == tag]
        view = dataclasses.replace(parsed, metrics=tuple(own))
        out.append(((("set", tag),), own, _derive(view)))
    return out


def _host(m: Metric, p: Parsed) -> str:
    inst = m.label("instance")
    if p.kind in ("awr_rac_html", "awr_rac_text"):
        return f"instance {inst}" if inst and inst not in ("*", "all") else "cluster"
    if not inst and p.fact("rac") == "YES":  # a RAC instance report: its host, snapshot and flag rows too
        inst = p.fact("inst_num")
    return f"instance {inst}" if inst else ""


def series_of(fa: FileAnalysis) -> list[Series]:
    """The file's values as one-value series, keyed as a run's measurements would be."""
    if fa.parsed is None:
        return []
    p = fa.parsed
    title = fa.described.kind_name if fa.described else p.kind
    out: list[Series] = []
    headline = {m.key for m in fa.headline}
    for params, metrics, derived in _views(p):
        for m in [*metrics, *derived]:
            out.append(Series(fa.path, _host(m, p), p.kind, title, p.kind, params, m.name, m.key, m.labels,
                              m.unit, m.direction, m.key in headline, p.simulated, (m.value,), 0))
    return out


def _with_cache_size(f: Finding, caches: Mapping[tuple[str, str, str], Series]) -> Finding:
    """Cached reads: the buffer cache size is the number the seed thread pointed at ("5 GB buffer cache")."""
    cache = caches.get((f.play, f.host, f.point)) if f.code == "cached_reads" else None
    if cache is None or any(w == "buffer cache MB" for w, _ in f.numbers):
        return f
    mb = cache.summary.median
    return dataclasses.replace(f, message=f"{f.message}; the buffer cache is {mb / 1024:.1f} GB ({fmt(mb)} MB)",
                               numbers=(*f.numbers, ("buffer cache MB", fmt(mb))))


PARALLEL_FROM = 16  # files: below this, starting worker processes costs more than it saves
MAX_WORKERS = 4


def _parse_one(path: Path) -> tuple[Parsed | None, str]:
    try:
        return parse_file(Path(path)), ""
    except ParseError as e:
        return None, str(e)


def _parse_all(paths: Sequence[Path], workers: int | None = None) -> list[tuple[Parsed | None, str]]:
    """Every file parsed, in order; on several cores, in worker processes (a history of hundreds of reports)."""
    workers = workers or min(MAX_WORKERS, len(os.sched_getaffinity(0)))
    if len(paths) < PARALLEL_FROM or workers < 2:
        return [_parse_one(p) for p in paths]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_parse_one, paths, chunksize=max(1, len(paths) // (workers * 8))))


def analyze(paths: Sequence[Path], rated: Mapping[str, float] | None = None, workers: int | None = None,
            runs: Sequence[Path] = ()) -> Analysis:
    """``workers``: parsing processes (default: one per core, at most MAX_WORKERS; 1 parses in this one);
    ``runs``: run folders, each judged as a run (its plan's rated figures and claims, not ``rated``)."""
    files: list[FileAnalysis] = []
    for path, (parsed_or_none, error) in zip(paths, _parse_all(paths, workers), strict=True):
        if parsed_or_none is None:
            files.append(FileAnalysis(str(path), None, error, None))
            continue
        parsed = parsed_or_none
        derived = tuple(m for _p, _m, d in _views(parsed) for m in d)
        try:
            head = tuple(summarise(parsed))
        except Exception:  # noqa: BLE001 - a headline picker bug only loses the headline list
            head = ()
        files.append(FileAnalysis(str(path), parsed, "", describe(parsed), derived, head))
    all_series = [s for fa in files for s in series_of(fa)]
    rated = dict(rated or {})
    plays = {fa.path: rated for fa in files if fa.parsed is not None}
    found = [*all_findings(all_series, plays), *latency_missing(all_series)]
    caches: dict[tuple[str, str, str], Series] = {}
    for s in all_series:  # once, not once per finding: 500 reports hold about a million series
        if s.metric == "buffer_cache_mb":
            caches.setdefault((s.play, s.host, s.point_label), s)
    found = [_with_cache_size(f, caches) for f in found]
    present = {s.metric for s in all_series} | {s.key for s in all_series}
    db_reports = [fa.parsed for fa in files if fa.parsed is not None and fa.parsed.kind in ONE_REPORT]
    return Analysis(tuple(files), tuple(found), tuple(rated.items()),
                    tuple(k for k in rated if k not in present), tuple(history.build(db_reports)),
                    tuple((str(r), evaluate(read_run(r)).findings) for r in runs))


# -- output ------------------------------------------------------------------------------------------------

def _where(f: Finding) -> str:
    bits = [f.play] + [b for b in (f.host, f.point if f.point != "—" else "") if b]
    return " — ".join(bits)


def to_markdown(a: Analysis) -> str:
    """The analysis as Markdown; every text from the files (paths, versions, event names, errors) escaped."""
    e = md_text
    lines = ["# planner analyze"]
    if a.files:
        lines += _files_markdown(a)
    for run, found in a.runs:
        lines += ["", f"## Run folder {e(run)}", "", f"{len(found)} finding(s), as its report and `planner show` "
                  "give them.", ""]
        for f in found:
            lines += _finding_markdown(f)
    lines += _history_markdown(a.histories)
    if a.files:
        lines += ["", "## Headline numbers", "", "| file | metric | value | unit | line |", "|---|---|---:|---|---:|"]
    for fa in a.files:
        for m in (fa.derived or fa.headline):
            line = m.source.line if m.source and m.source.line else ""
            lines.append(f"| {e(fa.path)} | {e(m.key)} | {fmt(m.value, 2)} | {e(m.unit)} | {line} |")
    return "\n".join(lines).rstrip() + "\n"


def _files_markdown(a: Analysis) -> list[str]:
    """The files as read, then their findings and the rated figures no file had."""
    e = md_text
    lines = ["", "## Files", "", "| file | read as | version | not read |", "|---|---|---|---|"]
    for fa in a.files:
        if fa.described is None:
            lines.append(f"| {e(fa.path)} | not read | | {e(fa.error)} |")
            continue
        d = fa.described
        kind = d.kind_name + (f" ({d.layout})" if d.layout else "")
        lines.append(f"| {e(fa.path)} | {e(kind)} | {e(d.version or '—')} "
                     f"| {e('; '.join(d.unread) or 'everything read')} |")
    lines += ["", "## Findings", ""]
    if not a.findings:
        lines.append("No finding: nothing in these files looks like a trap the seeds' threads fell into.")
    for f in sorted(a.findings, key=lambda f: (f.severity is not Severity.WARNING, f.play, f.code)):
        lines += _finding_markdown(f)
    for name in a.rated_unmatched:
        lines.append(f"- rated {e(name)} = {fmt(dict(a.rated)[name])}: no file has a metric {e(name)}; "
                     "nothing compared")
    return lines


def _finding_markdown(f: Finding) -> list[str]:
    e = md_text
    return [f"### {f.severity.value.upper()}: {e(f.title)}", "", f"*{e(_where(f))}*", "", e(f.message), "",
            "| what | value |", "|---|---|", *(f"| {e(w)} | {e(v)} |" for w, v in f.numbers), ""]


def _history_markdown(histories: Sequence[History]) -> list[str]:
    e = md_text
    out: list[str] = []
    for h in histories:
        top = h.top_events[:3]
        out += ["", f"## History: {e(h.database)}", "",
                f"{len(h.snapshots)} reports; {len(h.mostly_waits)} mostly waits; {len(h.anomalies)} anomalies.", "",
                "| begin | snaps | active sessions | DB CPU/s | waits % | " + " | ".join(e(t) for t in top)
                + " |", "|---|---|---:|---:|---:|" + "---:|" * len(top)]
        for s in h.snapshots:
            waits = dict(s.waits)
            share = s.wait_share
            out.append(f"| {e(s.begin or '—')} | {s.begin_id or ''}-{s.end_id or ''} | {fmt(s.aas or 0, 2)} "
                       f"| {fmt(s.cpu or 0, 2)} | {'' if share is None else f'{share * 100:.0f}'} | "
                       + " | ".join(fmt(waits[t], 1) if t in waits else "" for t in top) + " |")
        for a in h.anomalies:
            out.append(f"- anomaly: {e(a.what)} {fmt(a.value)} at {e(a.begin or a.source)} (median {fmt(a.median)})")
    return out


def _metric(m: Metric) -> dict[str, Any]:
    return {"name": m.name, "labels": dict(m.labels), "value": m.value, "unit": m.unit, "derived": m.derived,
            "line": m.source.line if m.source else None}


def to_json(a: Analysis) -> dict[str, Any]:
    return {
        "files": [{"file": fa.path, "kind": fa.described.kind if fa.described else None,
                   "read_as": fa.described.kind_name if fa.described else None,
                   "version": fa.described.version if fa.described else None,
                   "layout": fa.described.layout if fa.described else None,
                   "not_read": list(fa.described.unread) if fa.described else [], "error": fa.error or None,
                   "facts": dict(fa.parsed.facts) if fa.parsed else {},
                   "derived": [_metric(m) for m in fa.derived], "headline": [_metric(m) for m in fa.headline]}
                  for fa in a.files],
        "findings": [{"code": f.code, "severity": f.severity.value, "title": f.title, "file": f.play,
                      "host": f.host, "point": f.point, "message": f.message, "numbers": dict(f.numbers)}
                     for f in a.findings],
        "runs": [{"run": run, "findings": [{"code": f.code, "severity": f.severity.value, "title": f.title,
                                            "play": f.play, "host": f.host, "step": f.step, "point": f.point,
                                            "message": f.message, "numbers": dict(f.numbers)} for f in found]}
                 for run, found in a.runs],
        "rated": dict(a.rated), "rated_unmatched": list(a.rated_unmatched),
        "histories": [history_json(h) for h in a.histories],
    }


def history_json(h: History) -> dict[str, Any]:
    return {"database": h.database, "top_events": list(h.top_events),
            "snapshots": [{"file": s.source, "begin": s.begin, "begin_snap_id": s.begin_id, "end_snap_id": s.end_id,
                           "active_sessions": s.aas, "db_cpu_per_s": s.cpu, "wait_share": s.wait_share,
                           "waits_pct": dict(s.waits), "load": dict(s.load)} for s in h.snapshots],
            "mostly_waits": [s.source for s in h.mostly_waits],
            "anomalies": [{"file": x.source, "begin": x.begin, "what": x.what, "value": x.value, "median": x.median}
                          for x in h.anomalies]}
