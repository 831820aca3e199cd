"""pgbench's own output, PostgreSQL 9.x to 17: the summary, ``-r`` statement latencies, per-script sections, ``-P``.

What pgbench prints changed with the release (``printResults``/``printProgressReport`` in
contrib/pgbench/pgbench.c to 9.4, src/bin/pgbench/pgbench.c from 9.5; docs/oracle-behaviour.md cites each)::

    latency average: 15.844 ms                           9.4, 9.5 (": "); "latency average = ..." from 9.6
    tps = 85.18 (including connections establishing)     to 13, with "(excluding connections establishing)"
    tps = 896.96 (without initial connection time)       14+ ("initial connection time = 45.758 ms" above it)
    tps = 93.35 (including reconnection times)           14+ under -C ("average connection time = ..." above)
    number of failed transactions: 0 (0.000%)            15+ (and "maximum number of tries: 1")
    statement latencies in milliseconds:                 -r to 14 (9.x: tab-separated, ", file N" per -f file;
                                                         10-13: " - " under "script statistics:")
    statement latencies in milliseconds and failures:    -r 15+ (", failures and retries:" when --max-tries > 1)
    SQL script 1: <builtin: TPC-B (sort of)>             9.6+ with several scripts (" - " lines below it)
    progress: 5.0 s, 1234.5 tps, lat 3.2 ms stddev 1.1[, 0 failed][, lag 0.5 ms][, 9 skipped][, N retried, M retries]
    pgbench: error: Run was aborted; the above results are incomplete.     ("fatal:" in 13, bare before)

Which tps is *the* tps: from 14 the one line (without initial connection time, or including reconnection times
under -C). Before 14 the "excluding" figure, except when it is more than twice the "including" one: then every
transaction paid for a connection (-C) and "excluding" left out most of the run (pgbench 9.4 printed
``tps = 388.65 (including ...)`` / ``tps = 135108.21 (excluding ...)`` for ``-C``), so "including" is taken and the
fact ``tps_basis`` says which. A file holding several runs gives each run's metrics the label ``run``.

Metrics: ``pgbench.tps`` (the one above), ``pgbench.tps_including_connections`` and
``pgbench.tps_excluding_connections`` (before 14), ``pgbench.latency_ms``
(``stat`` avg|stddev), ``pgbench.initial_connection_ms``, ``pgbench.connection_ms`` (-C: per connection),
``pgbench.lag_ms`` (``stat`` avg|max, under -R), ``pgbench.transactions`` and ``pgbench.transactions_intended``
(-t), ``pgbench.failed`` (15+; ``cause`` serialization|deadlock|other with --failures-detailed),
``pgbench.failed_pct``, ``pgbench.retried``, ``pgbench.retries``, ``pgbench.skipped``, ``pgbench.late`` and
``pgbench.late_pct`` (above the -L limit), ``pgbench.clients``, ``pgbench.threads``, ``pgbench.scale``,
``pgbench.duration_s``, ``pgbench.max_tries``, ``pgbench.aborted`` (1 when pgbench said the run was aborted),
``pgbench.clients_aborted``; per statement (labels ``script`` when there are several, ``n`` its position,
``statement`` its first line) ``pgbench.statement_latency_ms``, ``pgbench.statement_failures``,
``pgbench.statement_retries``; per script (label ``script``) ``pgbench.script_tps``,
``pgbench.script_transactions``, ``pgbench.script_weight``, ``pgbench.script_failed``, ``pgbench.script_latency_ms``;
over the ``-P`` lines ``pgbench.progress_tps`` (``stat`` min|mean|max) and ``pgbench.progress_samples``
(each line, for a series: ``progress(text)``). Facts: ``version``, ``server_version``, ``transaction_type``,
``query_mode``, ``tps_basis``, ``aborted``, ``script_N``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put_finite


def _put(sink: MetricSink, name: str, value: float, unit: str, direction: Direction, line: int | None,
         labels: Mapping[str, str]) -> None:
    put_finite(sink, "pgbench", name, value, unit, direction, line, labels)


_N = r"(\d+(?:\.\d+)?)"
_TPS = re.compile(rf"\btps\s*=\s*{_N}\s*\(([^)]*)\)")
# a tps line in pgbench's own words is pgbench's, also when a note kept only the summary's last lines
_OWN_TPS = re.compile(rf"\btps\s*=\s*{_N}\s*\((?:(?:including|excluding) connections establishing|"
                      r"without initial connection time|including reconnection times)\)")
_BANNER = re.compile(r"\bpgbench \((\d+(?:\.\d+)*\w*)(?: \([^)]*\))?(?:, server (\d+(?:\.\d+)*\w*))?")
_PROCESSED = re.compile(r"number of (?:transactions actually processed|processed transactions):\s*(\d+)(?:/(\d+))?")
_FAILED = re.compile(r"number of failed transactions:\s*(\d+)\s*\((\S+?)\s*%\)")
_FAILED_BY = re.compile(r"number of (serialization|deadlock|other) failures:\s*(\d+)")
_LATE = re.compile(rf"above the\s*{_N}\s*ms latency limit:\s*(\d+)(?:/\d+)?\s*\(\s*{_N}\s*%\)")
_LATENCY = re.compile(rf"latency (average|stddev)\s*[=:]\s*{_N}\s*ms")
_LAG = re.compile(rf"rate limit schedule lag:\s*avg\s*{_N}\s*\(max\s*{_N}\)\s*ms")
_SETTINGS = (  # (pattern, metric, unit)
    (re.compile(r"number of clients:\s*(\d+)"), "pgbench.clients", "clients"),
    (re.compile(r"number of threads:\s*(\d+)"), "pgbench.threads", "threads"),
    (re.compile(r"scaling factor:\s*(\d+)"), "pgbench.scale", "scale"),
    (re.compile(r"duration:\s*(\d+)\s*s\b"), "pgbench.duration_s", "s"),
    (re.compile(r"maximum number of tries:\s*(\d+)"), "pgbench.max_tries", "tries"),
)
_COUNTS = (  # (pattern, metric, unit, direction)
    (re.compile(rf"initial connection time\s*=\s*{_N}\s*ms"), "pgbench.initial_connection_ms", "ms", Direction.LOWER),
    (re.compile(rf"average connection time\s*=\s*{_N}\s*ms"), "pgbench.connection_ms", "ms", Direction.LOWER),
    (re.compile(r"number of transactions retried:\s*(\d+)"), "pgbench.retried", "transactions", Direction.LOWER),
    (re.compile(r"total number of retries:\s*(\d+)"), "pgbench.retries", "retries", Direction.LOWER),
    (re.compile(r"number of transactions skipped:\s*(\d+)"), "pgbench.skipped", "transactions", Direction.LOWER),
)
_FACTS = (("transaction_type", re.compile(r"transaction type:\s*(.+?)\s*$")),
          ("query_mode", re.compile(r"query mode:\s*(\w+)")))
_ABORTED = re.compile(r"Run was aborted; the above results are incomplete")
_CLIENT_ABORTED = re.compile(r"\bclient (\d+) (?:script \d+ )?aborted\b")
_STMT_HEADER = re.compile(r"statement latencies in milliseconds(?:, file (\d+))?"
                          r"( and failures|, failures and retries)?:")
_SCRIPT = re.compile(r"^\s*SQL script (\d+):\s*(.*?)\s*$")
_SCRIPT_LINE = re.compile(r"^\s*-\s+(.*)$")
_SCRIPT_TXNS = re.compile(rf"^(?:number of transactions actually processed:\s*)?(\d+)(?: transactions)?\s*\("
                          rf"(?:{_N}% of total, )?tps = {_N}\)")
_WEIGHT = re.compile(r"^weight:\s*(\d+)")
_PROGRESS = re.compile(
    rf"\bprogress(?: \(thread \d+\))?:\s*{_N}\s*s,\s*{_N}\s*tps,\s*(?:lat\s*{_N}\s*ms(?:\s*stddev\s*([-+]?(?:nan|NaN|"
    rf"\d+(?:\.\d+)?)))?|{_N}\s*ms\s*lat)(?:,\s*(\d+)\s*failed)?(?:,\s*lag\s*{_N}\s*ms)?(?:,\s*(\d+)\s*skipped)?"
    r"(?:,\s*(\d+)\s*retried,\s*(\d+)\s*retries)?")
_ROW_END = re.compile(r"\s+$")
# what follows a run's tps lines and is still that run's: -r rows (and a row wrapped onto a deeper-indented
# line), script sections (10-13 put one script's table under "script statistics:"), the aborted line
_TAIL = re.compile(r"^(?:\s*(?:$|-\s|SQL script \d+:|script statistics:|"
                   r"(?:pgbench: (?:error|fatal): )?Run was aborted|\d+(?:\.\d+)?\s)|\s{8,}\S)")
STATEMENT_WORDS = 100  # a statement's label keeps its first 100 characters


@dataclass(frozen=True, slots=True)
class Progress:
    """One ``-P`` line: seconds since the start (or the Unix time under --progress-timestamp) and its figures."""

    line: int
    run: int
    t_s: float
    tps: float
    lat_ms: float | None
    stddev_ms: float | None
    failed: int | None = None
    lag_ms: float | None = None
    skipped: int | None = None
    retried: int | None = None
    retries: int | None = None


def looks_like(text: str) -> bool:
    head = text[:200_000]
    return bool(_TPS.search(head) and ("number of clients" in head or "transaction type" in head)
                or _PROGRESS.search(head) or ("pgbench" in head and _PROCESSED.search(head))
                or _OWN_TPS.search(head))


def _tps_groups(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line index of each run's tps lines: "including" and "excluding" are printed together."""
    groups: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if "tps" not in line or not _TPS.search(line):  # the substring first: a -P line per second adds up
            continue
        if groups and i - groups[-1][1] <= 2:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
    return groups


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Each run's [start, end) lines: its summary up to the tps lines, then what follows them (-r tables, script
    sections, the aborted line) until the next run's lines begin."""
    blocks: list[tuple[int, int]] = []
    start = 0
    for _first, last in _tps_groups(lines):
        end = last + 1
        while end < len(lines) and _TAIL.match(lines[end]) and not _TPS.search(lines[end]):
            end += 1
        blocks.append((start, end))
        start = end
    if not blocks:
        return [(0, len(lines))]
    blocks[-1] = (blocks[-1][0], len(lines))
    return blocks


