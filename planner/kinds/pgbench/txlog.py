"""pgbench's per-transaction log (``--log``): every (sampled) transaction's latency, read into true percentiles.

pgbench's summary gives a latency average and standard deviation only; ``--aggregate-interval`` logs give
min/max/sum/sum² per interval, from which no percentile can be had. The per-transaction log gives each latency,
so the percentiles here are exact over what was logged (nearest rank over the sorted latencies; with
``--sampling-rate`` over the sample). A line, by release (PostgreSQL documentation, pgbench, "Per-Transaction
Logging"; docs/oracle-behaviour.md)::

    client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]

``time`` is the latency in microseconds; 9.5+ write ``skipped`` there for a transaction skipped under
``--rate``/``--latency-limit``, 15+ ``failed`` (``serialization`` or ``deadlock`` with ``--failures-detailed``)
for one that failed. ``schedule_lag`` (9.4+) is there under ``--rate``, ``retries`` (15+) when ``--max-tries`` is
not 1: only the first six fields are read, so either layout reads the same. ``time_epoch``/``time_us`` say when
the transaction completed: the series' clock. Each thread writes its own file (``pgbench_log.PID[.N]``); they may
be given one after another, in any order. An aggregated log (``--aggregate-interval``: the interval's Unix start
first) is refused by name.

Metrics: ``pgbench.latency_ms`` (``stat`` p50|p90|p95|p99|max, over completed transactions: pgbench 15+'s own
average takes failed ones in too, "(including failures)"), ``pgbench.logged_transactions``,
``pgbench.logged_failed``, ``pgbench.logged_skipped``.
"""

from __future__ import annotations

import io
import math
import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.timeseries import TimeSeries

PERCENTILES = (50.0, 90.0, 95.0, 99.0)
SERIES_PERCENTILES = (50.0, 95.0, 99.0)
_EXTRA = re.compile(r"-?\d+(?:\.\d+)?")  # schedule_lag, retries
# an --aggregate-interval row: interval start (Unix seconds), transactions, sum, sum², min, max ...
_AGGREGATE = re.compile(r"^\s*\d{9,11}\s+\d+\s+\d+(?:\.\d+)?\s+\d+(?:\.\d+)?\s+\d+\s+\d+\b")
# a paste's wrapping, passed over: Markdown fences and the shell line that printed the log ("$ head pgbench_log.1")
_FENCE = re.compile(r"^\s*(?:```|~~~|\$\s)")
_SAMPLE_LINES = 20


@dataclass(frozen=True, slots=True)
class TxLog:
    """The log read: completed transactions' latencies (µs) and completion times (µs since the epoch), in file
    order, and the transactions that did not complete."""

    latency_us: array[int]
    done_us: array[int]
    failed: int
    skipped: int
    unread: int
    first_unread: int | None  # the line number of the first line that is no log line


_NOT_DONE = frozenset({"skipped", "failed", "serialization", "deadlock"})


def _fields(line: str) -> list[str] | None:
    """A log line's fields, or None when it is no log line: split and one isdigit over the joined integer fields,
    not a pattern per line (a log is up to a million lines: 149,167 took 0.45 s of CPU, against 0.58 s)."""
    f = line.split()
    joined = f[0] + f[1] + f[3] + f[4] + f[5] if len(f) >= 6 else ""
    if (not joined.isdigit() or not joined.isascii() or not 9 <= len(f[4]) <= 11 or len(f[5]) > 6
            or not ((f[2].isdigit() and f[2].isascii()) or f[2] in _NOT_DONE)
            or (len(f) > 6 and not all(_EXTRA.fullmatch(x) for x in f[6:]))):
        return None
    return f


def read(lines: Iterable[str], source: str = "<text>") -> TxLog:
    latency, done = array("q"), array("q")
    failed = skipped = unread = 0
    first_unread: int | None = None
    for no, line in enumerate(lines, 1):
        f = _fields(line)
        if f is None:
            if not line.strip() or _FENCE.match(line):
                continue
            if _AGGREGATE.match(line) and not latency:
                raise ParseError("pgbench_log", "line", "an aggregated log (--aggregate-interval): min, max and "
                                 "sums per interval, no percentile can be had from them; run pgbench with --log "
                                 "and without --aggregate-interval", source=source, line=no)
            unread += 1
            first_unread = first_unread or no
        elif f[2].isdigit():
            latency.append(int(f[2]))
            done.append(int(f[4]) * 1_000_000 + int(f[5]))
        elif f[2] == "skipped":
            skipped += 1
        else:
            failed += 1
    return TxLog(latency, done, failed, skipped, unread, first_unread)


def nearest_rank(ordered: array[int] | list[int], pct: float) -> int:
    """The value at rank ceil(pct/100 * n) of ``ordered`` (sorted, not empty): a latency that was measured."""
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


def looks_like(text: str) -> bool:
    head = [line for line in text[:4096].splitlines()[:_SAMPLE_LINES] if line.strip() and not _FENCE.match(line)]
    return bool(head) and sum(1 for line in head if _fields(line)) >= max(len(head) - 1, 1)


def parse(text: str, source: str = "<text>") -> Parsed:
    log = read(io.StringIO(text), source)
    sink = MetricSink(source)
    if not log.latency_us and not log.failed and not log.skipped:
        raise ParseError("pgbench_log", "line", "no per-transaction line ('client_id transaction_no time "
                         "script_no time_epoch time_us')", source=source, line=log.first_unread)
    if log.latency_us:
        ordered = sorted(log.latency_us)
        for pct in PERCENTILES:
            sink.add("pgbench.latency_ms", nearest_rank(ordered, pct) / 1000, "ms", Direction.LOWER,
                     stat=f"p{pct:g}")
        sink.add("pgbench.latency_ms", ordered[-1] / 1000, "ms", Direction.LOWER, stat="max")
    sink.add("pgbench.logged_transactions", len(log.latency_us), "transactions", Direction.NEUTRAL)
    sink.add("pgbench.logged_failed", log.failed, "transactions", Direction.LOWER)
    sink.add("pgbench.logged_skipped", log.skipped, "transactions", Direction.LOWER)
    if log.unread:
        sink.errors.append(ParseError("pgbench_log", "line", f"{log.unread} line(s) are no per-transaction log "
                                      "line; not read", source=source, line=log.first_unread))
    return sink.freeze("pgbench_log")


def series(log: TxLog, step_s: float) -> TimeSeries | None:
    """Latency per interval of ``step_s`` seconds from the first transaction's start (its completion less its
    latency): each bucket's mean, min, max and percentiles, over the transactions completed in it."""
    if not log.latency_us or step_s <= 0:
        return None
    start = min(d - lat for d, lat in zip(log.done_us, log.latency_us, strict=True))
    step_us = step_s * 1_000_000
    buckets: dict[int, list[int]] = {}
    for d, lat in zip(log.done_us, log.latency_us, strict=True):
        buckets.setdefault(int((d - start) // step_us), []).append(lat)
    keys = sorted(buckets)
    rows = [sorted(buckets[k]) for k in keys]
    return TimeSeries(
        "pgbench.latency_ms", "ms", "pgbench per-transaction log", step_s, tuple(k * step_s for k in keys),
        tuple(sum(r) / len(r) / 1000 for r in rows), tuple(r[0] / 1000 for r in rows),
        tuple(r[-1] / 1000 for r in rows),
        percentiles=tuple((f"p{p:g}", tuple(nearest_rank(r, p) / 1000 for r in rows)) for p in SERIES_PERCENTILES))
