"""The ``pgbench`` workload: PostgreSQL's own benchmark against a PostgreSQL server, one run per sweep point.

planner runs the host's pgbench and psql (the PostgreSQL client programs, ``binary_dir`` when they are not on the
PATH). Before the first point it asks the server, with psql, how many rows ``pgbench_branches`` holds: the
scaling factor the tables were initialised with. Only when the table is missing, or holds another scale, does it
run ``pgbench -i -s SCALE`` (with ``--tablespace``/``--index-tablespace`` where the play's storage is). Each point
is then ``pgbench -c CLIENTS -j JOBS -T SECONDS -P PROGRESS -b BUILTIN [-r] [-C] [-M PROTOCOL] DATABASE``, its
output (the summary on stdout, ``-P`` progress and errors on stderr) kept as one artifact and read by the kind's
parser. pgbench's own exit status says whether the run was good: 0, else 1 (bad options, connection) or 2 (a run
aborted by an error: "Run was aborted; the above results are incomplete", PostgreSQL's pgbench documentation,
Exit Status); any non-zero status fails the point, its output kept.

Latency percentiles: pgbench's summary has an average and a deviation only. With ``latency_log: true`` the run adds
``-l --log-prefix=<point dir>/pgbench_log`` (pgbench 10+; and ``--sampling-rate`` when ``sampling_rate`` is below
1): each transaction's latency, from which the point's exact 50th/90th/95th/99th percentiles and maximum and a
latency series per ``progress_s`` are read (planner.kinds.pgbench.latency). Off by default, as its size grows with
the TPS measured.

The server is reached as libpq is told by the host's variables (``pg_host``, ``pg_port``, ``pg_user``); a password
comes from the secret variable ``pg_password`` through a private PGPASSFILE written for the run and removed
after it (never in argv, where ``ps`` shows it, nor in the environment), or from libpq's own ~/.pgpass.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from planner.db.libpq import PASSWORD_VAR, RUN, Server
from planner.errors import StepError
from planner.kinds.pgbench.latency import LOG_PREFIX, fetch_log
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.status import Artifact
from planner.steps.base import TIMEOUT_MARGIN_S, Change, Outcome, StepContext, whole_number
from planner.steps.pg_workload import PgWorkload
from planner.steps.wl_common import fetch_existing, finish, tail

BUILTINS = ("tpcb-like", "simple-update", "select-only")
PROTOCOLS = ("simple", "extended", "prepared")
_NAME = r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$"  # an unquoted PostgreSQL identifier (NAMEDATALEN 64)
_COUNT = "select count(*) from pgbench_branches"
# The connections this user may open (PostgreSQL documentation, Connection Settings: superuser_reserved_connections
# slots are kept for superusers, and from 16 reserved_connections for pg_use_reserved_connections, counted as kept
# here): asked first, so that it is known also when pgbench_branches is missing.
_LIMIT = ("select current_setting('max_connections')::int - case when (select rolsuper from pg_roles where "
          "rolname = current_user) then 0 else current_setting('superuser_reserved_connections')::int + "
          "coalesce(current_setting('reserved_connections', true)::int, 0) end")


@dataclass(frozen=True, slots=True)
class PgbenchArgs:
    """The step's arguments, parsed once (one sweep point's values)."""

    database: str
    clients: int
    jobs: int
    seconds: int
    builtin: str
    scale: int
    init: bool
    progress_s: int
    per_statement: bool
    connect_per_transaction: bool
    protocol: str
    tablespace: str
    index_tablespace: str
    binary_dir: str
    latency_log: bool
    sampling_rate: float

    @classmethod
    def of(cls, a: Mapping[str, Any]) -> PgbenchArgs:
        clients = whole_number(a, "clients", 1, "pgbench", minimum=1)
        return cls(str(a.get("database") or ""), clients, whole_number(a, "jobs", 1, "pgbench", minimum=1),
                   whole_number(a, "seconds", 60, "pgbench", minimum=1), str(a.get("builtin") or "tpcb-like"),
                   whole_number(a, "scale", 1, "pgbench", minimum=1), bool(a.get("init", True)),
                   whole_number(a, "progress_s", 5, "pgbench", minimum=1), bool(a.get("per_statement", False)),
                   bool(a.get("connect_per_transaction", False)), str(a.get("protocol") or "simple"),
                   str(a.get("tablespace") or ""), str(a.get("index_tablespace") or ""),
                   str(a.get("binary_dir") or ""), bool(a.get("latency_log", False)),
                   _rate(a.get("sampling_rate", 1.0)))


def _rate(value: Any) -> float:
    try:
        rate = float(value)
    except (TypeError, ValueError):
        rate = -1.0
    if not 0 < rate <= 1:
        raise StepError(f"pgbench: sampling_rate {value!r} is not a share of transactions",
                        hint="give a number above 0 and at most 1, such as 0.01 for one in a hundred")
    return rate


class Pgbench(PgWorkload):
    kind: ClassVar[str] = "pgbench"
    args_schema = {
        "description": "pgbench (PostgreSQL's benchmark) against a PostgreSQL database",
        "type": "object",
        "properties": {
            "database": {"type": "string", "minLength": 1, "pattern": r"^[^\s\"'\\]+$",
                         "description": "the database to run in"},
            "clients": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "jobs": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "seconds": {"type": "integer", "minimum": 1, "description": "the run's length (-T), 60 by default"},
            "builtin": {"enum": list(BUILTINS), "description": "the built-in script (-b), tpcb-like by default"},
            "scale": {"type": "integer", "minimum": 1, "description": "the scaling factor the tables are built at"},
            "init": {"type": "boolean", "description": "build the tables when missing or of another scale (true)"},
            "progress_s": {"type": "integer", "minimum": 1, "description": "seconds between -P progress lines (5)"},
            "per_statement": {"type": "boolean", "description": "per-statement latencies (-r)"},
            "connect_per_transaction": {"type": "boolean", "description": "a new connection per transaction (-C)"},
            "protocol": {"enum": list(PROTOCOLS), "description": "the query protocol (-M), simple by default"},
            "tablespace": {"type": "string", "pattern": _NAME, "description": "where the tables are built"},
            "index_tablespace": {"type": "string", "pattern": _NAME, "description": "where the indexes are built"},
            "binary_dir": {"type": "string", "minLength": 1,
                           "description": "the folder holding pgbench and psql when they are not on the PATH"},
            "latency_log": {"type": "boolean",
                            "description": "log each transaction (--log, pgbench 10+) for latency percentiles "
                                           "and a latency series; false by default: its size grows with the TPS"},
            "sampling_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                              "description": "the share of transactions logged (--sampling-rate), 1 by default"},
        },
        "additionalProperties": False,
        "required": ["database", "clients"],
    }
    # the server's side of each point (collect: [pg_stat]) beside pgbench's TPS and latency
    report_metrics = ("pgbench.tps", "pgbench.latency_ms", "pgbench.failed", "pg_stat.cache_hit_pct",
                      "pg_stat.blocks_read", "pg_stat.blocks_written", "pg_stat.checkpoints", "pg_stat.wal_bytes",
                      "pg_stat.temp_files", "pg_stat.deadlocks", "pg_stat.autovacuum_runs")
    rehearsal_caps = {"seconds": 3, "scale": 1, "progress_s": 1}

    a: PgbenchArgs

    def __init__(self, args: Mapping[str, Any]) -> None:
        super().__init__(args)
        self.a = PgbenchArgs.of(args)

    @classmethod
    def parse_args(cls, args: Mapping[str, Any]) -> PgbenchArgs:
        return PgbenchArgs.of(args)

    def init_argv(self, server: Server) -> list[str]:
        a = self.a
        return [self._program("pgbench"), "-i", "-s", str(a.scale), *server.options(),
                *([f"--tablespace={a.tablespace}"] if a.tablespace else []),
                *([f"--index-tablespace={a.index_tablespace}"] if a.index_tablespace else []), a.database]

    def run_argv(self, server: Server, wd: str = "<point dir>") -> list[str]:
        a = self.a
        return [self._program("pgbench"), "-c", str(a.clients), "-j", str(a.jobs), "-T", str(a.seconds),
                "-P", str(a.progress_s), "-b", a.builtin, "-M", a.protocol, *(["-r"] if a.per_statement else []),
                *(["-C"] if a.connect_per_transaction else []), *self._log_options(wd), *server.options(),
                a.database]

    def _log_options(self, wd: str) -> list[str]:
        if not self.a.latency_log:
            return []
        rate = [f"--sampling-rate={self.a.sampling_rate:g}"] if self.a.sampling_rate < 1 else []
        return ["-l", f"--log-prefix={wd}/{LOG_PREFIX}", *rate]

    def count_argv(self, server: Server) -> list[str]:
        return [self._program("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *server.options(),
                "-d", self.a.database, "-c", _LIMIT, "-c", _COUNT]

    def check(self, ctx: StepContext) -> Change:
        server = Server.of(ctx.vars)
        init = f"{' '.join(self.init_argv(server))} if pgbench_branches is missing or not scale {self.a.scale}; "
        return Change(True, f"would run {init if self.a.init else ''}{' '.join(self.run_argv(server))}")

    def preview(self, ctx: StepContext) -> str:
        server = Server.of(ctx.vars)
        lines = [f"$ {' '.join(self.count_argv(server))}   (the scale the tables hold)"]
        if self.a.init:
            lines.append(f"$ {' '.join(self.init_argv(server))}   (only when missing or of another scale)")
        lines.append(f"$ {' '.join(self.run_argv(server))} ><point dir>/pgbench.out 2>&1")
        if ctx.vars.get(PASSWORD_VAR):
            lines.append(f"the password ({PASSWORD_VAR}) goes through a private PGPASSFILE, removed after the run")
        return "\n".join(lines)

    # -- the run -------------------------------------------------------------------------------------------
    def _scale(self, ctx: StepContext, server: Server, passfile: str, wd: str) -> tuple[int, int | None]:
        """The connections the user may open, and the rows of pgbench_branches (the scale it was built at), None
        when the table is missing."""
        out = f"{wd}/count.out"
        r = ctx.sh(RUN, out, passfile, *self.count_argv(server), check=False)
        text = (ctx.conn.read_text(out) or "") if r.exit_code in (0, 1, 2, 3) else ""
        limit, _, rest = text.strip().partition("\n")
        if limit.isdigit() and len(limit) < 10:
            if r.ok and rest.strip().isdigit():
                return int(limit), int(rest.strip())
            if "pgbench_branches" in rest and "does not exist" in rest:
                return int(limit), None
        raise StepError(f"pgbench: cannot ask the server for the table's scale: {tail(text or r.stderr, 600)}",
                        hint="check the database, pg_host/pg_port/pg_user and the password (pg_password or "
                             "~/.pgpass)")

    def ready(self, ctx: StepContext, server: Server, passfile: str, wd: str) -> str:
        """Build the tables when the scale differs; says what it did."""
        limit, scale = self._scale(ctx, server, passfile, wd)
        if self.a.clients > limit:  # pgbench would connect until "too many clients already", tables built first
            raise StepError(f"pgbench: {self.a.clients} clients, and the server lets this user open {limit} "
                            "connections (max_connections, less superuser_reserved_connections for a user that "
                            "is not a superuser)", hint="lower clients, or raise max_connections (a restart)")
        if scale == self.a.scale:
            return f"tables at scale {scale} kept"
        if not self.a.init:
            raise StepError(f"pgbench: the tables are {'missing' if scale is None else f'at scale {scale}'}, "
                            f"not scale {self.a.scale}, and init is false",
                            hint="set init: true, or scale to what the tables hold")
        out = f"{wd}/pgbench-init.out"
        r = ctx.sh(RUN, out, passfile, *self.init_argv(server), check=False,
                   timeout=max(TIMEOUT_MARGIN_S, 60.0 * self.a.scale))
        if not r.ok:
            raise StepError(f"pgbench -i failed (exit code {r.exit_code}): {tail(ctx.conn.read_text(out), 600)}")
        return f"tables built at scale {self.a.scale}" + ("" if scale is None else f" (they were at {scale})")

    def apply(self, ctx: StepContext) -> Outcome:
        built, out, failure = self.run_point(ctx)
        arts = fetch_existing(ctx, [(out, None, "pgbench")], nonempty=True)
        main = arts[0] if arts else None
        logged: list[Artifact] = []
        said = ""
        if self.a.latency_log and main is not None and failure is None:
            logged, said = fetch_log(ctx, posixpath.dirname(out), float(self.a.progress_s))
        done = finish(ctx, "pgbench", [*arts, *logged], main, failure, lambda p: parse_file(p, "pgbench"))
        return Outcome(done.status, f"{built}; {done.msg}{said}", artifacts=done.artifacts, metrics=done.metrics)