def _tps(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str]) -> None:
    found: dict[str, tuple[int, float]] = {}
    for no in range(*span):
        for m in _TPS.finditer(lines[no]) if "tps" in lines[no] else ():  # nohup files glue lines into one
            words = m.group(2).lower()
            basis = ("reconnection" if "reconnection" in words else "without" if "without" in words
                     else "excluding" if "excluding" in words else "including")
            found.setdefault(basis, (no + 1, float(m.group(1))))
    if not found:
        return
    for before_14 in ("including", "excluding"):  # both kept: which one is "the" tps is a choice, said below
        if before_14 in found:
            _put(sink, f"pgbench.tps_{before_14}_connections", found[before_14][1], "tps", Direction.HIGHER,
                found[before_14][0], labels)
    basis = next(b for b in ("without", "reconnection", "excluding", "including") if b in found)
    if basis == "excluding" and "including" in found and found["excluding"][1] > 2 * found["including"][1]:
        basis = "including"  # -C before 14: "excluding" left out the connections every transaction paid for
    no, value = found[basis]
    _put(sink, "pgbench.tps", value, "tps", Direction.HIGHER, no, labels)
    sink.facts.setdefault("tps_basis", {"without": "without initial connection time",
                                        "reconnection": "including reconnection times",
                                        "excluding": "excluding connections establishing",
                                        "including": "including connections establishing"}[basis])


