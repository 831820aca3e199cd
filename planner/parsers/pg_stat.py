"""PostgreSQL's cumulative statistics around a workload point: the snapshot text psql prints, the difference of
two snapshots (computed once, by the step that took them) and the "database statistics" record it is kept as.

A snapshot is what ``psql -X -A -t`` prints for planner's fixed queries (planner.steps.pg_stat): one row per
view, ``tag|value|value...``, the columns of each tag fixed here. The text comes from a host, so it is read
defensively: bounded in size and rows, each tag once, the exact number of fields, each a whole number (a time a
decimal) that fits in a bigint. Anything else is a ParseError naming the line, never a guess.

The counters (PostgreSQL documentation, "The Cumulative Statistics System"): pg_stat_database (every release),
pg_stat_bgwriter's checkpoint columns up to 16, pg_stat_checkpointer from 17, pg_stat_io from 16, pg_stat_wal
from 14, pg_stat_statements when the extension is installed and loaded.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, fields

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed

KIND = "pg_stat"
RECORD = "database statistics"
FORMAT = 1
MAX_SNAPSHOT_CHARS = 64 << 10  # a snapshot is a dozen short rows: anything near this is not psql's answer
MAX_RECORD_CHARS = 64 << 10
BIGINT_MAX = (1 << 63) - 1

# tag -> its columns, in the order the query selects them (planner.steps.pg_stat.QUERIES)
COLUMNS: dict[str, tuple[str, ...]] = {
    "clock": ("epoch_s",),
    "settings": ("server_version_num", "shared_buffers_bytes", "max_connections", "database_bytes"),
    "database": ("xact_commit", "xact_rollback", "blks_read", "blks_hit", "temp_files", "temp_bytes", "deadlocks"),
    "bgwriter": ("checkpoints_timed", "checkpoints_req", "buffers_checkpoint", "buffers_clean", "buffers_backend"),
    "checkpointer": ("num_timed", "num_requested", "buffers_written"),
    "bgwriter17": ("buffers_clean",),
    "io": ("reads", "writes", "extends", "hits"),
    "wal": ("wal_records", "wal_fpi", "wal_bytes"),
    "tables": ("autovacuum_count", "autoanalyze_count"),
    "autovacuum": ("workers",),
    "statements": ("calls", "exec_time_ms"),
}
DECIMALS = frozenset({("clock", "epoch_s"), ("statements", "exec_time_ms")})
REQUIRED = ("clock", "settings", "database", "tables", "autovacuum")
_WHOLE = re.compile(r"-?\d{1,19}")
_DECIMAL = re.compile(r"-?\d{1,19}(?:\.\d{1,12})?")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One snapshot: (tag, column, value) for every column psql printed."""

    values: tuple[tuple[str, str, float], ...]

    def has(self, tag: str) -> bool:
        return any(t == tag for t, _, _ in self.values)

    def get(self, tag: str, column: str) -> float:
        for t, c, v in self.values:
            if t == tag and c == column:
                return v
        raise KeyError(f"{tag}.{column}")

    def keyed(self) -> dict[tuple[str, str], float]:
        return {(t, c): v for t, c, v in self.values}


def _bad(message: str, source: str, line: int | None = None) -> ParseError:
    return ParseError(KIND, "snapshot", message, source=source, line=line)


def _value(tag: str, column: str, field: str, source: str, line: int) -> float:
    pattern = _DECIMAL if (tag, column) in DECIMALS else _WHOLE
    if not pattern.fullmatch(field):
        raise _bad(f"{tag}.{column} is {field[:40]!r}, not a {'number' if pattern is _DECIMAL else 'whole number'}",
                   source, line)
    value = float(field)
    if not math.isfinite(value) or abs(value) > BIGINT_MAX:
        raise _bad(f"{tag}.{column} is {field[:40]!r}, beyond a bigint", source, line)
    return value


