"""iozone output: throughput mode (``-t N``), and the result table of auto mode and single runs (iozone_auto).

For each test block (label ``test``: "initial writers", "random readers", ...; ``procs``; ``run``,
1-based per iozone banner):

- ``iozone.throughput`` (label ``view`` = children / parent) in KB/s (iozone's kB is 1024 bytes),
  or ops/s with ``-O``;
- ``iozone.per_process`` (label ``stat`` = min / max / avg), ``iozone.min_xfer`` KB (or ops);
- ``iozone.iops`` (derived, label ``view``) = throughput KB/s / record size KB, or the ops/s value
  itself in ``-O`` mode. The record size comes from ``Record Size 8 KB``, the ``-r`` option of the
  command line, or the ``record_kb`` argument (which wins).

A file with an iozone banner but no result is refused as such ("iozone 3.424 (auto mode): banner only, no
result table"), not as an unknown file. The version (``Version $Revision: 3.424 $``) is the fact ``version``.

"Parent sees" is the figure the iozone 3.420 docs say to note; "Children see" is the sum of the
per-process rates and can be far higher. Both are kept; reports choose.
"""

from __future__ import annotations

import math
import re

from planner.errors import ParseError
from planner.kinds.iozone.parse import auto as iozone_auto
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import NUMBER, checked, put
from planner.units import KIB, suffix_bytes

_NUM = rf"({NUMBER})"  # the whole token (31,681.06), checked by planner.parsers.numbers
_TPUT = re.compile(rf"(Children see|Parent sees) throughput for\s+(\d+)\s+(.+?)\s*=\s*{_NUM}\s*(\S+)")
_PER_PROC = re.compile(rf"(Min|Max|Avg) throughput per process\s*=\s*{_NUM}\s*(\S+)")
_XFER = re.compile(rf"Min xfer\s*=\s*{_NUM}\s*(\S+)")
_RECORD = re.compile(r"Record Size\s+(\d+)\s*([kKmM])B", re.IGNORECASE)
_CMD_R = re.compile(r"(?:^|\s)-r\s*(\d+)([kKmMgG]?)(?=\s|$)")
_BANNER = "Iozone: Performance Test of File I/O"
_START = re.compile(r"^\s*(?:Run began:|Command line used:)")
_UNITS = {"kb/sec": "KB/s", "ops/sec": "ops/s", "kb": "KB", "ops": "ops"}
_VERSION = re.compile(r"Version \$Revision:\s*([\d.]+)\s*\$")
_OPS_MODE = re.compile(r"OPS Mode|Output is in operations per second", re.IGNORECASE)


def looks_like(text: str) -> bool:
    return ("Parent sees throughput for" in text or "Children see throughput for" in text or _BANNER in text
            or any(iozone_auto.HEADER.match(line) for line in text.splitlines()))


def _mode(text: str) -> str:
    if m := re.search(r"Throughput test with (\d+) process", text):
        return f"throughput mode, -t {m.group(1)}"
    return "auto mode" if re.search(r"^\s*Auto Mode", text, re.MULTILINE) else "single run"


def _nothing_read(text: str, source: str) -> ParseError:
    if _BANNER in text or "iozone test complete." in text:
        v = _VERSION.search(text)
        who = f"iozone {v.group(1)}" if v else "iozone (version not printed)"
        return ParseError("iozone", "results", f"{who} ({_mode(text)}): banner only, no result table",
                          source=source)
    return ParseError("iozone", "throughput", "no 'Children see / Parent sees throughput for' line and no "
                      "'KB reclen write ...' result table", source=source)


def _record_kb(text: str) -> float | None:
    if m := _RECORD.search(text):
        return float(m.group(1)) * (1024 if m.group(2).lower() == "m" else 1)
    for line in text.splitlines():
        if "iozone" in line.lower() and (m := _CMD_R.search(line)):
            return float(m.group(1)) * suffix_bytes(m.group(2) or "K") / KIB
    return None


def _unit(raw: str, sink: MetricSink, no: int) -> str:
    unit = _UNITS.get(raw.lower())
    if unit is None:
        sink.errors.append(ParseError("iozone", "units", f"unknown unit {raw[:20]!r}", source=sink.source,
                                      line=no))
        return raw
    return unit


