"""The report context: everything a report template may use, as plain dicts and lists (docs/report-context.md).

Built once from a run folder (planner.results.measure.RunData) and its results (planner.results.evaluate: the
findings and verdicts the store and `planner show` hold too), one builder per section; templates only lay it
out. Its shape is planner.report.context_types (TypedDicts, checked by mypy). Every key documented is always
present (empty list / "" / None when there is nothing), so templates render under StrictUndefined.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from planner import __version__, kindspec
from planner.extras import DatabaseSeen
from planner.metrics import display_name, short_name
from planner.plan.model import Section
from planner.report.charts import matplotlib_available
from planner.report.context_types import (
    ArtifactRow,
    AwrLine,
    DbSource,
    HostFacts,
    HostSection,
    KindRow,
    OsGroup,
    OsMetric,
    ParseErrorRow,
    ParseProblem,
    PlayRow,
    PrepRow,
    ReportContext,
    RunInfo,
    SideBySide,
    SideHost,
    Simulated,
    StatsRow,
    StatsTable,
    Summary,
    SweepRow,
    SweepTable,
    VerdictRow,
    WaitEvent,
    WaitGroup,
    Workload,
)
from planner.report.finding_groups import finding_rows
from planner.report.inside import inside
from planner.report.rac import rac_sections
from planner.report.study import (
    Row,
    best_of,
    fmt_of,
    label_words_of,
    metric_names,
    param_words,
    point_words,
    result,
    row_key,
    rows_of,
    silent_rows,
    summary,
    zero_rows,
)
from planner.report.study import charts as study_charts
from planner.results import runfolder
from planner.results.evaluate import RunResults, evaluate
from planner.results.measure import OS_KINDS, RunData, play_name, prep_steps
from planner.results.settings import placements
from planner.results.stats import METHOD, Series, fmt
from planner.results.verdicts import ClaimVerdict
from planner.status import Phase, recap
from planner.steps import REGISTRY
from planner.steps.base import workload
from planner.steps.saved_state import RestoreEntry


def table_metrics(kind: str, wanted: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The sweep table's columns beyond the headline: the kind's own choice (its spec's table_metrics, fewer
    than its report_metrics so one table stays readable), else ``wanted``."""
    spec = kindspec.spec(kind)
    chosen = spec.report.table_metrics if spec is not None else None
    return wanted if chosen is None else chosen


COMBINE_NOTE = ("a play with several hosts: rates (.../s, IOPS) are summed over its hosts, other values "
                "averaged; a sweep's best point counts for rated figures and reproduction claims")
# The OS statistics of the workload window the report's OS table shows, in words from metrics.DISPLAY_NAMES.
OS_LABELS = {m: short_name(m) for m in ("os.cpu_busy_pct", "os.cpu_iowait_pct", "os.read_iops", "os.write_iops",
                                        "os.util_pct_max", "os.samples")}


def _run(data: RunData, report_dir: Path) -> RunInfo:
    m = data.meta
    git = m.git
    return {
        "id": data.run_id, "plan": m.plan, "plan_file": m.plan_file, "description": m.description,
        "status": m.status, "exit_code": m.raw.get("exit_code"), "started": m.started or "", "ended": m.ended or "",
        "planner_version": m.planner_version, "python": m.python, "argv": " ".join(m.argv),
        "path": str(data.run_dir), "commands_file": os.path.relpath(data.run_dir / runfolder.COMMANDS, report_dir),
        "git": {"commit": git.get("commit") or "", "dirty": git.get("dirty"), "plan_dirty": git.get("plan_dirty"),
                "changed": [str(c) for c in git.get("changed") or [] if isinstance(c, str)][:20],
                "note": git.get("note", "")},
    }


