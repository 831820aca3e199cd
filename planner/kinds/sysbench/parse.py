"""sysbench's own output, 0.4 to 1.1: the run's statistics and the ``--report-interval`` lines.

The statistics block changed names with the release (sysbench.c ``report_cumulative`` in 0.4/0.5 and 1.0,
src/lua/internal/sysbench.lua in 1.1; docs/oracle-behaviour.md cites each)::

    OLTP test statistics:      0.4, 0.5  ("read/write requests:", "deadlocks:", "approx.  95 percentile: 7.5ms")
    SQL statistics:            1.0, 1.1  ("queries:", "Latency (ms):", "95th percentile:" as --percentile says)
        transactions:                        1702   (424.12 per sec.)
    Test execution summary:    0.4  ("total time: 60.0003s"); "General statistics:" from 0.5; 1.1 adds
    Throughput:                events/s (eps), "time elapsed:"
    [  10s] threads: 8, tps: 123.45, reads: ..., writes: ..., response time: 12.34ms (95%), errors: 0.00, ...   0.5
    [ 10s ] thds: 8 tps: 453.17 qps: 9180.15 (r/w/o: 6433.20/1820.66/926.30) lat (ms,95%): 17.01 err/s: 2.99 ...  1.0+
    [ 1s ] reads: 115.72 MiB/s writes: 77.15 MiB/s fsyncs: 489.76/s latency (ms,95%): 0.010       fileio, 1.0+
    [  10s] Intermediate results: 8 threads, tps: 582.994023, reads/s: ..., response time: 48.26ms (99%)  0.4.12.10

Metrics: ``sysbench.tps`` (transactions per second), ``sysbench.qps`` (1.0+; before it ``sysbench.rw_requests_per_s``),
``sysbench.transactions``, ``sysbench.queries`` (``type`` read|write|other|total), ``sysbench.errors`` and
``sysbench.errors_per_s`` (ignored errors), ``sysbench.reconnects``, ``sysbench.deadlocks`` (0.4/0.5),
``sysbench.time_s``, ``sysbench.events``, ``sysbench.events_per_s`` (1.1's eps), ``sysbench.cpu_events_per_s``
(the cpu test's "CPU speed"), ``sysbench.file_ops_per_s`` (``op`` read|write|fsync) and
``sysbench.file_mib_per_s`` (``op`` read|write: the fileio test's "File operations:" and "Throughput:"; 0.4/0.5
print counts instead: ``sysbench.file_ops`` (``op`` read|write|other|total), ``sysbench.file_transferred_mib``
(``op`` read|write|total), ``sysbench.file_mib_per_s`` ``op=total`` and ``sysbench.file_requests_per_s``),
``sysbench.latency_ms`` (``stat`` min|avg|max|sum|pNN), ``sysbench.threads``,
``sysbench.thread_events`` and ``sysbench.thread_time_s`` (``stat`` avg|stddev: threads fairness); over the
interval lines ``sysbench.interval_tps`` (``stat`` min|mean|max), fileio's ``sysbench.interval_file_mib_per_s``
(``op`` read|write, ``stat`` min|mean|max) and ``sysbench.interval_samples`` (each line, for a series:
``intervals(text)``, fileio's ``file_intervals(text)``). Several runs in one file: the label ``run``; a
``--report-checkpoints`` report:
the label ``checkpoint`` (its time), after the run's own values. Facts: ``version``, ``test``.
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
    put_finite(sink, "sysbench", name, value, unit, direction, line, labels)


_N = r"(\d+(?:\.\d+)?)"
_STATS = re.compile(r"^\s*(?:OLTP test statistics|SQL statistics):")
_FAIRNESS_END = re.compile(r"^\s*execution time \(avg/stddev\):")
_CHECKPOINT = re.compile(r"^\s*\[\s*(\d+(?:\.\d+)?m?s)\s*\]\s*Checkpoint report:")
_BANNER = re.compile(r"\bsysbench (\d+\.\d+(?:\.\d+)*(?:-\w+)?)")  # 0.4.12.10: four parts
# sysbench's own opening line, in every release: a paste that lost the banner line still has it
_OPTIONS = re.compile(r"Running the test with following options:")  # a page may glue it to the command line
_PER_SEC = re.compile(rf"^\s*(transactions|queries|read/write requests|other operations|ignored errors|reconnects|"
                      rf"deadlocks):\s*(\d+)\s*\(\s*{_N}\s*per sec\.\)")
_PER_SEC_METRICS = {  # the line's word -> (count metric, rate metric, unit, direction)
    "transactions": ("sysbench.transactions", "sysbench.tps", "transactions", Direction.HIGHER),
    "queries": ("", "sysbench.qps", "queries", Direction.HIGHER),
    "read/write requests": ("", "sysbench.rw_requests_per_s", "requests", Direction.HIGHER),
    "other operations": ("", "sysbench.other_per_s", "operations", Direction.NEUTRAL),
    "ignored errors": ("sysbench.errors", "sysbench.errors_per_s", "errors", Direction.LOWER),
    "reconnects": ("sysbench.reconnects", "", "reconnects", Direction.LOWER),
    "deadlocks": ("sysbench.deadlocks", "", "deadlocks", Direction.LOWER),
}
# a tab and the pasting author's own note may follow a value (a public 0.4.12.10 paste): the value is still read
_QUERIES = re.compile(r"^\s*(read|write|other|total):\s*(\d+)(?:\s*$|\t)")
# the fileio test's results (1.0+ sb_fileio.c file_report_cumulative: "File operations:", "Throughput:")
_FILE_OPS = re.compile(rf"^\s*(read|write|fsync)s/s:\s*{_N}\s*$")
_FILE_MIBS = re.compile(rf"^\s*(read|written), MiB/s:\s*{_N}\s*$")
# 0.4/0.5's fileio results (sb_fileio.c file_print_stats): counts, then sizes in 1024-based units ("Mb" is MiB:
# 479820 reads of 16 KiB print as "Read 7.3215Gb"), then the read+write requests a second
_FILE_OPS_04 = re.compile(r"^\s*Operations performed:\s*(\d+) reads?, (\d+) writes?, (\d+) other = (\d+) total\s*$",
                          re.I)
_SIZE = rf"{_N}\s*([KMGT]?)b"
_FILE_BYTES_04 = re.compile(rf"^\s*Read {_SIZE}\s+Written {_SIZE}\s+Total transferred {_SIZE}\s+\({_SIZE}/sec\)")
_FILE_REQUESTS_04 = re.compile(rf"^\s*{_N} Requests/sec executed\s*$")
# 1.1's fileio results (akopytov/sysbench tests/t/test_fileio.t at 1.1: "Throughput:" then one line per operation)
_FILE_IOPS_11 = re.compile(rf"^\s*(read|write|fsync):\s*IOPS={_N}(?:\s+{_N} MiB/s\s+\({_N} MB/s\))?\s*$")
# the memory test (sb_memory.c memory_report_cumulative): operations, then the bytes moved; 0.4/0.5 say "ops/sec"
# and "MB" for what is MiB (10240 operations of 1024K print as "10240.00 MB transferred")
_MEM_OPS = re.compile(rf"^\s*(?:Total operations|Operations performed):\s*(\d+)\s*\(\s*{_N}\s*(?:per second|ops/sec)\)")
_MEM_BYTES = re.compile(rf"^\s*{_N}\s*Mi?B transferred\s*\(\s*{_N}\s*Mi?B/sec\)")
_TO_MIB = {"": 1 / 1024 ** 2, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 ** 2}
_TIME = re.compile(rf"^\s*(?:total time|time elapsed):\s*{_N}\s*s\b")
_EVENTS = re.compile(r"^\s*total number of events:\s*(\d+)")
_EPS = re.compile(rf"^\s*(events/s \(eps\)|events per second):\s*{_N}")
_THREADS = re.compile(r"^\s*Number of threads:\s*(\d+)")
_LAT_HEAD = re.compile(r"^\s*(?:Latency \((ms|s|us)\)|response time|per-request statistics):")
_LAT_ROW = re.compile(rf"^\s*(min|avg|max|sum|approx\.\s+(\d+(?:\.\d+)?) percentile|(\d+(?:\.\d+)?)th percentile):"
                      rf"\s*{_N}\s*(ms|s|us|µs)?(?:\s*$|\t)")
_FAIRNESS = re.compile(rf"^\s*(events|execution time) \(avg/stddev\):\s*{_N}/{_N}")
_TEST = re.compile(r"^\s*Doing (\w[\w ]*?) test\.")
_TO_MS = {"ms": 1.0, "s": 1000.0, "us": 0.001, "µs": 0.001}
_INTERVAL_10 = re.compile(
    rf"^\s*\[\s*{_N}s\s*\]\s*thds:\s*(\d+)\s+tps:\s*{_N}\s+qps:\s*{_N}\s+\(r/w/o:\s*{_N}/{_N}/{_N}\)\s+"
    rf"lat \(ms,\s*{_N}%\):\s*{_N}\s+err/s:?\s*{_N}\s+reconn/s:\s*{_N}")
_INTERVAL_05 = re.compile(
    # some 0.5 builds print no comma before "response time" (a public run, tests/data/sysbench/README.md)
    rf"^\s*\[\s*{_N}s\s*\]\s*threads:\s*(\d+),\s*tps:\s*{_N},\s*reads(?:/s)?:\s*{_N},\s*writes(?:/s)?:\s*{_N},?\s*"
    rf"response time:\s*{_N}ms\s*\({_N}%\)(?:,\s*errors:\s*{_N},\s*reconnects:\s*{_N})?")
# 0.4.12.10's OLTP line (a 0.4 branch with --report-interval, sb_oltp.c oltp_print_stats: "%6f", some builds add
# ", min: Xms, max: Xms")
_INTERVAL_04 = re.compile(
    rf"^\s*\[\s*{_N}s\s*\]\s*Intermediate results:\s*(\d+) threads,\s*tps:\s*{_N},\s*reads/s:\s*{_N},\s*"
    rf"writes/s:\s*{_N},?\s*response time:\s*{_N}ms\s*\({_N}%\)")
# the fileio test's own interval line (1.0+ sb_fileio.c file_report_intermediate): MiB/s, not transactions
_INTERVAL_FILE = re.compile(
    rf"^\s*\[\s*{_N}s\s*\]\s*reads:\s*{_N}\s*MiB/s\s+writes:\s*{_N}\s*MiB/s\s+fsyncs:\s*{_N}/s\s+"
    rf"latency \(ms,\s*{_N}%\):\s*{_N}")


@dataclass(frozen=True, slots=True)
class Interval:
    """One ``--report-interval`` line: seconds since the start, threads running and the interval's rates."""

    line: int
    run: int
    t_s: float
    threads: int
    tps: float
    reads_per_s: float
    writes_per_s: float
    lat_ms: float  # at the percentile below
    percentile: float
    qps: float | None = None  # 1.0+
    other_per_s: float | None = None
    errors_per_s: float | None = None
    reconnects_per_s: float | None = None