def parse_snapshot(text: str, source: str = "<snapshot>") -> Snapshot:
    """psql's rows, read strictly: a garbled, repeated, unknown or missing row is a ParseError naming it."""
    if len(text) > MAX_SNAPSHOT_CHARS:
        raise _bad(f"{len(text)} characters, more than the {MAX_SNAPSHOT_CHARS} a snapshot can be", source)
    rows = [(no, line) for no, line in enumerate(text.split("\n"), 1) if line.strip()]
    if len(rows) > len(COLUMNS):
        raise _bad(f"{len(rows)} rows, more than the {len(COLUMNS)} views planner asks", source)
    values: list[tuple[str, str, float]] = []
    seen: set[str] = set()
    for no, line in rows:
        tag, *cells = line.rstrip("\r").split("|")
        columns = COLUMNS.get(tag)
        if columns is None:
            raise _bad(f"unknown row {line[:60]!r} (psql's answer is 'view|value|...')", source, no)
        if tag in seen:
            raise _bad(f"row {tag!r} twice", source, no)
        if len(cells) != len(columns):
            raise _bad(f"row {tag!r} has {len(cells)} values, not {len(columns)} ({', '.join(columns)})", source, no)
        seen.add(tag)
        values += [(tag, c, _value(tag, c, cell.strip(), source, no)) for c, cell in zip(columns, cells, strict=True)]
    missing = [t for t in REQUIRED if t not in seen]
    if missing:
        raise _bad(f"no {', '.join(missing)} row (every snapshot has them)", source)
    return Snapshot(tuple(values))


@dataclass(frozen=True, slots=True)
class PgStatDelta:
    """What the server counted between the two snapshots of one point (None: the release has no such view)."""

    seconds: float
    server_version_num: int
    shared_buffers_bytes: float
    max_connections: float
    database_bytes: float
    commits: float
    rollbacks: float
    blocks_read: float
    blocks_hit: float
    temp_files: float
    temp_bytes: float
    deadlocks: float
    checkpoints_timed: float
    checkpoints_requested: float
    checkpoint_buffers: float
    autovacuum_runs: float
    autovacuum_workers: float  # the most seen at either snapshot: one running across the point is inside it
    blocks_written: float | None  # pg_stat_io's writes (16+), else bgwriter's checkpoint+clean+backend buffers
    wal_bytes: float | None  # pg_stat_wal (14+)
    statement_calls: float | None  # pg_stat_statements, when installed and loaded

    @property
    def cache_hit_pct(self) -> float | None:
        total = self.blocks_hit + self.blocks_read
        return 100.0 * self.blocks_hit / total if total else None


def _diff(b: Snapshot, e: Snapshot, tag: str, *columns: str) -> float:
    return sum(e.get(tag, c) - b.get(tag, c) for c in columns)


def _checkpoints(b: Snapshot, e: Snapshot) -> tuple[float, float, float]:
    if e.has("checkpointer"):  # 17+: pg_stat_checkpointer
        return (_diff(b, e, "checkpointer", "num_timed"), _diff(b, e, "checkpointer", "num_requested"),
                _diff(b, e, "checkpointer", "buffers_written"))
    return (_diff(b, e, "bgwriter", "checkpoints_timed"), _diff(b, e, "bgwriter", "checkpoints_req"),
            _diff(b, e, "bgwriter", "buffers_checkpoint"))


def _written(b: Snapshot, e: Snapshot) -> float | None:
    if e.has("io"):
        return _diff(b, e, "io", "writes")
    if e.has("bgwriter"):
        return _diff(b, e, "bgwriter", "buffers_checkpoint", "buffers_clean", "buffers_backend")
    return None


# Not counters that only grow: settings and the workers running now, and the sums over the database's tables,
# which drop with a table dropped inside the point (its runs are then not counted, rather than negative).
_NOT_COUNTERS = frozenset({"settings", "autovacuum", "tables"})


def delta(begin: Snapshot, end: Snapshot, source: str = "<snapshots>") -> PgStatDelta:
    """The end snapshot minus the begin one. Both must come from one server with the same views; a counter that
    went down (a stats reset, a restart inside the point) is refused rather than reported as a negative."""
    tags_b = {t for t, _, _ in begin.values}
    tags_e = {t for t, _, _ in end.values}
    if tags_b != tags_e:
        raise ParseError(KIND, "delta", f"the snapshots hold different views ({sorted(tags_b ^ tags_e)})",
                         source=source)
    # by name, not by position: psql's UNION ALL promises no row order
    b_values, e_values = begin.keyed(), end.keyed()
    down = [f"{t}.{c}" for (t, c), v in b_values.items()
            if e_values[t, c] < v and t not in _NOT_COUNTERS]
    if down:
        raise ParseError(KIND, "delta", f"counters went down ({', '.join(down[:4])}): the statistics were reset "
                         "or the server restarted during the point", source=source)
    timed, requested, ckpt_buffers = _checkpoints(begin, end)
    d = "database"
    return PgStatDelta(
        seconds=_diff(begin, end, "clock", "epoch_s"), server_version_num=int(end.get("settings",
                                                                                     "server_version_num")),
        shared_buffers_bytes=end.get("settings", "shared_buffers_bytes"),
        max_connections=end.get("settings", "max_connections"), database_bytes=end.get("settings", "database_bytes"),
        commits=_diff(begin, end, d, "xact_commit"), rollbacks=_diff(begin, end, d, "xact_rollback"),
        blocks_read=_diff(begin, end, d, "blks_read"), blocks_hit=_diff(begin, end, d, "blks_hit"),
        temp_files=_diff(begin, end, d, "temp_files"), temp_bytes=_diff(begin, end, d, "temp_bytes"),
        deadlocks=_diff(begin, end, d, "deadlocks"), checkpoints_timed=timed, checkpoints_requested=requested,
        checkpoint_buffers=ckpt_buffers,
        autovacuum_runs=max(0.0, _diff(begin, end, "tables", "autovacuum_count", "autoanalyze_count")),
        autovacuum_workers=max(begin.get("autovacuum", "workers"), end.get("autovacuum", "workers")),
        blocks_written=_written(begin, end),
        wal_bytes=_diff(begin, end, "wal", "wal_bytes") if end.has("wal") else None,
        statement_calls=_diff(begin, end, "statements", "calls") if end.has("statements") else None)


