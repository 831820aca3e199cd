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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


_MAJOR = re.compile(r"(?:^|/)(\d{2})\.\d+")

NO_PDB = ("SLOB's users are local users of a PDB: in CDB$ROOT CREATE USER user1 fails ORA-65096 (\"invalid common "
          "user or role name\") and setup.sh stops, after its tablespace was made there")
NO_PDB_HINT = ("name the PDB SLOB loads into in the inventory: oracle_pdb: NAME (SELECT name FROM v$pdbs as SYSDBA) "
               "and slob_sqlnet_service: its SQL*Net service")


def stated_cdb(variables: Mapping[str, Any]) -> bool:
    """The inventory says the database is a CDB: ``oracle_cdb: true``, or a 21c+ release (``oracle_version``, else
    the release in ``oracle_home``), where "the non-CDB architecture is desupported" (21c Upgrade Guide)."""
    flag = variables.get("oracle_cdb")
    if flag is True or str(flag).strip().lower() in ("true", "yes", "1"):
        return True
    for key in ("oracle_version", "oracle_home"):
        m = _MAJOR.search(str(variables.get(key) or ""))
        if m:
            return int(m.group(1)) >= 21
    return False


def refuse_cdb_root(db: Database, what: str) -> None:
    """SLOB in a CDB needs its PDB named: in CDB$ROOT (no ``oracle_pdb``) ``what`` is refused before it changes
    anything."""
    container = read_container(db)
    if container.cdb and not container.pdb:
        raise StepError(f"{what}: the database is a CDB (V$DATABASE.CDB = YES) and oracle_pdb names no PDB, so this "
                        f"session is in CDB$ROOT; {NO_PDB}", hint=NO_PDB_HINT)


@dataclass(frozen=True, slots=True)
class AwrLevel:
    """Where planner's AWR snapshots are taken, and whose DBID reports them.

    ``pdb``: the PDB whose own AWR it is (its snapshots, AWR_PDB_* data, reported with its CON_DBID); '' for the
    CDB's (or a non-CDB's). ``why``: on a host whose sessions run in a PDB, why the snapshots are the CDB's."""

    pdb: str = ""
    dbid: int = 0
    why: str = ""
    autoflush: str = ""  # AWR_PDB_AUTOFLUSH_ENABLED as read in the PDB; '' where it does not exist (12.1)

    def describe(self) -> str:
        if self.pdb:
            return (f"AWR at PDB level: {self.pdb}'s own snapshots, reported with its DBID {self.dbid} "
                    "(AWR_PDB_AUTOFLUSH_ENABLED=TRUE there)")
        if self.why:
            return f"AWR taken at CDB level: covers every PDB ({self.why})"
        return ""

    def to_json(self) -> dict[str, object]:
        return {"level": "pdb" if self.pdb else "cdb", "pdb": self.pdb, "dbid": self.dbid,
                "describe": self.describe()}


def read_awr_level(db: Database, container: Container) -> AwrLevel:
    """In a PDB: its own AWR level (12.2+) when AWR_PDB_AUTOFLUSH_ENABLED is TRUE there, else the CDB's.

    Why: from 12.2 a PDB can keep its own AWR ("You can take an AWR snapshot at the CDB level or at the PDB
    level", Performance Tuning Guide, Managing AWR in a Multitenant Environment; AWR_PDB_* views, Reference 12.2),
    reported with the PDB's DBID (SYS_CONTEXT('USERENV', 'CON_DBID')); 12.1 has CDB-level AWR only, and the
    parameter does not exist there. AWR_PDB_AUTOFLUSH_ENABLED (default FALSE 12.2-21c, TRUE from 23ai) is the PDB
    administrator's switch for the PDB's own AWR, so planner takes PDB-level snapshots only where it is TRUE and
    otherwise takes the CDB's in CDB$ROOT, whose snapshots cover every PDB. The level is decided here, never left
    to whichever container the session happens to be in. ``dbid`` is 0 for the CDB level (the caller reads it in
    CDB$ROOT). Unreadable: StepError naming the reason."""
    if not container.pdb:
        return AwrLevel()
    try:
        rows = db.query("select value from v$parameter where name = 'awr_pdb_autoflush_enabled'")
        if not rows:
            return AwrLevel(why=f"{container.name}: no AWR_PDB_AUTOFLUSH_ENABLED, so before 12.2, where AWR is "
                                  "CDB-level only")
        value = str(rows[0][0] or "").upper() or "unset"
        if value != "TRUE":
            return AwrLevel(why=f"AWR_PDB_AUTOFLUSH_ENABLED={value} in {container.name}: "
                                "the PDB keeps no AWR of its own", autoflush=value)
        con = db.query("select sys_context('USERENV', 'CON_DBID') from dual")
    except OracleError as exc:
        raise StepError(f"cannot read the AWR level of {container.describe()}: {exc.message}", hint=exc.hint) from exc
    dbid = int(str(con[0][0] or 0)) if con and str(con[0][0] or "").isdigit() else 0
    if not dbid:
        raise StepError(f"cannot read the AWR level of {container.describe()}: SYS_CONTEXT('USERENV', 'CON_DBID') "
                        "gave no DBID", hint="check that the PDB is open")
    return AwrLevel(container.name, dbid, autoflush="TRUE")