@dataclass(frozen=True, slots=True)
class FileInterval:
    """One fileio ``--report-interval`` line: the interval's read and write MiB/s, fsyncs/s and latency."""

    line: int
    run: int
    t_s: float
    read_mib_s: float
    write_mib_s: float
    fsyncs_per_s: float
    lat_ms: float  # at the percentile below
    percentile: float


def looks_like(text: str) -> bool:
    head = text[:200_000]
    # ^[ \t]* not ^\s*: under re.M, \s crosses blank lines and a run of them makes the search quadratic
    stats = re.search(r"^[ \t]*(?:OLTP test statistics|SQL statistics):", head, re.M)
    summary = re.search(r"^[ \t]*(?:General statistics|Test execution summary|Throughput):", head, re.M)
    return bool(stats and re.search(r"transactions:\s*\d+\s*\(", head)) or bool(
        (_BANNER.search(head) or _OPTIONS.search(head)) and summary) or any(
        _interval(line, 0, 0) or _file_interval(line, 0, 0) for line in head.split("\n")[:400])


def _interval(line: str, no: int, run: int) -> Interval | None:
    """One interval line of either layout, or None; digits past what a float holds are no measurement."""
    if m := _INTERVAL_10.match(line):
        v = [float(x) for x in m.groups()]
        if all(math.isfinite(x) for x in v):
            return Interval(no, run, v[0], int(v[1]), v[2], v[4], v[5], v[8], v[7], v[3], v[6], v[9], v[10])
    elif m := _INTERVAL_04.match(line):
        t, threads, tps, reads, writes, lat, pct = (float(x) for x in m.groups())
        if all(math.isfinite(x) for x in (t, threads, tps, reads, writes, lat, pct)):
            return Interval(no, run, t, int(threads), tps, reads, writes, lat, pct)
    elif m := _INTERVAL_05.match(line):  # errors and reconnects came with 0.5's later builds: optional
        t, threads, tps, reads, writes, lat, pct = (float(x) for x in m.groups()[:7])
        errors, reconnects = (float(x) if x is not None else None for x in m.groups()[7:])
        if all(math.isfinite(x) for x in (t, threads, tps, reads, writes, lat, pct, errors or 0.0, reconnects or 0.0)):
            return Interval(no, run, t, int(threads), tps, reads, writes, lat, pct, errors_per_s=errors,
                            reconnects_per_s=reconnects)
    return None