def _simulated(data: RunData) -> Simulated:
    """What was simulated, counted per artifact kind (one line per kind, not per file)."""
    what: list[str] = []
    if data.meta.simulated:
        how = [f"; hosts {n}" for n in data.meta.rehearsal_notes]
        fake_any = any(a.simulated for a in data.artifacts)
        what.append("the whole run was a rehearsal on simulated hosts (meta.json simulated: true)"
                    + ("; the tools that cannot run on this machine were planner stand-ins (the files they wrote "
                       "are counted below)" if fake_any else "") + "".join(how))
        what += [f"simulated {w.describe()}" for w in data.meta.world]
    # A rehearsal's OS samplers are the real programs on the rehearsing machine: their files are marked as
    # simulated (their figures are not the lab's) but no stand-in wrote them.
    sampled = {a.kind for a in data.artifacts if a.kind in OS_KINDS} if data.meta.simulated else set()
    fake = Counter(a.kind or "other" for a in data.artifacts if a.simulated and a.kind not in sampled)
    real = Counter(a.kind or "other" for a in data.artifacts if not a.simulated or a.kind in sampled)
    if fake:
        what.append("written by stand-ins: " + ", ".join(f"{k} x{n}" for k, n in sorted(fake.items())))
    if real and data.meta.simulated:
        what.append("measured for real, but on the rehearsal machine, not the lab: "
                    + ", ".join(f"{k} x{n}" for k, n in sorted(real.items())))
    if not what and any(m.simulated for m in data.measurements):
        what.append("some metrics came from stand-ins")
    return {"any": bool(what), "what": what}


def _columns(data: RunData, all_series: Sequence[Series]) -> list[tuple[str, str]]:
    """(play, host) columns; host '' when the play has a single host (its values are the play's)."""
    hosts: dict[str, list[str]] = defaultdict(list)
    for s in all_series:
        if s.host not in hosts[s.play]:
            hosts[s.play].append(s.host)
    order = [p for p in data.play_names() if p in hosts] + [p for p in hosts if p not in data.play_names()]
    return [(p, "" if len(hosts[p]) == 1 else h) for p in order for h in hosts[p]]


def _sweep_table(ss: Sequence[Series], wanted: Sequence[str]) -> SweepTable:
    """One table per workload: points (and hosts) as rows, metrics as columns; a cell is the median, with
    the min–max over repeats when there were several. The headline metrics come first."""
    keys = list(dict.fromkeys([*(s.key for s in ss if s.headline),
                               *(s.key for name in wanted for s in ss if s.metric == name)]))
    names = metric_names([s for s in ss if s.key in keys])
    hosts = list(dict.fromkeys(s.host for s in ss))
    cells: dict[tuple[str, str], dict[str, Series]] = defaultdict(dict)
    for s in ss:
        if s.key in keys:
            cells[(s.host, s.point_label)][s.key] = s
    rows: list[SweepRow] = []
    for (host, _point), by_key in cells.items():
        any_s = next(iter(by_key.values()))
        row = []
        for k in keys:
            x = by_key.get(k)
            if x is None:
                row.append("—")
                continue
            sm = x.summary
            row.append(fmt_of(sm.median, x.unit)
                       + (f" ({fmt(sm.min)}–{fmt(sm.max)})" if sm.n > 1 and sm.max > sm.min else ""))
        rows.append({"host": host, "point": point_words(any_s.params, any_s.kind), "n": any_s.summary.n,
                     "warmups": any_s.warmups, "cells": row})
    return {"columns": [names[k] for k in keys], "metrics": keys, "show_host": len(hosts) > 1, "rows": rows,
            "repeated": any(r["n"] > 1 for r in rows)}


def _workloads(data: RunData, all_series: Sequence[Series], templates: set[str]) -> list[Workload]:
    by_step: dict[str, list[Series]] = defaultdict(list)
    prep = prep_steps(data)
    for s in all_series:
        if s.step not in prep:
            by_step[s.step].append(s)
    where = placements(data)
    return [_workload(step, data.step_kinds.get(step, ss[0].kind), ss, templates, where.get((ss[0].play, step), ""))
            for step, ss in by_step.items()]