def _summary(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str]) -> None:
    """The run's settings and totals: the lines outside its script sections."""
    in_script = False
    for no in range(*span):
        line = lines[no]
        if _SCRIPT.match(line):
            in_script = True
        if in_script or ("progress" in line and _PROGRESS.search(line)):
            continue
        _summary_line(sink, line, no + 1, labels)


def _summary_line(sink: MetricSink, line: str, no: int, labels: dict[str, str]) -> None:
    for pattern, name, unit in _SETTINGS:
        if m := pattern.search(line):
            _put(sink, name, float(m.group(1)), unit, Direction.NEUTRAL, no, labels)
    for pattern, name, unit, direction in _COUNTS:
        if m := pattern.search(line):
            _put(sink, name, float(m.group(1)), unit, direction, no, labels)
    if m := _PROCESSED.search(line):
        _put(sink, "pgbench.transactions", float(m.group(1)), "transactions", Direction.NEUTRAL, no, labels)
        if m.group(2):
            _put(sink, "pgbench.transactions_intended", float(m.group(2)), "transactions", Direction.NEUTRAL, no,
                labels)
    if m := _FAILED.search(line):
        _put(sink, "pgbench.failed", float(m.group(1)), "transactions", Direction.LOWER, no, labels)
        if _FINITE.fullmatch(m.group(2)):  # "NaN%" when nothing ran: 0 of 0 is no share
            _put(sink, "pgbench.failed_pct", float(m.group(2)), "%", Direction.LOWER, no, labels)
    if m := _FAILED_BY.search(line):
        _put(sink, "pgbench.failed", float(m.group(2)), "transactions", Direction.LOWER, no,
            {**labels, "cause": m.group(1)})
    if m := _LATE.search(line):
        _put(sink, "pgbench.late", float(m.group(2)), "transactions", Direction.LOWER, no, labels)
        _put(sink, "pgbench.late_pct", float(m.group(3)), "%", Direction.LOWER, no, labels)
        sink.facts.setdefault("latency_limit_ms", m.group(1))
    if m := _LATENCY.search(line):
        _put(sink, "pgbench.latency_ms", float(m.group(2)), "ms", Direction.LOWER, no,
            {**labels, "stat": "avg" if m.group(1) == "average" else "stddev"})
    if m := _LAG.search(line):
        _put(sink, "pgbench.lag_ms", float(m.group(1)), "ms", Direction.LOWER, no, {**labels, "stat": "avg"})
        _put(sink, "pgbench.lag_ms", float(m.group(2)), "ms", Direction.LOWER, no, {**labels, "stat": "max"})
    for key, pattern in _FACTS:
        if m := pattern.search(line):
            sink.facts.setdefault(key, m.group(1)[:200])


