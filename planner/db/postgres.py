"""The PostgreSQL backend of the engine-neutral seam (planner.db.engine): the host's psql, wrapped.

SQL goes through planner.db.pg_server.psql (the host's psql reaching ``pg_host``/``pg_port``/``pg_user``, a
``pg_password`` through a private PGPASSFILE), rows as ``psql -A -t`` prints them (fields split at '|': a value
holding one is not for this reader). The release is server_version_num; a restart is pg_conf's (pg_ctl with the
postmaster's own program and log, or ``systemctl restart`` of ``pg_service``), without a backup to put back.
"""

from __future__ import annotations

from planner.db.access import StepContext
from planner.db.config import Row
from planner.db.engine import Engine, Version
from planner.db.pg_server import Target, locate, psql, restart
from planner.db.pg_settings import literal
from planner.errors import StepError


class PostgresServer:
    """The host's PostgreSQL server, in ``database`` (postgres by default)."""

    engine = Engine.POSTGRESQL

    def __init__(self, database: str = "postgres") -> None:
        self.database = database

    def _target(self, ctx: StepContext) -> Target:
        return Target.of({**dict(ctx.host.vars), **dict(ctx.vars)}, self.database)

    def query(self, ctx: StepContext, sql: str) -> list[Row]:
        out = psql(ctx, self._target(ctx), sql).stdout
        return [tuple(line.split("|")) for line in out.splitlines() if line]

    def setting(self, ctx: StepContext, name: str) -> str | None:
        rows = self.query(ctx, f"select setting from pg_settings where lower(name) = lower({literal(name)})")
        return rows[0][0] if rows else None

    def version(self, ctx: StepContext) -> Version:
        rows = self.query(ctx, "select current_setting('server_version_num')")
        text = str(rows[0][0] if rows else "")
        if not text.isdigit():
            raise StepError(f"the server's release is {text[:40]!r}, not server_version_num")
        return Version.of_server_version_num(int(text))

    def restart(self, ctx: StepContext) -> str:
        data = self.query(ctx, "select current_setting('data_directory')")
        t = locate(ctx, self._target(ctx), str(data[0][0] if data else ""))
        return restart(ctx, t)
