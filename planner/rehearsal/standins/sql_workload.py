"""Workload statements for the sqlplus stand-in (PLANNER STAND-IN, not Oracle): AWR and Statspack snapshots
and reports, DBMS_RESOURCE_MANAGER.CALIBRATE_IO, DBA_RSRC_IO_CALIBRATE and V$IOSTAT_FILE.

Loaded by planner/standins/bin/sqlplus, which runs with its own folder on sys.path (hence ``_standin``)
and puts the folder holding the planner package there too. Reports come from planner.rehearsal.standins.awrgen; the
database is idle between snapshots (nothing the stand-in runs goes through it), so the numbers show an
idle instance over the real time between the two snapshots.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from _standin import STATEMENTS, VIEWS, OraError, Session, literal, memory_value, split_top, state_path, version_tuple  # type: ignore[import-not-found]  # bin/, on sys.path for the stand-ins
from _standin_cdb import in_a_pdb, pdb_dbid  # type: ignore[import-not-found]

from planner.rehearsal.standins import awrgen
from planner.rehearsal.standins import awrgen_render as render

CommandHook = Callable[[Session, str], list[str]]
COMMAND_HOOKS: dict[str, CommandHook] = {}  # SQL*Plus commands by first word (sqlplus consults it)
DEFINES: dict[str, str] = {}


def statement(pattern: str) -> Callable[[Callable[[Session, re.Match[str]], list[str]]],
                                          Callable[[Session, re.Match[str]], list[str]]]:
    """Like _standin.statement, but ahead of the generic PL/SQL handlers (which would answer PLS-00201)."""

    def deco(fn: Callable[[Session, re.Match[str]], list[str]]) -> Callable[[Session, re.Match[str]], list[str]]:
        STATEMENTS.insert(0, (re.compile(pattern, re.I | re.S), fn))
        return fn

    return deco


def _state_dir() -> Path:
    return state_path().parent


def _snapshot(s: Session, m: re.Match[str], store: str) -> list[str]:
    s.need_open()
    snap = awrgen.next_snap_id(_state_dir())
    s.state.setdefault(store, {})[str(snap)] = datetime.now().isoformat(timespec="seconds")
    s.variables[m.group(1).lower()] = snap
    return s.done("PL/SQL procedure successfully completed.")


def _awr_store(s: Session) -> str:
    """Where CREATE_SNAPSHOT files this session's snapshot. The level follows the session's container: from 12.2 a
    PDB has its own AWR ("You can take an AWR snapshot at the CDB level or at the PDB level", Oracle Database
    Performance Tuning Guide 23ai, Managing AWR in a Multitenant Environment; the PDB's own data: AWR_PDB_* views,
    Reference 12.2), so a snapshot taken in a PDB is that PDB's, under its own DBID; 12.1 has CDB-level snapshots
    only, so there it is the CDB's whatever the session's container (UNVERIFIED: what 12.1 answers a call from a
    PDB; planner takes its 12.1 snapshots in CDB$ROOT). AWR_PDB_AUTOFLUSH_ENABLED governs the automatic ones only."""
    pdb = in_a_pdb(s)
    return f"awr_pdb_snaps:{pdb}" if pdb and version_tuple(s.state) >= (12, 2) else "awr_snaps"


@statement(r"begin\s+:(\w+)\s*:=\s*dbms_workload_repository\.create_snapshot\s*(?:\(\s*\))?\s*;\s*end\s*;?")
def _awr_snap(s: Session, m: re.Match[str]) -> list[str]:
    return _snapshot(s, m, _awr_store(s))


def _awr_store_of(s: Session, dbid: int) -> str:
    """The snapshots AWR_REPORT_TEXT reads for ``dbid``: the CDB's (V$DATABASE.DBID; from a PDB too, the AWR_ROOT
    data), or, in a PDB from 12.2, that PDB's own under its CON_DBID. Another DBID: ORA-20200, as for a DBID that
    is not in DBA_HIST_DATABASE_INSTANCE."""
    if dbid == int(s.state["database"]["dbid"]):
        return "awr_snaps"
    pdb = in_a_pdb(s)
    if pdb and version_tuple(s.state) >= (12, 2) and dbid == pdb_dbid(s.state, pdb):
        return f"awr_pdb_snaps:{pdb}"
    raise OraError(f"ORA-20200: Database/Instance {dbid}/1 does not exist in DBA_HIST_DATABASE_INSTANCE")


@statement(r"begin\s+:(\w+)\s*:=\s*statspack\.snap\s*(?:\(\s*\))?\s*;\s*end\s*;?")
def _sp_snap(s: Session, m: re.Match[str]) -> list[str]:
    return _snapshot(s, m, "sp_snaps")


def _report(s: Session, store: str, begin: int, end: int) -> tuple[awrgen.Figures, awrgen.HostInfo,
                                                                    awrgen.DbInfo, awrgen.Interval]:
    snaps = s.state.get(store, {})
    for snap in (begin, end):
        if str(snap) not in snaps:
            raise OraError(f"ORA-20200: Snapshot Id {snap} does not exist for this database/instance")
    if end <= begin:
        raise OraError(f"ORA-20200: End Snapshot Id {end} must be greater than Begin Snapshot Id {begin}")
    t0, t1 = (datetime.fromisoformat(snaps[str(x)]) for x in (begin, end))
    elapsed = max(1.0, (t1 - t0).total_seconds())
    # a workload stand-in that took these snapshots itself leaves its sessions at the end snapshot
    load = (s.state.get("awr_load") or {}).get(str(end)) or {}
    # "active" (sessions in the database on average, as an OLTP stand-in may say) before "sessions" (SLOB's, all
    # always active): a connected OLTP user that thinks or waits in its client is no DB time
    sessions = max(1, round(float(load["active"]))) if load.get("active") else int(load.get("sessions", 0))
    os.environ.update({k: str(v) for k, v in (load.get("host") or {}).items() if k.startswith("PLANNER_STANDIN_")})
    for k, v in (s.state.get("host_line") or {}).items():  # the inventory's host (rehearsal/sandbox.py)
        if k.startswith("PLANNER_STANDIN_"):
            os.environ.setdefault(k, str(v))
    host, db = awrgen.discover_host(), awrgen.load_db(_state_dir())
    if sessions:  # the workload's own snapshots carry its load
        w = awrgen.Workload(sessions=sessions, update_pct=40, run_time_s=elapsed,
                            scale_blocks=int(load.get("scale_blocks", 10000)))
    else:  # an OLTP stand-in's run inside the window (oltp_runs), or an idle database
        w = awrgen.Workload(sessions=_oltp_sessions(s.state, t0, t1), update_pct=OLTP_UPDATE_PCT, run_time_s=elapsed)
    fig = awrgen.simulate(w, host, db)
    return fig, host, db, awrgen.Interval(begin, end, t0, elapsed)


OLTP_UPDATE_PCT = 30  # the stand-in's guess at SOE's write share (toy model, not the tool's figure)


def _oltp_sessions(state: dict, t0: datetime, t1: datetime) -> int:
    """The sessions of a stand-in OLTP run inside the snapshots' window (its ``oltp_runs`` record): an
    AWR report around it shows the load, as one around SLOB's does; none, an idle database."""
    runs = [r for r in state.get("oltp_runs", []) if isinstance(r, dict)
            and t0 <= datetime.fromisoformat(str(r.get("start"))) and datetime.fromisoformat(str(r.get("end"))) <= t1]
    # "active": the sessions in the database on average, when the run says (charbench's stand-in): its users
    # also think and wait in the client, so counting every connected user as active made "more sessions than
    # CPUs" an artefact of the model
    return max((max(1, round(float(r["active"]))) if r.get("active") else int(r.get("sessions", 0)) for r in runs),
               default=0)


