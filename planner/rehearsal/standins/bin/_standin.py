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

STATE_REL = "var/lib/planner-standin/db.json"
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
SIZE = re.compile(r"^([0-9]+)([KMGTP]?)$", re.I)

# name: (type, default, isses_modifiable, issys_modifiable); type as in v$parameter: 1 bool 2 str 3 int 6 big int
PARAMETERS: dict[str, tuple[int, str, str, str]] = {
    "cpu_count": (3, "16", "FALSE", "IMMEDIATE"),
    "db_cache_size": (6, "0", "FALSE", "IMMEDIATE"),
    "db_recycle_cache_size": (6, "0", "FALSE", "IMMEDIATE"),
    "db_keep_cache_size": (6, "0", "FALSE", "IMMEDIATE"),
    "sga_target": (6, "4294967296", "FALSE", "IMMEDIATE"),
    "sga_max_size": (6, "4294967296", "FALSE", "FALSE"),
    "pga_aggregate_target": (6, "1073741824", "FALSE", "IMMEDIATE"),
    "filesystemio_options": (2, "none", "FALSE", "FALSE"),
    "disk_asynch_io": (1, "TRUE", "FALSE", "FALSE"),
    "timed_statistics": (1, "TRUE", "TRUE", "IMMEDIATE"),
    "processes": (3, "300", "FALSE", "FALSE"),
    "db_block_size": (3, "8192", "FALSE", "FALSE"),
    "db_writer_processes": (3, "2", "FALSE", "FALSE"),
    "db_file_multiblock_read_count": (3, "128", "TRUE", "IMMEDIATE"),
    "use_large_pages": (2, "TRUE", "FALSE", "FALSE"),
    "parallel_max_servers": (3, "80", "FALSE", "IMMEDIATE"),
    "remote_login_passwordfile": (2, "EXCLUSIVE", "FALSE", "FALSE"),
    "compatible": (2, "19.0.0", "FALSE", "FALSE"),
    "db_name": (2, "orcl", "FALSE", "FALSE"),
    "memory_target": (6, "0", "FALSE", "IMMEDIATE"),
    "control_management_pack_access": (2, "DIAGNOSTIC+TUNING", "FALSE", "IMMEDIATE"),
}
CACHE_PARAMS = ("db_cache_size", "db_keep_cache_size", "db_recycle_cache_size")


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
                     "instance_name": "orcl", "host_name": "labhost", "version": "19.0.0.0.0"},
        "spfile": {},  # name -> value as written in ALTER SYSTEM (e.g. "64M", "SETALL")
        "memory": {},  # name -> v$parameter.value, only where it differs from the default
        "diskgroups": {"DATA": {"number": 1, "type": "EXTERN", "au_size": 4194304, "attributes": {}}},
        "disks": disks,
        "rebalance": {},  # group name -> polls of v$asm_operation left before the rebalance is done
        "restarts": 0,
        "history": [],  # every statement run, for tests
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
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = json.loads(path.read_text())
        yield state
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        os.replace(tmp, path)


def to_bytes(value: str) -> str:
    m = SIZE.match(value.strip())
    return str(int(m.group(1)) * UNITS[m.group(2).upper()]) if m else value


def memory_value(state: dict[str, Any], name: str) -> str:
    return state["memory"].get(name, PARAMETERS[name][1])


