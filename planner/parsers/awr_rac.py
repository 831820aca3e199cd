"""The AWR global (RAC) report, ``awrgrpt.sql`` HTML (SLOB writes it as ``awr_rac.html``), 12.2+.

Cluster totals carry no ``instance`` label (or ``instance=*`` where the report prints its ``*`` row); per
instance values carry ``instance=<I#>``. Tables are found by their ``summary`` attribute:

- ``Database Summary``: db_time_min / elapsed_min (cluster), ``instances``, ``hosts``; facts db_name, dbid,
  unique_name, db_role, edition, rac, cdb, begin/end snap ids.
- ``Database Instances Included In Report``: per instance elapsed_min, db_time_min, ``aas``, uptime; facts
  ``instance[I#]``, ``host[I#]``, ``version``.
- ``Time Model``: per instance db_time_s, db_cpu_s (and their sum as the cluster's db_time_s).
- ``OS Statistics By Instance``: per instance cpus, cores, sockets, host_cpu.* (load, %busy, %usr, %sys,
  %wio, %idle).
- ``Top Timed Events``: wait.* with section=top, instance=* (cluster) or I#.

- ``System Statistics - Per Second``: per instance (``I#``) and the ``Sum`` row (cluster) logical/physical
  reads and writes, redo, calls ..., as the text form (planner.parsers.awr_rac_text).
- ``System Statistics (Global)``: the cluster's physical read/write total IO requests and bytes per second.

The cluster's and each instance's IOPS and MB/s are derived as in the text form (``cluster_io``:
``instance=all``, ``basis=requests`` from IO requests, else ``basis=blocks``); they are the headline.
"""

from __future__ import annotations

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers.awr_common import (
    EventRow,
    H,
    L,
    N,
    add_event,
    full_wait_class,
    missing_section,
    parse_avg_wait_ms,
    parse_number,
)
from planner.parsers.awr_html import Table, _html_start, _tables, read_html
from planner.parsers.awr_rac_text import _GLOBAL_STATS, _PER_SECOND, cluster_io
from planner.parsers.awr_rac_text import HEADLINE as _CLUSTER_IO
from planner.parsers.awr_text import check_text
from planner.parsers.numbers import put

KIND = "awr_rac_html"


def looks_like(text: str) -> bool:
    head = text[_html_start(text):][:16384]
    return "<title>AWR RAC Report for DB:" in head or ("WORKLOAD REPOSITORY REPORT (RAC)" in head and "<table" in head)


def _cells(t: Table, cells: list[str]) -> dict[str, str]:
    return {h.lower(): c for h, c in zip(t.header, cells, strict=False)}


def _summary(tables: list[Table], sink: MetricSink) -> bool:
    for t in _tables(tables, "database summary"):
        for line, cells in t.rows[:1]:
            if len(cells) < 16:
                return False
            for i, fact in enumerate(("dbid", "db_name", "unique_name", "db_role", "edition", "rac", "cdb")):
                sink.facts[fact] = cells[i]
            sink.facts["begin_snap_id"], sink.facts["end_snap_id"] = cells[8], cells[9]
            for idx, name, unit in ((10, "instances", "instances"), (12, "hosts", "hosts"),
                                    (14, "db_time_min", "min"), (15, "elapsed_min", "min"),
                                    (7, "block_size", "bytes")):
                if (v := parse_number(cells[idx])) is not None:
                    put(sink, name, v, unit, N, line)
            return True
    return False


def _instances(tables: list[Table], sink: MetricSink) -> int:
    n = 0
    for t in _tables(tables, "database instances included in report"):
        for line, cells in t.rows:
            get = _cells(t, cells)
            inst = get.get("i#", "")
            if not inst:
                continue
            sink.facts[f"instance[{inst}]"] = get.get("instance", "")
            sink.facts[f"host[{inst}]"] = get.get("host", "")
            if get.get("release"):
                sink.facts.setdefault("version", get["release"])
            if get.get("platform"):
                sink.facts.setdefault("platform", get["platform"])
            for key, name, unit in (("elapsed time(min)", "elapsed_min", "min"), ("db time(min)", "db_time_min", "min"),
                                    ("up time(hrs)", "uptime_h", "h"), ("avg active sessions", "aas", "sessions")):
                if (v := parse_number(get.get(key, ""))) is not None:
                    put(sink, name, v, unit, N, line, {"instance": inst})
            n += 1
    return n


def _time_model(tables: list[Table], sink: MetricSink) -> int:
    rows: list[tuple[int, str, dict[str, str]]] = []
    for t in tables:
        if t.summary == "time model":
            rows += [(line, cells[0] if cells else "", _cells(t, cells)) for line, cells in t.rows]
    times = [(line, v) for line, _i, get in rows if (v := parse_number(get.get("db time (s)", ""))) is not None]
    if times:  # the cluster's DB time first: what parsed.value("db_time_s") and the wait-class shares use
        put(sink, "db_time_s", sum(v for _, v in times), "s", N, times[0][0])
    for line, inst, get in rows:
        for key, name in (("db time (s)", "db_time_s"), ("db cpu (s)", "db_cpu_s")):
            if (v := parse_number(get.get(key, ""))) is not None:
                put(sink, name, v, "s", N, line, {"instance": inst})
    return len(rows)