def parse(text: str, source: str = "<text>", record_kb: float | None = None) -> Parsed:
    sink = MetricSink(source)
    rec = record_kb if record_kb is not None else _record_kb(text)
    if rec is not None and not (math.isfinite(rec) and rec > 0):
        raise ParseError("iozone", "record size", f"record size must be positive, got {rec}", source=source)
    run, test, found = 0, "", 0
    labels: dict[str, str] = {}
    seen: set[tuple[str, str, str]] = set()  # results of the current run
    for no, line in enumerate(text.splitlines(), 1):
        # A run starts at its banner, or - banner cut off - at its "Run began" / "Command line used" line.
        if (_BANNER in line or _START.search(line)) and (seen or not run):
            run, seen = run + 1, set()
        if m := _TPUT.search(line):
            view = "children" if m.group(1).startswith("Children") else "parent"
            test = re.sub(r"\s+", " ", m.group(3).strip())
            if (view, test, m.group(2)) in seen:  # the same test again: the next run, its header not pasted
                run, seen = max(run, 1) + 1, set()
            seen.add((view, test, m.group(2)))
            labels = {"run": str(max(run, 1)), "test": test, "procs": m.group(2)}
            unit = _unit(m.group(5), sink, no)
            value = checked(sink, "iozone", "throughput", m.group(4), no)
            if value is None:
                continue
            put(sink, "iozone.throughput", value, unit, Direction.HIGHER, no, {"view": view, **labels})
            found += 1
            if unit == "ops/s":
                put(sink, "iozone.iops", value, "IO/s", Direction.HIGHER, no, {"view": view, **labels}, derived=True)
            elif unit == "KB/s" and rec:
                put(sink, "iozone.iops", value / rec, "IO/s", Direction.HIGHER, no, {"view": view, **labels},
                    derived=True)
        elif (m := _PER_PROC.search(line)) and labels and \
                (v := checked(sink, "iozone", "per process", m.group(2), no)) is not None:
            put(sink, "iozone.per_process", v, _unit(m.group(3), sink, no), Direction.HIGHER, no,
                {"stat": m.group(1).lower(), **labels})
        elif (m := _XFER.search(line)) and labels and \
                (v := checked(sink, "iozone", "min xfer", m.group(1), no)) is not None:
            put(sink, "iozone.min_xfer", v, _unit(m.group(2), sink, no), Direction.NEUTRAL, no, labels)
    found += iozone_auto.parse_tables(text, sink, "ops/s" if _OPS_MODE.search(text) else "KB/s")
    if not found:
        raise _nothing_read(text, source)
    if ver := _VERSION.search(text):
        sink.facts["version"] = ver.group(1)
    if rec is not None:
        sink.facts["record_kb"] = f"{rec:g}"
    elif any(m.unit == "KB/s" and m.label("mode") != "auto" for m in sink.metrics):
        sink.errors.append(ParseError("iozone", "record size", "no 'Record Size' line and no -r option: "
                                      "IOPS not computed (pass record_kb)", source=source))
    if run and "iozone test complete." not in text:
        sink.errors.append(ParseError("iozone", "end", "no 'iozone test complete.' line: the run may be "
                                      "truncated", source=source))
    return sink.freeze("iozone")


_IOZONE_VERSION = re.compile(r"Version \$Revision:\s*([\d.]+)\s*\$")
_IOZONE_AUTO = re.compile(r"^[ \t]*Auto Mode[ \t]*$|^[ \t]*kB\s+reclen\s+write\s+rewrite\b"
                          r"|^[ \t]*KB\s+reclen\s+write\b", re.M | re.I)


def refusal(text: str) -> str | None:
    """Why recognisable iozone output gave no results (planner.parsers.refusals): a banner alone, or auto mode's
    table in a layout the table reader did not take."""
    if "Iozone: Performance Test of File I/O" not in text:
        return None
    v = _IOZONE_VERSION.search(text)
    what = f"iozone {v.group(1)}" if v else "iozone"
    if _IOZONE_AUTO.search(text):
        return (f"{what} auto mode (-a: the file size x record size table): a layout this planner does not "
                "read - it reads throughput mode (-t N)")
    return f"{what}: banner only, no result lines (no 'Children see / Parent sees throughput' line)"
