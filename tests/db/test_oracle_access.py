"""The database access layer: the thin backend against a RECORDING STAND-IN of the driver's connection (not
oracledb, not a database), and the sqlplus backend's command line, stdin, binds and output parsing."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from prep_helpers import context

from planner.db.access import (
    DbConfig,
    SqlplusDatabase,
    open_database,
    ora_error,
    parse_rows,
    render_binds,
    sql_literal,
)
from planner.db.config import NLS_ENV
from planner.db.thin import SYSDBA, DriverError, ThinDatabase, connect_thin
from planner.errors import OracleError, StepError
from planner.steps.prep_db import InitOra
from planner.transport.connection import CommandResult


class RecordingVar:
    """Stands in for an oracledb Var: the OUT value the 'server' put there."""

    def __init__(self, typ: type, value: Any) -> None:
        self.typ, self.value = typ, value

    def getvalue(self) -> Any:
        return self.value


class RecordingCursor:
    def __init__(self, conn: RecordingConnection) -> None:
        self.conn = conn

    def execute(self, sql: str, binds: Mapping[str, Any]) -> None:
        self.conn.calls.append(("execute", sql, dict(binds)))
        if self.conn.fail:
            raise self.conn.fail

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.conn.rows.pop(0) if self.conn.rows else []

    def var(self, typ: type) -> RecordingVar:
        return RecordingVar(typ, self.conn.out_values.pop(0))

    def callproc(self, name: str, params: Sequence[Any]) -> None:
        self.conn.calls.append(("callproc", name, [p if not isinstance(p, RecordingVar) else p.typ for p in params]))

    def callfunc(self, name: str, rtype: type, params: list[Any]) -> Any:
        self.conn.calls.append(("callfunc", name, [rtype, *params]))
        return 42

    def close(self) -> None:
        pass


class RecordingConnection:
    """A recording stand-in for oracledb.Connection: remembers SQL and binds, answers scripted rows."""

    def __init__(self, rows: list[list[tuple[Any, ...]]] | None = None, out_values: list[Any] | None = None) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.rows = rows or []
        self.out_values = out_values or []
        self.fail: Exception | None = None
        self.closed = False

    def cursor(self) -> RecordingCursor:
        return RecordingCursor(self)

    def close(self) -> None:
        self.closed = True


def test_thin_query_sends_sql_and_binds_and_returns_text() -> None:
    conn = RecordingConnection(rows=[[("db_cache_size", 6, 0, "IMMEDIATE")]])
    db = ThinDatabase(conn)
    rows = db.query("select name, type, value, issys_modifiable from v$parameter where name in (:n0)",
                    {"n0": "db_cache_size"})
    assert rows == [("db_cache_size", "6", "0", "IMMEDIATE")]
    assert conn.calls == [("execute", "select name, type, value, issys_modifiable from v$parameter where name in (:n0)",
                           {"n0": "db_cache_size"})]


def test_thin_callproc_reads_out_values_like_calibrate_io() -> None:
    conn = RecordingConnection(out_values=[1520000, 11500, 1])
    db = ThinDatabase(conn)
    outs = db.callproc("dbms_resource_manager.calibrate_io", [16, 20], [int, int, int])
    assert outs == [1520000, 11500, 1]
    assert conn.calls == [("callproc", "dbms_resource_manager.calibrate_io", [16, 20, int, int, int])]
    assert db.callfunc("dbms_workload_repository.create_snapshot", int) == 42


def test_thin_errors_become_oracle_errors() -> None:
    conn = RecordingConnection()
    conn.fail = DriverError("ORA-02065: illegal option for ALTER SYSTEM")
    with pytest.raises(OracleError, match="ORA-02065"):
        ThinDatabase(conn).execute("alter system set x=1 scope=spfile sid='*'")


def test_init_ora_through_thin_sends_the_exact_statements() -> None:
    conn = RecordingConnection(rows=[[("db_cache_size", 6, "0", "IMMEDIATE")],
                                     [("db_cache_size", None, "FALSE")]])
    db = ThinDatabase(conn)
    step = InitOra({"db_cache_size": "8G"})
    from planner.steps.prep_db import alter_set, read_params

    todo = step._plan(read_params(db, ["db_cache_size"]))
    db.execute(alter_set(todo[0].param, todo[0].rendered, todo[0].scope))
    assert [c[1] for c in conn.calls] == [
        "select name, type, value, issys_modifiable from v$parameter where name in (:n0)",
        "select name, value, isspecified from v$spparameter where name in (:n0) and sid = '*'",
        "alter system set db_cache_size=8G scope=both sid='*'"]
    assert conn.calls[0][2] == {"n0": "db_cache_size"} and conn.calls[2][2] == {}


def test_connect_thin_password_from_env_or_file_never_inventory(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def fake_connect(**kw: Any) -> RecordingConnection:
        seen.update(kw)
        return RecordingConnection()

    cfg = DbConfig.from_vars({"oracle_home": "/u01/db", "oracle_sid": "orcl", "oracle_access": "thin",
                              "oracle_service": "ORCLCDB", "oracle_password_env": "LAB_SYS_PW"}, "db1.lab")
    connect_thin(cfg, connect=fake_connect, environ={"LAB_SYS_PW": "s3cret"})
    assert seen == {"user": "sys", "password": "s3cret", "dsn": "db1.lab:1521/ORCLCDB",
                    "mode": SYSDBA}
    pw = tmp_path / "pw"
    pw.write_text("fromfile\n")
    cfg2 = DbConfig.from_json({**cfg.to_json(), "password_env": None, "password_file": str(pw)})
    connect_thin(cfg2, connect=fake_connect, environ={})
    assert seen["password"] == "fromfile"
    assert "s3cret" not in str(cfg.to_json())  # what the run record keeps names the variable, not the value
    with pytest.raises(StepError, match="LAB_SYS_PW"):
        connect_thin(cfg, connect=fake_connect, environ={})


def test_sql_literals_and_binds() -> None:
    assert sql_literal("O'Brien") == "'O''Brien'"
    assert sql_literal(5) == "5" and sql_literal(None) == "NULL"
    with pytest.raises(StepError, match="control character"):
        sql_literal("a\nb")
    sql = "select value from v$parameter where name = :n and x = ':n'"
    assert render_binds(sql, {"n": "a' or '1'='1"}) == (
        "select value from v$parameter where name = 'a'' or ''1''=''1' and x = ':n'")
    with pytest.raises(StepError, match=":m has no value"):
        render_binds("select :m from dual", {})


def test_output_parsing_and_errors() -> None:
    assert parse_rows("cpu_count  |3|16\n|x|\n") == [("cpu_count", "3", "16"), (None, "x", None)]
    text = "select x from y\n*\nERROR at line 1:\nORA-00942: table or view does not exist\n"
    err = ora_error(text, "q")
    assert err is not None and "ORA-00942: table or view does not exist" in str(err)
    assert ora_error("16\n", "q") is None


class RecordingConn:
    """A recording stand-in for a host Connection (not a transport): keeps argv, env, stdin."""

    def __init__(self, stdout: str = "") -> None:
        self.calls: list[dict[str, Any]] = []
        self.stdout = stdout

    def run(self, argv: Sequence[str], **kw: Any) -> CommandResult:
        self.calls.append({"argv": list(argv), **kw})
        return CommandResult(" ".join(argv), 0, self.stdout, "", 0.0)


def test_sqlplus_backend_runs_as_oracle_user_with_sql_on_stdin(tmp_path: Path) -> None:
    ctx = context(tmp_path, oracle_user="oracle", oracle_home="/u01/app/oracle/product/19c", oracle_sid="ORCL1",
                  planner_root="")
    rec = RecordingConn("OPEN\n")
    ctx.conn = rec  # type: ignore[assignment]
    db = open_database(ctx, DbConfig.from_vars(ctx.vars))
    assert isinstance(db, SqlplusDatabase)
    assert db.query("select status from v$instance where instance_name = :i", {"i": "ORCL1"}) == [("OPEN",)]
    call = rec.calls[0]
    assert call["argv"] == ["/u01/app/oracle/product/19c/bin/sqlplus", "-S", "/ as sysdba"]
    assert call["become"] is True and call["become_user"] == "oracle" and call["login"] is True
    assert call["env"] == {"ORACLE_HOME": "/u01/app/oracle/product/19c", "ORACLE_SID": "ORCL1", **NLS_ENV}
    script = call["stdin"].decode()
    assert "colsep '|'" in script and "whenever sqlerror exit failure" in script
    assert re.search(r"select status from v\$instance where instance_name = 'ORCL1';\nprompt planner-end-\w+\nexit\n$",
                     script)
    assert "v$instance" not in " ".join(call["argv"])  # SQL never on the command line


@pytest.mark.parametrize("bad", [{"oracle_sid": "orcl; rm -rf /"}, {"oracle_user": "oracle -c id"},
                                 {"oracle_home": "relative/home"}, {"oracle_access": "odbc"}])
def test_bad_access_vars_refused(bad: dict[str, str]) -> None:
    with pytest.raises(StepError):
        DbConfig.from_vars({"oracle_home": "/u01/db", "oracle_sid": "orcl", **bad})