_OS = (("#cpus", "cpus", "cpus", N), ("#cores", "cores", "cores", N), ("#sckts", "sockets", "sockets", N),
       ("begin", "host_cpu.load_avg_begin", "", N), ("end", "host_cpu.load_avg_end", "", N),
       ("% busy", "host_cpu.busy_pct", "%", L), ("% usr", "host_cpu.user_pct", "%", L),
       ("% sys", "host_cpu.sys_pct", "%", L), ("% wio", "host_cpu.wio_pct", "%", L),
       ("% idl", "host_cpu.idle_pct", "%", N))


def _os_stats(tables: list[Table], sink: MetricSink) -> int:
    n = 0
    for t in _tables(tables, "os statistics by instance"):
        for line, cells in t.rows:
            inst = cells[0] if cells else ""
            seen: set[str] = set()
            for h, c in zip(t.header, cells, strict=False):
                key = h.lower()
                match = next((x for x in _OS if x[0] == key and x[0] not in seen), None)
                if match is None:
                    continue
                seen.add(key)  # "#CPUs" comes again under "End Values"
                if (v := parse_number(c)) is not None:
                    put(sink, match[1], v, match[2], match[3], line, {"instance": inst})
            n += 1
    return n


def _top_events(tables: list[Table], sink: MetricSink) -> int:
    n = 0
    for t in tables:
        if not t.summary.startswith("top timed events"):
            continue
        ranks: dict[str, int] = {}
        for line, cells in t.rows:
            if len(cells) < 8 or not cells[2]:
                continue
            inst = cells[0].strip() or "*"
            ranks[inst] = ranks.get(inst, 0) + 1
            add_event(sink, EventRow(cells[2], parse_number(cells[3]), parse_number(cells[5]),
                                     parse_avg_wait_ms(cells[6]), parse_number(cells[7]),
                                     full_wait_class(cells[1]), line), ranks[inst], "top", instance=inst)
            n += 1
    return n


# The cluster's IOPS and MB/s, and the single-block read latency the report prints for the cluster ('*' rows).
HEADLINE = (*_CLUSTER_IO, *(("wait.avg_ms", {"instance": "*", "event": e, "section": "top"})
                            for e in ("db file sequential read", "cell single block physical read")))


def _per_second(tables: list[Table], sink: MetricSink) -> int:
    rows = [(line, cells) for t in _tables(tables, "system statistics - per second") for line, cells in t.rows
            if len(cells) == 1 + len(_PER_SECOND) and (cells[0].isdigit() or cells[0] == "Sum")]
    rows.sort(key=lambda r: r[1][0] != "Sum")  # the cluster first: parsed.value(name) is the cluster's
    for line, cells in rows:
        labels = {} if cells[0] == "Sum" else {"instance": cells[0]}
        for (name, unit, factor), c in zip(_PER_SECOND, cells[1:], strict=True):
            if (v := parse_number(c)) is not None:
                put(sink, name, v * factor, unit, H if name.startswith("physical") else N, line, labels)
    return len(rows)


def _global_stats(tables: list[Table], sink: MetricSink) -> int:
    n = 0
    for t in _tables(tables, "system statistics (global)"):
        for line, cells in t.rows:
            key = cells[0].strip().lower() if cells else ""
            if key in _GLOBAL_STATS and len(cells) > 2 and (v := parse_number(cells[2])) is not None:
                metric, unit = _GLOBAL_STATS[key]
                put(sink, metric, v, unit, H, line)
                n += 1
    return n


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    if not looks_like(text):
        raise ParseError(KIND, "header", "not an AWR RAC (global) HTML report", source=source)
    collector, _ = read_html(text, KIND, source)
    sink = MetricSink(source)
    sink.facts["report"] = "global (RAC)"
    if collector.title:
        sink.facts["title"] = collector.title.strip()
    tables = collector.tables
    for name, read in (("Database Summary", lambda: _summary(tables, sink)),
                       ("Database Instances", lambda: _instances(tables, sink)),
                       ("Time Model", lambda: _time_model(tables, sink)),
                       ("OS Statistics By Instance", lambda: _os_stats(tables, sink)),
                       ("Top Timed Events", lambda: _top_events(tables, sink))):
        if not read():
            sink.errors.append(ParseError(KIND, name, missing_section(text), source=source))
    _per_second(tables, sink)  # where present: a trimmed copy may keep only the summary tables
    _global_stats(tables, sink)
    if not sink.metrics:
        raise ParseError(KIND, "report", "no table could be read", source=source)
    sink.metrics += cluster_io(sink.freeze(KIND))
    return sink.freeze(KIND)
