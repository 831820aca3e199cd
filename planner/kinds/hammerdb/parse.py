"""HammerDB (hammerdbcli) TPROC-C output: the console transcript and hammerdb.log, for every database it drives.

The monitor virtual user prints the result, the same line for Oracle, PostgreSQL, SQL Server, MySQL, MariaDB and
Db2 (the word before TPM names the database)::

    Vuser 1:TEST RESULT : System achieved 8043 NOPM from 16365 Oracle TPM
    Vuser 1:TEST RESULT : System achieved 60301 SQL Server TPM at 13122 NOPM      (HammerDB 3 and earlier)

HammerDB 4+ ``jobs <id> result`` prints the same sentence quoted in a Tcl/JSON list; it is read when the
transcript itself has none. Oracle's timed driver with AWR snapshots prints ``Start Snapshot 93 taken at ...``,
``End Snapshot 94 ...`` and ``Test complete: view report from SNAPID 93 to 94``. The prompt ``hammerdb>`` can
sit in front of any line (asynchronous output after the prompt came back).

Metrics: ``hammerdb.nopm`` NOPM and ``hammerdb.tpm`` TPM (higher is better; label ``run`` when a log holds several
results), ``hammerdb.active_vu`` users, ``hammerdb.rampup_min`` / ``hammerdb.duration_min`` min (the timed driver's
own words), ``hammerdb.vu_finished`` and ``hammerdb.vu_failed`` users (FINISHED SUCCESS / FAILED lines),
``hammerdb.awr_begin_snap`` / ``hammerdb.awr_end_snap`` (snapshot ids), ``hammerdb.warehouses`` (from ``print
dict`` or the driver's warehouse assignment lines); from a time profile's SUMMARY block, per stored procedure
(label ``proc``: NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT) ``hammerdb.proc_calls`` and
``hammerdb.proc_{min,avg,max,p99,p95,p50}_ms``. Facts: ``database``, ``version``,
``jobid``, ``first_error``, ``awr_instance``.
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed

_N = r"(\d[\d,]*(?:\.\d+)?)"
_DB = r"([A-Za-z][A-Za-z0-9]*(?: [A-Za-z][A-Za-z0-9]*)?)"  # Oracle, PostgreSQL, SQL Server, MySQL, Db2 ...
_RESULT = re.compile(rf"TEST RESULT\s*:\s*System achieved\s+(?:{_N}\s+NOPM\s+from\s+{_N}\s+{_DB}\s+TPM|"
                     rf"{_N}\s+{_DB}\s+TPM\s+at\s+{_N}\s+NOPM)")
_VU_END = re.compile(r"Vuser\s+(\d+):\s*FINISHED\s+(SUCCESS|FAILED)")
# "Vuser 1:4 Active ..." on the console; the web service's job result (`jobs?jobid=…&resultdata`, 4.x) prints the
# line bare, as a JSON string: ``"1 Active Virtual Users configured",``
_ACTIVE = re.compile(r"(?:Vuser\s+\d+:\s*|^\W*)(\d+)\s+Active Virtual Users configured")
_RAMPUP = re.compile(r"Beginning rampup time of\s+(\d+(?:\.\d+)?)\s+minutes")
_TIMED = re.compile(r"Timing test period of\s+(\d+(?:\.\d+)?)\s+in minutes")
_SNAPIDS = re.compile(r"view report from SNAPID\s+(\d+)\s+to\s+(\d+)")
# "of instance EE (1) of database EE (2066100034)": the instance number and DBID the snapshots are filed under
_SNAP = re.compile(r"(Start|End) Snapshot\s+(\d+)\s+taken at\s+.*?\bof instance\s+(\S+)"
                   r"(?:\s+\((\d+)\)\s+of database\s+\S+\s+\((\d+)\))?")
_VERSION = re.compile(r"HammerDB CLI v?(\d+(?:\.\d+)+)")
_JOBID = re.compile(r"\bjobid=([0-9A-F]{8,40})\b")
_ERROR = re.compile(r"Error in Virtual User\s+(\d+):\s*(.*)")
# the schema's warehouses: ``print dict`` (``count_ware = 10``, ``pg_count_ware = 400``) or the driver's
# assignment line (4.0 ``Warehouses = 10 out of 30``, 4.7 ``Warehouses = 400 (1 out of 4)``)
_DICT_WARE = re.compile(r"^\s*(?:[a-z]+_)?count_ware\s*=\s*(\d+)\s*$")
_ASSIGNED = re.compile(r"based on VU count\s+\d+,\s*Warehouses\s*=\s*(\d+)(?:\s+out of\s+(\d+))?")


# the time profile (``ora_timeprofile`` / ``pg_timeprofile``): only its SUMMARY block, the users' median
_SUMMARY = re.compile(r">>>>> SUMMARY OF\s+(\d+)\s+ACTIVE VIRTUAL USERS")
_PROC = re.compile(r">>>>> PROC:\s*(\w+)")
_STAT = re.compile(r"(?<![A-Z])(CALLS|MIN|AVG|MAX|P99|P95|P50):\s*(\d+(?:\.\d+)?)(ms)?")
_PROC_STATS = {"CALLS": ("hammerdb.proc_calls", "calls", Direction.NEUTRAL)} | {
    k: (f"hammerdb.proc_{k.lower()}_ms", "ms", Direction.LOWER) for k in ("MIN", "AVG", "MAX", "P99", "P95", "P50")}


def looks_like(text: str) -> bool:
    return bool(_RESULT.search(text) or _SNAPIDS.search(text) or _VU_END.search(text) or _SUMMARY.search(text))


def _time_profile(sink: MetricSink, lines: list[str]) -> None:
    """Each stored procedure's response times over every active user (the SUMMARY block), label ``proc``."""
    start = next((i for i, line in enumerate(lines) if _SUMMARY.search(line)), None)
    if start is None:
        return
    proc = ""
    for no in range(start + 1, len(lines)):
        line = lines[no]
        if line.startswith("+-+-") or _SUMMARY.search(line):
            break
        if m := _PROC.search(line):
            proc = m.group(1)
            continue
        for stat in _STAT.finditer(line):
            if proc:
                name, unit, direction = _PROC_STATS[stat.group(1)]
                sink.add(name, float(stat.group(2)), unit, direction, no + 1, False, proc=proc)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _results(lines: list[str]) -> list[tuple[int, float, float, str, bool]]:
    """(line, NOPM, TPM, database, from a jobs listing) for each result line."""
    out = []
    for no, line in enumerate(lines, 1):
        if m := _RESULT.search(line):
            quoted = line[:m.start()].rstrip().endswith('"')
            if m.group(1):
                out.append((no, _number(m.group(1)), _number(m.group(2)), m.group(3), quoted))
            else:
                out.append((no, _number(m.group(6)), _number(m.group(4)), m.group(5), quoted))
    console = [r for r in out if not r[4]]
    return console or out  # a jobs listing repeats the transcript's result: read it only when that is missing