SNAP_ARG = r"(\d+|:\w+)"  # a snapshot id, or a bind variable holding one (VARIABLE + EXECUTE in the same session)


def snap_arg(s: Session, text: str) -> int:
    """A report's snapshot argument: a number, or the session's bind variable ("Bind variables are variables you
    create in SQL*Plus and then reference in PL/SQL or SQL", SQL*Plus User's Guide 9.0.1, Using Bind Variables:
    https://docs.oracle.com/cd/A91202_01/901_doc/server.901/a88827/ch35.htm); an unset one is NULL, which names
    no snapshot."""
    if not text.startswith(":"):
        return int(text)
    value = s.variables.get(text[1:].lower())
    if value is None:
        raise OraError("ORA-20200: Snapshot Id NULL does not exist for this database/instance")
    return int(value)


@statement(r"select\s+output\s+from\s+table\s*\(\s*dbms_workload_repository\.awr_report_text\s*\(\s*(\d+)\s*,"
           r"\s*(\d+)\s*,\s*" + SNAP_ARG + r"\s*,\s*" + SNAP_ARG + r"\s*(?:,\s*\d+\s*)?\)\s*\)")
def _awr_report_text(s: Session, m: re.Match[str]) -> list[str]:
    s.need_open()
    store = _awr_store_of(s, int(m.group(1)))
    fig, host, db, iv = _report(s, store, snap_arg(s, m.group(3)), snap_arg(s, m.group(4)))
    text = render.awr_text(fig, host, db, iv, 0)
    if store != "awr_snaps":  # a PDB's own snapshots give the PDB-level report (planner/parsers/awr_header.py)
        text = text.replace("WORKLOAD REPOSITORY report for", "WORKLOAD REPOSITORY PDB report for", 1)
    return text.splitlines()


