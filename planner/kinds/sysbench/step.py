"""The ``sysbench`` workload: sysbench's OLTP scripts against a PostgreSQL server (its pgsql driver), one run per
sweep point.

Before the point runs, planner asks the server with psql the highest id of each of ``sbtest1``..``sbtestN``
(prepare numbers the rows from 1). Only when one is missing or of another size than ``table_size`` does it run
``sysbench TEST cleanup`` (when any of them exists: sysbench's ``prepare`` refuses a table that is there) and
``sysbench TEST prepare``, then asks again: sysbench 1.0's ``prepare`` with more than one thread exits 0 even
when its CREATE TABLE failed, so its exit status is not what says the tables are right (docs/oracle-behaviour.md).
The point is then
``sysbench TEST --threads=T --time=S --report-interval=R --percentile=P run``, stdout and stderr kept as one
artifact, read by the kind's parser; its ``--report-interval`` lines become the point's series (``series.json``:
transactions and queries per second, the latency percentile, ignored errors per second). sysbench exits 1 when a
run fails (and 1.0.20 dies by SIGSEGV, status 139, on a query against a missing table): any non-zero status fails
the point, the output kept.

The connection: ``--pgsql-host``, ``--pgsql-port`` and ``--pgsql-user`` from the host's ``pg_host``, ``pg_port``,
``pg_user``, passed empty when unset so that libpq's own defaults apply (the local socket, 5432, the OS user) as
for PostgreSQL's own clients, not sysbench's ("localhost", "sbtest"). ``--pgsql-password`` is never passed:
sysbench's pgsql driver hands its (empty) password to ``PQsetdbLogin``, where an empty string means "use the
default" (PostgreSQL's fe-connect.c), so libpq reads PGPASSWORD, then the private PGPASSFILE planner writes for the
run (planner.db.libpq), else the user's ~/.pgpass (docs/oracle-behaviour.md).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from planner.db.libpq import PASSWORD_VAR, RUN, Server
from planner.errors import StepError
from planner.kinds.sysbench.series import write_series
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.status import Artifact
from planner.steps.base import TIMEOUT_MARGIN_S, Change, Outcome, StepContext, whole_number
from planner.steps.pg_workload import PgWorkload
from planner.steps.wl_common import fetch_existing, finish, tail

# the scripts Debian's sysbench 1.0 ships that build their tables with oltp_common.lua's prepare (sbtest1..N)
TESTS = ("oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index",
         "oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points", "select_random_ranges")
PREPARE_THREADS = 8  # prepare builds one table per thread (oltp_common.lua cmd_prepare)
ROWS_PER_S = 20_000  # a slow host's insert rate in prepare, for its timeout only
# each sbtestN visible in the search path with its highest id, in one query ("sbtest1 10000" a line). prepare
# numbers the rows 1..table_size (oltp_common.lua: id SERIAL), so the highest id is the size it was built at, read
# from the primary key's index: a count(*) would read every table whole before the point and warm the very caches
# the point measures. An empty table says 0. The literals are dollar-quoted: with no single quote in it, the command
# a preview shows reads (and pastes) as it runs.
_COUNT = ("select c.relname || $$ $$ || coalesce((xpath($$/row/n/text()$$, query_to_xml(format("
          "$$select max(id) as n from %I.%I$$, n.nspname, c.relname), false, true, $$$$)))[1]::text, $$0$$) "
          "from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind in ($$r$$, $$p$$) and "
          "c.relname ~ $r$^sbtest[0-9]+$$r$ and pg_table_is_visible(c.oid) order by 1")
_ROW = re.compile(r"^sbtest(\d+) (\d+)$")


@dataclass(frozen=True, slots=True)
class SysbenchArgs:
    """The step's arguments, parsed once (one sweep point's values)."""

    database: str
    test: str
    tables: int
    table_size: int
    threads: int
    seconds: int
    report_interval: int
    percentile: int
    prepare: bool
    binary_dir: str

    @classmethod
    def of(cls, a: Mapping[str, Any]) -> SysbenchArgs:
        return cls(str(a.get("database") or ""), str(a.get("test") or "oltp_read_write"),
                   whole_number(a, "tables", 1, "sysbench", minimum=1),
                   whole_number(a, "table_size", 10_000, "sysbench", minimum=1),
                   whole_number(a, "threads", 1, "sysbench", minimum=1),
                   whole_number(a, "seconds", 60, "sysbench", minimum=1),
                   whole_number(a, "report_interval", 1, "sysbench", minimum=1),
                   whole_number(a, "percentile", 95, "sysbench", minimum=1), bool(a.get("prepare", True)),
                   str(a.get("binary_dir") or ""))


def table_rows(text: str) -> dict[int, int]:
    """psql's answer to ``_COUNT``: table number -> rows."""
    return {int(m.group(1)): int(m.group(2)) for line in text.splitlines() if (m := _ROW.match(line.strip()))}


