"""The python-oracledb thin backend: the only module that imports oracledb.

Thin mode only (no Oracle Client on the controller): SYSDBA over the network needs the server's password
file (REMOTE_LOGIN_PASSWORDFILE=EXCLUSIVE). The password comes from an environment variable or a file
named in the inventory (``oracle_password_env`` / ``oracle_password_file``), never from the inventory itself.
Startup/shutdown are not possible in thin mode; steps restart over SSH (see planner.steps.prep_db).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import oracledb

from planner.db.config import HINTS, DbConfig, Row
from planner.errors import OracleError, StepError

DriverError = oracledb.Error  # what the driver raises (tests need it without importing oracledb)
SYSDBA = oracledb.AUTH_MODE_SYSDBA


def _text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@contextmanager
def _mapped(what: str) -> Iterator[None]:
    """oracledb errors become OracleError carrying the ORA-/DPY- code and a hint."""
    try:
        yield
    except oracledb.Error as e:
        err = e.args[0] if e.args else e
        code = str(getattr(err, "full_code", "") or "")
        msg = str(getattr(err, "message", err)).strip()
        raise OracleError(f"{what}: {msg}", hint=HINTS.get(code)) from e


class ThinDatabase:
    """The Database interface over a DB-API connection (an oracledb.Connection, or a test's recording fake)."""

    def __init__(self, connection: Any) -> None:
        self._conn = connection

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[Row]:
        with _mapped(sql[:120]):
            cur = self._conn.cursor()
            try:
                cur.execute(sql, dict(binds or {}))
                return [tuple(_text(v) for v in row) for row in cur.fetchall()]
            finally:
                cur.close()

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> str:
        with _mapped(sql[:120]):
            cur = self._conn.cursor()
            try:
                cur.execute(sql, dict(binds or {}))
            finally:
                cur.close()
        return ""

    def callproc(self, name: str, args: Sequence[Any] = (), out_types: Sequence[type] = ()) -> list[Any]:
        with _mapped(name):
            cur = self._conn.cursor()
            try:
                outs = [cur.var(t) for t in out_types]
                cur.callproc(name, [*args, *outs])
                return [o.getvalue() for o in outs]
            finally:
                cur.close()

    def callfunc(self, name: str, return_type: type, args: Sequence[Any] = ()) -> Any:
        with _mapped(name):
            cur = self._conn.cursor()
            try:
                return cur.callfunc(name, return_type, list(args))
            finally:
                cur.close()

    def close(self) -> None:
        self._conn.close()


def read_password(cfg: DbConfig, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    if cfg.password_env:
        value = env.get(cfg.password_env)
        if not value:
            raise StepError(f"environment variable {cfg.password_env} (oracle_password_env) is not set",
                            hint="export it before running planner")
        return value
    if cfg.password_file:
        path = Path(cfg.password_file).expanduser()
        if not path.is_file():
            raise StepError(f"oracle_password_file {path} does not exist")
        return path.read_text().strip()
    raise StepError("oracle_access=thin needs oracle_password_env or oracle_password_file",
                    hint="name an environment variable or a file; never put the password in the inventory")


Connect = Callable[..., Any]


def connect_thin(cfg: DbConfig, *, connect: Connect | None = None,
                 environ: Mapping[str, str] | None = None) -> ThinDatabase:
    """SYSDBA thin connection to host:port/service. ``connect`` replaces oracledb.connect in tests."""
    if not cfg.service:
        raise StepError("oracle_access=thin needs oracle_service", hint="set oracle_service (and oracle_host, "
                        "oracle_port) in the inventory")
    password = read_password(cfg, environ)
    dsn = f"{cfg.host}:{cfg.port}/{cfg.service}"
    with _mapped(f"connect to {dsn}"):
        conn = (connect or oracledb.connect)(user="sys", password=password, dsn=dsn,
                                             mode=SYSDBA)
    return ThinDatabase(conn)