def _define(s: Session, line: str) -> list[str]:
    m = re.fullmatch(r"def(?:ine)?\s+(\w+)\s*=\s*(.*)", line.strip(), re.I)
    if m:
        DEFINES[m.group(1).lower()] = m.group(2).strip().strip("'\"")
    return []


def _spreport(s: Session, line: str) -> list[str]:
    """@?/rdbms/admin/spreport with begin_snap, end_snap and report_name defined beforehand."""
    s.need_open()
    try:
        begin, end, name = int(DEFINES["begin_snap"]), int(DEFINES["end_snap"]), DEFINES["report_name"]
    except (KeyError, ValueError):
        raise OraError("SP2-0310: define begin_snap, end_snap and report_name before spreport") from None
    fig, host, db, iv = _report(s, "sp_snaps", begin, end)
    Path(name).write_text(render.statspack(fig, host, db, iv, 0))
    return [f"End of Report ( {name} )", ""]


COMMAND_HOOKS.update({"define": _define, "def": _define, "@?/rdbms/admin/spreport": _spreport,
                      "@?/rdbms/admin/spreport.sql": _spreport, "@spreport": _spreport})


def _async_on(state: dict[str, Any]) -> bool:
    if memory_value(state, "disk_asynch_io").upper() != "TRUE":
        return False
    on_asm = bool(state.get("diskgroups"))
    return on_asm or memory_value(state, "filesystemio_options").lower() in ("asynch", "setall")


def _v_iostat_file(state: dict[str, Any]) -> list[dict[str, Any]]:
    status = "ASYNC_ON" if _async_on(state) else "ASYNC_OFF"
    return [{"file_no": i, "filetype_name": "Data File", "asynch_io": status} for i in (1, 2, 3, 4)]


def _dba_rsrc_io_calibrate(state: dict[str, Any]) -> list[dict[str, Any]]:
    row = state.get("calibrate_io")
    return [dict(row)] if row else []


VIEWS.update({"v$iostat_file": _v_iostat_file, "dba_rsrc_io_calibrate": _dba_rsrc_io_calibrate})


@statement(r"begin\s+dbms_resource_manager\.calibrate_io\s*\((?P<args>.*)\)\s*;\s*end\s*;?")
def _calibrate_io(s: Session, m: re.Match[str]) -> list[str]:
    s.need_open()
    args = split_top(m["args"], ",")
    if len(args) != 5:
        raise OraError("PLS-00306: wrong number or types of arguments in call to 'CALIBRATE_IO'")
    try:
        disks, max_latency = int(literal(args[0])), int(literal(args[1]))
    except (TypeError, ValueError):
        raise OraError("ORA-06502: PL/SQL: numeric or value error") from None
    if memory_value(s.state, "timed_statistics").upper() != "TRUE":
        raise OraError("ORA-56705: I/O calibration prerequisite TIMED_STATISTICS is not set to TRUE")
    if not _async_on(s.state):
        raise OraError("ORA-56708: Could not find any datafiles with asynchronous i/o capability")
    if max_latency < 10:
        raise OraError("ORA-56704: Invalid I/O calibration parameter: MAX_LATENCY must be at least 10")
    start = datetime.now()
    time.sleep(30 * float(os.environ.get("PLANNER_STANDIN_TIME_SCALE", "0.01")))
    per_disk = float(os.environ.get("PLANNER_STANDIN_CALIBRATE_IOPS", "9000"))
    max_iops = round(per_disk * disks * (1 - math.exp(-max_latency / 6.0)))
    max_mbps = round(220 * disks * (1 - math.exp(-max_latency / 4.0)))
    latency = max(1, min(max_latency, round(2 + 0.4 * math.log1p(disks))))
    s.state["calibrate_io"] = {
        "start_time": start.strftime("%d-%b-%y %I.%M.%S.%f %p").upper(),
        "end_time": datetime.now().strftime("%d-%b-%y %I.%M.%S.%f %p").upper(),
        "max_iops": max_iops, "max_mbps": max_mbps, "max_pmbps": max(1, round(max_mbps * 0.9)),
        "latency": latency, "num_physical_disks": disks}
    for name, value in zip(args[2:], (max_iops, max_mbps, latency), strict=True):
        if name.startswith(":"):
            s.variables[name[1:].lower()] = value
    return s.done("PL/SQL procedure successfully completed.")

