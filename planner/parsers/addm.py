"""ADDM reports (``addmrpt.sql``, ``DBMS_ADVISOR.GET_TASK_REPORT``), 10g to 23ai, as text.

10gR2 prints "DETAILED ADDM REPORT FOR TASK ... WITH ID n", its window and activity as "Name: value" lines and
each finding as "FINDING n: p% impact (s seconds)"; 11g on, the layout below.

What a benchmark's reader wants from one: the analysis window (AWR snapshot range), the database and instance
it analysed, the total DB time and the average active sessions ("Activity During the Analysis Period"), whether
ADDM ran in a PDB ("ADDM detected that the system is a PDB", 19c+), and the Summary of Findings — each
finding's active sessions and share of activity. The wording is ADDM's own (Oracle Database Performance Tuning
Guide, "Automatic Database Diagnostic Monitor"); the Summary table is ``Description  Active Sessions |
Percent of Activity  Recommendations``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put

KIND = "addm"
_N = Direction.NEUTRAL
# 11g+ "ADDM Report for Task 'TASK_30'"; 10g "DETAILED ADDM REPORT FOR TASK 'TASK_5154' WITH ID 5154"
_TITLE = re.compile(r"^\s*(?:ADDM Report for Task|DETAILED ADDM REPORT FOR TASK)\s+'([^']*)'", re.M)
_NUM = r"(\d[\d,]*(?:\.\d+)?|\.\d+)"
_FINDING = re.compile(rf"^\s*(\d+)\s+(.+?)\s+{_NUM}\s*\|\s*{_NUM}\s+(\d+)\s*$")


def looks_like(text: str) -> bool:
    return _TITLE.search(text[:65536]) is not None


def _flat(text: str) -> str:
    return " ".join(text.split())


def _number(tok: str) -> float:
    return float(tok.replace(",", ""))


def parse(text: str, source: str = "<text>") -> Parsed:
    titles = list(_TITLE.finditer(text))
    if not titles:
        raise ParseError(KIND, "title", "not an ADDM report ('ADDM Report for Task' not found)", source=source)
    sink = MetricSink(source)
    start = titles[0].start()
    end = titles[1].start() if len(titles) > 1 else len(text)
    if len(titles) > 1:
        sink.errors.append(ParseError(KIND, "file", f"{len(titles)} ADDM reports in one file: the first is read "
                                      "(split the file to read the others)", source=source,
                                      line=text.count("\n", 0, titles[1].start()) + 1))
    body = text[start:end]
    first_line = text.count("\n", 0, start) + 1
    sink.facts["addm_task"] = titles[0].group(1)

    def line_of(pos: int) -> int:
        return first_line + body.count("\n", 0, pos)

    flat = _flat(body)
    _facts(flat, sink)
    read = 0
    for pattern, name, unit in _ACTIVITY:
        if m := pattern.search(body):
            put(sink, name, _number(m.group(1)), unit, _N, line_of(m.start()))
            read += 1
    read += _findings(body, sink, line_of) or _findings_10g(body, sink, line_of)
    if "There are no findings to report" in flat:
        sink.facts["findings"] = "0"
    if not read:
        raise ParseError(KIND, "activity", "an ADDM report with no DB time, active sessions or findings "
                         "(cut before 'Activity During the Analysis Period'?)", source=source)
    return sink.freeze(KIND)


# (pattern on the flattened report, the facts its groups are); 10g prints "Name: value" lines, 11g+ sentences
_FACTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"AWR snapshot range from (\d+) to (\d+)", ("begin_snap_id", "end_snap_id")),
    (r"Database '([^']+)' with DB ID (\d+)", ("db_name", "dbid")),
    (r"Database version ([\d.]+\d)", ("version",)),
    (r"analy[sz]\w* (?:of )?instance (\S+?),? numbered (\d+) and hosted at (\S+?)\.?(?:\s|$)",
     ("instance", "inst_num", "host_name")),
    (r"Snapshot Range: from (\d+) to (\d+)", ("begin_snap_id", "end_snap_id")),
    (r"Database ID/Instance: (\d+)/(\d+)", ("dbid", "inst_num")),
    (r"Database/Instance Names: ([^/\s]+)/(\S+)", ("db_name", "instance")),
    (r"Host Name: (\S+)", ("host_name",)),
    (r"Database Version: ([\d.]+\d)", ("version",)),
)
# 11g+ "Total database time was 2303 seconds." and "The average number of active sessions was .96."; 10g
# "Database Time: 637 seconds" and "Average Database Load: 0 active sessions" (docs/oracle-behaviour.md 54.a1)
_ACTIVITY: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p, re.M), name, unit) for p, name, unit in (
    (rf"Total database time was {_NUM} seconds", "db_time_s", "s"),
    (rf"average number of active sessions was {_NUM}", "aas", "sessions"),
    (rf"^[ \t]*Database Time: {_NUM} seconds", "db_time_s", "s"),
    (rf"^[ \t]*Average Database Load: {_NUM} active sessions", "aas", "sessions")))
# 10g: "FINDING 1: 100% impact (637 seconds)", a rule, then the finding's words up to a blank line
_FINDING_10G = re.compile(rf"^[ \t]*FINDING (\d+): {_NUM}% impact \({_NUM} seconds\)[ \t]*\n[ \t]*-+[ \t]*\n"
                          r"((?:[ \t]*\S.*(?:\n|$))+)", re.M)


def _facts(flat: str, sink: MetricSink) -> None:
    for pattern, names in _FACTS:
        if m := re.search(pattern, flat):
            sink.facts.update(zip(names, m.groups(), strict=True))
    if "ADDM detected that the system is a PDB" in flat:
        sink.facts["container"] = "PDB"


def _findings_10g(body: str, sink: MetricSink, line_of: Callable[[int], int]) -> int:
    """10g's findings, each its share of DB time and its seconds: ``addm.finding_pct``, ``addm.finding_s``."""
    n = 0
    for m in _FINDING_10G.finditer(body):
        labels = {"finding": _flat(m.group(4))[:200], "rank": m.group(1)}
        line = line_of(m.start(1))
        put(sink, "addm.finding_pct", _number(m.group(2)), "%", _N, line, labels)
        put(sink, "addm.finding_s", _number(m.group(3)), "s", _N, line, labels)
        n += 1
    if n:
        sink.facts["findings"] = str(n)
    return n


def _findings(body: str, sink: MetricSink, line_of: Callable[[int], int]) -> int:
    """The Summary of Findings rows: ``1  Top SQL Statements  .96 | 100  1``."""
    k = body.find("Summary of Findings")
    if k < 0:
        return 0
    n, pos = 0, k
    for raw in body[k:].splitlines(keepends=True):
        m = _FINDING.match(raw.replace("\t", "  "))
        if m:
            labels = {"finding": m.group(2).strip(), "rank": m.group(1)}
            line = line_of(pos)
            put(sink, "addm.finding_aas", _number(m.group(3)), "sessions", _N, line, labels)
            put(sink, "addm.finding_pct", _number(m.group(4)), "%", _N, line, labels)
            n += 1
        elif n and raw.strip().startswith("~"):
            break
        pos += len(raw)
    sink.facts["findings"] = str(n)
    return n