def _row(line: str, counts: int) -> tuple[float, list[float], str] | None:
    """A statement row: latency, then ``counts`` count columns (failures, retries), then the statement."""
    m = re.match(rf"^\s*{_N}\s+" + r"(\d+)\s+" * counts + r"(\S.*?)\s*$", line)
    if not m:
        return None
    return float(m.group(1)), [float(m.group(2 + i)) for i in range(counts)], m.group(2 + counts)[:STATEMENT_WORDS]


def _statements(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str],
                several_scripts: bool) -> None:
    script = ""
    no = span[0]
    while no < span[1]:
        if m := _SCRIPT.match(lines[no]):
            script = m.group(1)
        header = _STMT_HEADER.search(lines[no]) if "statement latencies" in lines[no] else None
        no += 1
        if not header:
            continue
        script = header.group(1) or script
        counts = 0 if not header.group(2) else 1 if "and failures" in header.group(2) else 2
        where = {**labels, **({"script": script} if script and several_scripts else {})}
        no = _table(sink, lines, no, span[1], counts, where)


def _table(sink: MetricSink, lines: list[str], no: int, end: int, counts: int, where: dict[str, str]) -> int:
    """The rows of one statement table from line ``no``; returns the line after it. A row wrapped onto the next
    line (a paste at a fixed width) continues at its statement's column or further right, and is joined to it."""
    rows: list[tuple[int, float, list[float], str, int]] = []  # line, latency, counts, statement, its column
    while no < end:
        line = _ROW_END.sub("", lines[no])
        if row := _row(line, counts):
            rows.append((no + 1, row[0], row[1], row[2], line.rfind(row[2])))
        elif rows and line.strip() and len(line) - len(line.lstrip()) >= rows[-1][4]:
            last = rows[-1]
            rows[-1] = (last[0], last[1], last[2], f"{last[3]} {line.strip()}"[:STATEMENT_WORDS], last[4])
        else:
            break
        no += 1
    for position, (line_no, latency, numbers, statement, _column) in enumerate(rows, 1):
        labels = {**where, "n": str(position), "statement": statement}
        _put(sink, "pgbench.statement_latency_ms", latency, "ms", Direction.LOWER, line_no, labels)
        for name, value in zip(("pgbench.statement_failures", "pgbench.statement_retries"), numbers, strict=False):
            _put(sink, name, value, "count", Direction.LOWER, line_no, labels)
    return no


def _scripts(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str]) -> None:
    """The "SQL script N:" sections: each script's weight, transactions, tps, failures and latency."""
    script = ""
    for no in range(*span):
        line = lines[no]
        if m := _SCRIPT.match(line):
            script = m.group(1)
            sink.facts.setdefault(f"script_{script}", m.group(2)[:200])
            continue
        item = _SCRIPT_LINE.match(line)
        if not script or not item:
            if script and line.strip() and not _row(line, 0):
                script = ""
            continue
        _script_line(sink, item.group(1), no + 1, {**labels, "script": script})


def _script_line(sink: MetricSink, text: str, no: int, labels: dict[str, str]) -> None:
    if m := _WEIGHT.match(text):
        _put(sink, "pgbench.script_weight", float(m.group(1)), "weight", Direction.NEUTRAL, no, labels)
    elif m := _SCRIPT_TXNS.match(text):
        _put(sink, "pgbench.script_transactions", float(m.group(1)), "transactions", Direction.NEUTRAL, no, labels)
        _put(sink, "pgbench.script_tps", float(m.group(3)), "tps", Direction.HIGHER, no, labels)
    elif m := _FAILED.search(text):
        _put(sink, "pgbench.script_failed", float(m.group(1)), "transactions", Direction.LOWER, no, labels)
    elif m := _LATENCY.search(text):
        _put(sink, "pgbench.script_latency_ms", float(m.group(2)), "ms", Direction.LOWER, no,
            {**labels, "stat": "avg" if m.group(1) == "average" else "stddev"})


