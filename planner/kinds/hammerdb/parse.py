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
own words), ``hammerdb.vu_finished`` and ``hammerdb.vu_failed`` users (FINISHED SUCCESS / FAILED lines); in a
transcript of several runs these are per ``run`` too (the users' ends when each run closed with ALL VIRTUAL USERS
COMPLETE). ``hammerdb.awr_begin_snap`` / ``hammerdb.awr_end_snap`` (snapshot ids), ``hammerdb.warehouses`` (from
``print dict`` or the driver's warehouse assignment lines); from a time profile's SUMMARY block, per stored procedure
(label ``proc``: NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT) ``hammerdb.proc_calls`` and
``hammerdb.proc_{min,avg,max,p99,p95,p50}_ms`` (from HammerDB 3.x's etprof table: calls and the mean per call).
Facts: ``database``, ``version``, ``jobid``, ``first_error``, ``awr_instance``.
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
# 3.x's etprof table (HammerDB 4.0 docs ch. 4.6, "Vuser 2:|neword | 82051665|39.96%| 93933| 873| 88760245|")
_ETPROF_HEAD = re.compile(r"\|\s*PROCNAME\s*\|\s*EXCLUSIVETOT\s*\|\s*%\s*\|\s*CALLNUM\s*\|\s*AVGPERCALL\s*\|")
_ETPROF_ROW = re.compile(r"\|\s*(neword|payment|delivery|slev|ostat)\s*\|\s*\d+\s*\|\s*[\d.]+%\s*\|\s*(\d+)\s*\|"
                         r"\s*(\d+(?:\.\d+)?)\s*\|")
_COMPLETE = re.compile(r"ALL VIRTUAL USERS COMPLETE")
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


_ONCE = ((_ACTIVE, "hammerdb.active_vu", "users"), (_RAMPUP, "hammerdb.rampup_min", "min"),
         (_TIMED, "hammerdb.duration_min", "min"))


def _add_once(sink: MetricSink, lines: list[str], pattern: re.Pattern[str], name: str, unit: str,
              span: tuple[int, int] | None = None, labels: dict[str, str] | None = None) -> None:
    """The last such line in ``span`` (a log of one run prints it once; a rerun's later line is the one that
    counts)."""
    first, end = span or (0, len(lines))
    found = [(no, m) for no in range(first, end) if (m := pattern.search(lines[no]))]
    if found:
        no, m = found[-1]
        sink.add(name, _number(m.group(1)), unit, Direction.NEUTRAL, no + 1, False, **(labels or {}))


def _spans(lines: list[str], results: list[int]) -> tuple[list[tuple[int, int]], bool]:
    """Each run's lines (0-based, end excluded) in a transcript of several results, and whether they are whole:
    a run ends at its ALL VIRTUAL USERS COMPLETE when every run printed one after its result (the CLI's vurun);
    else at its result line, its users' FINISHED lines (printed after it) then not told apart by run."""
    ends = [no for no, line in enumerate(lines) if _COMPLETE.search(line)]
    whole = len(ends) == len(results) and all(end >= result - 1 for end, result in zip(ends, results, strict=True))
    if not whole:
        ends = [result - 1 for result in results]
    starts = [0, *[end + 1 for end in ends[:-1]]]
    return [(start, end + 1) for start, end in zip(starts, ends, strict=True)], whole


def _per_run(sink: MetricSink, lines: list[str]) -> None:
    """Active users, rampup and duration (and with whole runs the users' ends) once per run: a transcript of
    several runs (the CLI scripting loop of HammerDB's docs) labels each with its ``run``, as NOPM and TPM."""
    results = [r[0] for r in _results(lines)]
    if len(results) < 2:
        for pattern, name, unit in _ONCE:
            _add_once(sink, lines, pattern, name, unit)
        _virtual_users(sink, lines, (0, len(lines)), {})
        return
    spans, whole = _spans(lines, results)
    for run, span in enumerate(spans, 1):
        for pattern, name, unit in _ONCE:
            _add_once(sink, lines, pattern, name, unit, span, {"run": str(run)})
        if whole:
            _virtual_users(sink, lines, span, {"run": str(run)})
    if not whole:
        _virtual_users(sink, lines, (0, len(lines)), {})


def _warehouses(sink: MetricSink, lines: list[str]) -> None:
    for no, line in enumerate(lines, 1):
        if m := _DICT_WARE.match(line):
            sink.add("hammerdb.warehouses", int(m.group(1)), "warehouses", Direction.NEUTRAL, no)
            return
        if m := _ASSIGNED.search(line):
            sink.add("hammerdb.warehouses", int(m.group(2) or m.group(1)), "warehouses", Direction.NEUTRAL, no)
            return


def _virtual_users(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str]) -> None:
    ended: dict[str, tuple[int, str]] = {}
    for no in range(*span):
        for m in _VU_END.finditer(lines[no]):
            ended[m.group(1)] = (no + 1, m.group(2))
        if "first_error" not in sink.facts and (e := _ERROR.search(lines[no])):
            sink.facts["first_error"] = f"virtual user {e.group(1)}: {e.group(2).strip()[:200]}"
    if not ended:
        return
    first = min(no for no, _ in ended.values())
    failed = sum(1 for _, state in ended.values() if state == "FAILED")
    sink.add("hammerdb.vu_finished", len(ended) - failed, "users", Direction.NEUTRAL, first, False, **labels)
    sink.add("hammerdb.vu_failed", failed, "users", Direction.LOWER, first, False, **labels)


def _etprof(sink: MetricSink, lines: list[str]) -> None:
    """HammerDB 3.x's time profile (etprof): the profiled user's totals per procedure at the end of the run, in
    microseconds; AVGPERCALL is the mean time a call spent in the procedure itself (label ``proc``, as the
    SUMMARY block of 4.x's xtprof names it)."""
    start = next((no for no, line in enumerate(lines) if _ETPROF_HEAD.search(line)), None)
    if start is None or any(_SUMMARY.search(line) for line in lines):
        return
    for no in range(start + 1, len(lines)):
        if not ("|" in lines[no] or "+--" in lines[no]) or _ETPROF_HEAD.search(lines[no]):
            return  # the table's end, or a second profiled user's table
        if m := _ETPROF_ROW.search(lines[no]):
            proc = m.group(1).upper()
            sink.add("hammerdb.proc_calls", float(m.group(2)), "calls", Direction.NEUTRAL, no + 1, False, proc=proc)
            sink.add("hammerdb.proc_avg_ms", float(m.group(3)) / 1000, "ms", Direction.LOWER, no + 1, False,
                     proc=proc)


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
    _per_run(sink, lines)
    _warehouses(sink, lines)
    _time_profile(sink, lines)
    _etprof(sink, lines)
    _snapshots(sink, lines)
    _facts(sink, text)
    if not sink.metrics:
        raise ParseError("hammerdb", "results", "no 'TEST RESULT : System achieved N NOPM from M ... TPM' line, "
                         "no virtual user FINISHED line, no AWR SNAPID line and no time profile SUMMARY", source=source)
    return sink.freeze("hammerdb")
