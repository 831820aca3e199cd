"""DBMS_RESOURCE_MANAGER.CALIBRATE_IO results as people print them.

Two forms:
- DBMS_OUTPUT lines ``max_iops = 3913`` / ``latency = 0`` / ``max_mbps = 137`` (also ``Max IOPS =``,
  ``Max MBps=``, ``actual_latency =``); a repeated key starts a new block (label ``block``).
- a SQL*Plus listing of DBA_RSRC_IO_CALIBRATE (a header naming MAX_IOPS ... then a dashed line);
  columns are cut at the dashes because START_TIME / END_TIME contain spaces.

Metrics (label ``form`` = dbms_output or dba_rsrc_io_calibrate): ``calibrate.max_iops`` IO/s,
``calibrate.max_mbps`` MB/s, ``calibrate.max_pmbps`` MB/s, ``calibrate.latency_ms`` ms,
``calibrate.num_physical_disks``.
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import NUMBER, checked, read

# ``max_iops = 3913``, ``Max IOPS : 3913``, dotted ``Max IOPS ........ 3,913``; the value is the whole token.
_KV = re.compile(r"^\s*(max[ _]iops|max[ _]mbps|max[ _]pmbps|max mbytes-per-sec|actual[ _]latency|calc\. latency|"
                 rf"latency)\s*(?:[=:]|\.{{2,}}\s*:?)\s*({NUMBER})\s*(ms)?\s*$", re.IGNORECASE)
_ALIASES = {"max_mbytes-per-sec": "max_mbps", "calc._latency": "latency", "actual_latency": "latency"}
_KEYS = {"max_iops": ("calibrate.max_iops", "IO/s", Direction.HIGHER),
         "max_mbps": ("calibrate.max_mbps", "MB/s", Direction.HIGHER),
         "max_pmbps": ("calibrate.max_pmbps", "MB/s", Direction.HIGHER),
         "latency": ("calibrate.latency_ms", "ms", Direction.LOWER),
         "actual_latency": ("calibrate.latency_ms", "ms", Direction.LOWER),
         "num_physical_disks": ("calibrate.num_physical_disks", "disks", Direction.NEUTRAL)}
# A SQL*Plus heading line: upper-case column names only (so "SELECT max_iops ..." is not one).
_HEAD = re.compile(r"^[ \t]*(?=[A-Z_ \t]*\bMAX_IOPS\b)(?=[A-Z_ \t]*\bMAX_MBPS\b)[A-Z_ \t]+$", re.M)


def looks_like(text: str) -> bool:
    keys = {_key(m.group(1)) for line in text.splitlines() if (m := _KV.match(line))}
    return "max_iops" in keys and bool(keys & {"max_mbps", "latency", "actual_latency"}) or \
        bool(_HEAD.search(text))


def _add(sink: MetricSink, key: str, value: float, line: int, **labels: str) -> None:
    """CALIBRATE_IO's actual_latency is a whole number of milliseconds (OUT BINARY_INTEGER, PL/SQL Packages and
    Types Reference, DBMS_RESOURCE_MANAGER.CALIBRATE_IO): on flash it reads 0, meaning "under 1 ms", not zero.
    That 0 is kept, labelled, and given no better/worse direction, so it never compares as the best latency."""
    metric, unit, direction = _KEYS[key]
    if metric == "calibrate.latency_ms" and value == 0 and labels.get("form") == "dbms_output":
        direction, labels = Direction.NEUTRAL, {**labels, "resolution": "under 1 ms (whole ms)"}
    sink.add(metric, value, unit, direction, line, False, **labels)


def _key(printed: str) -> str:
    key = printed.lower().replace(" ", "_")
    return _ALIASES.get(key, key)


def _table(sink: MetricSink, lines: list[str], i: int, before: int = 0) -> int:
    """Read the listing whose header is lines[i]; returns the number of rows read. Rows are numbered on from
    ``before`` (the rows of earlier listings in the file), so two listings never share a row label."""
    if i + 1 >= len(lines) or not re.fullmatch(r"[\s-]+", lines[i + 1]) or "-" not in lines[i + 1]:
        sink.errors.append(ParseError("calibrate_io", "DBA_RSRC_IO_CALIBRATE", "header without the "
                                      "dashed line under it", source=sink.source, line=i + 1))
        return 0
    spans = [m.span() for m in re.finditer(r"-+", lines[i + 1])]
    head = lines[i]
    cuts = [(a, spans[k + 1][0] if k + 1 < len(spans) else None) for k, (a, _b) in enumerate(spans)]
    # The view's column names are single words, one over each dashed span: the n-th word names the n-th column even
    # where a paste shifted the heading off its dashes ("  LATENCY N" / "UM_PHYSICAL_DISKS" cut by position).
    words = head.split()
    names = [w.lower() for w in words] if len(words) == len(spans) else [head[a:b].strip().lower() for a, b in cuts]
    rows = 0
    for j in range(i + 2, len(lines)):
        row = lines[j]
        if not row.strip() or row.strip().endswith("selected.") or row.lstrip().startswith("SQL>") or \
                not re.search(r"\d", row):  # a closing fence or a prompt right under the last row ends it
            break
        # SQL*Plus right-aligns numbers in their dashed span; each cut runs to the next span's start.
        cells = [row[a:b].strip() for a, b in cuts]
        blank = [n.upper() for n, c in zip(names, cells, strict=True) if n in _KEYS and not c]
        if blank:
            sink.errors.append(ParseError("calibrate_io", "DBA_RSRC_IO_CALIBRATE", f"row {before + rows + 1}: "
                                          f"{', '.join(blank)} blank, not read", source=sink.source, line=j + 1))
        got = 0
        for name, cell in zip(names, cells, strict=True):
            if name in _KEYS and cell:
                reading = read(cell)
                if reading.value is None or reading.unit:
                    sink.errors.append(ParseError("calibrate_io", "DBA_RSRC_IO_CALIBRATE",
                                                  f"{name.upper()} is not a number read whole: {cell[:20]!r}",
                                                  source=sink.source, line=j + 1))
                    continue
                _add(sink, name, reading.value, j + 1, form="dba_rsrc_io_calibrate", row=str(before + rows + 1))
                got += 1
            elif name in ("start_time", "end_time") and cell:
                sink.facts[f"row{before + rows + 1}.{name}"] = cell
        rows += 1 if got else 0
    return rows


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    lines = text.splitlines()
    block, seen_keys, found, listed = 1, set[str](), 0, 0
    for i, line in enumerate(lines):
        if m := _KV.match(line):
            key = _key(m.group(1))
            value = checked(sink, "calibrate_io", "DBMS_OUTPUT", m.group(2), i + 1)
            if value is None:
                continue
            if key in seen_keys:  # the same key again: the next printed block
                block, seen_keys = block + 1, set()
            seen_keys.add(key)
            _add(sink, key, value, i + 1, form="dbms_output", block=str(block))
            found += 1
        elif _HEAD.search(line):
            rows = _table(sink, lines, i, listed)
            found, listed = found + rows, listed + rows
    if not any(m.name in ("calibrate.max_iops", "calibrate.max_mbps") for m in sink.metrics):
        raise ParseError("calibrate_io", "results", "no 'max_iops = N' lines and no DBA_RSRC_IO_CALIBRATE "
                         "listing", source=source)
    return sink.freeze("calibrate_io")