def to_record(d: PgStatDelta) -> str:
    """The point's "database statistics" record (pg_stat.json), as the run folder keeps it."""
    return json.dumps({"record": RECORD, "format": FORMAT, **asdict(d)}, indent=1, sort_keys=True) + "\n"


_OPTIONAL = frozenset({"blocks_written", "wal_bytes", "statement_calls"})


def from_record(text: str, source: str = "<record>") -> PgStatDelta:
    """A record read back, every field typed: a run folder may come from elsewhere."""
    def bad(message: str) -> ParseError:
        return ParseError(KIND, "record", message, source=source)

    if len(text) > MAX_RECORD_CHARS:
        raise bad(f"{len(text)} characters, more than a record can be")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise bad(f"not JSON ({e})") from None
    if not isinstance(raw, dict) or raw.get("record") != RECORD or raw.get("format") != FORMAT:
        raise bad(f"not a {RECORD!r} record of format {FORMAT}")
    values: dict[str, float | int | None] = {}
    for f in fields(PgStatDelta):
        v = raw.get(f.name)
        if v is None and f.name in _OPTIONAL:
            values[f.name] = None
        elif isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or abs(v) > BIGINT_MAX:
            raise bad(f"{f.name} is {str(v)[:40]!r}, not a number")
        else:
            values[f.name] = int(v) if f.name == "server_version_num" else float(v)
    return PgStatDelta(**values)  # type: ignore[arg-type]


def looks_like(text: str) -> bool:
    return f'"record": "{RECORD}"' in text[:4096]


def parse(text: str, source: str = "<text>") -> Parsed:
    """The record's figures as metrics (``pg_stat.*``), rates per second of the point's window."""
    d = from_record(text, source)
    sink = MetricSink(source)
    per_s = d.seconds if d.seconds > 0 else None
    if per_s:
        sink.add("pg_stat.tps", (d.commits + d.rollbacks) / per_s, "/s", Direction.HIGHER)
    if (hit := d.cache_hit_pct) is not None:
        sink.add("pg_stat.cache_hit_pct", hit, "%")
    for name, value, unit in (
            ("blocks_read", d.blocks_read, "blocks"), ("blocks_hit", d.blocks_hit, "blocks"),
            ("blocks_written", d.blocks_written, "blocks"), ("checkpoints", d.checkpoints_timed
                                                             + d.checkpoints_requested, ""),
            ("checkpoints_requested", d.checkpoints_requested, ""), ("checkpoint_buffers", d.checkpoint_buffers,
                                                                    "blocks"),
            ("wal_bytes", d.wal_bytes, "bytes"), ("temp_files", d.temp_files, ""),
            ("temp_bytes", d.temp_bytes, "bytes"),
            ("deadlocks", d.deadlocks, ""), ("rollbacks", d.rollbacks, ""),
            ("autovacuum_runs", d.autovacuum_runs, ""), ("autovacuum_workers", d.autovacuum_workers, ""),
            ("statement_calls", d.statement_calls, ""), ("window_s", d.seconds, "s"),
            ("shared_buffers_bytes", d.shared_buffers_bytes, "bytes"), ("max_connections", d.max_connections, ""),
            ("database_bytes", d.database_bytes, "bytes"), ("server_version_num", d.server_version_num, "")):
        if value is not None:
            sink.add(f"pg_stat.{name}", value, unit)
    sink.facts["server_version_num"] = str(d.server_version_num)
    return sink.freeze(KIND)
