"""The report context: everything a report template may use, as plain dicts and lists (docs/report-context.md).

Built once from a run folder (planner.results.measure.RunData); templates only lay it out. Every key documented is
always present (empty list / "" / None when there is nothing), so templates render under StrictUndefined.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from planner import __version__
from planner.files import slug
from planner.metrics import Direction
from planner.report.charts import ChartPoint, matplotlib_available, sweep_chart
from planner.results.findings import all_findings, verdicts
from planner.results.measure import RunData, play_of
from planner.results.stats import METHOD, Series, fmt, series
from planner.status import recap
from planner.steps import REGISTRY
from planner.steps.saved_state import RestoreEntry

COMBINE_NOTE = ("a play with several hosts: rates (.../s, IOPS) are summed over its hosts, other values "
                "averaged; a sweep's best point counts for rated figures and reproduction claims")
OS_LABELS = {"os.cpu_busy_pct": "CPU busy %", "os.cpu_iowait_pct": "CPU iowait %", "os.read_iops": "read IOPS",
             "os.write_iops": "write IOPS", "os.util_pct_max": "busiest device %util"}


def _plain(v: Any) -> Any:
    return v.value if hasattr(v, "value") and not isinstance(v, int | float | str) else v


def _run(data: RunData, report_dir: Path) -> dict[str, Any]:
    m = data.meta
    git = dict(m.get("git") or {})
    return {
        "id": data.run_id, "plan": str(m.get("plan", "")), "plan_file": str(m.get("plan_file", "")),
        "description": str(m.get("description", "") or ""), "status": str(m.get("status", "")),
        "exit_code": m.get("exit_code"), "started": str(m.get("started") or ""), "ended": str(m.get("ended") or ""),
        "planner_version": str(m.get("planner_version", "")), "python": str(m.get("python", "")),
        "argv": " ".join(str(a) for a in m.get("argv", []) or []), "path": str(data.run_dir),
        "commands_file": os.path.relpath(data.run_dir / "commands.jsonl", report_dir),
        "git": {"commit": git.get("commit") or "", "dirty": git.get("dirty"), "plan_dirty": git.get("plan_dirty"),
                "note": git.get("note", "")},
    }


def _simulated(data: RunData) -> dict[str, Any]:
    """What was simulated, counted per artifact kind (one line per kind, not per file)."""
    what = []
    if data.meta.get("simulated"):
        what.append("the whole run was a rehearsal on simulated hosts (meta.json simulated: true); "
                    "Oracle tools, ORION and iozone were planner stand-ins (planner/rehearsal/standins/)")
    fake = Counter(a.kind or "other" for a in data.artifacts if a.simulated)
    real = Counter(a.kind or "other" for a in data.artifacts if not a.simulated)
    if fake:
        what.append("written by stand-ins: " + ", ".join(f"{k} x{n}" for k, n in sorted(fake.items())))
    if real and data.meta.get("simulated"):
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


def _summary(data: RunData, all_series: Sequence[Series]) -> dict[str, Any]:
    """Rows (workload, metric), columns plays (or play / host): the best sweep point's median, as the seed
    compared systems ("I tried numerous values for readers and 256 gave me the best result")."""
    heads = [s for s in all_series if s.headline]
    cols = _columns(data, heads)
    # Systems are compared on the same kind of workload even when each play names its step differently
    # ("SLOB read-only, 64 to 256 readers" on one, an unnamed slob step on the other): rows go by kind
    # whenever no play has two workloads of that kind.
    titles: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for s in heads:
        if s.title not in titles[s.kind][s.play]:
            titles[s.kind][s.play].append(s.title)
    by_kind = {k for k, plays in titles.items() if all(len(t) == 1 for t in plays.values())}

    def row_of(s: Series) -> tuple[str, str]:
        if s.kind not in by_kind:
            return s.title, s.key
        names = list(dict.fromkeys(t for ts in titles[s.kind].values() for t in ts))
        return " / ".join(names), s.key

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    cands: dict[tuple[str, str], dict[tuple[str, str], list[Series]]] = defaultdict(lambda: defaultdict(list))
    for s in heads:
        rk = row_of(s)
        rows.setdefault(rk, {"workload": rk[0], "kind": s.kind, "metric": s.key, "unit": s.unit,
                             "direction": s.direction.value})
        cands[rk][(s.play, s.host)].append(s)
    out = []
    for rk, r in rows.items():
        cells = []
        for p, h in cols:
            ss = [x for (cp, ch), xs in cands[rk].items() if cp == p and (not h or ch == h) for x in xs]
            if not ss:
                cells.append("—")
                continue
            pick = min if ss[0].direction is Direction.LOWER else max
            best = pick(ss, key=lambda x: x.summary.median)
            point = f" ({best.point_label})" if len(ss) > 1 else ""
            cells.append(fmt(best.summary.median) + point)
        out.append({**r, "cells": cells})
    return {"columns": [f"{p} / {h}" if h else p for p, h in cols], "rows": out}


def _chart(data: RunData, report_dir: Path, w_key: str, key: str, unit: str, xname: str,
           per_host: Mapping[str, list[Series]]) -> str:
    lines = []
    for host, ss in per_host.items():
        pts = [ChartPoint(str(dict(s.params).get(xname, s.point_label)), s.summary.min, s.summary.median,
                          s.summary.max) for s in ss]
        lines.append((host, pts))
    path = data.run_dir / "charts" / f"{slug(w_key)}-{slug(key)}.svg"
    written = sweep_chart(path, key, xname, f"{key} ({unit})", lines)
    return os.path.relpath(written, report_dir) if written else ""


def _workloads(data: RunData, all_series: Sequence[Series], report_dir: Path, charts: bool,
               templates: set[str]) -> list[dict[str, Any]]:
    by_step: dict[str, list[Series]] = defaultdict(list)
    for s in all_series:
        if ".prep[" not in s.step:
            by_step[s.step].append(s)
    out = []
    for step, ss in by_step.items():
        first = ss[0]
        kind = data.step_kinds.get(step, first.kind)
        swept = sorted({k for s in ss for k, _ in s.params})
        points = list(dict.fromkeys(s.point_label for s in ss))
        tables = []
        for key in dict.fromkeys(s.key for s in ss if s.headline):
            per_host: dict[str, list[Series]] = defaultdict(list)
            for s in ss:
                if s.key == key:
                    per_host[s.host].append(s)
            rows = []
            for host, hs in per_host.items():
                for s in hs:
                    sm = s.summary
                    rows.append({"host": host, "point": s.point_label, "n": sm.n, "warmups": s.warmups,
                                 "min": fmt(sm.min), "median": fmt(sm.median), "max": fmt(sm.max),
                                 "spread": fmt(sm.spread), "cv_pct": fmt(sm.cv_pct)})
            chart = ""
            s0 = per_host[next(iter(per_host))][0]
            key_points = {x.point_label for xs in per_host.values() for x in xs}
            if charts and len(swept) == 1 and len(key_points) > 1:
                chart = _chart(data, report_dir, f"{first.play}-{step}", key, s0.unit, swept[0], per_host)
            tables.append({"metric": key, "unit": s0.unit, "direction": s0.direction.value, "rows": rows,
                           "chart": chart})
        wanted = REGISTRY[kind].report_metrics if kind in REGISTRY else ()  # the kind's own list
        kind_rows = [{"host": s.host, "point": s.point_label, "metric": s.key, "unit": s.unit,
                      "median": fmt(s.summary.median), "n": s.summary.n}
                     for name in wanted for s in ss if s.metric == name]
        partial = f"{kind}.md.j2"
        out.append({"play": first.play, "step": step, "title": first.title, "kind": kind,
                    "partial": partial if partial in templates else "",
                    "hosts": list(dict.fromkeys(s.host for s in ss)), "swept": swept, "points": points,
                    "repeats": max(s.summary.n for s in ss), "warmups": max(s.warmups for s in ss),
                    "tables": tables, "kind_rows": kind_rows})
    return out


def _awr_lines(data: RunData, host: str) -> list[dict[str, Any]]:
    out, seen = [], set()
    for a in data.artifacts:
        f = dict(a.facts)
        if a.host != host or "host_name" not in f and "platform" not in f:
            continue
        vals = {m.metric: m.value for m in data.measurements if m.artifact == a.path
                and m.metric in ("cpus", "cores", "sockets", "memory_gb")}
        line = (f.get("host_name", ""), f.get("platform", ""), *(vals.get(k) for k in ("cpus", "cores", "sockets")),
                vals.get("memory_gb"))
        if line in seen:
            continue
        seen.add(line)
        out.append({"host_name": line[0], "platform": line[1], "cpus": fmt(line[2], 0), "cores": fmt(line[3], 0),
                    "sockets": fmt(line[4], 0), "memory_gb": fmt(line[5], 2), "db_name": f.get("db_name", ""),
                    "version": f.get("version", ""), "rac": f.get("rac", ""), "source": a.path})
    return out


def _prep(data: RunData, host: str) -> list[dict[str, Any]]:
    restored = {(e.host, e.step): e for e in map(RestoreEntry.from_json, data.restore)}
    out = []
    for r in data.results:
        if r.host != host or ".prep[" not in r.step:
            continue
        e = None if r.title.startswith("restore ") else restored.get((host, r.step))  # said once, on the change
        change = (r.diff or r.msg or "").strip().replace("\n", "; ")
        out.append({"step": r.step, "title": r.title, "play": play_of(r.step, data.play_names()),
                    "status": r.status.value, "change": change,
                    "original": "" if e is None else e.describe(),
                    "restored": "" if e is None else ("yes" if e.reverted else "no")})
    return out


def _waits(host_series: Sequence[Series]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
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
    out = []
    for (play, _step, title, point), events in groups.items():
        rows = []
        for ev in sorted(events.values(), key=lambda e: e["rank"]):
            avg = ev["time_s"] / ev["waits"] * 1000 if ev["has_waits"] and ev["waits"] else None
            rows.append({"event": ev["event"], "wait_class": ev["wait_class"],
                         "waits": fmt(ev["waits"], 0) if ev["has_waits"] else "", "time_s": fmt(ev["time_s"], 0),
                         "avg_ms": fmt(avg, 2), "pct_db_time": fmt(ev["pct_db_time"])})
        out.append({"play": play, "workload": title, "point": point, "events": rows})
    return out


def _os(host_series: Sequence[Series]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for s in host_series:
        if s.metric in OS_LABELS:
            groups[(s.play, s.step, s.title, s.point_label)].append({"name": OS_LABELS[s.metric], "value": fmt(s.summary.median),
                                                    "unit": s.unit})
        elif s.metric == "host_cpu.idle_pct":
            groups[(s.play, s.step, s.title, s.point_label)].append({"name": "AWR Host CPU busy %", "unit": "%",
                                                    "value": fmt(100 - s.summary.median)})
    return [{"play": pl, "workload": t, "point": p, "metrics": ms} for (pl, _s, t, p), ms in groups.items()]


def _hosts(data: RunData, all_series: Sequence[Series]) -> list[dict[str, Any]]:
    names = list(dict.fromkeys([*data.facts, *(r.host for r in data.results if r.host)]))
    plays = {str(p.get("name")): list(p.get("hosts", [])) for p in data.meta.get("plays", [])}
    out = []
    for h in names:
        f = dict(data.facts.get(h, {}))
        hs = [s for s in all_series if s.host == h]
        out.append({
            "name": h, "plays": [p for p, hosts in plays.items() if h in hosts],
            "facts": {"hostname": f.get("hostname", ""), "cpus": f.get("cpus", ""), "cores": f.get("cores", ""),
                      "sockets": f.get("sockets", ""), "memory_gb": f.get("memory_gb", ""),
                      "kernel": f.get("kernel", ""), "cpu_model": f.get("cpu_model", ""),
                      "distribution": f.get("distribution", ""), "known": bool(f)},
            "awr_lines": _awr_lines(data, h), "prep": _prep(data, h), "waits": _waits(hs), "os": _os(hs)})
    return out


def _working_sets(data: RunData) -> dict[str, float]:
    out: dict[str, float] = {}
    for p in data.plan.plays if data.plan else ():
        v = {**dict(data.plan.vars), **dict(p.vars)}
        if isinstance(v.get("working_set_mb"), int | float):
            out[p.name] = float(v["working_set_mb"])
        elif isinstance(v.get("working_set_gb"), int | float):
            out[p.name] = float(v["working_set_gb"]) * 1024
    return out


def build_context(data: RunData, report_dir: Path, templates: set[str] | None = None,
                  charts: bool = True) -> dict[str, Any]:
    all_series = series(data.measurements)
    rated = {p.name: dict(p.rated) for p in data.plan.plays} if data.plan else {}
    claims = data.plan.reproduces if data.plan else ()
    sim = _simulated(data)
    charts = charts and matplotlib_available()
    findings = [{**{k: _plain(v) for k, v in asdict(f).items()},
                 "numbers": [{"name": n, "value": v} for n, v in f.numbers]}
                for f in all_findings(all_series, rated, _working_sets(data))]
    verdict_rows = [{**{k: _plain(v) for k, v in asdict(v).items()}, "measured_text": fmt(v.measured),
                     "expected_text": fmt(v.expected), "diff_text": "—" if v.diff_pct is None else f"{v.diff_pct:+.1f}%"}
                    for v in verdicts(claims, all_series, sim["any"])]
    stats = recap(data.results)
    return {
        "run": _run(data, report_dir), "simulated": sim, "generated_by": f"planner {__version__}",
        "plays": [{"name": p.get("name", ""), "hosts": list(p.get("hosts", [])),
                   "rated": [{"metric": k, "value": fmt(v)} for k, v in rated.get(str(p.get("name")), {}).items()]}
                  for p in data.meta.get("plays", [])],
        "recap": [{"host": h, **asdict(s)} for h, s in stats.items() if h],
        "summary": _summary(data, all_series),
        "workloads": _workloads(data, all_series, report_dir, charts, templates or set()),
        "hosts": _hosts(data, all_series), "findings": findings, "verdicts": verdict_rows,
        "parse_errors": [{"artifact": a.path, "kind": a.kind, "host": a.host, "error": e}
                         for a in data.artifacts for e in a.errors],
        "artifacts": [{"path": a.path, "kind": a.kind, "host": a.host, "simulated": a.simulated, "ok": a.parsed_ok}
                      for a in data.artifacts],
        "stats_method": METHOD, "charts_enabled": charts,
        "combine_note": COMBINE_NOTE,
    }
