"""Stand-in knowledge of where a session runs: CDB or PDB, and whether Resource Manager cages the CPU.

NOT Oracle. Knobs in db.json ``database`` (all optional; a seed is a non-CDB with Resource Manager off):
- ``cdb`` (bool, 12.1+ only), ``pdbs`` (names; default the inventory's ``oracle_pdb``, written as ``pdb`` by
  profile.apply_profile, else ["PDB1"]): V$DATABASE.CDB, ALTER SESSION SET CONTAINER,
  SYS_CONTEXT('USERENV','CON_NAME'), V$PARAMETER.ISPDB_MODIFIABLE.
- ``pdb_dbids`` ({PDB: DBID}; default a number from the name): SYS_CONTEXT('USERENV','CON_DBID') in that PDB.
- ``awr_pdb_autoflush_enabled`` (bool; default FALSE before 23ai, TRUE from it; 12.2+ only): V$PARAMETER.
- ``resource_manager_plan`` (the plan set, "" for none) and ``open_windows`` (scheduler windows open now; each
  opens DEFAULT_MAINTENANCE_PLAN): V$RSRC_PLAN, DBA_SCHEDULER_WINDOWS, RESOURCE_MANAGER_PLAN.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from _standin import SESSION_FILTERS, USERENV, VIEWS, OraError, Row, Session, statement, version_tuple
from _standin_listener import UNKNOWN_SERVICE
from _standin_memory import NOT_PDB_MODIFIABLE
from _standin_rac import instances

ROOT = "CDB$ROOT"
MAINTENANCE_PLAN = "DEFAULT_MAINTENANCE_PLAN"


def pdb_names(state: dict[str, Any]) -> list[str]:
    """The CDB's PDBs, upper case: ``pdbs``, else the inventory's ``oracle_pdb`` (a lab's PDB has the name its DBA
    gave it: SLOB's PDB is that one, not a fixed PDB1), else PDB1."""
    db = state["database"]
    names = db.get("pdbs") or ([db["pdb"]] if db.get("pdb") else ["PDB1"])
    return [str(p).upper() for p in names]


def _cdb(state: dict[str, Any]) -> bool:
    return bool(state["database"].get("cdb")) and version_tuple(state) >= (12, 1)


def container_of(s: Session) -> str:
    return str(getattr(s, "container", "") or (ROOT if _cdb(s.state) else s.state["database"]["name"]))


@statement(r"alter\s+session\s+set\s+container\s*=\s*(?P<name>[\w$#]+)")
def _set_container(s: Session, m: re.Match[str]) -> list[str]:
    """A common user (SYS) moves into a PDB with ALTER SESSION SET CONTAINER (12.1+; SQL Language Reference,
    ALTER SESSION); a name that is no container of this CDB: ORA-65011; a non-CDB: ORA-65090 "operation only
    allowed in a container database" (Oracle Database Error Messages)."""
    s.need_open()
    name = m["name"].upper()
    if not _cdb(s.state):
        raise OraError("ORA-65090: operation only allowed in a container database")
    if name != ROOT and name not in pdb_names(s.state):
        raise OraError(f"ORA-65011: Pluggable database {name} does not exist.")
    s.container = name  # type: ignore[attr-defined]
    return s.done("Session altered.")


def pdb_dbid(state: dict[str, Any], name: str) -> int:
    """A PDB's own DBID (V$PDBS.DBID, SYS_CONTEXT('USERENV','CON_DBID') in it): not the CDB's (Oracle Database
    Reference, DBA_HIST_PDB_IN_SNAP.CON_DBID "DBID of an open PDB")."""
    given = (state["database"].get("pdb_dbids") or {}).get(name.upper())
    return int(given) if given else 1_000_000_000 + zlib.crc32(name.upper().encode()) % 1_000_000_000


def in_a_pdb(s: Session) -> str:
    """The PDB this session is in, '' in CDB$ROOT or a non-CDB."""
    name = container_of(s)
    return name if _cdb(s.state) and name.upper() != ROOT else ""


def con_dbid(s: Session) -> int:
    pdb = in_a_pdb(s)
    return pdb_dbid(s.state, pdb) if pdb else int(s.state["database"]["dbid"])


USERENV["CON_NAME"] = container_of
USERENV["CON_DBID"] = con_dbid

_LOGON = re.compile(r"^(?P<user>[\w$#]+)/[^@\s]*(?:@(?P<service>[\w.$#-]+))?", re.I)
_COMMON = ("SYS", "SYSTEM")


def logon(s: Session, args: list[str]) -> None:
    """Where a sqlplus logon lands. A bequeath logon (``/ as sysdba``, ``user/pw`` with ORACLE_SID) of a CDB starts in
    CDB$ROOT; ``user/pw@SERVICE`` lands in the container that service belongs to, and a PDB's default service has
    the PDB's name (SQL Language Reference, CREATE PLUGGABLE DATABASE: the note on "the PDB's default service
    name"); a service the listener does not know: ORA-12514 (Oracle Database Error Messages). In CDB$ROOT only
    common users exist, so a PDB's local user (SLOB's user1...) fails ORA-01017 there (SLOB 2.4.2 README, SQL*Net
    Related Parameters)."""
    words = [a for a in args if not a.startswith("-")]
    m = _LOGON.match(words[0]) if words else None
    if m is None:
        return
    service = (m["service"] or "").upper()
    if service and _cdb(s.state):
        pdbs = pdb_names(s.state)
        roots = {str(s.state["database"].get(k) or "").upper() for k in ("name", "unique_name")}
        if service in pdbs:
            s.container = service  # type: ignore[attr-defined]
        elif service not in roots:
            raise OraError(f"ORA-12514: {UNKNOWN_SERVICE}")
    user = m["user"].upper()
    if _cdb(s.state) and not in_a_pdb(s) and user not in _COMMON and not user.startswith("C##"):
        raise OraError("ORA-01017: invalid username/password; logon denied")


@statement(r"create\s+user\s+(?P<name>[\w$#]+)\s+identified\s+by\s+\S+.*")
def _create_user(s: Session, m: re.Match[str]) -> list[str]:
    """In CDB$ROOT a user must be common, named C##...: CREATE USER user1 there fails ORA-65096 "invalid common user
    or role name" (Oracle Database Error Messages); in a PDB or a non-CDB it creates a local user."""
    s.need_open()
    if _cdb(s.state) and not in_a_pdb(s) and not m["name"].upper().startswith("C##"):
        raise OraError("ORA-65096: invalid common user or role name")
    return s.done("User created.")


def awr_pdb_autoflush(state: dict[str, Any]) -> str | None:
    """AWR_PDB_AUTOFLUSH_ENABLED (12.2+): automatic AWR snapshots in the PDBs; FALSE by default (Oracle Database
    Reference 12.2, AWR_PDB_AUTOFLUSH_ENABLED: https://docs.oracle.com/database/122/REFRN/AWR_PDB_AUTOFLUSH_ENABLED.htm),
    TRUE by default from 23ai (Reference 23ai). None before 12.2: the parameter does not exist."""
    if version_tuple(state) < (12, 2):
        return None
    given = state["database"].get("awr_pdb_autoflush_enabled")
    on = bool(given) if given is not None else version_tuple(state) >= (23,)
    return "TRUE" if on else "FALSE"


def _v_parameter(state: dict[str, Any]) -> list[Row]:
    """V$PARAMETER.ISPDB_MODIFIABLE (12.1+): whether the parameter can be set inside a PDB ("Modifiable in a
    PDB: No" for DB_KEEP_CACHE_SIZE, DB_RECYCLE_CACHE_SIZE, SGA_MAX_SIZE, PROCESSES ... in the Reference); the
    RESOURCE_MANAGER_PLAN a scheduler window set reads SCHEDULER[0x...]:<plan> (Reference, RESOURCE_MANAGER_PLAN)."""
    rows = _BASE_PARAMETER(state)
    if version_tuple(state) >= (12, 1):
        rows = [{**r, "ispdb_modifiable": "FALSE" if r["name"] in NOT_PDB_MODIFIABLE else "TRUE"} for r in rows]
    flush = awr_pdb_autoflush(state)
    if flush is not None:
        rows.append({"name": "awr_pdb_autoflush_enabled", "type": 1, "value": flush, "display_value": flush,
                     "isdefault": "TRUE" if state["database"].get("awr_pdb_autoflush_enabled") is None else "FALSE",
                     "isses_modifiable": "FALSE", "issys_modifiable": "IMMEDIATE", "ispdb_modifiable": "TRUE"})
    plan = _plan(state)
    rows = [r for r in rows if r["name"] != "resource_manager_plan"]
    value = (f"SCHEDULER[0x4D8B]:{plan}" if state["database"].get("open_windows") else plan) or None
    rows.append({"name": "resource_manager_plan", "type": 2, "value": value, "display_value": value,
                 "isdefault": "TRUE" if value is None else "FALSE", "isses_modifiable": "FALSE",
                 "issys_modifiable": "IMMEDIATE", "ispdb_modifiable": "TRUE"})
    return rows


def _plan(state: dict[str, Any]) -> str:
    db = state["database"]
    return str(db.get("resource_manager_plan") or (MAINTENANCE_PLAN if db.get("open_windows") else ""))


def _v_database(state: dict[str, Any]) -> list[Row]:
    rows = _BASE_DATABASE(state)
    if version_tuple(state) < (12, 1):
        return rows  # no CDB column before 12.1: ORA-00904
    return [{**r, "cdb": "YES" if _cdb(state) else "NO"} for r in rows]


def _v_rsrc_plan(state: dict[str, Any]) -> list[Row]:
    """V$RSRC_PLAN "displays the names of all currently active resource plans"; INSTANCE_CAGING is ON "if the
    CPU_COUNT initialization parameter is set to a value other than 0 and Resource Manager is enabled" (11.2.0.2+;
    Oracle Database Reference 11.2, V$RSRC_PLAN: https://docs.oracle.com/cd/E24693_01/server.11203/e24448/dynviews_2158.htm)."""
    plan = _plan(state)
    if not plan:
        return []
    caged = "ON" if "cpu_count" in state["memory"] or "cpu_count" in state["spfile"] else "OFF"
    row = {"id": 1, "name": plan, "is_top_plan": "TRUE", "cpu_managed": "ON"}
    if version_tuple(state) >= (11, 2):
        row["instance_caging"] = caged
    return [row]


def _dba_scheduler_windows(state: dict[str, Any]) -> list[Row]:
    open_now = set(state["database"].get("open_windows") or [])
    names = sorted(open_now | {"MONDAY_WINDOW", "SATURDAY_WINDOW"})
    return [{"window_name": n, "resource_plan": MAINTENANCE_PLAN, "active": "TRUE" if n in open_now else "FALSE",
             "enabled": "TRUE"} for n in names]


def _v_restore_point(state: dict[str, Any]) -> list[Row]:
    """V$RESTORE_POINT: NAME, GUARANTEE_FLASHBACK_DATABASE (knob ``restore_points`` [{name, guarantee}])."""
    return [{"name": r["name"], "guarantee_flashback_database": r.get("guarantee", "NO")}
            for r in state.get("restore_points", [])]


def _v_thread(state: dict[str, Any]) -> list[Row]:
    """V$THREAD: one enabled redo thread per instance, STATUS OPEN while that instance runs (Oracle Database
    Reference, V$THREAD). Knob: an instance's ``status`` in ``database.instances``."""
    return [{"thread#": i["inst_id"], "instance": i["instance_name"], "enabled": "PUBLIC",
             "status": "OPEN" if i["status"] != "SHUTDOWN" else "CLOSED"} for i in instances(state)]


_BASE_PARAMETER = VIEWS["v$parameter"]
_BASE_DATABASE = VIEWS["v$database"]
VIEWS.update({"v$parameter": _v_parameter, "v$database": _v_database, "v$rsrc_plan": _v_rsrc_plan,
              "dba_scheduler_windows": _dba_scheduler_windows, "v$restore_point": _v_restore_point,
              "v$thread": _v_thread})


def _common(owner: str) -> bool:
    """A common user's name: Oracle's own (SYS, SYSTEM) or C##... (SQL Language Reference, CREATE USER)."""
    return owner.upper() in _COMMON or owner.upper().startswith("C##")


def _local_hidden_in_root(s: Session, rows: list[Row]) -> list[Row]:
    """Each container has its own dictionary: in CDB$ROOT a DBA_ view shows the root's objects, not a PDB's local
    users (SLOB's USER1...) nor their segments; from the root CDB_* views (a CON_ID column) return the data of
    every open PDB (Oracle Database Administrator's Guide 12.2, "Viewing Information About CDBs and PDBs with
    SQL*Plus"; Oracle Database Reference 12.2, "CDB_* Views"). The stand-in keeps one set of segments: a local
    user's belong to the CDB's first PDB."""
    if not _cdb(s.state) or in_a_pdb(s):
        return rows
    return [r for r in rows if _common(str(r.get("owner", "")))]


def _con_ids(state: dict[str, Any]) -> dict[str, int]:
    """CON_ID: 1 CDB$ROOT, 2 PDB$SEED, 3... the PDBs (Oracle Database Reference, V$CONTAINERS)."""
    return {ROOT: 1, "PDB$SEED": 2, **{p: 3 + i for i, p in enumerate(pdb_names(state))}}


def _cdb_segments(state: dict[str, Any]) -> list[Row]:
    return [{**r, "con_id": 1 if _common(str(r["owner"])) else 3} for r in VIEWS["dba_segments"](state)]


def _v_containers(state: dict[str, Any]) -> list[Row]:
    """V$CONTAINERS: CON_ID, NAME of each container (12.1+; a non-CDB: one row, CON_ID 0)."""
    if not _cdb(state):
        return [{"con_id": 0, "name": state["database"]["name"], "dbid": state["database"]["dbid"]}]
    return [{"con_id": i, "name": n, "dbid": state["database"]["dbid"] if n == ROOT else pdb_dbid(state, n)}
            for n, i in _con_ids(state).items()]


for _view in ("dba_segments", "dba_tables"):
    SESSION_FILTERS[_view] = _local_hidden_in_root
VIEWS.update({"cdb_segments": _cdb_segments, "v$containers": _v_containers})