def _file_interval(line: str, no: int, run: int) -> FileInterval | None:
    if not (m := _INTERVAL_FILE.match(line)):
        return None
    t, reads, writes, fsyncs, pct, lat = (float(x) for x in m.groups())
    ok = all(math.isfinite(x) for x in (t, reads, writes, fsyncs, pct, lat))
    return FileInterval(no, run, t, reads, writes, fsyncs, lat, pct) if ok else None


@dataclass(frozen=True, slots=True)
class _Report:
    """One report's lines [start, end): a run's, or a checkpoint's inside a run (``--report-checkpoints``)."""

    start: int
    end: int
    run: int
    checkpoint: str = ""  # "10s" for "[ 10s ] Checkpoint report:"


def _reports(lines: list[str]) -> list[_Report]:
    """Every report ends with its threads fairness: cut after each, the interval lines going with the report
    below them; what trails the last one is its run's unless it holds another run's intervals or statistics."""
    cuts = [i + 1 for i, line in enumerate(lines) if _FAIRNESS_END.match(line)]
    spans, start = [], 0
    for cut in cuts:
        spans.append((start, cut))
        start = cut
    if start < len(lines):
        if spans and not any(_STATS.match(lines[i]) or _interval(lines[i], 0, 0) or _file_interval(lines[i], 0, 0)
                             for i in range(start, len(lines))):
            spans[-1] = (spans[-1][0], len(lines))
        else:
            spans.append((start, len(lines)))
    tags = [next((m.group(1) for i in range(*span) if (m := _CHECKPOINT.match(lines[i]))), "") for span in spans]
    reports, run = [], 1
    for (first, last), tag in zip(spans, tags, strict=True):
        reports.append(_Report(first, last, run, tag))
        run += 0 if tag else 1
    return reports


