"""Shared core of the Oracle stand-ins (sqlplus, srvctl, asmcmd): state in the sandbox and a tiny SQL engine.

NOT Oracle. These programs answer exactly the statements planner sends, in the formats real sqlplus prints,
so prep steps can be tested end to end on sandbox hosts. Standalone on purpose (python3 stdlib only): they
run on lab hosts that may not have planner installed. Extend by adding ``@statement(regex)`` handlers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _standin_memory import (  # noqa: F401  (re-exported: _standin_ddl, awrgen, sql_workload use them here)
    CACHE_PARAMS,
    PARAMETERS,
    SIZE,
    UNITS,
    buffer_pools,
    cache_value,
    granule_bytes,
    memory_value,
    segment_pool,
    to_bytes,
)

STATE_REL = "var/lib/planner-standin/db.json"


class OraError(Exception):
    """An error printed the way sqlplus prints it; ``lines`` are the ORA- lines."""

    def __init__(self, *lines: str) -> None:
        super().__init__(lines[0])
        self.lines = lines


def default_state() -> dict[str, Any]:
    disks = [{"path": f"/dev/mapper/lun{i:02d}", "header_status": "CANDIDATE", "group": None, "name": None,
              "os_mb": 102400} for i in range(1, 5)]
    disks.append({"path": "/dev/mapper/data01", "header_status": "MEMBER", "group": "DATA", "name": "DATA_0000",
                  "os_mb": 102400})
    return {
        "database": {"name": "ORCL", "unique_name": "orcl", "dbid": 1611251337, "status": "OPEN",
                     "flashback_on": "YES", "log_mode": "ARCHIVELOG", "registered": False,
                     "instance_name": "orcl", "host_name": "labhost", "version": "19.0.0.0.0",
                     # RAC (shared with the global-AWR stand-in): cluster_database, and the instances served as
                     # GV$INSTANCE, [{inst_id, instance_name, host_name}]; empty: instance_name alone
                     "cluster_database": False, "instances": []},
        "spfile": {},  # name -> value as written in ALTER SYSTEM (e.g. "64M", "SETALL")
        "memory": {},  # name -> v$parameter.value, only where it differs from the default
        # the ASM instance of this node (a RAC node runs +ASM1, +ASM2...: rac_state) and the OS users in its OSASM
        # group; None: the user who seeded the sandbox (the lab's SSH user) is the Grid owner
        "asm": {"sid": "+ASM", "osasm_users": None},
        "diskgroups": {"DATA": {"number": 1, "type": "EXTERN", "au_size": 4194304, "attributes": {}}},
        "disks": disks,
        "rebalance": {},  # group name -> polls of v$asm_operation left before the rebalance is done
        "restarts": 0,
        "history": [],  # every statement run, for tests
        # a lab database where SLOB's setup.sh has run (SLOB 2.5.x: cf1/cf2 KEEP) in tablespace IOPS on +DATA;
        # the stand-in kit's setup.sh re-creates them with its release's pool (_standin_profile.py)
        "tablespaces": {"IOPS": {"files": ["+DATA/ORCL/DATAFILE/iops.256.1"]}},
        "segments": {f"USER1.{t}": {"tablespace": "IOPS", "buffer_pool": pool, "segment_type": kind}
                     for t, pool, kind in (("CF1", "KEEP", "TABLE"), ("CF2", "KEEP", "TABLE"),
                                           ("I_CF1", "DEFAULT", "INDEX"))},
        # profile.py's failure modes: a startup that fails, parameters ALTER SYSTEM refuses
        "failures": {"instance_stays_down": False, "refused_parameters": []},
    }


def state_path() -> Path:
    """$PLANNER_STANDIN_STATE, else var/lib/planner-standin/db.json under the nearest parent of this program."""
    env = os.environ.get("PLANNER_STANDIN_STATE")
    if env:
        return Path(env)
    here = Path(os.path.abspath(sys.argv[0])).parent  # not resolved: the sandbox's bin/, not the package's
    for d in (here, *here.parents):
        if (d / STATE_REL).is_file():
            return d / STATE_REL
    raise SystemExit("planner stand-in: no state found (set PLANNER_STANDIN_STATE or run install_standins)")


@contextlib.contextmanager
def locked_state() -> Iterator[dict[str, Any]]:
    path = state_path()
    # Read-only, 0644: flock needs no write access, so a lock file a tool run as root made (an OLTP kit's
    # programs under become, which reach a real instance over the network) never locks out the oracle login's sqlplus.
    with os.fdopen(os.open(path.with_suffix(".lock"), os.O_RDONLY | os.O_CREAT, 0o644)) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = json.loads(path.read_text())
        yield state
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        os.replace(tmp, path)


def version_tuple(state: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(x) for x in str(state["database"].get("version", "19.0.0.0.0")).split(".")[:2] if x.isdigit())


def spfile_in_use(state: dict[str, Any]) -> bool:
    """``database.pfile``: this instance was started from a text pfile, not an spfile; knob
    ``database.no_spfile``: there is no spfile, so every plain startup reads the instance's init.ora
    (``pfile_params``), as SLOB's own create kit sets a database up. Seed both for a pfile instance. Then
    V$PARAMETER SPFILE is empty and ALTER SYSTEM ... SCOPE=SPFILE|BOTH fails ORA-32001 "write to SPFILE requested
    but no SPFILE is in use" (Oracle Database Error Messages, https://docs.oracle.com/en/error-help/db/ora-32001)."""
    return not state["database"].get("pfile")


