"""The parameter file an instance runs from, the backup planner takes before it writes one, and the way back.

Why (read, don't assume there is an spfile):
- V$PARAMETER SPFILE names the server parameter file in use and is empty when the instance was started from a
  text pfile; then ALTER SYSTEM ... SCOPE=SPFILE or BOTH fails ORA-32001 "write to SPFILE requested but no SPFILE
  is in use" (Oracle Database Error Messages, https://docs.oracle.com/en/error-help/db/ora-32001). SLOB's own
  create-database kit starts from a pfile.
- Before its first spfile write planner runs CREATE PFILE='<oracle_home>/dbs/planner_init<SID>_<run>.ora' FROM
  SPFILE (SQL Language Reference, CREATE PFILE), once per run: the first backup is the database as it was.
- When a restart fails with an error of memory sizing - ORA-00821 (SGA_TARGET too small), ORA-04031 (unable to
  allocate shared memory), ORA-27102 (out of memory) - the instance is down with an spfile it cannot start
  from. planner starts it from the backup (STARTUP PFILE=), writes the spfile back from it (CREATE SPFILE='<the
  spfile>' FROM PFILE=; allowed because that spfile is then not in use, ORA-32002 otherwise), and restarts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.db.access import Database, DbConfig, SqlplusDatabase, StepContext, sql_literal
from planner.errors import OracleError

START_FAILURES = ("ORA-00821", "ORA-04031", "ORA-27102")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True, slots=True)
class ParameterFile:
    """``spfile``: the server parameter file the instance runs from; "" when it started from a pfile."""

    spfile: str

    @property
    def pfile(self) -> bool:
        return not self.spfile

    def describe(self) -> str:
        return f"spfile {self.spfile}" if self.spfile else "a text pfile (V$PARAMETER SPFILE is empty)"


def read_parameter_file(db: Database) -> ParameterFile:
    rows = db.query("select value from v$parameter where name = 'spfile'")
    return ParameterFile(str(rows[0][0] or "").strip() if rows else "")


def backup_path(cfg: DbConfig, run_id: str) -> str:
    """Beside the instance's own parameter files, named by SID and run so a second play keeps the first."""
    return f"{cfg.oracle_home}/dbs/planner_init{_UNSAFE.sub('_', cfg.oracle_sid)}_{_UNSAFE.sub('_', run_id)}.ora"


def take_backup(ctx: StepContext, db: Database, path: str) -> bool:
    """CREATE PFILE FROM SPFILE unless this run's backup exists already; True when it was written now."""
    if ctx.run(["test", "-e", ctx.path(path)], check=False).ok:
        return False
    db.execute(f"create pfile={sql_literal(path)} from spfile")
    return True


def start_failure(err: OracleError) -> str | None:
    """The memory-sizing error a failed startup printed, if it is one planner can come back from."""
    return next((code for code in START_FAILURES if code in str(err)), None)


def start_from_backup(ctx: StepContext, cfg: DbConfig, backup: str, spfile: str) -> None:
    """The instance is down: start it from the backup pfile, write the spfile back from it, and shut down again,
    so the caller starts it the usual way (srvctl for every instance, or sqlplus) on the spfile put back."""
    target = f"={sql_literal(spfile)}" if spfile else ""
    SqlplusDatabase(ctx, cfg).run_script(
        f"startup pfile={sql_literal(backup)}\ncreate spfile{target} from pfile={sql_literal(backup)};\n"
        "shutdown immediate", "start from the backup pfile", timeout=cfg.open_timeout_s)
