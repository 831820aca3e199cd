"""fio ``--output-format=json`` / ``json+`` (fio 2.x and 3.x).

Per job (label ``job``) and per direction (label ``dir``: read / write / trim / mixed) that did IO:

- ``fio.iops`` IO/s, ``fio.bw_kib`` KiB/s (fio's ``bw``), ``fio.bw_mbs`` MB/s (10^6 bytes:
  ``bw_bytes`` / 1e6, or ``bw`` * 1024 / 1e6 before 3.x), ``fio.runtime_ms``, ``fio.total_ios``;
- ``fio.lat_ms`` / ``fio.clat_ms`` / ``fio.slat_ms`` with ``stat`` = mean, min, max, stddev, and
  percentiles as ``stat`` = p50, p95, p99, p99.9 ... (from ``clat``/``lat`` percentile tables).
  fio 2.x writes ``clat``/``lat`` in µs, 3.x ``clat_ns``/``lat_ns`` in ns; both become ms.
- per job ``fio.usr_cpu_pct``, ``fio.sys_cpu_pct``; per disk ``fio.disk_util_pct`` (label ``device``).

Facts: ``fio_version``, ``time``, ``global.<option>`` and ``job[<name>].<option>``.
Text before and after the JSON object (job banners, ``--output-format=json,normal``) is skipped.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put

_START = re.compile(r"\{\s*\"fio version\"")
_DIRS = ("read", "write", "trim", "mixed")
_LAT_KEYS = (("lat", "fio.lat_ms"), ("clat", "fio.clat_ms"), ("slat", "fio.slat_ms"))


_SS_PCT = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)%?")
_SS_KINDS = frozenset({"iops", "iops_slope", "bw", "bw_slope"})  # fio's steadystate= criteria (HOWTO)


def looks_like(text: str) -> bool:
    return bool(_START.search(text[:200_000]))


def _pct_label(key: str) -> str | None:
    try:
        p = float(key)
    except ValueError:
        return None
    if p <= 0:  # fio 2.x pads the table with duplicate "0.00": 0 keys
        return None
    return "p" + (f"{p:.6f}".rstrip("0").rstrip("."))


def _num(obj: dict[str, Any], key: str) -> float | None:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


class _Lines:
    """Maps character offsets in the file to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _extract(text: str, source: str) -> tuple[dict[str, Any], int]:
    m = _START.search(text)
    if not m:
        raise ParseError("fio", "json", "no JSON object starting with \"fio version\"", source=source)
    try:
        doc, _end = json.JSONDecoder().raw_decode(text, m.start())
    except (json.JSONDecodeError, RecursionError) as e:
        msg = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
        line = text.count("\n", 0, e.pos) + 1 if isinstance(e, json.JSONDecodeError) else None
        raise ParseError("fio", "json", f"truncated or invalid JSON: {msg}", source=source,
                         line=line) from None
    if not isinstance(doc, dict):
        raise ParseError("fio", "json", "top level is not an object", source=source)
    return doc, m.start()


def _direction(sink: MetricSink, d: dict[str, Any], labels: dict[str, str], line: int,
               job: str, dname: str) -> None:
    iops, bw = _num(d, "iops"), _num(d, "bw")
    if iops is None or bw is None:
        sink.errors.append(ParseError("fio", f"job {job} {dname}", "no numeric iops/bw",
                                      source=sink.source, line=line))
        return
    put(sink, "fio.iops", iops, "IO/s", Direction.HIGHER, line, labels)
    put(sink, "fio.bw_kib", bw, "KiB/s", Direction.HIGHER, line, labels)
    bw_bytes = _num(d, "bw_bytes")
    put(sink, "fio.bw_mbs", (bw_bytes if bw_bytes is not None else bw * 1024) / 1e6, "MB/s", Direction.HIGHER,
        line, labels)
    for key, name, unit in (("runtime", "fio.runtime_ms", "ms"), ("total_ios", "fio.total_ios", "IOs")):
        if (v := _num(d, key)) is not None:
            put(sink, name, v, unit, Direction.NEUTRAL, line, labels)
    for base, name in _LAT_KEYS:
        if isinstance(d.get(base + "_ns"), dict):
            stats, scale = d[base + "_ns"], 1e-6
        elif isinstance(d.get(base), dict):
            stats, scale = d[base], 1e-3
        else:
            continue
        for stat in ("mean", "min", "max", "stddev"):
            if (v := _num(stats, stat)) is not None:
                put(sink, name, v * scale, "ms", Direction.LOWER, line, {"stat": stat, **labels})
        pct = stats.get("percentile")
        if isinstance(pct, dict):
            for k, raw in pct.items():
                label = _pct_label(str(k))
                if label and isinstance(raw, int | float) and not isinstance(raw, bool):
                    put(sink, name, float(raw) * scale, "ms", Direction.LOWER, line, {"stat": label, **labels})