def _startup_parameters(state: dict[str, Any], pfile: str | None) -> dict[str, str]:
    """What this startup reads: ``startup pfile='x'`` that text file; else the spfile, or the instance's own
    init.ora (``state["pfile_params"]``) on a pfile instance."""
    if pfile is not None:
        return read_pfile(pfile)
    return dict(state["spfile"] if spfile_in_use(state) else state.get("pfile_params", {}))


def read_pfile(path: str) -> dict[str, str]:
    """A text pfile as CREATE PFILE writes it: ``*.name=value`` lines (ORA-01078 + LRM-00109 when missing)."""
    try:
        text = host_file(path).read_text()
    except OSError:
        raise OraError("ORA-01078: failure in processing system parameters",
                       f"LRM-00109: could not open parameter file '{path}'") from None
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\*\.(\w+)=(.*)", line.strip())
        if m and m.group(1) in PARAMETERS:
            out[m.group(1)] = m.group(2).strip().strip("'")
    return out


def host_file(path: str) -> Path:
    """A host path as the sandbox maps it: the state lives at <root>/var/lib/planner-standin/db.json."""
    root = state_path().parents[3]
    return root / path.lstrip("/")


def _fits_in_memory(state: dict[str, Any]) -> None:
    """Knob ``database.max_sga`` (bytes): the memory the host can give the SGA. A bigger SGA_TARGET or
    SGA_MAX_SIZE fails startup as Oracle does: ORA-27102 "out of memory" (Oracle Database Error Messages,
    https://docs.oracle.com/en/error-help/db/ora-27102), the instance left down."""
    limit = state["database"].get("max_sga")
    if limit and max(int(memory_value(state, "sga_target")), int(memory_value(state, "sga_max_size"))) > limit:
        state["memory"] = {}
        raise OraError("ORA-27102: out of memory", "Linux-x86_64 Error: 28: No space left on device")


