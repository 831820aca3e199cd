"""``collect: [pg_stat]``: PostgreSQL's cumulative statistics around each workload point, its answer to AWR.

A play on a PostgreSQL host (``db_engine: postgresql``) that collects ``pg_stat`` gets, around every workload
point (the engine's window, as ``awr`` does for Oracle), a snapshot before and one after: one ``psql -X -A -t``
each, one query whose rows are ``view|value|...`` (planner.parsers.pg_stat reads them). The views asked depend on
the server's release, read once per workload step and host (PostgreSQL documentation, "The Cumulative Statistics
System"): pg_stat_database always; pg_stat_bgwriter's checkpoint columns up to 16, pg_stat_checkpointer from 17;
pg_stat_io from 16; pg_stat_wal from 14; pg_stat_statements when the extension is created and preloaded. The
difference is computed once, here, and kept as the point's "database statistics" record (``pg_stat.json``), with
both snapshots beside it as they were printed.

Why a collect kind rather than a workload kind bracketing its own points: the window already orders the snapshots
around the OS samplers and the point of every workload kind (a PostgreSQL benchmark's, or an I/O tool's on the
server's storage), a failed point keeps what was collected, and a plan says what it collects as it does for AWR.

The connection is the workload's: the host's ``pg_host``/``pg_port``/``pg_user``, the database the point runs in
(its kind's ``server_databases``, else ``pg_database``, else ``postgres``), a password from ``pg_password`` written
to a private PGPASSFILE for the one psql and removed after it (never in argv or the environment).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from planner.db.libpq import PASSWORD_VAR, Server, passfile_line
from planner.errors import ParseError, StepError
from planner.parsers import pg_stat as parser
from planner.plan.model import Section
from planner.status import Status
from planner.steps.base import AroundPoint, Change, Collected, Outcome, StepContext
from planner.steps.wl_common import save_text, tail

ENGINE = "postgresql"
SNAPSHOT_TIMEOUT_S = 60.0
# 1: a password comes on stdin, into a private file libpq reads for this one psql, removed whatever psql did
_PSQL = ('umask 077; p=""; if [ "$1" = 1 ]; then p=$(mktemp) || exit 70; cat >"$p"; PGPASSFILE=$p; '
         'export PGPASSFILE; fi; shift; "$@"; rc=$?; if [ -n "$p" ]; then rm -f -- "$p"; fi; exit $rc')
_PROBE = ("select current_setting('server_version_num') || '|' || "
          "(exists (select 1 from pg_extension where extname = 'pg_stat_statements') "
          "and current_setting('shared_preload_libraries') ~ 'pg_stat_statements')::int")


def _row(tag: str, *columns: str, source: str = "") -> str:
    cells = " || '|' || ".join(f"coalesce(({c})::text, '0')" for c in columns)
    return f"select '{tag}|' || {cells}{(' from ' + source) if source else ''}"


def queries(version_num: int, statements: bool) -> str:
    """The one query of a snapshot for this server release: its rows, tag first, columns as the parser has them."""
    rows = [
        _row("clock", "round(extract(epoch from clock_timestamp())::numeric, 6)"),
        _row("settings", "current_setting('server_version_num')",
             "(select setting::bigint * pg_size_bytes(coalesce(unit, '8kB')) from pg_settings "
             "where name = 'shared_buffers')", "current_setting('max_connections')",
             "pg_database_size(current_database())"),
        _row("database", *parser.COLUMNS["database"], source="pg_stat_database where datname = current_database()"),
        _row("tables", "sum(autovacuum_count)", "sum(autoanalyze_count)", source="pg_stat_all_tables"),
        # backend_type came with 10; before it an autovacuum worker is known by the activity it reports
        # (autovacuum.c, autovac_report_activity: "autovacuum: VACUUM ...", "autovacuum: ANALYZE ...")
        _row("autovacuum", "count(*)", source="pg_stat_activity where " + (
            "backend_type = 'autovacuum worker'" if version_num >= 100000 else "query like 'autovacuum:%'")),
    ]
    if version_num >= 170000:
        rows += [_row("checkpointer", *parser.COLUMNS["checkpointer"], source="pg_stat_checkpointer"),
                 _row("bgwriter17", "buffers_clean", source="pg_stat_bgwriter")]
    else:
        rows.append(_row("bgwriter", *parser.COLUMNS["bgwriter"], source="pg_stat_bgwriter"))
    if version_num >= 180000:  # 18 counts a read or extend of N blocks as one operation: the bytes say the blocks
        rows.append(_row("io", *(f"(sum({c}_bytes) / current_setting('block_size')::numeric)::bigint"
                                 for c in ("read", "write", "extend")), "sum(hits)",
                         source="pg_stat_io where object = 'relation'"))
    elif version_num >= 160000:
        rows.append(_row("io", "sum(reads)", "sum(writes)", "sum(extends)", "sum(hits)",
                         source="pg_stat_io where object = 'relation'"))
    if version_num >= 140000:
        rows.append(_row("wal", "wal_records", "wal_fpi", "wal_bytes::bigint", source="pg_stat_wal"))
    if statements:
        exec_time = "total_exec_time" if version_num >= 130000 else "total_time"
        rows.append(_row("statements", "sum(calls)", f"round(sum({exec_time})::numeric, 3)",
                         source="pg_stat_statements"))
    return "\nunion all\n".join(rows)


@dataclass(frozen=True, slots=True)
class PgToken:
    """What a point's begin handed its end: the server's release, whether pg_stat_statements is read, and the
    begin snapshot as printed and as read."""

    version_num: int
    statements: bool
    text: str
    begin: parser.Snapshot


def _psql(ctx: StepContext, sql: str, what: str) -> str:
    v = ctx.vars
    server = Server.of(v)
    database = ctx.point_database or str(v.get("pg_database") or "postgres")
    password = v.get(PASSWORD_VAR)
    stdin = passfile_line(server, database, str(password)).encode() if password else None
    r = ctx.sh(_PSQL, "1" if stdin else "0", "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
               *server.options(),
               "-d", database, "-c", sql, check=False, stdin=stdin, timeout=SNAPSHOT_TIMEOUT_S)
    if not r.ok or r.truncated:
        why = "timed out" if r.timed_out else f"exit code {r.exit_code}"
        raise StepError(f"pg_stat: psql could not read {what} ({why}): {tail(r.stderr or r.stdout, 600)}",
                        hint="check pg_host/pg_port/pg_user, the database and the password (pg_password or "
                             "~/.pgpass), and that psql is on the PATH")
    return r.stdout


def _version(text: str) -> tuple[int, bool]:
    version, _, statements = text.strip().partition("|")
    if not (version.isdigit() and len(version) <= 7 and statements in ("0", "1")):
        raise StepError(f"pg_stat: the server's release is {text.strip()[:60]!r}, not 'version_num|0 or 1'",
                        hint="psql must reach a PostgreSQL server (9.6 or later)")
    return int(version), statements == "1"


def _snapshot(ctx: StepContext, version_num: int, statements: bool, which: str) -> tuple[str, parser.Snapshot]:
    text = _psql(ctx, queries(version_num, statements), f"the {which} snapshot")
    try:
        return text, parser.parse_snapshot(text, f"pg_stat {which} snapshot on {ctx.host.name}")
    except ParseError as e:
        raise StepError(f"pg_stat: {e}", hint="the snapshot is psql's answer to planner's query: a row that "
                        "does not read is kept out rather than guessed") from None


class PgStatCollect(AroundPoint):
    """PostgreSQL's statistics around each workload point, on a host whose ``db_engine`` is postgresql: one psql
    before the point's measured command and one after it, over pg_stat_database, pg_stat_bgwriter (up to 16) or
    pg_stat_checkpointer (17+), pg_stat_io (16+), pg_stat_wal (14+) and pg_stat_statements (when created and
    preloaded). The point keeps the difference as its "database statistics" record (``pg_stat.json``: commits,
    cache hit ratio, blocks read and written, checkpoints and their buffers, WAL bytes, temp files, deadlocks,
    autovacuum) and the report shows it beside the workload's figures. It connects as the PostgreSQL workloads do
    (``pg_host``, ``pg_port``, ``pg_user``, ``pg_password``), to the point's database, else ``pg_database``."""

    kind: ClassVar[str] = "pg_stat"
    sections = frozenset({Section.COLLECT})
    db_engine: ClassVar[str] = ENGINE
    retake_at_measured_start: ClassVar[bool] = True  # a table build before the measured run is not the point's
    args_schema: ClassVar[Mapping[str, Any] | None] = {
        "description": "PostgreSQL's statistics (pg_stat_*) snapshotted around each workload point",
        "type": "object", "properties": {}, "additionalProperties": False,
    }

    def check(self, ctx: StepContext) -> Change:
        return Change(False, "pg_stat snapshots are taken around each workload point")

    def apply(self, ctx: StepContext) -> Outcome:
        return Outcome(Status.OK, "pg_stat snapshots were taken around each workload point (see pg_stat.json)")

    @classmethod
    def around_point_begin(cls, ctx: StepContext, previous: object | None = None) -> PgToken:
        if isinstance(previous, PgToken):  # the release and the extension do not change between points
            version, statements = previous.version_num, previous.statements
        else:
            version, statements = _version(_psql(ctx, _PROBE, "the server's release"))
        text, snap = _snapshot(ctx, version, statements, "begin")
        return PgToken(version, statements, text, snap)

    @classmethod
    def around_point_end(cls, ctx: StepContext, token: object, then_begin: bool = False) -> Collected:
        assert isinstance(token, PgToken)  # the one around_point_begin gave
        text, snap = _snapshot(ctx, token.version_num, token.statements, "end")
        try:
            d = parser.delta(token.begin, snap, f"pg_stat on {ctx.host.name}")
        except ParseError as e:
            raise StepError(f"pg_stat: {e}", hint="run the point again; nothing may reset the statistics "
                            "(pg_stat_reset) or restart the server during it") from None
        return Collected((save_text(ctx, "pg_stat_begin.txt", token.text), save_text(ctx, "pg_stat_end.txt", text),
                          save_text(ctx, "pg_stat.json", parser.to_record(d), parser.KIND)))