class Sysbench(PgWorkload):  # its pgsql driver: the host's inventory says db_engine: postgresql
    kind: ClassVar[str] = "sysbench"
    args_schema = {
        "description": "sysbench's OLTP scripts against a PostgreSQL database (its pgsql driver)",
        "type": "object",
        "properties": {
            "database": {"type": "string", "minLength": 1, "pattern": r"^[^\s\"'\\]+$",
                         "description": "the database to run in (--pgsql-db)"},
            "test": {"enum": list(TESTS), "description": "the OLTP script, oltp_read_write by default"},
            "tables": {"type": "integer", "minimum": 1, "description": "sbtest tables (--tables), 1 by default"},
            "table_size": {"type": "integer", "minimum": 1,
                           "description": "rows per table (--table-size), 10000 by default"},
            "threads": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "seconds": {"type": "integer", "minimum": 1, "description": "the run's length (--time), 60 by default"},
            "report_interval": {"type": "integer", "minimum": 1,
                                "description": "seconds between --report-interval lines, the series' step (1)"},
            "percentile": {"type": "integer", "minimum": 1, "maximum": 100,
                           "description": "the latency percentile sysbench reports (--percentile), 95"},
            "prepare": {"type": "boolean",
                        "description": "build the tables when missing or of another size (true)"},
            "binary_dir": {"type": "string", "minLength": 1,
                           "description": "the folder holding sysbench and psql when they are not on the PATH"},
        },
        "additionalProperties": False,
        "required": ["database", "threads"],
    }
    report_metrics = ("sysbench.tps", "sysbench.qps", "sysbench.latency_ms")
    # briefly and on small tables
    rehearsal_caps = {"seconds": 3, "table_size": 1000, "tables": 2, "report_interval": 1}

    a: SysbenchArgs

    def __init__(self, args: Mapping[str, Any]) -> None:
        super().__init__(args)
        self.a = SysbenchArgs.of(args)

    @classmethod
    def parse_args(cls, args: Mapping[str, Any]) -> SysbenchArgs:
        return SysbenchArgs.of(args)

    def validate(self) -> None:
        super().validate()
        if self.a.test not in TESTS:
            raise StepError(f"sysbench: unknown test {self.a.test!r}", hint=f"one of {', '.join(TESTS)}")

    def _base(self, server: Server) -> list[str]:
        # empty values on purpose: sysbench hands them to PQsetdbLogin, which then takes libpq's defaults
        a = self.a
        return [self._program("sysbench"), a.test, "--db-driver=pgsql", f"--pgsql-host={server.host}",
                f"--pgsql-port={server.port}", f"--pgsql-user={server.user}", f"--pgsql-db={a.database}",
                f"--tables={a.tables}", f"--table-size={a.table_size}"]

    def prepare_argv(self, server: Server, command: str) -> list[str]:
        return [*self._base(server), f"--threads={min(self.a.tables, PREPARE_THREADS)}", command]

    def run_argv(self, server: Server, wd: str = "<point dir>") -> list[str]:
        a = self.a
        return [*self._base(server), f"--threads={a.threads}", f"--time={a.seconds}",
                f"--report-interval={a.report_interval}", f"--percentile={a.percentile}", "run"]

    def count_argv(self, server: Server) -> list[str]:
        return [self._program("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *server.psql_options(),
                "-d", self.a.database, "-c", _COUNT]

    def _names(self) -> str:
        return "sbtest1" if self.a.tables == 1 else f"sbtest1..{self.a.tables}"

    def check(self, ctx: StepContext) -> Change:
        server = Server.of(ctx.vars)
        build = (f"{shlex.join(self.prepare_argv(server, 'prepare'))} if {self._names()} are missing or not "
                 f"{self.a.table_size} rows; ") if self.a.prepare else ""
        return Change(True, f"would run {build}{shlex.join(self.run_argv(server))}")

    def preview(self, ctx: StepContext) -> str:
        server = Server.of(ctx.vars)
        lines = [f"$ {shlex.join(self.count_argv(server))}   (each sbtest table's highest id: the rows prepare "
                 "built)"]
        if self.a.prepare:
            lines.append(f"$ {shlex.join(self.prepare_argv(server, 'cleanup'))}   (only when a table is of "
                         "another size)")
            lines.append(f"$ {shlex.join(self.prepare_argv(server, 'prepare'))}   (only when missing or of "
                         "another size)")
        lines.append(f"$ {shlex.join(self.run_argv(server))} ><point dir>/sysbench.out 2>&1")
        if ctx.vars.get(PASSWORD_VAR):
            lines.append(f"the password ({PASSWORD_VAR}) goes through a private PGPASSFILE, removed after the run; "
                         "never --pgsql-password")
        return "\n".join(lines)

    # -- the run -------------------------------------------------------------------------------------------
    def _rows(self, ctx: StepContext, server: Server, passfile: str, wd: str) -> dict[int, int]:
        out = f"{wd}/count.out"
        r = ctx.sh(RUN, out, passfile, *self.count_argv(server), check=False)
        text = ctx.conn.read_text(out) or "" if r.exit_code in (0, 1, 2, 3) else ""
        if not r.ok:
            raise StepError(f"sysbench: cannot ask the server for the sbtest tables: {tail(text or r.stderr, 600)}",
                            hint="check the database, pg_host/pg_port/pg_user and the password (pg_password or "
                                 "~/.pgpass)")
        return table_rows(text)

    def _wrong(self, rows: Mapping[int, int]) -> str:
        """What is wrong with the tables, in words ("" when all are there at table_size)."""
        missing = [n for n in range(1, self.a.tables + 1) if n not in rows]
        other = {n: rows[n] for n in range(1, self.a.tables + 1) if n in rows and rows[n] != self.a.table_size}
        words = ([f"sbtest{missing[0]}{'' if len(missing) == 1 else f' and {len(missing) - 1} more'} missing"]
                 if missing else [])
        words += [f"sbtest{n} is of {v} rows" for n, v in list(other.items())[:3]]
        return ", ".join(words)

    def _sysbench(self, ctx: StepContext, server: Server, passfile: str, wd: str, command: str) -> str:
        out = f"{wd}/sysbench-{command}.out"
        timeout = max(TIMEOUT_MARGIN_S, self.a.tables * self.a.table_size / ROWS_PER_S)
        r = ctx.sh(RUN, out, passfile, *self.prepare_argv(server, command), check=False, timeout=timeout)
        text = ctx.conn.read_text(out) or ""
        if not r.ok:
            raise StepError(f"sysbench {command} failed (exit code {r.exit_code}): {tail(text, 600)}")
        return text

    def ready(self, ctx: StepContext, server: Server, passfile: str, wd: str) -> str:
        """Build the tables when they differ from what the point wants; says what it did."""
        before = self._rows(ctx, server, passfile, wd)
        wrong = self._wrong(before)
        if not wrong:
            return f"{self.a.tables} table(s) of {self.a.table_size} rows kept"
        if not self.a.prepare:
            raise StepError(f"sysbench: {wrong}, and prepare is false",
                            hint="set prepare: true, or tables/table_size to what the database holds")
        if any(n in before for n in range(1, self.a.tables + 1)):
            self._sysbench(ctx, server, passfile, wd, "cleanup")
        text = self._sysbench(ctx, server, passfile, wd, "prepare")
        still = self._wrong(self._rows(ctx, server, passfile, wd))
        if still:  # sysbench 1.0's threaded prepare exits 0 when a table failed: its output says why
            raise StepError(f"sysbench prepare left the tables wrong ({still}): {tail(text, 600)}")
        return f"{self.a.tables} table(s) of {self.a.table_size} rows built ({wrong})"

    def apply(self, ctx: StepContext) -> Outcome:
        built, out, failure = self.run_point(ctx)
        arts = fetch_existing(ctx, [(out, None, "sysbench")], nonempty=True)
        main = arts[0] if arts else None
        series: list[Artifact] = []
        if main is not None and failure is None:
            series = write_series(ctx, ctx.run_dir / main.path, float(self.a.report_interval))
        done = finish(ctx, "sysbench", [*arts, *series], main, failure, lambda p: parse_file(p, "sysbench"))
        return Outcome(done.status, f"{built}; {done.msg}", artifacts=done.artifacts, metrics=done.metrics)