def startup(state: dict[str, Any], mount: bool = False, pfile: str | None = None) -> list[str]:
    """``startup`` (OPEN) or ``startup mount`` (MOUNTED: v$database answers, the data files are closed);
    ``startup pfile='x'`` starts from that text file (the instance then has no spfile in use)."""
    db = state["database"]
    if db["status"] != "SHUTDOWN":
        raise OraError("ORA-01081: cannot start already-running ORACLE - shut it down first")
    if (state.get("failures") or {}).get("instance_stays_down"):
        # an instance that does not come back: an SGA the host cannot give (ORA-27102 "out of memory", Oracle
        # Database Error Messages), as after a cache size too large for the host
        raise OraError("ORA-27102: out of memory", "Linux-x86_64 Error: 12: Cannot allocate memory")
    db["pfile"] = pfile is not None or bool(db.get("no_spfile"))
    params = _startup_parameters(state, pfile)
    state["memory"] = {}
    for name, value in params.items():
        ptype = PARAMETERS[name][0]
        state["memory"][name] = to_bytes(value) if ptype in (3, 6) else value
    _fits_in_memory(state)
    for name in CACHE_PARAMS:  # the caches come up rounded, as ALTER SYSTEM rounds them (cache_value)
        if name in state["memory"]:
            state["memory"][name] = str(cache_value(state, name, int(state["memory"][name])))
    db["status"] = "MOUNTED" if mount else "OPEN"
    return ["ORACLE instance started.", "", "Total System Global Area 4294963200 bytes",
            "Fixed Size                  8904704 bytes", "Variable Size             822083584 bytes",
            "Database Buffers         3456106496 bytes", "Redo Buffers                7868416 bytes",
            "Database mounted.", *([] if mount else ["Database opened."])]


def shutdown(state: dict[str, Any]) -> list[str]:
    db = state["database"]
    if db["status"] == "SHUTDOWN":
        raise OraError("ORA-01034: ORACLE not available", "ORA-27101: shared memory realm does not exist")
    db["status"] = "SHUTDOWN"
    state["restarts"] += 1
    return ["Database closed.", "Database dismounted.", "ORACLE instance shut down."]


# -- views -------------------------------------------------------------------------------------------------
Row = dict[str, Any]


def _v_parameter(state: dict[str, Any]) -> list[Row]:
    rows = [{"name": n, "type": t, "value": memory_value(state, n), "display_value": memory_value(state, n),
             "isdefault": "FALSE" if n in state["memory"] else "TRUE", "isses_modifiable": ses,
             "issys_modifiable": sys_} for n, (t, _d, ses, sys_) in PARAMETERS.items()
            if not n.startswith("_") or n in state["memory"]]  # hidden ones only when not default
    # SPFILE names the server parameter file in use, empty when the instance started from a pfile
    spfile = SPFILE_PATH.format(home=state.get("oracle_home", ""), sid=state["database"]["instance_name"])
    rows.append({"name": "spfile", "type": 2, "value": spfile if spfile_in_use(state) else None,
                 "display_value": None, "isdefault": "FALSE", "isses_modifiable": "FALSE",
                 "issys_modifiable": "FALSE"})
    return rows


SPFILE_PATH = "{home}/dbs/spfile{sid}.ora"


def _v_spparameter(state: dict[str, Any]) -> list[Row]:
    """"If a server parameter file was not used to start the instance, then each row of the view will contain
    FALSE in the ISSPECIFIED column" (Oracle Database Reference, V$SPPARAMETER)."""
    sp = state["spfile"] if spfile_in_use(state) else {}
    return [{"sid": "*", "name": n, "value": sp.get(n), "display_value": sp.get(n),
             "isspecified": "TRUE" if n in sp else "FALSE"} for n in PARAMETERS]


def _v_instance(state: dict[str, Any]) -> list[Row]:
    db = state["database"]
    return [{"instance_name": db["instance_name"], "instance_number": 1, "status": db["status"],
             "host_name": db["host_name"], "version": db["version"]}]  # a RAC seed's: _standin_rac.py


def _v_database(state: dict[str, Any]) -> list[Row]:
    db = state["database"]
    return [{"name": db["name"], "dbid": db["dbid"], "flashback_on": db["flashback_on"], "log_mode": db["log_mode"],
             "open_mode": "MOUNTED" if db["status"] == "MOUNTED" else "READ WRITE",
             "db_unique_name": db["unique_name"]}]


def _v_asm_diskgroup(state: dict[str, Any]) -> list[Row]:
    rows = []
    for name, g in state["diskgroups"].items():
        total = sum(d["os_mb"] for d in state["disks"] if d["group"] == name)
        rows.append({"group_number": g["number"], "name": name, "state": "MOUNTED", "type": g["type"],
                     "total_mb": total, "free_mb": total, "allocation_unit_size": g["au_size"]})
    return rows