def _workload(step: str, kind: str, ss: Sequence[Series], templates: set[str], data_on: str = "") -> Workload:
    first, names = ss[0], metric_names(ss)
    swept = sorted({k for s in ss for k, _ in s.params})
    as_workload = workload(REGISTRY[kind]) if kind in REGISTRY else None
    wanted = as_workload.report_metrics if as_workload is not None else ()  # the kind's own list
    kind_rows = [KindRow(host=s.host, point=s.point_label, metric=s.key, name=names[s.key], unit=s.unit,
                         median=fmt(s.summary.median), n=s.summary.n)
                 for name in wanted for s in ss if s.metric == name]
    partial = f"{kind}.md.j2"
    return Workload(play=first.play, step=step, title=first.title, kind=kind,
                    partial=partial if partial in templates else "",
                    hosts=list(dict.fromkeys(s.host for s in ss)), swept=swept,
                    swept_words=[param_words(p, kind) for p in swept],
                    points=list(dict.fromkeys(s.point_label for s in ss)),
                    repeats=max(s.summary.n for s in ss), warmups=max(s.warmups for s in ss),
                    tables=_stats_tables(ss, names), kind_rows=kind_rows,
                    sweep_table=_sweep_table(ss, table_metrics(kind, wanted)), data_on=data_on)


def _stats_tables(ss: Sequence[Series], names: Mapping[str, str]) -> list[StatsTable]:
    """Per headline metric, the full statistics of every host and point."""
    tables = []
    for key in dict.fromkeys(s.key for s in ss if s.headline):
        mine = [s for s in ss if s.key == key]
        rows = [StatsRow(host=s.host, point=s.point_label, n=s.summary.n, warmups=s.warmups, min=fmt(s.summary.min),
                         median=fmt(s.summary.median), max=fmt(s.summary.max), spread=fmt(s.summary.spread),
                         cv_pct=fmt(s.summary.cv_pct)) for s in mine]
        tables.append(StatsTable(metric=key, name=names[key], unit=mine[0].unit, direction=mine[0].direction.value,
                                 rows=rows, repeated=any(r["n"] > 1 for r in rows)))
    return tables


def _awr_lines(data: RunData, host: str) -> list[AwrLine]:
    out: list[AwrLine] = []
    seen = set()
    for a in data.artifacts:
        f = dict(a.facts)
        if a.host != host or "host_name" not in f and "platform" not in f:
            continue
        vals = {m.metric: m.value for m in data.measurements if m.artifact == a.path
                and m.metric in ("cpus", "cores", "sockets", "memory_gb")}
        line: tuple[Any, ...] = (f.get("host_name", ""), f.get("platform", ""),
                                 *(vals.get(k) for k in ("cpus", "cores", "sockets")), vals.get("memory_gb"))
        if line in seen:
            continue
        seen.add(line)
        out.append({"host_name": line[0], "platform": line[1], "cpus": fmt(line[2], 0), "cores": fmt(line[3], 0),
                    "sockets": fmt(line[4], 0), "memory_gb": fmt(line[5], 2), "db_name": f.get("db_name", ""),
                    "version": f.get("version", ""), "rac": f.get("rac", ""), "source": a.path})
    return out


def _prep(data: RunData, host: str) -> list[PrepRow]:
    restored = {(e.host, e.step): e for e in map(RestoreEntry.from_json, data.restore)}
    out: list[PrepRow] = []
    for r in data.results:
        if r.host != host or r.section != Section.PREP.value or r.index is None:  # not the play's one restart
            continue
        restore = r.phase is Phase.RESTORE
        e = None if restore else restored.get((host, r.step))  # said once, on the change
        change = (r.diff or r.msg or "").strip().replace("\n", "; ")
        out.append({"step": r.step, "title": r.title, "play": play_name(r.play, data.play_names()),
                    "status": r.status.value, "change": change, "restore": restore,
                    "original": "" if e is None else e.describe(),
                    "restored": "" if e is None else ("yes" if e.reverted else "no")})
    return out