def intervals(text: str) -> tuple[Interval, ...]:
    """Every ``--report-interval`` line, in order, with the run it belongs to: the series of a point."""
    lines = text.split("\n")
    out: list[Interval] = []
    for report in _reports(lines):
        out.extend(r for no in range(report.start, report.end) if (r := _interval(lines[no], no + 1, report.run)))
    return tuple(out)


def file_intervals(text: str) -> tuple[FileInterval, ...]:
    """The fileio test's ``--report-interval`` lines, in order, with their run: its point's series."""
    lines = text.split("\n")
    out: list[FileInterval] = []
    for report in _reports(lines):
        out.extend(r for no in range(report.start, report.end)
                   if (r := _file_interval(lines[no], no + 1, report.run)))
    return tuple(out)


def _per_sec(sink: MetricSink, m: re.Match[str], no: int, labels: dict[str, str]) -> None:
    count_name, rate_name, unit, direction = _PER_SEC_METRICS[m.group(1)]
    if count_name:
        _put(sink, count_name, float(m.group(2)), unit, Direction.NEUTRAL if direction is Direction.HIGHER
            else direction, no, labels)
    if rate_name:
        _put(sink, rate_name, float(m.group(3)), f"{unit}/s", direction, no, labels)


def _latency(sink: MetricSink, m: re.Match[str], scale: float, no: int, labels: dict[str, str]) -> None:
    word = m.group(1)
    pct = m.group(2) or m.group(3)
    stat = f"p{pct}" if pct else word
    factor = _TO_MS[m.group(5)] if m.group(5) else scale
    direction = Direction.NEUTRAL if stat == "sum" else Direction.LOWER  # the sum is every event's time added up
    _put(sink, "sysbench.latency_ms", float(m.group(4)) * factor, "ms", direction, no, {**labels, "stat": stat})


