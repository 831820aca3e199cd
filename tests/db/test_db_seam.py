"""The engine-neutral db/ seam (issue 44): one picker by db_engine, an Oracle and a PostgreSQL backend behind it.

Each backend is driven for real: the Oracle one through the sqlplus stand-in (tests/conftest.py make_prep_root),
the PostgreSQL one against a real server (tests/pg_cluster.py, a cluster of this file's own: it is restarted).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_cluster import PgCluster, own_cluster
from prep_helpers import context

from planner.db.backends import server_for
from planner.db.engine import Engine, Version, engine_of
from planner.db.oracle import OracleServer
from planner.db.postgres import PostgresServer
from planner.errors import StepError
from planner.host import Host
from planner.rehearsal.standins import load_state
from planner.steps.base import StepContext
from planner.transport.connection import CommandResult, LocalConnection


def _ctx(tmp: Path, log: list[CommandResult] | None = None, **vars_: object) -> StepContext:
    host = Host("db1", "localhost", connection="local", vars={})
    sink = log if log is not None else []
    return StepContext(host=host, conn=LocalConnection(host), vars=dict(vars_), step_path="plays[0].prep[0]",
                       plan_dir=tmp, artifacts=tmp, run_dir=tmp, log=lambda _h, _s, r: sink.append(r))


def test_the_hosts_db_engine_picks_the_backend(tmp_path: Path) -> None:
    assert engine_of({}) is Engine.ORACLE and engine_of({"db_engine": " PostgreSQL "}) is Engine.POSTGRESQL
    assert isinstance(server_for(_ctx(tmp_path)), OracleServer)
    pg = server_for(_ctx(tmp_path, db_engine="postgresql", pg_database="bench"))
    assert isinstance(pg, PostgresServer) and pg.database == "bench" and pg.engine is Engine.POSTGRESQL
    assert isinstance(server_for(_ctx(tmp_path, db_engine="postgresql"), "other"), PostgresServer)
    with pytest.raises(StepError, match="db_engine is 'postgres', not oracle or postgresql"):
        server_for(_ctx(tmp_path, db_engine="postgres"))


@pytest.mark.parametrize(("num", "version"), [(90603, Version(9, 6)), (100023, Version(10, 23)),
                                              (150004, Version(15, 4)), (170000, Version(17, 0))])
def test_a_postgresql_release_reads_from_server_version_num(num: int, version: Version) -> None:
    assert Version.of_server_version_num(num) == version and Version(9, 6) < Version(10, 0)


@pytest.mark.slow
def test_the_oracle_backend_wraps_sqlplus(prep_root: Path) -> None:
    ctx = context(prep_root)
    ora = server_for(ctx)
    assert ora.engine is Engine.ORACLE
    assert ora.query(ctx, "select status from v$instance") == [("OPEN",)]
    assert ora.setting(ctx, "DB_BLOCK_SIZE") == "8192" and ora.setting(ctx, "no_such_parameter") is None
    assert ora.version(ctx) >= Version(10, 2)
    assert ora.restart(ctx) == "sqlplus shutdown immediate / startup"
    assert load_state(prep_root)["restarts"] == 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    yield from own_cluster("the PostgreSQL backend")


@pytest.mark.slow
def test_the_postgresql_backend_wraps_psql(cluster: PgCluster, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)  # only the backend's own password file may let it in
    log: list[CommandResult] = []
    ctx = _ctx(tmp_path, log, db_engine="postgresql", pg_host="127.0.0.1", pg_port=cluster.port,
               pg_user="planner", pg_password=cluster.password)
    pg = server_for(ctx)
    assert pg.engine is Engine.POSTGRESQL
    assert pg.query(ctx, "select 1, 'two'") == [("1", "two")]
    assert pg.setting(ctx, "shared_buffers") == "16384" and pg.setting(ctx, "no_such_parameter") is None
    assert pg.version(ctx).major == int(cluster.psql("show server_version_num").strip()) // 10000
    started = cluster.psql("select pg_postmaster_start_time()")
    assert "pg_ctl -D " in pg.restart(ctx)
    assert cluster.psql("select pg_postmaster_start_time()") != started  # a new postmaster
    assert all(cluster.password not in r.command + r.stdout + r.stderr for r in log)
