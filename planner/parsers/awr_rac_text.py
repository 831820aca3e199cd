"""The AWR global (RAC) report in TEXT: ``awrgrpt.sql`` text output (SLOB 2.x writes it as ``awr_rac.txt``) and
``SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT(dbid, '', bid, eid))``.

Pinned on a real 11.2.0.3 three-instance report (tests/data/awr_rac/README.md) for the Database Instances table,
the Database Summary and ``System Statistics - Per Second``; the sections that sample lacks (Top Timed Events,
``System Statistics (Global)``) follow the column order of awrgrpt's own queries and are pinned on a labelled
constructed sample. Sections are found by their titles; tables are read by the dashes line under their headings.

Metrics, as awr_rac (the HTML form): cluster totals carry no ``instance`` label (the report's ``Sum`` row or
``*`` rows), per instance values carry ``instance=<I#>``.

- Database Summary: instances, hosts, db_time_min, elapsed_min, block_size; facts dbid, db_name, rac, snaps.
- Database Instances Included In Report: per instance elapsed_min, db_time_min, uptime_h, aas; facts
  ``instance[I#]``, ``host[I#]``, version.
- System Statistics - Per Second: logical_reads_per_s, physical_reads_per_s, physical_writes_per_s (blocks),
  redo_size_per_s (bytes: the report prints KB), block_changes_per_s, user_calls_per_s, executes_per_s,
  parses_per_s, logons_per_s, transactions_per_s; per instance and the Sum row (cluster).
- System Statistics (Global), where present: the cluster's physical_read_io_requests_per_s,
  physical_write_io_requests_per_s, physical_read_total_bytes_per_s, physical_write_total_bytes_per_s.
- Top Timed Events, where present: wait.* with section=top, instance=* (cluster) or I#.

``cluster_io(parsed)`` derives the headline: physical_read_iops / physical_write_iops / physical_read_mb_per_s /
physical_write_mb_per_s with ``instance=all`` (the cluster) and ``instance=<I#>``; ``basis=requests`` from the IO
requests rows, else ``basis=blocks`` (blocks/s are IOPS only for single-block reads: SLOB). "Physical Reads/s" of
this report counts blocks, not requests (Kevin Closson, "Accurately Interpreting Real Application Clusters IOPS
with Automatic Workload Repository", 2018).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from planner.errors import ParseError
from planner.metrics import Direction, Metric, MetricSink, Parsed, Source
from planner.parsers.awr_common import (
    EventRow,
    N,
    add_event,
    full_wait_class,
    missing_section,
    parse_avg_wait_ms,
    parse_number,
)
from planner.parsers.awr_text import check_text
from planner.parsers.numbers import put

KIND = "awr_rac_text"
# What planner.parsers.summarise leads with: the cluster's figures, never one instance's.
HEADLINE = tuple((name, {"instance": "all"}) for name in ("physical_read_iops", "physical_write_iops",
                                                          "physical_read_mb_per_s", "physical_write_mb_per_s"))
H = Direction.HIGHER
TITLE = "WORKLOAD REPOSITORY REPORT (RAC)"
_DASHES = re.compile(r"^[ ]*-{2,}(?:[ ]+-{2,})*[ ]*$")
_INSTANCE_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\d\d-\w{3}-\d\d \d\d:\d\d)\s+(\d\d-\w{3}-\d\d \d\d:\d\d)\s+"
                           r"(\d\d-\w{3}-\d\d \d\d:\d\d)\s+(\d[\d.]*)\s+([\d,.]+)\s+([\d,.]+)\s+([\d,.]+)\s+([\d,.]+)")
# System Statistics - Per Second, in awrgrpt's column order (its query: slr, phyr, phyw, rdos/1024, blkc, uc, ec,
# pc, lc, ucom+urol), with the factor from the printed unit to planner's.
_PER_SECOND = (("logical_reads_per_s", "blocks/s", 1.0), ("physical_reads_per_s", "blocks/s", 1.0),
               ("physical_writes_per_s", "blocks/s", 1.0), ("redo_size_per_s", "bytes/s", 1024.0),
               ("block_changes_per_s", "/s", 1.0), ("user_calls_per_s", "/s", 1.0), ("executes_per_s", "/s", 1.0),
               ("parses_per_s", "/s", 1.0), ("logons_per_s", "/s", 1.0), ("transactions_per_s", "/s", 1.0))
# Statistic, Total, per Second, per Trans, then per Second Average / Std Dev / Min / Max over the instances (12c+)
_GLOBAL_ROW = re.compile(r"^(\S.*?)\s{2,}([\d,.]+)\s+([\d,.]+)\s+([\d,.]+)(?:\s+[\d,.]+)*\s*$")
_GLOBAL_STATS = {"physical read total io requests": ("physical_read_io_requests_per_s", "requests/s"),
                 "physical write total io requests": ("physical_write_io_requests_per_s", "requests/s"),
                 "physical read total bytes": ("physical_read_total_bytes_per_s", "bytes/s"),
                 "physical write total bytes": ("physical_write_total_bytes_per_s", "bytes/s")}


def looks_like(text: str) -> bool:
    head = text[:16384]
    if "<table" in head.lower():
        return False
    if TITLE in head:
        return True
    # a report cut above its title (a pasted fragment): the cluster's two own tables
    return "Database Summary" in head and re.search(r"^[ \t]*I#\s+Instance\s+Host", head, re.M) is not None


def _spans(dashes: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]


def _title_lines(lines: list[str], title: str) -> Iterator[int]:
    for i, line in enumerate(lines):
        if line.strip() == title or line.startswith(title + " ") and "DB/Inst:" in line:
            yield i


def _table_after(lines: list[str], start: int, stop: int, header: str) -> tuple[int, list[tuple[int, int]]] | None:
    """(index of the first data line, column spans) of the first dashes line within ``stop`` lines of ``start``
    that follows a heading line matching ``header`` (group headings above it have dashes lines of their own)."""
    for j in range(max(start, 1), min(len(lines), start + stop)):
        if _DASHES.match(lines[j]) and len(_spans(lines[j])) >= 3 and re.match(header, lines[j - 1]):
            return j + 1, _spans(lines[j])
    return None


def _summary(lines: list[str], sink: MetricSink) -> bool:
    for i in _title_lines(lines, "Database Summary"):
        dashes = [j for j in range(i, min(len(lines), i + 12)) if _DASHES.match(lines[j])]
        for j in dashes[1:]:  # the second dashes line closes the two heading lines
            cells = lines[j + 1].split() if j + 1 < len(lines) else []
            if len(cells) < 12:
                continue
            sink.facts.update(dbid=cells[0], db_name=cells[1], rac=cells[2], begin_snap_id=cells[4],
                              end_snap_id=cells[5])
            for idx, name, unit in ((3, "block_size", "bytes"), (6, "instances", "instances"), (8, "hosts", "hosts"),
                                    (10, "db_time_min", "min"), (11, "elapsed_min", "min")):
                if (v := parse_number(cells[idx])) is not None:
                    put(sink, name, v, unit, N, j + 2)
            return True
    return False


def _instances(lines: list[str], sink: MetricSink) -> int:
    n = 0
    for i, line in enumerate(lines):
        if not re.match(r"^[ \t]*I#\s+Instance\s+Host", line):
            continue
        for k in range(i + 2, len(lines)):
            m = _INSTANCE_ROW.match(lines[k])
            if not m:
                break
            inst = m.group(1)
            sink.facts[f"instance[{inst}]"] = m.group(2)
            sink.facts[f"host[{inst}]"] = m.group(3)
            sink.facts.setdefault("version", m.group(7))
            for g, name, unit in ((8, "elapsed_min", "min"), (9, "db_time_min", "min"), (10, "uptime_h", "h"),
                                  (11, "aas", "sessions")):
                if (v := parse_number(m.group(g))) is not None:
                    put(sink, name, v, unit, N, k + 1, {"instance": inst})
            n += 1
        if n:
            break
    return n


def _per_second(lines: list[str], sink: MetricSink) -> int:
    for i in _title_lines(lines, "System Statistics - Per Second"):
        found = _table_after(lines, i + 1, 12, r"^\s*I#\s")
        if found is None:
            continue
        rows: list[tuple[int, str, list[float | None]]] = []
        for k in range(found[0], len(lines)):
            cells = lines[k].split()
            if not cells or set(lines[k].strip()) <= set("~ -"):
                if rows and not cells:
                    break
                continue
            if not (cells[0].isdigit() or cells[0] == "Sum") or len(cells) != 1 + len(_PER_SECOND):
                if cells[0] in ("Avg", "Std"):
                    continue
                break
            rows.append((k + 1, cells[0], [parse_number(c) for c in cells[1:]]))
        rows.sort(key=lambda r: r[1] != "Sum")  # the cluster first: parsed.value(name) is the cluster's
        for line, who, values in rows:
            labels = {} if who == "Sum" else {"instance": who}
            for (name, unit, factor), v in zip(_PER_SECOND, values, strict=True):
                if v is not None:
                    put(sink, name, v * factor, unit, H if name.startswith("physical") else N, line, labels)
        return len(rows)
    return 0


def _global_stats(lines: list[str], sink: MetricSink) -> int:
    n = 0
    for i in _title_lines(lines, "System Statistics (Global)"):
        found = _table_after(lines, i + 1, 12, r"^Statistic\s")
        if found is None:
            continue
        for k in range(found[0], len(lines)):
            m = _GLOBAL_ROW.match(lines[k])
            if not m:
                if lines[k].strip() and not _DASHES.match(lines[k]):
                    break
                if n:
                    break
                continue
            name = m.group(1).strip().lower()
            if name in _GLOBAL_STATS and (v := parse_number(m.group(3))) is not None:
                metric, unit = _GLOBAL_STATS[name]
                put(sink, metric, v, unit, H, k + 1)
            n += 1
        break
    return n


def _top_events(lines: list[str], sink: MetricSink) -> int:
    n = 0
    for i in _title_lines(lines, "Top Timed Events"):
        found = _table_after(lines, i + 1, 20, r"^\s*I#\s+Class\s")
        if found is None:
            continue
        first, spans = found
        if len(spans) < 8:
            continue
        ranks: dict[str, int] = {}
        for k in range(first, len(lines)):
            line = lines[k]
            if not line.strip():
                if n:
                    break
                continue
            if _DASHES.match(line):
                break
            inst, cls, event = (line[a:b].strip() if len(line) > a else "" for a, b in spans[:3])
            rest = line[spans[2][1]:].split()
            if not event or not (inst == "*" or inst.isdigit()) or len(rest) < 5:
                break
            ranks[inst] = ranks.get(inst, 0) + 1
            add_event(sink, EventRow(event, parse_number(rest[0]), parse_number(rest[2]), parse_avg_wait_ms(rest[3]),
                                     parse_number(rest[4]), full_wait_class(cls), k + 1), ranks[inst], "top",
                      instance=inst)
            n += 1
        break
    return n


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    if not looks_like(text):
        raise ParseError(KIND, "header", "not an AWR RAC (global) text report", source=source)
    lines = text.replace("\r\n", "\n").split("\n")
    sink = MetricSink(source)
    sink.facts["report"] = "global (RAC)"
    sink.facts["title"] = TITLE if TITLE in text[:16384] else "(cut above the title)"
    for name, read in (("Database Summary", lambda: _summary(lines, sink)),
                       ("Database Instances Included In Report", lambda: _instances(lines, sink)),
                       ("System Statistics - Per Second", lambda: _per_second(lines, sink))):
        if not read():
            sink.errors.append(ParseError(KIND, name, missing_section(text), source=source))
    _global_stats(lines, sink)  # where present (not in every release's text form)
    _top_events(lines, sink)
    if not sink.metrics:
        raise ParseError(KIND, "report", "no table could be read", source=source)
    sink.metrics += cluster_io(sink.freeze(KIND))
    return sink.freeze(KIND, simulated="PLANNER STAND-IN" in text[:4096])


def _line(m: Metric | None) -> int | None:
    return m.source.line if m and m.source else None


def cluster_io(parsed: Parsed) -> list[Metric]:
    """The cluster's and each instance's IOPS and MB/s (module docstring); derived=True."""
    out: list[Metric] = []
    block = parsed.value("block_size") or 8192.0
    groups: list[tuple[str, dict[str, str]]] = [("all", {})] + [(i, {"instance": i}) for i in instance_ids(parsed)]

    def pick(name: str, labels: dict[str, str]) -> Metric | None:
        m = parsed.get(name, **labels)
        return m if m is not None and (labels or not m.label("instance")) else None

    for who, labels in groups:
        for direction, req, blocks, total in (("read", "physical_read_io_requests_per_s", "physical_reads_per_s",
                                               "physical_read_total_bytes_per_s"),
                                              ("write", "physical_write_io_requests_per_s", "physical_writes_per_s",
                                               "physical_write_total_bytes_per_s")):
            r, b, t = pick(req, labels), pick(blocks, labels), pick(total, labels)
            iops, basis = (r, "requests") if r is not None else (b, "blocks")
            lab = (("basis", basis), ("instance", who))
            if iops is not None:
                out.append(Metric(f"physical_{direction}_iops", iops.value, "IOPS", H,
                                  Source(parsed.source, _line(iops)), lab, True))
            mb, src = ((t.value / 1048576, t) if t is not None
                       else ((b.value * block / 1048576, b) if b else (None, None)))
            if mb is not None:
                out.append(Metric(f"physical_{direction}_mb_per_s", mb, "MB/s", H, Source(parsed.source, _line(src)),
                                  (("basis", "bytes" if t is not None else "blocks"), ("instance", who)), True))
    return out


def instance_ids(parsed: Parsed) -> list[str]:
    return sorted({m.label("instance") for m in parsed.metrics if m.label("instance") not in ("", "*")}, key=_as_int)


def _as_int(s: str) -> int:
    return int(s) if s.isdigit() else 1 << 30
