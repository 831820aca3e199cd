"""What a DBA checks in a sysbench run on PostgreSQL before believing its TPS, read from sysbench's output:

- ignored errors: sysbench's pgsql driver rolls a transaction back and goes on when PostgreSQL reports a deadlock
  (40P01), a unique violation (23505) or a serialization failure (40001) (src/drivers/pgsql/drv_pgsql.c,
  ``pgsql_check_status``); the TPS counts only the transactions that committed, and the share rolled back says
  how much of the run was row contention (threads on few rows) rather than the server's throughput;
- reconnects: a connection lost and made again inside the window.
"""

from __future__ import annotations

from collections import defaultdict

from planner.results.finding import Finding, Severity
from planner.results.measure import Measurement, RunData, play_name

SOURCE = "sysbench's pgsql driver, drv_pgsql.c pgsql_check_status"
ERROR_SHARE_PCT = 1.0  # rolled back per 100 committed: from here a warning, below it a note


def _by_artifact(data: RunData) -> dict[str, list[Measurement]]:
    out: dict[str, list[Measurement]] = defaultdict(list)
    for m in data.measurements:
        if m.artifact_kind == "sysbench" and not m.warmup:
            out[m.artifact].append(m)
    return out


def _value(ms: list[Measurement], name: str) -> float | None:
    # the run's own figure (several runs in one file: the first); checkpoint reports carry a label
    return next((m.value for m in ms if m.metric == name and not m.labels), None)


def _one(where: tuple[str, str, str, str], ms: list[Measurement]) -> list[Finding]:
    out: list[Finding] = []
    errors, transactions = _value(ms, "sysbench.errors") or 0.0, _value(ms, "sysbench.transactions")
    if errors > 0 and transactions:
        share = 100.0 * errors / transactions
        severity = Severity.WARNING if share >= ERROR_SHARE_PCT else Severity.NOTE
        out.append(Finding(
            "sysbench_ignored_errors", severity, "Transactions rolled back and not counted", *where,
            f"{errors:.0f} ignored errors against {transactions:.0f} transactions ({share:.1f}%): sysbench rolls "
            f"a transaction back on a deadlock, unique violation or serialization failure and goes on ({SOURCE}); "
            "the TPS counts only what committed, and this share measures row contention (many threads on few rows: "
            "more tables or rows spread them), not the server",
            (("ignored errors", f"{errors:.0f}"), ("transactions", f"{transactions:.0f}"),
             ("share %", f"{share:.1f}"))))
    reconnects = _value(ms, "sysbench.reconnects") or 0.0
    if reconnects > 0:
        out.append(Finding(
            "sysbench_reconnects", Severity.WARNING, "Connections lost during the run", *where,
            f"sysbench reconnected {reconnects:.0f} time(s) inside the window: the threads waited for new "
            "connections, so the TPS is not the server's steady rate", (("reconnects", f"{reconnects:.0f}"),)))
    return out


def run_findings(data: RunData) -> list[Finding]:
    """Each sysbench point's output: ignored errors and reconnects."""
    plays = data.play_names()
    out: list[Finding] = []
    seen: set[tuple[str, str, str, str, str]] = set()
    for ms in _by_artifact(data).values():
        m = ms[0]
        where = (m.play or play_name(None, plays), m.host, m.title, m.point_label)
        for f in _one(where, ms):
            if (f.code, *where) not in seen:  # a repeat of a point says it once
                seen.add((f.code, *where))
                out.append(f)
    return out
