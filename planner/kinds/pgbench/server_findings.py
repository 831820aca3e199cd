"""What the server's side of pgbench's points says (collect: [pg_stat], planner.parsers.pg_stat), and the client
sweep's shape: the data set in memory, a checkpoint or autovacuum inside a window, saturation. The sources are in
planner.kinds.pgbench.findings' docstring; each finding's message names its own."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean

from planner.results.finding import Finding, Severity
from planner.results.measure import Measurement, RunData, play_name

MIB = float(1 << 20)
SCALE_BYTES = 15 * MIB  # about 15 MiB of tables and indexes per pgbench scale unit
# Saturation: the clients grew by at least half while TPS grew by under a tenth and latency by over a quarter.
CLIENT_STEP, TPS_FLAT, LATENCY_GROWS = 1.5, 1.10, 1.25
SHARED_BUFFERS_DOC = "PostgreSQL documentation, Resource Consumption, shared_buffers"
Where = tuple[str, str, str, str]


def _points(data: RunData) -> dict[tuple[str, str, str, str], list[Measurement]]:
    """(play, host, step, point label) -> the point's pgbench and pg_stat measurements (warm-ups left out)."""
    out: dict[tuple[str, str, str, str], list[Measurement]] = defaultdict(list)
    for m in data.measurements:
        if (m.artifact_kind == "pgbench" or m.metric.startswith("pg_stat.")) and not m.warmup:
            out[(m.play, m.host, m.step, m.point_label)].append(m)
    return out


def _mean(ms: list[Measurement], name: str, **labels: str) -> float | None:
    """The point's figure over its repeats (a script's or a statement's carry other labels)."""
    values = [m.value for m in ms if m.metric == name and dict(m.labels) == labels]
    return fmean(values) if values else None


def _mib(n: float) -> str:
    return f"{n / MIB:,.0f} MiB"


def _memory(data: RunData, where: Where, ms: list[Measurement]) -> list[Finding]:
    shared = _mean(ms, "pg_stat.shared_buffers_bytes")
    size, how = _mean(ms, "pg_stat.database_bytes"), "the database's size (pg_database_size)"
    if size is None and (scale := _mean(ms, "pgbench.scale")) is not None:
        size, how = scale * SCALE_BYTES, f"scale {scale:.0f} at about 15 MiB a unit"
    memory = float(data.facts.get(where[1], {}).get("memory_gb") or 0) * (1 << 30)
    if size is None:
        return []
    if shared is not None and size <= shared:
        return [Finding(
            "pgbench_data_in_shared_buffers", Severity.WARNING, "Data set fits in shared_buffers", *where,
            f"{how} is {_mib(size)} and shared_buffers is {_mib(shared)}: after the first pass every read is a "
            "shared-buffer hit, so the run measured PostgreSQL's memory, not the storage under it (" +
            SHARED_BUFFERS_DOC + "); build the tables at a scale several times larger",
            (("data set", _mib(size)), ("shared_buffers", _mib(shared))))]
    if memory and size + (shared or 0) <= memory:
        return [Finding(
            "pgbench_data_in_os_cache", Severity.NOTE, "Data set fits in the OS cache", *where,
            f"{how} is {_mib(size)} and the host has {_mib(memory)} of memory: the reads that miss shared_buffers "
            "can all come from the OS page cache, which PostgreSQL also relies on (" + SHARED_BUFFERS_DOC +
            "), so storage is hardly read; a scale larger than the memory measures the storage",
            (("data set", _mib(size)), ("memory", _mib(memory))))]
    return []