# -- buffer pools: how Oracle sizes them ------------------------------------------------------------------
def granule_bytes(state: dict[str, Any]) -> int:
    """The SGA granule by SGA size, as Oracle documents it (11.2+; 10g: 4 MB up to 1 GB, else 16 MB):
    <1G 4M, <=8G 16M, <=16G 32M, <=32G 64M, <=64G 128M, <=128G 256M, above 512M.
    Source: Oracle Database 18c Installation Guide for Solaris, "Granule Size for SGA Values"
    https://docs.oracle.com/cd/E96517_01/cwsol/configuring-additional-shared-memory-identifiers-limit.html"""
    sga = max(int(memory_value(state, "sga_max_size")), int(memory_value(state, "sga_target")))
    gib = 1 << 30
    if str(state["database"].get("version", "19")).split(".")[0] == "10":
        return 4 << 20 if sga <= gib else 16 << 20
    for limit, granule in ((1, 4), (8, 16), (16, 32), (32, 64), (64, 128), (128, 256)):
        if sga <= limit * gib:
            return granule << 20
    return 512 << 20


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def cache_value(state: dict[str, Any], name: str, nbytes: int) -> int:
    """What v$parameter shows after ``name`` is set to ``nbytes``: Oracle rounds the buffer caches up.
    DB_CACHE_SIZE: "The value must be at least 4M * number of cpus (smaller values are automatically rounded up
    to this value). A user-specified value larger than this is rounded up to the nearest granule size."
    (Oracle Database Reference 11.2-19c, DB_CACHE_SIZE:
    https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/DB_CACHE_SIZE.html);
    DB_KEEP_CACHE_SIZE / DB_RECYCLE_CACHE_SIZE are rounded up to the granule as well (same Reference)."""
    if nbytes <= 0:
        return 0
    granule = granule_bytes(state)
    if name == "db_cache_size":
        nbytes = max(nbytes, 4 * (1 << 20) * int(memory_value(state, "cpu_count")))
    return _round_up(nbytes, granule)


