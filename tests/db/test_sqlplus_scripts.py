"""Several statements in one SQL*Plus session (SqlplusDatabase.run_parts): the stand-in takes VARIABLE, EXECUTE
and PROMPT as SQL*Plus does, a bind variable set by one statement reaches the next, and planner splits the
output by its PROMPT markers, naming the statement that failed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import DbConfig, Part, SqlplusDatabase
from planner.errors import OracleError
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state
from planner.transport.connection import CommandResult

pytestmark = [pytest.mark.slow]  # each script is a stand-in sqlplus process


def _dbid(root: Path) -> int:
    """The stand-in database's DBID: AWR_REPORT_TEXT refuses any other (ORA-20200)."""
    return int(load_state(root)["database"]["dbid"])


def _sqlplus(root: Path, script: str) -> str:
    env = {**os.environ, "ORACLE_HOME": DEFAULT_HOME, "ORACLE_SID": "orcl"}
    r = subprocess.run(
        [str(root / DEFAULT_HOME.lstrip("/") / "bin/sqlplus"), "-S", "/ as sysdba"],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return r.stdout


def test_the_standin_prints_prompt_text_and_runs_execute_with_its_bind_variable(tmp_path: Path) -> None:
    install_standins(tmp_path)
    out = _sqlplus(
        tmp_path,
        "set heading off feedback off pagesize 0\nvariable e number\nvariable b number\n"
        "exec :b := dbms_workload_repository.create_snapshot\n"
        "exec :e := dbms_workload_repository.create_snapshot\nprompt -- first part\n"
        "select :b from dual;\nPROMPT\nexecute :e := dbms_workload_repository.create_snapshot;\n"
        f"select output from table(dbms_workload_repository.awr_report_text({_dbid(tmp_path)}, 1, :b, :e));\n"
        "select :b, :e from dual;\n",
    )
    lines = out.splitlines()
    assert lines[0] == "-- first part" and lines[2] == ""  # PROMPT alone: a blank line
    first = int(lines[1])
    assert lines[-1].split() == [str(first), str(first + 2)]  # the second EXECUTE set :e again; :b kept its value
    assert "WORKLOAD REPOSITORY" in out and len(load_state(tmp_path)["awr_snaps"]) == 3


def test_parts_run_in_one_session_and_their_outputs_are_split_raw(tmp_path: Path) -> None:
    install_standins(tmp_path)
    log: list[CommandResult] = []
    ctx = context(tmp_path, log=log)
    db = SqlplusDatabase(ctx, DbConfig.from_vars(ctx.vars))
    snaps = (
        "variable b number\nvariable e number\nexec :b := dbms_workload_repository.create_snapshot\n"
        "begin\n  :e := dbms_workload_repository.create_snapshot;\nend;\n/\nselect :b, :e from dual;"
    )
    first, report = db.run_parts(
        (
            Part(snaps, "create_snapshot"),
            Part(
                f"select output from table(dbms_workload_repository.awr_report_text({_dbid(tmp_path)}, 1, :b, :e));",
                "AWR_REPORT_TEXT",
            ),
        )
    )
    assert len(log) == 1  # one sqlplus
    ((b, e),) = first.rows()
    whole = _sqlplus(
        tmp_path,
        "set heading off feedback off pagesize 0 linesize 32767 trimout on\n"
        f"select output from table(dbms_workload_repository.awr_report_text({_dbid(tmp_path)}, 1, {b}, {e}));\n",
    )
    assert report.text.splitlines()[:3] == whole.splitlines()[:3] and "\n   " in report.text  # raw, unstripped


def test_a_failing_part_is_named_and_a_part_that_may_fail_is_kept(tmp_path: Path) -> None:
    install_standins(tmp_path)
    ctx = context(tmp_path)
    db = SqlplusDatabase(ctx, DbConfig.from_vars(ctx.vars))
    with pytest.raises(OracleError, match=r"^the instance number: ORA-00942"):
        db.run_parts(
            (
                Part("select dbid from v$database;", "the DBID"),
                Part("select x from no_such_view;", "the instance number"),
                Part("select dbid from v$database;", "never run"),
            )
        )
    ok, failed, after = db.run_parts(
        (
            Part("select dbid from v$database;", "the DBID"),
            Part("select x from no_such_view;", "a view", may_fail=True),
            Part("select dbid from v$database;", "again", may_fail=True),
        )
    )
    assert ok.error is None and failed.error is not None and "ORA-00942" in str(failed.error)
    assert after.error is None and after.rows() == ok.rows()
