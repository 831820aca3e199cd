"""The one place a host's database backend is picked: by its inventory's ``db_engine`` (planner.db.engine)."""

from __future__ import annotations

from planner.db.access import StepContext
from planner.db.engine import Engine, Server, engine_of
from planner.db.oracle import OracleServer
from planner.db.postgres import PostgresServer


def server_for(ctx: StepContext, database: str = "") -> Server:
    """The backend of the host's engine; ``database``: the PostgreSQL database to connect to (pg_database, else
    postgres, when not given). Oracle's session is the inventory's (planner.db.config)."""
    v = {**dict(ctx.host.vars), **dict(ctx.vars)}
    if engine_of(v) is Engine.POSTGRESQL:
        return PostgresServer(database or str(v.get("pg_database") or "postgres"))
    return OracleServer()