def buffer_pools(state: dict[str, Any]) -> dict[str, int]:
    """Current bytes of the DEFAULT, KEEP and RECYCLE pools (0: not configured).

    KEEP and RECYCLE are sized by hand only (automatic SGA management never tunes them); under SGA_TARGET or
    MEMORY_TARGET DB_CACHE_SIZE is a minimum: "If the parameter is specified, then the user-specified value
    indicates a minimum value for the memory pool" (DB_CACHE_SIZE, Oracle Database Reference 19c, above), and
    the instance gives DEFAULT what the other pools leave (modelled: 60 % of the target minus KEEP and
    RECYCLE). Without a target DEFAULT is DB_CACHE_SIZE, or "48 MB or 4 MB * number of CPUs" when unset."""
    keep = int(memory_value(state, "db_keep_cache_size"))
    recycle = int(memory_value(state, "db_recycle_cache_size"))
    floor = int(memory_value(state, "db_cache_size"))
    sga = int(memory_value(state, "sga_target")) or int(memory_value(state, "memory_target")) * 6 // 10
    granule = granule_bytes(state)
    if sga:
        auto = (sga * 6 // 10 - keep - recycle) // granule * granule
        default = max(floor, auto, cache_value(state, "db_cache_size", granule))
    else:
        default = floor or _round_up(max(48 << 20, 4 * (1 << 20) * int(memory_value(state, "cpu_count"))), granule)
    return {"DEFAULT": default, "KEEP": keep, "RECYCLE": recycle}


def segment_pool(state: dict[str, Any], pool: str) -> str:
    """The pool a segment created with STORAGE (BUFFER_POOL ``pool``) is cached in: "If you specify KEEP or
    RECYCLE and the respective pool is not configured, then Oracle caches the object in the DEFAULT pool"
    (Oracle SQL Language Reference, storage_clause, BUFFER_POOL:
    https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/storage_clause.html)."""
    return pool if buffer_pools(state).get(pool) else "DEFAULT"


def version_tuple(state: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(x) for x in str(state["database"].get("version", "19.0.0.0.0")).split(".")[:2] if x.isdigit())


def startup(state: dict[str, Any], mount: bool = False) -> list[str]:
    """``startup`` (OPEN) or ``startup mount`` (MOUNTED: v$database answers, the data files are closed)."""
    db = state["database"]
    if db["status"] != "SHUTDOWN":
        raise OraError("ORA-01081: cannot start already-running ORACLE - shut it down first")
    state["memory"] = {}
    for name, value in state["spfile"].items():
        ptype = PARAMETERS[name][0]
        state["memory"][name] = to_bytes(value) if ptype in (3, 6) else value
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
    return [{"name": n, "type": t, "value": memory_value(state, n), "display_value": memory_value(state, n),
             "isdefault": "FALSE" if n in state["memory"] else "TRUE", "isses_modifiable": ses,
             "issys_modifiable": sys_} for n, (t, _d, ses, sys_) in PARAMETERS.items()]


def _v_spparameter(state: dict[str, Any]) -> list[Row]:
    sp = state["spfile"]
    return [{"sid": "*", "name": n, "value": sp.get(n), "display_value": sp.get(n),
             "isspecified": "TRUE" if n in sp else "FALSE"} for n in PARAMETERS]


def _v_instance(state: dict[str, Any]) -> list[Row]:
    db = state["database"]
    return [{"instance_name": db["instance_name"], "instance_number": 1, "status": db["status"],
             "host_name": db["host_name"], "version": db["version"]}]


def _v_database(state: dict[str, Any]) -> list[Row]:
    db = state["database"]
    return [{"name": db["name"], "dbid": db["dbid"], "flashback_on": db["flashback_on"], "log_mode": db["log_mode"],
             "open_mode": "MOUNTED" if db["status"] == "MOUNTED" else "READ WRITE", "db_unique_name": db["unique_name"]}]


def _v_asm_diskgroup(state: dict[str, Any]) -> list[Row]:
    rows = []
    for name, g in state["diskgroups"].items():
        total = sum(d["os_mb"] for d in state["disks"] if d["group"] == name)
        rows.append({"group_number": g["number"], "name": name, "state": "MOUNTED", "type": g["type"],
                     "total_mb": total, "free_mb": total, "allocation_unit_size": g["au_size"]})
    return rows


def _v_asm_disk(state: dict[str, Any]) -> list[Row]:
    groups = state["diskgroups"]
    return [{"group_number": groups[d["group"]]["number"] if d["group"] else 0, "disk_number": i, "name": d["name"],
             "path": d["path"], "header_status": d["header_status"], "mode_status": "ONLINE",
             "state": "NORMAL", "os_mb": d["os_mb"]} for i, d in enumerate(state["disks"])]


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


VIEWS: dict[str, Callable[[dict[str, Any]], list[Row]]] = {
    "v$parameter": _v_parameter, "v$spparameter": _v_spparameter, "v$instance": _v_instance,
    "v$database": _v_database, "v$asm_diskgroup": _v_asm_diskgroup, "v$asm_disk": _v_asm_disk,
    "v$asm_operation": _v_asm_operation, "dual": lambda _s: [{"dummy": "X"}],
    "v$buffer_pool": _v_buffer_pool, "v$sga_dynamic_components": _v_sga_dynamic_components,
}
ASM_VIEWS = {"v$asm_diskgroup", "v$asm_disk", "v$asm_operation", "v$instance", "dual"}

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

    def __init__(self, state: dict[str, Any], asm: bool) -> None:
        self.state = state
        self.asm = asm
        self.feedback = True
        self.colsep = " "
        self.variables: dict[str, Any] = {}

    def run(self, sql: str) -> list[str]:
        self.state["history"].append(sql)
        for pattern, handler in STATEMENTS:
            m = pattern.fullmatch(sql.strip())
            if m:
                return handler(self, m)
        raise OraError("ORA-00900: invalid SQL statement")

    def need_open(self) -> None:
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
        key = e.lower().split(".")[-1]
        if key in row:
            return row[key]
        return literal(e)


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
    if view not in VIEWS or (s.asm and view not in ASM_VIEWS):
        raise OraError("ORA-00942: table or view does not exist")
    if view != "dual":
        s.need_open()
    rows = [r for r in VIEWS[view](s.state) if not m["where"] or matches(s, m["where"], r)]
    if m["order"]:
        rows.sort(key=lambda r: str(r.get(m["order"].lower(), "")))
    cols = split_top(m["cols"], ",")
    if [c.lower() for c in cols] == ["count(*)"]:
        return [str(len(rows))]
    out = []
    for r in rows:
        vals = [s.value(c, r) for c in cols]
        out.append(s.colsep.join("" if v is None else str(v) for v in vals))
    return out


def render_lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