def _file_bytes_04(sink: MetricSink, m: re.Match[str], no: int, labels: dict[str, str]) -> None:
    v = m.groups()
    for i, op in enumerate(("read", "write", "total")):
        _put(sink, "sysbench.file_transferred_mib", float(v[2 * i]) * _TO_MIB[v[2 * i + 1].upper()], "MiB",
             Direction.NEUTRAL, no, {**labels, "op": op})
    _put(sink, "sysbench.file_mib_per_s", float(v[6]) * _TO_MIB[v[7].upper()], "MiB/s", Direction.HIGHER, no,
         {**labels, "op": "total"})


def _throughput(sink: MetricSink, m: re.Match[str], no: int, labels: dict[str, str]) -> None:
    """1.1's fileio "read:  IOPS=..." lines, and the memory test's operations and MiB moved."""
    H, N = Direction.HIGHER, Direction.NEUTRAL
    if m.re is _FILE_IOPS_11:
        op = {**labels, "op": m.group(1)}
        _put(sink, "sysbench.file_ops_per_s", float(m.group(2)), "operations/s", N if m.group(1) == "fsync" else H,
             no, op)
        if m.group(3):
            _put(sink, "sysbench.file_mib_per_s", float(m.group(3)), "MiB/s", H, no, op)
    elif m.re is _MEM_OPS:
        _put(sink, "sysbench.memory_operations", float(m.group(1)), "operations", N, no, labels)
        _put(sink, "sysbench.memory_ops_per_s", float(m.group(2)), "operations/s", H, no, labels)
    else:
        _put(sink, "sysbench.memory_transferred_mib", float(m.group(1)), "MiB", N, no, labels)
        _put(sink, "sysbench.memory_mib_per_s", float(m.group(2)), "MiB/s", H, no, labels)


def _line(sink: MetricSink, line: str, no: int, labels: dict[str, str], state: dict[str, float]) -> None:
    """One line of a run's statistics; ``state`` carries the latency block's unit (1.0's "Latency (ms):")."""
    if m := _PER_SEC.match(line):
        _per_sec(sink, m, no, labels)
    elif m := _QUERIES.match(line):
        _put(sink, "sysbench.queries", float(m.group(2)), "queries", Direction.NEUTRAL, no,
            {**labels, "type": m.group(1)})
    elif m := _TIME.match(line):
        _put(sink, "sysbench.time_s", float(m.group(1)), "s", Direction.NEUTRAL, no, labels)
    elif m := _EVENTS.match(line):
        _put(sink, "sysbench.events", float(m.group(1)), "events", Direction.NEUTRAL, no, labels)
    elif m := _EPS.match(line):  # the cpu test's own "CPU speed" figure, or 1.1's throughput of any test
        name = "sysbench.cpu_events_per_s" if m.group(1) == "events per second" else "sysbench.events_per_s"
        _put(sink, name, float(m.group(2)), "events/s", Direction.HIGHER, no, labels)
    elif m := _FILE_OPS.match(line):
        _put(sink, "sysbench.file_ops_per_s", float(m.group(2)), "operations/s",
             Direction.NEUTRAL if m.group(1) == "fsync" else Direction.HIGHER, no, {**labels, "op": m.group(1)})
    elif m := _FILE_MIBS.match(line):
        _put(sink, "sysbench.file_mib_per_s", float(m.group(2)), "MiB/s", Direction.HIGHER, no,
             {**labels, "op": "read" if m.group(1) == "read" else "write"})
    elif m := _FILE_OPS_04.match(line):
        for op, value in zip(("read", "write", "other", "total"), m.groups(), strict=True):
            _put(sink, "sysbench.file_ops", float(value), "operations", Direction.NEUTRAL, no, {**labels, "op": op})
    elif m := _FILE_BYTES_04.match(line):
        _file_bytes_04(sink, m, no, labels)
    elif m := _FILE_REQUESTS_04.match(line):
        _put(sink, "sysbench.file_requests_per_s", float(m.group(1)), "requests/s", Direction.HIGHER, no, labels)
    elif (m := _FILE_IOPS_11.match(line)) or (m := _MEM_OPS.match(line)) or (m := _MEM_BYTES.match(line)):
        _throughput(sink, m, no, labels)
    elif m := _THREADS.match(line):
        _put(sink, "sysbench.threads", float(m.group(1)), "threads", Direction.NEUTRAL, no, labels)
    elif m := _LAT_HEAD.match(line):
        state["latency"] = _TO_MS[m.group(1)] if m.group(1) else 1.0
    elif (m := _LAT_ROW.match(line)) and "latency" in state:
        _latency(sink, m, state["latency"], no, labels)
    elif m := _FAIRNESS.match(line):
        name, unit = ("sysbench.thread_events", "events") if m.group(1) == "events" else ("sysbench.thread_time_s", "s")
        _put(sink, name, float(m.group(2)), unit, Direction.NEUTRAL, no, {**labels, "stat": "avg"})
        _put(sink, name, float(m.group(3)), unit, Direction.NEUTRAL, no, {**labels, "stat": "stddev"})
    elif m := _TEST.match(line):
        sink.facts.setdefault("test", m.group(1))