def _window(where: Where, ms: list[Measurement]) -> list[Finding]:
    out: list[Finding] = []
    checkpoints = _mean(ms, "pg_stat.checkpoints") or 0.0
    if checkpoints > 0:
        requested = _mean(ms, "pg_stat.checkpoints_requested") or 0.0
        buffers = _mean(ms, "pg_stat.checkpoint_buffers") or 0.0
        out.append(Finding(
            "pgbench_checkpoint_in_window", Severity.NOTE, "Checkpoint inside the window", *where,
            f"{checkpoints:g} checkpoint(s) ({requested:g} requested, e.g. by max_wal_size) ended during the point, "
            f"writing {buffers:,.0f} buffers: a checkpoint flushes every dirty buffer and the writes that follow "
            "carry full-page images, so TPS and latency move with it (PostgreSQL documentation, WAL Configuration); "
            "compare points that each span the same number of checkpoints, or a window of several "
            "checkpoint_timeout", (("checkpoints", f"{checkpoints:g}"), ("buffers", f"{buffers:,.0f}"))))
    runs = _mean(ms, "pg_stat.autovacuum_runs") or 0.0
    workers = _mean(ms, "pg_stat.autovacuum_workers") or 0.0
    if runs > 0 or workers > 0:
        out.append(Finding(
            "pgbench_autovacuum_in_window", Severity.NOTE, "Autovacuum inside the window", *where,
            f"autovacuum ran during the point ({runs:g} vacuum/analyze run(s) finished, {workers:g} worker(s) seen "
            "at its edges): its reads and writes share the server with the benchmark (PostgreSQL documentation, "
            "Routine Vacuuming; pgbench, Good Practices, on dead rows and vacuum between runs)",
            (("runs", f"{runs:g}"), ("workers", f"{workers:g}"))))
    return out


def _saturation(data: RunData, points: dict[tuple[str, str, str, str], list[Measurement]]) -> list[Finding]:
    """Across one step's client sweep on one host: the first step where TPS flattens and latency grows."""
    sweeps: dict[tuple[str, str, str], list[tuple[float, float, float, str, str]]] = defaultdict(list)
    for (play, host, step, label), ms in points.items():
        clients, tps = _mean(ms, "pgbench.clients"), _mean(ms, "pgbench.tps")
        latency = _mean(ms, "pgbench.latency_ms", stat="avg")
        if clients and tps and latency:
            sweeps[(play, host, step)].append((clients, tps, latency, label, ms[0].title))
    out: list[Finding] = []
    plays = data.play_names()
    for (play, host, _step), rows in sweeps.items():
        rows.sort()
        for (c1, t1, l1, _, _), (c2, t2, l2, label, title) in zip(rows, rows[1:], strict=False):
            if c2 >= CLIENT_STEP * c1 and t2 < TPS_FLAT * t1 and l2 > LATENCY_GROWS * l1:
                out.append(Finding(
                    "pgbench_saturation", Severity.NOTE, "TPS flat while latency grows", play or play_name(None, plays),
                    host, title, label,
                    f"from {c1:g} to {c2:g} clients TPS went from {t1:,.0f} to {t2:,.0f} ({100 * (t2 / t1 - 1):+.0f}%) "
                    f"while latency went from {l1:.2f} to {l2:.2f} ms ({100 * (l2 / l1 - 1):+.0f}%): the server "
                    f"saturated at about {c1:g} clients. pgbench without --rate is a closed loop, so by Little's "
                    "law (clients = TPS x latency) every client beyond that only waits in a queue; the figures "
                    "past it measure the queue, not more capacity",
                    (("clients", f"{c1:g} → {c2:g}"), ("TPS", f"{t1:,.0f} → {t2:,.0f}"),
                     ("latency ms", f"{l1:.2f} → {l2:.2f}"))))
                break
    return out


def server_findings(data: RunData) -> list[Finding]:
    """The pg_stat figures of each pgbench point, and each client sweep's shape."""
    points = _points(data)
    plays = data.play_names()
    out: list[Finding] = []
    said: set[tuple[str, str, str, str]] = set()
    for (play, host, step, label), ms in points.items():
        if not any(m.artifact_kind == "pgbench" for m in ms):
            continue  # pg_stat around another kind's point: that kind's findings read it
        where = (play or play_name(None, plays), host, ms[0].title, label)
        for f in _memory(data, where, ms):  # the data set is one for the whole sweep: said at its first point
            if (f.code, play, host, step) not in said:
                said.add((f.code, play, host, step))
                out.append(f)
        out += _window(where, ms)
    return [*out, *_saturation(data, points)]