_FINITE = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _number_or_none(text: str | None) -> float | None:
    """A figure, or None for an absent one, pgbench's "nan"/"-nan" (a stddev over no transactions) or digits
    past what a float holds."""
    value = float(text) if text and _FINITE.fullmatch(text) else None
    return value if value is not None and math.isfinite(value) else None


def _progress_row(m: re.Match[str], line: int, run: int) -> Progress | None:
    def count(i: int) -> int | None:
        return int(m.group(i)) if m.group(i) else None

    t_s, tps = _number_or_none(m.group(1)), _number_or_none(m.group(2))
    if t_s is None or tps is None:
        return None
    lat = _number_or_none(m.group(3)) if m.group(3) else _number_or_none(m.group(5))
    return Progress(line, run, t_s, tps, lat, _number_or_none(m.group(4)), count(6), _number_or_none(m.group(7)),
                    count(8), count(9), count(10))


def progress(text: str) -> tuple[Progress, ...]:
    """Every ``-P`` line, in order, with the run it belongs to (1 unless the file holds several): the series."""
    lines = text.split("\n")
    rows = []
    for run, (start, end) in enumerate(_blocks(lines), 1):
        for no in range(start, end):
            if "progress" in lines[no] and (m := _PROGRESS.search(lines[no])) and (row := _progress_row(m, no + 1,
                                                                                                    run)):
                rows.append(row)
    return tuple(rows)


def _progress_summary(sink: MetricSink, rows: list[Progress], labels: dict[str, str]) -> None:
    if not rows:
        return
    tps = [r.tps for r in rows]
    first = rows[0].line
    for stat, value in (("min", min(tps)), ("mean", sum(tps) / len(tps)), ("max", max(tps))):
        _put(sink, "pgbench.progress_tps", value, "tps", Direction.HIGHER, first, {**labels, "stat": stat})
    _put(sink, "pgbench.progress_samples", len(rows), "samples", Direction.NEUTRAL, first, labels)


def _aborted(sink: MetricSink, lines: list[str], span: tuple[int, int], labels: dict[str, str]) -> None:
    lines_with = [no for no in range(*span) if "abort" in lines[no]]
    clients = {m.group(1) for no in lines_with if (m := _CLIENT_ABORTED.search(lines[no]))}
    said = next((no + 1 for no in lines_with if _ABORTED.search(lines[no])), None)
    if clients:
        first = next(no + 1 for no in lines_with if _CLIENT_ABORTED.search(lines[no]))
        _put(sink, "pgbench.clients_aborted", len(clients), "clients", Direction.LOWER, first, labels)
    if said:
        _put(sink, "pgbench.aborted", 1, "run", Direction.LOWER, said, labels)
        sink.facts.setdefault("aborted", "pgbench: Run was aborted; the above results are incomplete.")


def _facts(sink: MetricSink, text: str) -> None:
    if m := _BANNER.search(text):
        sink.facts["version"] = m.group(1)
        if m.group(2):
            sink.facts["server_version"] = m.group(2)


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    lines = text.split("\n")
    blocks = _blocks(lines)
    by_run: dict[int, list[Progress]] = {}
    for row in progress(text):
        by_run.setdefault(row.run, []).append(row)
    for run, span in enumerate(blocks, 1):
        labels = {"run": str(run)} if len(blocks) > 1 else {}
        several = sum(1 for no in range(*span) if "statement latencies" in lines[no]) > 1 or any(
            _SCRIPT.match(lines[no]) for no in range(*span) if "SQL script" in lines[no])
        _tps(sink, lines, span, labels)
        _summary(sink, lines, span, labels)
        _scripts(sink, lines, span, labels)
        _statements(sink, lines, span, labels, several)
        _progress_summary(sink, by_run.get(run, []), labels)
        _aborted(sink, lines, span, labels)
    _facts(sink, text)
    if not sink.metrics:
        raise ParseError("pgbench", "summary", "no 'tps = N (...)' line, no 'number of transactions actually "
                         "processed' line and no '-P' progress line", source=source)
    return sink.freeze("pgbench")