def _pct_text(raw: Any) -> float | None:
    """fio prints its steady-state percentages as text (``"0.000000%"``, ``"iops_slope:50.000000%"``)."""
    m = _SS_PCT.fullmatch(str(raw).strip())
    return float(m.group(1)) if m else None


def _steadystate(sink: MetricSink, ss: Any, job: str, line: int) -> None:
    """fio's own steady-state verdict (``steadystate=``; stat.c ``add_ss_result``): ``ss`` names the criterion
    and its limit, ``criterion`` the last window's measured deviation or slope as a % of its mean, ``attained``
    whether that stayed within the limit."""
    if not isinstance(ss, dict) or not isinstance(ss.get("ss"), str) or ":" not in ss["ss"]:
        return
    kind, _, limit_text = ss["ss"].partition(":")
    limit, measured, attained = _pct_text(limit_text), _pct_text(ss.get("criterion")), ss.get("attained")
    if limit is None or not isinstance(attained, int) or kind not in _SS_KINDS:
        return
    pct = limit_text.strip().endswith("%")  # a limit without % is absolute (IO/s or bytes/s), so is the measure
    labels = {"job": job, "criterion": kind, "limit": f"{limit:g}{'%' if pct else ''}"}
    if isinstance(ss.get("duration"), int | float) and not isinstance(ss.get("duration"), bool):
        labels["window_s"] = f"{ss['duration']:g}"
    sink.add("fio.ss_attained", 1.0 if attained else 0.0, "", Direction.NEUTRAL, line, **labels)
    if measured is not None:
        sink.add("fio.ss_criterion", measured, "%" if pct else "", Direction.NEUTRAL, line, **labels)


def parse(text: str, source: str = "<text>") -> Parsed:
    doc, start = _extract(text, source)
    sink = MetricSink(source)
    lines = _Lines(text)
    sink.facts["fio_version"] = str(doc.get("fio version", ""))
    if "time" in doc:
        sink.facts["time"] = str(doc["time"])
    glob = doc.get("global options")
    if isinstance(glob, dict):
        for k, v in glob.items():
            sink.facts[f"global.{k}"] = str(v)
    jobs = doc.get("jobs") if isinstance(doc.get("jobs"), list) else doc.get("client_stats")
    if not isinstance(jobs, list) or not jobs:
        raise ParseError("fio", "jobs", "no \"jobs\" array", source=source, line=lines.at(start))
    job_offsets = [m.start() for m in re.finditer(r"\"jobname\"", text[start:])]
    names: dict[str, int] = {}
    directions = 0
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            sink.errors.append(ParseError("fio", f"jobs[{i}]", "not an object", source=source))
            continue
        name = str(job.get("jobname", f"job{i}"))
        names[name] = names.get(name, 0) + 1
        if names[name] > 1:  # same name twice (numjobs without group_reporting): keep both apart
            name = f"{name}#{names[name]}"
        off = start + job_offsets[i] if i < len(job_offsets) else start
        line = lines.at(off)
        opts = job.get("job options")
        if isinstance(opts, dict):
            for k, v in opts.items():
                sink.facts[f"job[{name}].{k}"] = str(v)
        if job.get("error"):
            sink.errors.append(ParseError("fio", f"job {name}", f"fio reported error {job.get('error')}",
                                          source=source, line=line))
        for dname in _DIRS:
            d = job.get(dname)
            if not isinstance(d, dict):
                continue
            if not _num(d, "total_ios") and not _num(d, "io_bytes") and not _num(d, "iops"):
                continue  # direction the job never issued
            doff = text.find(f"\"{dname}\"", off)
            _direction(sink, d, {"job": name, "dir": dname}, lines.at(doff) if doff >= 0 else line,
                       name, dname)
            directions += 1
        _steadystate(sink, job.get("steadystate"), name, line)
        for key, mname in (("usr_cpu", "fio.usr_cpu_pct"), ("sys_cpu", "fio.sys_cpu_pct")):
            if (v := _num(job, key)) is not None:
                sink.add(mname, v, "%", Direction.NEUTRAL, line, job=name)
    disks = doc.get("disk_util")
    if isinstance(disks, list):
        for disk in disks:
            if isinstance(disk, dict) and (u := _num(disk, "util")) is not None:
                doff = text.find(f"\"{disk.get('name')}\"", start)
                # client mode (--client): each server's disks, under its "hostname" and "port"
                host = {"host": f"{disk['hostname']}:{disk.get('port', '')}"} if "hostname" in disk else {}
                sink.add("fio.disk_util_pct", u, "%", Direction.NEUTRAL,
                         lines.at(doff) if doff >= 0 else None, False, device=str(disk.get("name", "?")), **host)
    if not directions:
        raise ParseError("fio", "jobs", "no job did any IO (every read/write/trim is empty)",
                         source=source, line=lines.at(start))
    return sink.freeze("fio_json")