def _interval_summary(sink: MetricSink, rows: list[Interval], labels: dict[str, str]) -> None:
    if not rows:
        return
    tps = [r.tps for r in rows]
    for stat, value in (("min", min(tps)), ("mean", sum(tps) / len(tps)), ("max", max(tps))):
        _put(sink, "sysbench.interval_tps", value, "transactions/s", Direction.HIGHER, rows[0].line,
            {**labels, "stat": stat})
    _put(sink, "sysbench.interval_samples", len(rows), "samples", Direction.NEUTRAL, rows[0].line, labels)


def _file_interval_summary(sink: MetricSink, rows: list[FileInterval], labels: dict[str, str]) -> None:
    """The fileio lines' spread of read and write MiB/s (a run's "Throughput:" is only their mean)."""
    if not rows:
        return
    for op, values in (("read", [r.read_mib_s for r in rows]), ("write", [r.write_mib_s for r in rows])):
        for stat, value in (("min", min(values)), ("mean", sum(values) / len(values)), ("max", max(values))):
            _put(sink, "sysbench.interval_file_mib_per_s", value, "MiB/s", Direction.HIGHER, rows[0].line,
                 {**labels, "op": op, "stat": stat})
    _put(sink, "sysbench.interval_samples", len(rows), "samples", Direction.NEUTRAL, rows[0].line, labels)


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    lines = text.split("\n")
    reports = _reports(lines)
    runs = len({r.run for r in reports})
    by_run: dict[int, list[Interval]] = {}
    for row in intervals(text):
        by_run.setdefault(row.run, []).append(row)
    file_by_run: dict[int, list[FileInterval]] = {}
    for f in file_intervals(text):
        file_by_run.setdefault(f.run, []).append(f)
    # a run's own report first, its checkpoints after it: the first value of a name is the run's
    for report in sorted(reports, key=lambda r: bool(r.checkpoint)):
        labels = ({"run": str(report.run)} if runs > 1 else {}) | (
            {"checkpoint": report.checkpoint} if report.checkpoint else {})
        state: dict[str, float] = {}
        for no in range(report.start, report.end):
            _line(sink, lines[no], no + 1, labels, state)
        if not report.checkpoint:
            _interval_summary(sink, by_run.get(report.run, []), labels)
            _file_interval_summary(sink, file_by_run.get(report.run, []), labels)
    if m := _BANNER.search(text):
        sink.facts["version"] = m.group(1)
    if not sink.metrics:
        raise ParseError("sysbench", "statistics", "no 'transactions: N (X per sec.)' statistics, no 'General "
                         "statistics' and no '--report-interval' line", source=source)
    return sink.freeze("sysbench")