def _disk_rows(state: dict[str, Any], seen: Callable[[dict[str, Any]], bool]) -> list[Row]:
    groups = state["diskgroups"]
    return [{"group_number": groups[d["group"]]["number"] if d["group"] else 0, "disk_number": i, "name": d["name"],
             "path": d["path"], "header_status": d["header_status"], "mode_status": "ONLINE",
             "state": "NORMAL", "os_mb": d["os_mb"]} for i, d in enumerate(state["disks"]) if seen(d)]


def _v_asm_disk(state: dict[str, Any]) -> list[Row]:
    """V$ASM_DISK discovers: every disk the disk string matches, new ones included (and remembered from then on)."""
    for d in state["disks"]:
        d["discovered"] = True
    state["asm_discoveries"] = int(state.get("asm_discoveries", 0)) + 1
    return _disk_rows(state, lambda _d: True)


def _v_asm_disk_stat(state: dict[str, Any]) -> list[Row]:
    """V$ASM_DISK_STAT "displays performance statistics in the same way that V$ASM_DISK does, but without
    performing discovery of new disks ... the output of this view does not include any data about disks that are
    new to the system" (Oracle Database Reference 11.2-19c, V$ASM_DISK_STAT:
    https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-ASM_DISK_STAT.html): members and disks an
    earlier V$ASM_DISK query discovered only. Each V$ASM_DISK query counts in ``asm_discoveries`` (a rescan of
    every disk, which tests count)."""
    return _disk_rows(state, lambda d: bool(d.get("discovered") or d["group"]))


def _v_asm_operation(state: dict[str, Any]) -> list[Row]:
    rows = []
    for name, left in list(state["rebalance"].items()):
        if left <= 0 or name not in state["diskgroups"]:
            state["rebalance"].pop(name)
            continue
        state["rebalance"][name] = left - 1  # the rebalance finishes after a few polls
        rows.append({"group_number": state["diskgroups"][name]["number"], "operation": "REBAL", "state": "RUN",
                     "power": 1, "est_minutes": left})
    return rows


