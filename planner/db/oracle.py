"""The Oracle backend of the engine-neutral seam (planner.db.engine): what planner already had, wrapped.

Queries and settings go through planner.db.access (sqlplus as SYSDBA, or python-oracledb thin), the release comes
from the inventory (``oracle_version``, the Oracle home's path) or V$INSTANCE, and a restart is the one init_ora
has always done: srvctl for the whole database when Grid manages it, else sqlplus shutdown immediate / startup,
an instance that does not start brought back from the backup pfile (planner.db.pfile).
"""

from __future__ import annotations

import re
import time

from planner.db.access import (
    Database,
    DbConfig,
    SqlplusDatabase,
    StepContext,
    cdb_root,
    config_for,
    database_version,
    open_database,
)
from planner.db.config import Row
from planner.db.engine import Engine, Version
from planner.db.identity import RestartWay, oracle_run_kw, restart_way
from planner.db.pfile import start_failure, start_from_backup
from planner.errors import OracleError, StepError

_RELEASE = re.compile(r"^(\d+)\.(\d+)")


class OracleServer:
    """The host's Oracle database as the seam asks it (its inventory variables say how: planner.db.config)."""

    engine = Engine.ORACLE

    def query(self, ctx: StepContext, sql: str) -> list[Row]:
        db = open_database(ctx, config_for(ctx))
        try:
            return db.query(sql)
        finally:
            db.close()

    def setting(self, ctx: StepContext, name: str) -> str | None:
        db = open_database(ctx, config_for(ctx))
        try:
            rows = db.query("select value from v$parameter where name = :n", {"n": name.lower()})
        finally:
            db.close()
        return rows[0][0] if rows else None

    def version(self, ctx: StepContext) -> Version:
        known = database_version({**dict(ctx.host.vars), **dict(ctx.vars)})
        if known is not None:
            return Version(*known)
        rows = self.query(ctx, "select version from v$instance")
        m = _RELEASE.match(str(rows[0][0] if rows else ""))
        if m is None:
            raise StepError(f"the database's release is {rows!r}, not a version", hint="set oracle_version")
        return Version(int(m.group(1)), int(m.group(2)))

    def restart(self, ctx: StepContext) -> str:
        how, db = restart_database(ctx, config_for(ctx))
        db.close()
        return how


def wait_open(ctx: StepContext, cfg: DbConfig) -> Database:
    """Poll v$instance.status until OPEN (fresh session each time: a thin connection dies with the restart)."""
    deadline = time.monotonic() + cfg.open_timeout_s
    last = ""
    while True:
        try:
            db = open_database(ctx, cfg)
            rows = db.query("select status from v$instance")
            if rows and rows[0][0] == "OPEN":
                return db
            last = str(rows[0][0] if rows else "no row")
        except OracleError as e:
            last = str(e)
        if time.monotonic() > deadline:
            raise StepError(f"database not OPEN after {cfg.open_timeout_s:.0f}s: {last}",
                            hint="check the alert log; raise oracle_open_timeout_s if startup is slow")
        time.sleep(cfg.poll_s)


def instance_up(ctx: StepContext, cfg: DbConfig) -> bool:
    """Whether the instance runs: an idle one answers ORA-01034 / ORA-27101 to any query."""
    try:
        SqlplusDatabase(ctx, cfg).query("select status from v$instance")
        return True
    except OracleError as e:
        if "ORA-01034" in str(e) or "ORA-27101" in str(e):
            return False
        raise


def restart_database(ctx: StepContext, cfg: DbConfig) -> tuple[str, Database]:
    """srvctl for the whole database when Grid manages it (-d its db_unique_name, read from V$DATABASE), else
    sqlplus shutdown immediate / startup of its single instance; a RAC database srvctl does not list is refused
    (planner.db.identity.restart_way), never restarted on this node alone. An instance already down is only
    started (``shutdown`` on it fails ORA-01034). A start that fails on memory sizing comes back from the
    backup pfile (planner.db.pfile) and the step fails saying so."""
    cfg = cdb_root(cfg)
    up = instance_up(ctx, cfg)
    way = restart_way(ctx, cfg) if up else None
    if way is not None and way.srvctl is not None:
        ctx.run(way.argv(ctx, cfg, "stop"), **oracle_run_kw(cfg))
    elif up:
        SqlplusDatabase(ctx, cfg).run_script("shutdown immediate", "shutdown", timeout=cfg.open_timeout_s)
    try:
        _start(ctx, cfg, way)
    except OracleError as e:
        code = start_failure(e)
        if code is None or not cfg.pfile_backup:
            raise
        start_from_backup(ctx, cfg, cfg.pfile_backup, cfg.spfile)
        _start(ctx, cfg, way)
        raise StepError(f"the instance did not start with the new parameters ({e}); planner started it from the "
                        f"backup pfile {cfg.pfile_backup}, wrote the spfile back from it and restarted: the "
                        "database runs as before the change",
                        hint=f"{code}: the memory asked does not fit this host; lower the sizes") from None
    how = way.describe() if way is not None else "the instance was down: sqlplus startup (no shutdown)"
    return how, wait_open(ctx, cfg)


def _start(ctx: StepContext, cfg: DbConfig, way: RestartWay | None) -> None:
    if way is not None and way.srvctl is not None:
        r = ctx.run(way.argv(ctx, cfg, "start"), check=False, **oracle_run_kw(cfg))
        if not r.ok:
            raise OracleError(f"srvctl start database -d {way.srvctl}: {(r.stdout + r.stderr).strip()[-500:]}")
    else:
        SqlplusDatabase(ctx, cfg).run_script("startup", "startup", timeout=cfg.open_timeout_s)
