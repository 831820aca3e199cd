"""The container a session runs in: a non-CDB, the root of a CDB, or a PDB - read, never assumed.

Why: from 12.1 a database may be a CDB, and from 21c it must be ("the non-CDB architecture is desupported",
Oracle Database 21c Upgrade Guide); SLOB then runs in a PDB. In a PDB some parameters cannot be set at all
(V$PARAMETER.ISPDB_MODIFIABLE = FALSE: DB_KEEP_CACHE_SIZE, DB_RECYCLE_CACHE_SIZE, SGA_MAX_SIZE, PROCESSES ...,
"Modifiable in a PDB: No" in the Oracle Database Reference) and DB_CACHE_SIZE is a minimum guaranteed to the
PDB, not its cache. V$DATABASE.CDB (12.1+; ORA-00904 before) says whether the database is a CDB;
SYS_CONTEXT('USERENV', 'CON_NAME') names the container of the session (SQL Language Reference, SYS_CONTEXT).
planner reaches a PDB as SYSDBA with the inventory's ``oracle_pdb`` (ALTER SESSION SET CONTAINER).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.db.access import Database
from planner.errors import OracleError, StepError

ROOT = "CDB$ROOT"


@dataclass(frozen=True, slots=True)
class Container:
    """``cdb``: V$DATABASE.CDB = YES; ``name``: the session's container (CDB$ROOT, a PDB, or the database)."""

    cdb: bool
    name: str
    before_12c: bool = False

    @property
    def pdb(self) -> bool:
        return self.cdb and self.name.upper() != ROOT

    def describe(self) -> str:
        if self.pdb:
            return f"PDB {self.name} of a CDB"
        if self.cdb:
            return "CDB$ROOT of a CDB"
        return f"non-CDB {self.name}" + (" (before 12.1: no containers)" if self.before_12c else "")

    def to_json(self) -> dict[str, object]:
        return {"cdb": self.cdb, "name": self.name, "pdb": self.pdb, "describe": self.describe()}


def read_container(db: Database) -> Container:
    try:
        rows = db.query("select cdb, name from v$database")
    except OracleError as e:
        if "ORA-00904" not in str(e):
            raise
        rows = db.query("select name from v$database")
        return Container(False, str(rows[0][0] if rows else ""), before_12c=True)
    cdb = bool(rows) and str(rows[0][0] or "").upper() == "YES"
    if not cdb:
        return Container(False, str(rows[0][1] if rows else ""))
    con = db.query("select sys_context('USERENV', 'CON_NAME') from dual")
    return Container(True, str(con[0][0] if con and con[0][0] else ROOT))


def refuse_outside_a_pdb(db: Database, container: Container, names: Sequence[str]) -> None:
    """In a PDB, parameters whose V$PARAMETER.ISPDB_MODIFIABLE is FALSE are refused before anything is set."""
    if not container.pdb or not names:
        return
    marks = ", ".join(f":n{i}" for i in range(len(names)))
    rows = db.query(f"select name, ispdb_modifiable from v$parameter where name in ({marks})",
                    {f"n{i}": n for i, n in enumerate(names)})
    fixed = sorted(str(n) for n, mod in rows if n and str(mod or "").upper() == "FALSE")
    if fixed:
        raise StepError(f"{', '.join(fixed)} cannot be set in {container.describe()} "
                        "(V$PARAMETER.ISPDB_MODIFIABLE=FALSE; ALTER SYSTEM there fails ORA-65040)",
                        hint="set it for the whole CDB: a step on a host entry without oracle_pdb (CDB$ROOT)")
