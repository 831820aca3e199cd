"""What a DBA checks in a pgbench run before believing its TPS, each from PostgreSQL's own pgbench documentation
("Good Practices", "Failures and Serialization/Deadlock Retries", the ``-j`` option), read from pgbench's output:

- the TPC-B-like script at a scale below the number of clients measures update contention on pgbench_branches;
- a run of seconds is noise ("never believe any test that runs for only a few seconds");
- failed transactions or an aborted run: the TPS counts only what succeeded;
- many clients on one pgbench thread: pgbench itself becomes the bottleneck ("a thread manages a few clients, say
  between 2 and 10").

And, where the play collected ``pg_stat`` (the server's side of each point, planner.parsers.pg_stat):

- a data set that fits in shared_buffers, or in the host's memory (the OS cache PostgreSQL "also relies on",
  PostgreSQL documentation, Resource Consumption, shared_buffers): the run measured memory, not storage. The size
  is the server's pg_database_size; without the record, pgbench's scale at about 15 MiB a unit (the estimate
  the pgbench size-to-scale patch on pgsql-hackers used, postgresql.org/message-id/attachment/58740);
- a checkpoint (WAL Configuration: a checkpoint flushes every dirty buffer) or autovacuum (Routine Vacuuming; pgbench
  Good Practices: the accumulation of dead rows and vacuum's state change the results) inside the window;
- latency growing while TPS flattens across the client sweep: a closed-loop client such as pgbench without
  ``--rate`` obeys Little's law (clients = TPS x latency), so once TPS stops growing each added client only queues.

Clients above max_connections are refused by the step itself before the point runs (a finding would come after
a failed run), so no finding says it.
"""

from __future__ import annotations

from collections import defaultdict

from planner.kinds.pgbench.server_findings import server_findings
from planner.results.finding import Finding, Severity
from planner.results.measure import Measurement, RunData, play_name

DOCS = "PostgreSQL documentation, pgbench"
SHORT_RUN_S = 120.0  # "at least a few minutes" (Good Practices)
CLIENTS_PER_THREAD = 10  # "a thread manages a few clients, say between 2 and 10" (pgbench, -j; PostgreSQL 14+)
_TPC_B = "TPC-B (sort of)"  # the builtin whose every transaction updates one of `scale` pgbench_branches rows


def _by_artifact(data: RunData) -> dict[str, list[Measurement]]:
    out: dict[str, list[Measurement]] = defaultdict(list)
    for m in data.measurements:
        if m.artifact_kind == "pgbench" and not m.warmup:
            out[m.artifact].append(m)
    return out


def _value(ms: list[Measurement], name: str) -> float | None:
    # the run's own figure: a script's or a statement's carry labels, the run's none (several runs: the first)
    return next((m.value for m in ms if m.metric == name and not m.labels), None)


def _one(where: tuple[str, str, str, str], ms: list[Measurement], kind_of_script: str) -> list[Finding]:
    out: list[Finding] = []
    scale, clients = _value(ms, "pgbench.scale"), _value(ms, "pgbench.clients")
    threads, seconds = _value(ms, "pgbench.threads"), _value(ms, "pgbench.duration_s")
    if _TPC_B in kind_of_script and scale is not None and clients is not None and scale < clients:
        out.append(Finding(
            "pgbench_scale_below_clients", Severity.WARNING, "Scale below the number of clients", *where,
            f"{clients:.0f} clients ran the TPC-B-like script at scale {scale:.0f} ({scale:.0f} "
            f"pgbench_branches row{'' if scale == 1 else 's'}): every transaction updates one branch row, so the "
            "clients wait on each other's row locks and the run measures "
            f"update contention, not the server ({DOCS}, Good Practices: the scale should be at least the largest "
            "number of clients)", (("clients", f"{clients:.0f}"), ("scale", f"{scale:.0f}"))))
    if seconds is not None and seconds < SHORT_RUN_S:
        out.append(Finding(
            "pgbench_short_run", Severity.NOTE, "Run of seconds, not minutes", *where,
            f"the run lasted {seconds:.0f} s: {DOCS}, Good Practices, says never to believe a test that runs for "
            "only a few seconds and to make it last at least a few minutes, to average out noise",
            (("seconds", f"{seconds:.0f}"), ("at least", f"{SHORT_RUN_S:.0f}"))))
    failed, aborted = _value(ms, "pgbench.failed") or 0.0, _value(ms, "pgbench.aborted") or 0.0
    if failed > 0 or aborted > 0:
        what = "the run was aborted" if aborted else f"{failed:.0f} transactions failed"
        out.append(Finding(
            "pgbench_failures", Severity.WARNING, "Transactions failed", *where,
            f"{what}: the TPS counts only the transactions that succeeded ({DOCS}, Failures and "
            "Serialization/Deadlock Retries)", (("failed", f"{failed:.0f}"), ("aborted", "yes" if aborted else "no"))))
    if threads and clients is not None and clients / threads > CLIENTS_PER_THREAD:
        out.append(Finding(
            "pgbench_few_threads", Severity.NOTE, "Many clients on each pgbench thread", *where,
            f"{clients:.0f} clients on {threads:.0f} pgbench thread(s): pgbench itself can become the bottleneck; "
            f"its documentation (-j) suggests a thread manage between 2 and {CLIENTS_PER_THREAD} clients",
            (("clients", f"{clients:.0f}"), ("threads", f"{threads:.0f}"))))
    return out


def run_findings(data: RunData) -> list[Finding]:
    """Each pgbench point's output against pgbench's own good practices, then the server's side of its points."""
    return [*_output_findings(data), *server_findings(data)]


def _output_findings(data: RunData) -> list[Finding]:
    plays = data.play_names()
    scripts = {a.path: dict(a.facts).get("transaction_type", "") for a in data.artifacts if a.kind == "pgbench"}
    out: list[Finding] = []
    seen: set[tuple[str, str, str, str, str]] = set()
    for path, ms in _by_artifact(data).items():
        m = ms[0]
        where = (m.play or play_name(None, plays), m.host, m.title, m.point_label)
        for f in _one(where, ms, scripts.get(path, "")):
            if (f.code, *where) not in seen:  # a repeat of a point says it once
                seen.add((f.code, *where))
                out.append(f)
    return out