def _waits(host_series: Sequence[Series]) -> list[WaitGroup]:
    groups: dict[tuple[str, str, str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    kinds = _step_kinds(host_series)
    for s in host_series:
        if not s.metric.startswith("wait.") or s.label("section", "top") != "top":
            continue
        ev = groups[(s.play, s.step, s.title, s.point_label)].setdefault(s.label("event"), {
            "event": s.label("event"), "wait_class": s.label("wait_class"), "rank": int(s.label("rank") or 99),
            "waits": 0.0, "time_s": 0.0, "pct_db_time": None, "has_waits": False})
        if s.metric == "wait.waits":
            ev["waits"], ev["has_waits"] = sum(s.values), True
        elif s.metric == "wait.time_s":
            ev["time_s"] = sum(s.values)
        elif s.metric == "wait.pct_db_time":
            ev["pct_db_time"] = s.summary.mean
    return [WaitGroup(play=play, workload=title, point=point, point_words=label_words_of(point, kinds.get(step, "")),
                      events=[_wait_event(ev) for ev in sorted(events.values(), key=lambda e: e["rank"])])
            for (play, step, title, point), events in groups.items()]


def _wait_event(ev: Mapping[str, Any]) -> WaitEvent:
    return WaitEvent(event=ev["event"], wait_class=ev["wait_class"],
                     waits=fmt(ev["waits"], 0) if ev["has_waits"] else "", time_s=fmt(ev["time_s"], 0),
                     avg_ms=_avg_wait(ev), pct_db_time=fmt(ev["pct_db_time"]))


def _avg_wait(ev: Mapping[str, Any]) -> str:
    """time / waits; when AWR printed the time as 0 s (its whole seconds) over real waits, the average is not
    0 ms but under half a second spread over them: said as that bound ("under 1.96"), never "0.00"."""
    if not (ev["has_waits"] and ev["waits"]):
        return "—"
    if ev["time_s"] <= 0:
        return f"under {fmt(500 / ev['waits'], 2)}"
    return fmt(ev["time_s"] / ev["waits"] * 1000, 2)


def _os(host_series: Sequence[Series], lab: bool) -> list[OsGroup]:
    groups: dict[tuple[str, str, str, str], list[OsMetric]] = defaultdict(list)
    for s in host_series:
        if s.metric in OS_LABELS:
            tool = f" ({s.label('tool')})" if s.label("tool") else ""  # os.samples: one per sampler
            rows = groups[(s.play, s.step, s.title, s.point_label)]
            # repeats whose windows were cut differently are two series of one figure: the point shows it once
            if not any(r["name"] == OS_LABELS[s.metric] + tool for r in rows):
                rows.append({"name": OS_LABELS[s.metric] + tool, "value": fmt(s.summary.median, 0 if tool else 1),
                             "unit": s.unit})
            if s.label("window"):  # the tool's own window (SLOB's snapshots, a driver's timed test): said once
                _window_row(rows, s.label("window"))
        elif s.metric == "host_cpu.idle_pct":
            groups[(s.play, s.step, s.title, s.point_label)].append({"name": "AWR Host CPU busy %", "unit": "%",
                                                    "value": fmt(100 - s.summary.median)})
    kinds = _step_kinds(host_series)
    return [OsGroup(play=pl, workload=t, point=p, point_words=label_words_of(p, kinds.get(st, "")),
                    metrics=_one_samples_row(ms), lab=lab)
            for (pl, st, t, p), ms in groups.items()]


def _step_kinds(series: Sequence[Series]) -> dict[str, str]:
    """Each step's workload kind (its own series say it), so a point label is put in that kind's words."""
    return {s.step: s.kind for s in series if s.kind}


def _window_row(rows: list[OsMetric], words: str) -> None:
    """The point's "OS statistics window" row; repeats cut differently each say theirs, once."""
    row = next((r for r in rows if r["name"] == "OS statistics window"), None)
    if row is None:
        rows.append({"name": "OS statistics window", "value": words, "unit": ""})
    elif words not in row["value"].split("; "):
        row["value"] += "; " + words


def _one_samples_row(metrics: list[OsMetric]) -> list[OsMetric]:
    """Each sampler's count of samples in the window as one row, "(iostat / mpstat / vmstat) 1 / 3 / 3"."""
    label = OS_LABELS["os.samples"]
    counts = sorted((m for m in metrics if m["name"].startswith(label + " (")), key=lambda m: m["name"])
    if len(counts) < 2:
        return metrics
    tools = " / ".join(m["name"][len(label) + 2:-1] for m in counts)
    row = OsMetric(name=f"{label} ({tools})", value=" / ".join(m["value"] for m in counts), unit="")
    return [m for m in metrics if m not in counts] + [row]


def _hosts(data: RunData, all_series: Sequence[Series]) -> list[HostSection]:
    names = list(dict.fromkeys([*data.facts, *(r.host for r in data.results if r.host)]))
    plays = {p.name: list(p.hosts) for p in data.meta.plays}
    out = []
    for h in names:
        f = dict(data.facts.get(h, {}))
        hs = [s for s in all_series if s.host == h]
        out.append(HostSection(
            name=h, plays=[p for p, hosts in plays.items() if h in hosts],
            facts=HostFacts(hostname=f.get("hostname", ""), cpus=f.get("cpus", ""), cores=f.get("cores", ""),
                            sockets=f.get("sockets", ""), memory_gb=f.get("memory_gb", ""),
                            kernel=f.get("kernel", ""), cpu_model=f.get("cpu_model", ""),
                            distribution=f.get("distribution", ""), known=bool(f),
                            rehearsal=data.meta.simulated),
            awr_lines=_awr_lines(data, h), prep=_prep(data, h), waits=_waits(hs), os=_os(hs, data.meta.simulated),
            db_sources=_db_sources(data, h)))
    return out


def _db_sources(data: RunData, host: str) -> list[DbSource]:
    """Per workload step: the statistics source (AWR / Statspack) and why, and the buffer pool holding the
    workload's data with its effective size, as the step recorded them (planner.extras.DatabaseSeen)."""
    out: dict[tuple[str, str], DbSource] = {}
    cagings: dict[tuple[str, str], dict[str, str]] = {}
    for r in data.results:
        d = r.extra
        if r.host != host or not isinstance(d, DatabaseSeen) or not d.statistics:
            continue
        point = ", ".join(f"{k}={v}" for k, v in r.params) + ": " if r.params else ""
        cagings.setdefault((r.step, d.statistics), {}).setdefault(d.caging.describe, point)
        out.setdefault((r.step, d.statistics), {
            "play": play_name(r.play, data.play_names()), "workload": r.title,
            "statistics": "AWR" if d.statistics == "awr" else "Statspack", "why": d.statistics_why,
            "pool": d.cache.pool, "cache_mb": d.cache.cache_bytes >> 20, "pct": d.cache.pct_of_data,
            "container": d.container.describe, "caging": d.caging.describe, "awr_level": d.awr_level})
    for key, words in cagings.items():  # a window opening mid-sweep cages some points and not others: say which
        said = {w: p for w, p in words.items() if w}
        if len(said) > 1:
            out[key]["caging"] = "varied by point: " + "; ".join(f"{p}{w}" for w, p in said.items())
    return list(out.values())


def _supporting(rows: Mapping[Row, list[Series]], support: Sequence[Series]) -> dict[Row, list[Series]]:
    """Supporting metrics in the same workload rows as the headline (by kind when the headline is by kind)."""
    workload_of = {(s.play, s.step): r.workload for r, ss in rows.items() for s in ss}
    out: dict[Row, list[Series]] = defaultdict(list)
    for s in support:
        if (s.play, s.step) in workload_of:
            out[Row(workload_of[(s.play, s.step)], s.key)].append(s)
    return out


def _parse_problems(data: RunData) -> list[ParseProblem]:
    """Parse errors said once per message, with the files that had it (three mpstat files, one line)."""
    out: dict[tuple[str, str], ParseProblem] = {}
    for a in data.artifacts:
        for e in a.errors:
            text = str(e)
            for prefix in (f"{data.run_dir / a.path}: ", f"{a.path}: "):
                text = text.removeprefix(prefix)
            out.setdefault((a.kind, text), {"kind": a.kind, "error": text, "artifacts": []})["artifacts"].append(a.path)
    return list(out.values())


def _side_by_side(data: RunData, rows: Mapping[Row, list[Series]], hosts: Sequence[HostSection],
                  plays: Sequence[str]) -> SideBySide:
    """Per system at its best point (of the first headline metric): host line, top waits, OS statistics."""
    first = next(iter(rows.values()), [])
    best = {p: best_of([s for s in first if s.play == p]) for p in plays if any(s.play == p for s in first)}
    cols = [p for p in plays if p in best]
    host_rows: list[SideHost] = []
    events: dict[str, dict[str, Any]] = {}
    os_rows: dict[str, dict[str, str]] = {}
    for p in cols:
        label = " ".join(f"{k}={v}" for k, v in best[p].params) or "—"
        for h in (h for h in hosts if p in h["plays"]):
            host_rows.append(SideHost(play=p, host=h["name"], line=h["awr_lines"][0] if h["awr_lines"] else {},
                                      point=point_words(best[p].params, best[p].kind)))
            _side_waits(p, [g for g in h["waits"] if g["play"] == p and g["point"] == label], events)
            for g in h["os"]:
                if g["play"] == p and g["point"] == label:
                    for m in g["metrics"]:
                        os_rows.setdefault(m["name"], {})[p] = m["value"]
    swept = [f"{p} at {point_words(best[p].params, best[p].kind)}" for p in cols if best[p].params]
    return SideBySide(columns=cols, points=[point_words(best[p].params, best[p].kind) for p in cols],
                      hosts=host_rows, points_text="; ".join(swept),
                      waits=[{"event": e["event"], "wait_class": e["wait_class"],
                              "cells": [e["cells"].get(p, "—") for p in cols]} for e in events.values()],
                      os=[{"name": n, "cells": [v.get(p, "—") for p in cols]} for n, v in os_rows.items()],
                      os_lab=data.meta.simulated)


def _side_waits(play: str, groups: Sequence[WaitGroup], events: dict[str, dict[str, Any]]) -> None:
    """A system's top 5 wait events at its best point, each a cell of the event's row."""
    for g in groups:
        for e in g["events"][:5]:
            cell = f"{e['avg_ms']} ms, {e['pct_db_time']}%" if e["avg_ms"] != "—" else f"{e['pct_db_time']}%"
            events.setdefault(e["event"], {"event": e["event"], "wait_class": e["wait_class"],
                                           "cells": {}})["cells"][play] = cell


@dataclass(frozen=True, slots=True)
class _Study:
    """The headline series as the summary, the Result and the charts read them: by workload row, the rows
    that say nothing left out, with their supporting metrics and names, systems in plan order."""

    rows: dict[Row, list[Series]]
    silent: list[tuple[Row, float, Row]]
    heads: list[Series]
    support: list[Series]
    names: dict[str, str]
    play_order: list[str]


def _study(data: RunData, all_series: Sequence[Series]) -> _Study:
    heads = [s for s in all_series if s.headline]
    rows = rows_of(heads)
    silent = silent_rows(rows)
    rows = {r: ss for r, ss in rows.items() if r not in {q for q, _, _ in silent}}
    wanted = {m for k in {s.kind for s in heads} for m in table_metrics(k)}
    prep = prep_steps(data)
    support = [s for s in all_series if not s.headline and s.metric in wanted and s.step not in prep
               and dict(s.labels).get("instance", "all") == "all" and "awr_scope" not in dict(s.labels)]  # RAC: cluster
    names = metric_names([*heads, *support])
    for s in heads:  # summary rows put a RAC cluster total beside single-instance figures (study.row_key)
        names.setdefault(row_key(s.key), names[s.key])
    play_order = [p for p in data.play_names() if any(s.play == p for s in heads)]
    play_order += [p for p in dict.fromkeys(s.play for s in heads) if p not in play_order]
    return _Study(rows, silent, heads, support, names, play_order)


def _summary(data: RunData, study: _Study, report_dir: Path, charts: bool) -> Summary:
    args = {(p.name, w.path): dict(w.args) for p in data.plan.plays for w in p.workloads} if data.plan else {}
    chart_list = study_charts(study.rows, study.names, study.play_order, args, data.run_dir, report_dir,
                              data.meta.simulated) if charts else []
    table = summary(study.rows, study.names, _columns(data, study.heads), _supporting(study.rows, study.support))
    names = study.names
    return Summary(columns=table["columns"], rows=table["rows"], charts=chart_list,
                   silent=[{"name": names.get(r.key, r.key), "max": fmt(v), "against": names.get(o.key, o.key),
                            "workload": r.workload} for r, v, o in study.silent],
                   zero=[{"name": names.get(r.key, r.key), "workload": r.workload}
                         for r in zero_rows(study.rows)] if charts else [])


def _verdict_rows(verdicts: Sequence[ClaimVerdict]) -> list[VerdictRow]:
    return [VerdictRow(source=v.source, play=v.play, metric=v.metric, expected=v.expected,
                       tolerance_pct=v.tolerance_pct, measured=v.measured, diff_pct=v.diff_pct, unit=v.unit,
                       point=v.point, verdict=v.verdict.value, reason=v.reason, expected_text=fmt(v.expected),
                       measured_text=fmt(v.measured), diff_text="—" if v.diff_pct is None else f"{v.diff_pct:+.1f}%",
                       name=display_name(v.metric), point_words=label_words_of(v.point))
            for v in verdicts]


def _plays(data: RunData, rated: Mapping[str, Mapping[str, float]]) -> list[PlayRow]:
    return [PlayRow(name=p.name, hosts=list(p.hosts),
                    rated=[{"metric": k, "name": display_name(k), "value": fmt(v)}
                           for k, v in rated.get(p.name, {}).items()])
            for p in data.meta.plays]


def _parse_errors(data: RunData) -> list[ParseErrorRow]:
    return [ParseErrorRow(artifact=a.path, kind=a.kind, host=a.host, error=e) for a in data.artifacts
            for e in a.errors]


def _artifacts(data: RunData) -> list[ArtifactRow]:
    return [ArtifactRow(path=a.path, kind=a.kind, host=a.host, simulated=a.simulated, ok=a.parsed_ok)
            for a in data.artifacts]


def build_context(data: RunData, report_dir: Path, templates: set[str] | None = None,
                  charts: bool = True, *, over_time: bool = True, results: RunResults | None = None) -> ReportContext:
    """The whole context, one builder per section; ``results``: the run's evaluation when the caller has it."""
    res = results if results is not None else evaluate(data)
    charts = charts and matplotlib_available()
    study = _study(data, res.series)
    findings, verdict_rows = finding_rows(res.findings, res.series, grouped=False), _verdict_rows(res.verdicts)
    grouped = finding_rows(res.findings, res.series)
    hosts = _hosts(data, res.series)
    return ReportContext(
        run=_run(data, report_dir), simulated=_simulated(data), generated_by=f"planner {__version__}",
        plays=_plays(data, res.rated),
        recap=[{"host": h, **asdict(s)} for h, s in recap(data.results).items() if h],
        summary=_summary(data, study, report_dir, charts),
        result=result(study.rows, study.names, study.play_order, verdict_rows, grouped),
        side_by_side=_side_by_side(data, study.rows, hosts, study.play_order),
        rac=rac_sections(data),  # only RAC runs have global reports: empty (no section) otherwise
        workloads=_workloads(data, res.series, templates or set()),
        hosts=hosts, findings=findings, finding_groups=grouped, verdicts=verdict_rows,
        parse_errors=_parse_errors(data), parse_problems=_parse_problems(data), artifacts=_artifacts(data),
        stats_method=METHOD, charts_enabled=charts, combine_note=COMBINE_NOTE,
        inside=inside(res.points, data.run_dir, report_dir, charts and over_time, data.measurements,
                      data.meta.simulated))


def relocated(ctx: ReportContext, data: RunData, report_dir: Path) -> ReportContext:
    """The same context for a copy of the report in another folder (the plan's ``report: output:``): its links
    relative to that folder, the charts the ones already drawn (a chart is drawn once per report)."""
    charts = [{**c, "path": os.path.relpath(c["file"], report_dir)} for c in ctx["summary"]["charts"]]
    return {**ctx, "run": _run(data, report_dir), "summary": {**ctx["summary"], "charts": charts}}