def _v_buffer_pool(state: dict[str, Any]) -> list[Row]:
    """V$BUFFER_POOL lists the pools configured; CURRENT_SIZE is in megabytes (Oracle Database Reference,
    V$BUFFER_POOL: https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-BUFFER_POOL.html)."""
    block = int(memory_value(state, "db_block_size"))
    return [{"id": i, "name": name, "block_size": block, "current_size": size >> 20, "buffers": size // block}
            for i, (name, size) in enumerate(buffer_pools(state).items(), 1) if size]


def _v_sga_dynamic_components(state: dict[str, Any]) -> list[Row]:
    """V$SGA_DYNAMIC_COMPONENTS: CURRENT_SIZE and GRANULE_SIZE in bytes, one row per component (Oracle Database
    Reference: https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SGA_DYNAMIC_COMPONENTS.html)."""
    granule = granule_bytes(state)
    rows = [{"component": f"{name} buffer cache", "current_size": size, "min_size": size,
             "user_specified_size": int(memory_value(state, {"DEFAULT": "db_cache_size", "KEEP": "db_keep_cache_size",
                                                           "RECYCLE": "db_recycle_cache_size"}[name])),
             "granule_size": granule} for name, size in buffer_pools(state).items()]
    shared = max(granule, int(memory_value(state, "sga_target")) // 5 // granule * granule)
    rows.append({"component": "shared pool", "current_size": shared, "min_size": shared, "user_specified_size": 0,
                 "granule_size": granule})
    return rows


def _x_ksppi(state: dict[str, Any]) -> list[Row]:
    """X$KSPPI: every parameter, hidden ones too (KSPPINM name, KSPPITY type); SYSDBA only."""
    return [{"indx": i, "ksppinm": n, "ksppity": t} for i, (n, (t, *_r)) in enumerate(PARAMETERS.items())]


def _x_ksppcv(state: dict[str, Any]) -> list[Row]:
    """X$KSPPCV: each parameter's current value (KSPPSTVL) and whether it is the default (KSPPSTDF)."""
    return [{"indx": i, "ksppstvl": memory_value(state, n), "ksppstdf": "FALSE" if n in state["memory"] else "TRUE"}
            for i, n in enumerate(PARAMETERS)]


VIEWS: dict[str, Callable[[dict[str, Any]], list[Row]]] = {
    "x$ksppi": _x_ksppi, "x$ksppcv": _x_ksppcv,
    "v$parameter": _v_parameter, "v$spparameter": _v_spparameter, "v$instance": _v_instance,
    "v$database": _v_database, "v$asm_diskgroup": _v_asm_diskgroup, "v$asm_disk": _v_asm_disk,
    "v$asm_diskgroup_stat": _v_asm_diskgroup, "v$asm_disk_stat": _v_asm_disk_stat,
    "v$asm_operation": _v_asm_operation, "dual": lambda _s: [{"dummy": "X"}],
    "v$buffer_pool": _v_buffer_pool, "v$sga_dynamic_components": _v_sga_dynamic_components,
}
ASM_VIEWS = {"v$asm_diskgroup", "v$asm_disk", "v$asm_diskgroup_stat", "v$asm_disk_stat", "v$asm_operation",
             "v$instance", "dual"}
# views the ASM instance answers differently from the database (filled by _standin_rac.py)
ASM_OVERRIDES: dict[str, Callable[[dict[str, Any]], list[Row]]] = {}

# -- statements ---------------------------------------------------------------------------------------------
Handler = Callable[["Session", "re.Match[str]"], list[str]]
STATEMENTS: list[tuple[re.Pattern[str], Handler]] = []


def statement(pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for SQL matching ``pattern`` (case-insensitive, whole statement)."""

    def deco(fn: Handler) -> Handler:
        STATEMENTS.append((re.compile(pattern, re.I | re.S), fn))
        return fn

    return deco


LITERAL = re.compile(r"'((?:[^']|'')*)'|(-?[0-9]+(?:\.[0-9]+)?)\b|(NULL)\b", re.I)


def literal(text: str) -> Any:
    m = LITERAL.fullmatch(text.strip())
    if not m:
        raise OraError("ORA-00904: invalid identifier")
    if m.group(1) is not None:
        return m.group(1).replace("''", "'")
    return None if m.group(3) else m.group(2)


def split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` (a regex) outside quotes and parentheses."""
    out, depth, quote, start, i = [], 0, False, 0, 0
    pat = re.compile(sep, re.I)
    while i < len(text):
        c = text[i]
        if c == "'":
            quote = not quote
        elif not quote and c == "(":
            depth += 1
        elif not quote and c == ")":
            depth -= 1
        elif not quote and depth == 0 and (m := pat.match(text, i)):
            out.append(text[start:i])
            i = start = m.end()
            continue
        i += 1
    out.append(text[start:])
    return [p.strip() for p in out]


class Session:
    """One sqlplus session: settings, bind variables, the instance it is connected to."""

    def __init__(self, state: dict[str, Any], asm: bool, idle: bool = False) -> None:
        self.state = state
        self.asm = asm
        self.idle = idle  # "Connected to an idle instance": ORACLE_SID names no instance running here (connect_check)
        self.feedback = True
        self.colsep = " "
        self.variables: dict[str, Any] = {}
        self.nls: Any = None  # _standin_nls.Nls, set by sqlplus; None: AMERICAN_AMERICA

    def run(self, sql: str) -> list[str]:
        self.state["history"].append(sql)
        for pattern, handler in STATEMENTS:
            m = pattern.fullmatch(sql.strip())
            if m:
                return handler(self, m)
        raise OraError("ORA-00900: invalid SQL statement")

    def need_open(self) -> None:
        if self.idle:  # ORA-01034 + ORA-27101: _standin_rac.IDLE cites them
            raise OraError("ORA-01034: ORACLE not available", "ORA-27101: shared memory realm does not exist",
                           "Linux-x86_64 Error: 2: No such file or directory")
        if not self.asm and self.state["database"]["status"] == "SHUTDOWN":
            raise OraError("ORA-01034: ORACLE not available", "Process ID: 0", "Session ID: 0 Serial number: 0")

    def done(self, text: str) -> list[str]:
        return [text, ""] if self.feedback else []

    def value(self, expr: str, row: Row) -> Any:
        e = expr.strip()
        if e.startswith(":"):
            return self.variables.get(e[1:].lower())
        if e.lower() == "count(*)":
            raise AssertionError("handled by select")
        fn = re.fullmatch(r"sys_context\s*\(\s*'userenv'\s*,\s*'(\w+)'\s*\)", e, re.I)
        if fn:
            return USERENV[fn.group(1).upper()](self) if fn.group(1).upper() in USERENV else None
        key = e.lower().split(".")[-1]
        if key in row:
            return row[key]
        return literal(e)


# SYS_CONTEXT('USERENV', name) -> fn(session) (filled by _standin_cdb.py: CON_NAME)
USERENV: dict[str, Callable[[Session], Any]] = {}
# What a session sees of a view's rows where that depends on the session (its container: _standin_cdb.py).
SESSION_FILTERS: dict[str, Callable[[Session, list[Row]], list[Row]]] = {}


def matches(session: Session, where: str, row: Row) -> bool:
    for cond in split_top(where, r"\s+and\s+"):
        m = re.fullmatch(r"(\w+)\s+in\s*\((.*)\)", cond, re.I | re.S)
        if m:
            if str(row.get(m.group(1).lower())) not in [str(literal(v)) for v in split_top(m.group(2), ",")]:
                return False
            continue
        m = re.fullmatch(r"(\w+)\s*(=|<>|!=)\s*(.+)", cond, re.S)
        if not m or m.group(1).lower() not in row:
            raise OraError("ORA-00904: invalid identifier")
        equal = str(row[m.group(1).lower()]) == str(literal(m.group(3)))
        if equal != (m.group(2) == "="):
            return False
    return True


@statement(r"select\s+(?P<cols>.+?)\s+from\s+(?P<view>[\w$#]+)(?:\s+where\s+(?P<where>.+?))?"
           r"(?:\s+order\s+by\s+(?P<order>\w+))?")
def _select(s: Session, m: re.Match[str]) -> list[str]:
    view = m["view"].lower()
    if s.idle:  # an idle instance answers nothing, not even "no such view"
        s.need_open()
    if view not in VIEWS or (s.asm and view not in ASM_VIEWS):
        raise OraError("ORA-00942: table or view does not exist")
    if view != "dual" or s.idle:
        s.need_open()
    source = ASM_OVERRIDES.get(view, VIEWS[view]) if s.asm else VIEWS[view]
    seen = SESSION_FILTERS.get(view, lambda _s, rows: rows)(s, source(s.state))
    rows = [r for r in seen if not m["where"] or matches(s, m["where"], r)]
    if m["order"]:
        rows.sort(key=lambda r: str(r.get(m["order"].lower(), "")))
    cols = split_top(m["cols"], ",")
    if [c.lower() for c in cols] == ["count(*)"]:
        return [str(len(rows))]
    out = []
    for r in rows:
        vals = [s.value(c, r) for c in cols]
        out.append(s.colsep.join(_shown(s, c, v) for c, v in zip(cols, vals, strict=True)))
    return out


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _shown(s: Session, expr: str, v: Any) -> str:
    """A column's value as SQL*Plus prints it: a NUMBER (a numeric literal, a number in a view or a bind
    variable) with the session's decimal character (_standin_nls.py)."""
    if v is None:
        return ""
    numeric = (isinstance(v, (int, float)) and not isinstance(v, bool)) or bool(_NUMBER.fullmatch(expr.strip()))
    return s.nls.number(v) if numeric and s.nls is not None else str(v)


def render_lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
