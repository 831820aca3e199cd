"""ADDM reports (``addmrpt.sql``, ``DBMS_ADVISOR.GET_TASK_REPORT``), 10g to 23ai, as text.

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
_TITLE = re.compile(r"^\s*ADDM Report for Task\s+'([^']*)'", re.M)
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
    if m := re.search(r"AWR snapshot range from (\d+) to (\d+)", flat):
        sink.facts.update(begin_snap_id=m.group(1), end_snap_id=m.group(2))
    if m := re.search(r"Database '([^']+)' with DB ID (\d+)", flat):
        sink.facts.update(db_name=m.group(1), dbid=m.group(2))
    if m := re.search(r"Database version ([\d.]+\d)", flat):
        sink.facts["version"] = m.group(1)
    if m := re.search(r"analy[sz]\w* (?:of )?instance (\S+?),? numbered (\d+) and hosted at (\S+?)\.?(?:\s|$)", flat):
        sink.facts.update(instance=m.group(1), inst_num=m.group(2), host_name=m.group(3))
    if "ADDM detected that the system is a PDB" in flat:
        sink.facts["container"] = "PDB"
    read = 0
    for pattern, name, unit in ((rf"Total database time was {_NUM} seconds", "db_time_s", "s"),
                                (rf"average number of active sessions was {_NUM}", "aas", "sessions")):
        if m := re.search(pattern, body):
            put(sink, name, _number(m.group(1)), unit, _N, line_of(m.start()))
            read += 1
    read += _findings(body, sink, line_of)
    if "There are no findings to report" in flat:
        sink.facts["findings"] = "0"
    if not read:
        raise ParseError(KIND, "activity", "an ADDM report with no DB time, active sessions or findings "
                         "(cut before 'Activity During the Analysis Period'?)", source=source)
    return sink.freeze(KIND)


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