def _add_results(sink: MetricSink, lines: list[str]) -> None:
    results = _results(lines)
    for i, (no, nopm, tpm, db, _quoted) in enumerate(results, 1):
        labels = {"run": str(i)} if len(results) > 1 else {}
        sink.add("hammerdb.nopm", nopm, "NOPM", Direction.HIGHER, no, False, **labels)
        sink.add("hammerdb.tpm", tpm, "TPM", Direction.HIGHER, no, False, **labels)
        sink.facts.setdefault("database", db)


def _add_once(sink: MetricSink, lines: list[str], pattern: re.Pattern[str], name: str, unit: str) -> None:
    """The last such line (a log of one run prints it once; a rerun's later line is the one that counts)."""
    found = [(no, m) for no, line in enumerate(lines, 1) if (m := pattern.search(line))]
    if found:
        no, m = found[-1]
        sink.add(name, _number(m.group(1)), unit, Direction.NEUTRAL, no)


def _warehouses(sink: MetricSink, lines: list[str]) -> None:
    for no, line in enumerate(lines, 1):
        if m := _DICT_WARE.match(line):
            sink.add("hammerdb.warehouses", int(m.group(1)), "warehouses", Direction.NEUTRAL, no)
            return
        if m := _ASSIGNED.search(line):
            sink.add("hammerdb.warehouses", int(m.group(2) or m.group(1)), "warehouses", Direction.NEUTRAL, no)
            return


def _virtual_users(sink: MetricSink, lines: list[str]) -> None:
    ended: dict[str, tuple[int, str]] = {}
    for no, line in enumerate(lines, 1):
        for m in _VU_END.finditer(line):
            ended[m.group(1)] = (no, m.group(2))
        if "first_error" not in sink.facts and (e := _ERROR.search(line)):
            sink.facts["first_error"] = f"virtual user {e.group(1)}: {e.group(2).strip()[:200]}"
    if not ended:
        return
    first = min(no for no, _ in ended.values())
    failed = sum(1 for _, state in ended.values() if state == "FAILED")
    sink.add("hammerdb.vu_finished", len(ended) - failed, "users", Direction.NEUTRAL, first)
    sink.add("hammerdb.vu_failed", failed, "users", Direction.LOWER, first)


def _snapshots(sink: MetricSink, lines: list[str]) -> None:
    for no, line in enumerate(lines, 1):
        if m := _SNAPIDS.search(line):
            sink.add("hammerdb.awr_begin_snap", int(m.group(1)), "snap id", Direction.NEUTRAL, no)
            sink.add("hammerdb.awr_end_snap", int(m.group(2)), "snap id", Direction.NEUTRAL, no)
            return


def _facts(sink: MetricSink, text: str) -> None:
    if m := _VERSION.search(text):
        sink.facts["version"] = m.group(1)
    jobs = _JOBID.findall(text)
    if jobs:
        sink.facts["jobid"] = jobs[-1]
    if m := _SNAP.search(text):
        sink.facts["awr_instance"] = m.group(3)
        if m.group(5):
            sink.facts["awr_inst_num"], sink.facts["awr_dbid"] = m.group(4), m.group(5)


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    lines = text.split("\n")
    _add_results(sink, lines)
    _add_once(sink, lines, _ACTIVE, "hammerdb.active_vu", "users")
    _add_once(sink, lines, _RAMPUP, "hammerdb.rampup_min", "min")
    _add_once(sink, lines, _TIMED, "hammerdb.duration_min", "min")
    _virtual_users(sink, lines)
    _warehouses(sink, lines)
    _time_profile(sink, lines)
    _snapshots(sink, lines)
    _facts(sink, text)
    if not sink.metrics:
        raise ParseError("hammerdb", "results", "no 'TEST RESULT : System achieved N NOPM from M ... TPM' line, "
                         "no virtual user FINISHED line, no AWR SNAPID line and no time profile SUMMARY", source=source)
    return sink.freeze("hammerdb")
