"""Stand-in handlers for the statements that change things: ALTER SYSTEM, ALTER DATABASE, disk groups.

NOT Oracle: each handler checks what the real server checks for planner's statements and answers with the
real ORA- codes and messages.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from _standin import (
    CACHE_PARAMS,
    PARAMETERS,
    SIZE,
    OraError,
    Session,
    cache_value,
    host_file,
    literal,
    read_pfile,
    spfile_in_use,
    split_top,
    statement,
    to_bytes,
    version_tuple,
)
from _standin_memory import NOT_PDB_MODIFIABLE
from _standin_profile import refusal  # also registers the profile's views and CREATE TABLESPACE / TABLE
from _standin_rac import mounted_on

BOOLS = {"TRUE", "FALSE"}


def _parse_value(name: str, raw: str) -> tuple[str, str]:
    """(spfile text, memory text) of a value as ALTER SYSTEM would take it, or the ORA- error it gives."""
    ptype = PARAMETERS[name][0]
    raw = raw.strip()
    if raw.startswith("'"):
        text = literal(raw)
        if ptype in (3, 6):
            raise OraError("ORA-02017: integer value required")
        if ptype == 1:
            raise OraError(f"ORA-00096: invalid value {text} for parameter {name}, must be from among TRUE, FALSE")
        return text, text
    if ptype in (3, 6):
        if not SIZE.match(raw):
            raise OraError("ORA-02017: integer value required")
        return raw.upper(), to_bytes(raw)
    if ptype == 1:
        if raw.upper() not in BOOLS:
            raise OraError(f"ORA-00096: invalid value {raw} for parameter {name}, must be from among TRUE, FALSE")
        return raw.upper(), raw.upper()
    if not re.fullmatch(r"[A-Za-z0-9_]+", raw):
        raise OraError("ORA-00922: missing or invalid option")
    return raw, raw


def _name(s: Session, raw: str) -> str:
    """A parameter name as ALTER SYSTEM takes it: one beginning with "_" must be double-quoted, else ORA-00911
    "invalid character" (SQL Language Reference, "Database Object Names and Qualifiers": nonquoted identifiers
    begin with a letter)."""
    quoted = raw.startswith('"') and raw.endswith('"')
    name = raw.strip('"').lower()
    if name.startswith("_") and not quoted:
        raise OraError("ORA-00911: invalid character")
    return name


@statement(r"alter\s+system\s+set\s+(?P<name>\"?[A-Za-z_][\w$#]*\"?)\s*=\s*(?P<value>'(?:[^']|'')*'|[^\s']+)"
           r"(?:\s+scope\s*=\s*(?P<scope>spfile|memory|both))?(?:\s+sid\s*=\s*'(?P<sid>[^']*)')?")
def _alter_system_set(s: Session, m: re.Match[str]) -> list[str]:
    s.need_open()
    name = _name(s, m["name"])
    if name not in PARAMETERS:
        raise OraError("ORA-02065: illegal option for ALTER SYSTEM")
    # the default scope is BOTH with an spfile in use, MEMORY without (ALTER SYSTEM, SQL Language Reference)
    scope = (m["scope"] or ("both" if spfile_in_use(s.state) else "memory")).lower()
    _spfile_needed(s, scope)
    if scope != "spfile" and PARAMETERS[name][3] == "FALSE":
        raise OraError("ORA-02095: specified initialization parameter cannot be modified")
    if getattr(s, "container", "CDB$ROOT") != "CDB$ROOT" and name in NOT_PDB_MODIFIABLE:
        raise OraError("ORA-65040: operation not allowed from within a pluggable database")
    sp, mem = _parse_value(name, m["value"])
    refusal(s.state, name)  # a parameter the host refuses (profile.py)
    if scope in ("spfile", "both"):
        s.state["spfile"][name] = sp
    if scope in ("memory", "both"):
        if name in CACHE_PARAMS:  # rounded up as Oracle does (_standin.cache_value cites the Reference)
            mem = str(cache_value(s.state, name, int(mem)))
        s.state["memory"][name] = mem
    return s.done("System altered.")


@statement(r"alter\s+system\s+reset\s+(?P<name>\"?[A-Za-z_][\w$#]*\"?)(?:\s+scope\s*=\s*(?P<scope>spfile|memory|both))?"
           r"(?:\s+sid\s*=\s*'(?P<sid>[^']*)')?")
def _alter_system_reset(s: Session, m: re.Match[str]) -> list[str]:
    s.need_open()
    name = _name(s, m["name"])
    if name not in PARAMETERS:
        raise OraError("ORA-02065: illegal option for ALTER SYSTEM")
    _spfile_needed(s, (m["scope"] or "both").lower())
    if name not in s.state["spfile"]:
        raise OraError("ORA-32010: cannot find entry to delete in SPFILE")
    del s.state["spfile"][name]
    return s.done("System altered.")


def _spfile_needed(s: Session, scope: str) -> None:
    if scope in ("spfile", "both") and not spfile_in_use(s.state):  # _standin.spfile_in_use cites it
        raise OraError("ORA-32001: write to SPFILE requested but no SPFILE is in use")


@statement(r"create\s+pfile\s*=\s*'(?P<path>[^']+)'\s+from\s+spfile")
def _create_pfile(s: Session, m: re.Match[str]) -> list[str]:
    """CREATE PFILE 'x' FROM SPFILE writes the spfile's settings as text, ``*.name=value`` a line (SQL Language
    Reference, CREATE PFILE); without an spfile: ORA-01565 (the default spfile cannot be identified)."""
    if s.state["database"].get("no_spfile"):
        raise OraError("ORA-01565: error in identifying file '?/dbs/spfile@.ora'",
                       "ORA-27037: unable to obtain file status")
    target = host_file(m["path"])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"*.{n}={v}\n" for n, v in sorted(s.state["spfile"].items())))
    return s.done("File created.")


@statement(r"create\s+spfile(?:\s*=\s*'(?P<spfile>[^']+)')?\s+from\s+pfile\s*=\s*'(?P<path>[^']+)'")
def _create_spfile(s: Session, m: re.Match[str]) -> list[str]:
    """CREATE SPFILE FROM PFILE='x' replaces the spfile with the text file's settings; the spfile the running
    instance started from cannot be overwritten: ORA-32002 "cannot create SPFILE already being used by the
    instance" (Oracle Database Error Messages, https://docs.oracle.com/en/error-help/db/ora-32002)."""
    if spfile_in_use(s.state) and s.state["database"]["status"] != "SHUTDOWN":
        raise OraError("ORA-32002: cannot create SPFILE already being used by the instance")
    s.state["spfile"] = read_pfile(m["path"])
    s.state["database"]["no_spfile"] = False
    return s.done("File created.")


@statement(r"alter\s+database\s+flashback\s+(?P<on>on|off)")
def _flashback(s: Session, m: re.Match[str]) -> list[str]:
    """Before 11.2 the database must be MOUNTed, not open: "Prior to Oracle Database 11g Release 2 (11.2), you
    must mount the database, not open it" (Oracle Backup and Recovery User's Guide 11.2, "Enabling Flashback
    Database", https://docs.oracle.com/cd/E11882_01/backup.112/e10642/flashdb.htm), else ORA-38759. 11.2+ takes
    it OPEN. FLASHBACK OFF deletes all flashback logs (same guide, "Disabling Flashback Database Logging")."""
    s.need_open()
    db = s.state["database"]
    if db["status"] == "OPEN" and version_tuple(s.state) < (11, 2):
        raise OraError("ORA-38759: Database must be mounted by only one instance and not open.")
    if m["on"].lower() == "on" and db["log_mode"] != "ARCHIVELOG":
        raise OraError("ORA-38706: Cannot turn on FLASHBACK DATABASE logging.",
                       "ORA-38707: Media recovery is not enabled.")
    db["flashback_on"] = "YES" if m["on"].lower() == "on" else "NO"
    if db["flashback_on"] == "NO" and any(r.get("guarantee") == "YES" for r in s.state.get("restore_points", [])):
        # a guaranteed restore point keeps flashback logging for it: V$DATABASE.FLASHBACK_ON "RESTORE POINT ONLY"
        # (Oracle Database Reference, V$DATABASE)
        db["flashback_on"] = "RESTORE POINT ONLY"
    if db["flashback_on"] == "NO":
        db["flashback_logs"] = 0  # the window is gone: turning it back ON starts a new, empty one
    return s.done("Database altered.")


@statement(r"alter\s+database\s+open")
def _open(s: Session, m: re.Match[str]) -> list[str]:
    db = s.state["database"]
    if db["status"] != "MOUNTED":
        raise OraError("ORA-01531: a database already open by the instance")
    db["status"] = "OPEN"
    return s.done("Database altered.")


# -- ASM ----------------------------------------------------------------------------------------------------
def _need_asm(s: Session) -> None:
    if not s.asm:
        raise OraError("ORA-15000: command disallowed by current instance type")


def _disks_for(s: Session, specs: str, group: str, verb: str) -> list[dict[str, Any]]:
    found = []
    for spec in split_top(specs, ","):
        pattern = literal(spec)
        hits = [d for d in s.state["disks"] if fnmatch.fnmatchcase(d["path"], pattern)]
        if not hits:
            raise OraError(verb, f"ORA-15031: disk specification '{pattern}' matches no disks")
        for d in hits:
            if d["header_status"] == "MEMBER":
                raise OraError(verb, f"ORA-15033: disk '{d['path']}' belongs to diskgroup \"{d['group']}\"")
        found += hits
    return found


def _join(s: Session, group: str, disks: list[dict[str, Any]]) -> None:
    taken = {d["name"] for d in s.state["disks"] if d["name"]}
    n = 0
    for d in disks:
        while f"{group}_{n:04d}" in taken:
            n += 1
        d.update(group=group, name=f"{group}_{n:04d}", header_status="MEMBER")
        taken.add(d["name"])


@statement(r"create\s+diskgroup\s+(?P<name>\w+)(?:\s+(?P<red>external|normal|high)\s+redundancy)?"
           r"\s+disk\s+(?P<disks>'.*?'(?:\s*,\s*'.*?')*)(?:\s+attribute\s+(?P<attrs>.+))?")
def _create_dg(s: Session, m: re.Match[str]) -> list[str]:
    _need_asm(s)
    name = m["name"].upper()
    if name in s.state["diskgroups"]:
        raise OraError("ORA-15018: diskgroup cannot be created", f"ORA-15030: diskgroup name \"{name}\" is in use "
                       "by another diskgroup")
    disks = _disks_for(s, m["disks"], name, "ORA-15018: diskgroup cannot be created")
    attrs: dict[str, str] = {}
    for pair in split_top(m["attrs"] or "", ","):
        if pair:
            k, _, v = pair.partition("=")
            attrs[str(literal(k))] = str(literal(v))
    au = to_bytes(attrs.pop("au_size", "4M"))
    kind = {"external": "EXTERN", "normal": "NORMAL", "high": "HIGH"}[(m["red"] or "normal").lower()]
    number = max((g["number"] for g in s.state["diskgroups"].values()), default=0) + 1
    # CREATE DISKGROUP mounts it on this node's ASM instance only; the other nodes need srvctl start diskgroup
    s.state["diskgroups"][name] = {"number": number, "type": kind, "au_size": int(au), "attributes": attrs,
                                   "mounted_on": [s.state["database"]["host_name"]]}
    _join(s, name, disks)
    return s.done("Diskgroup created.")


@statement(r"alter\s+diskgroup\s+(?P<name>\w+)\s+add\s+disk\s+(?P<disks>'.*?'(?:\s*,\s*'.*?')*)"
           r"(?:\s+rebalance\s+power\s+(?P<power>\d+))?")
def _add_disks(s: Session, m: re.Match[str]) -> list[str]:
    _need_asm(s)
    name = m["name"].upper()
    if name not in s.state["diskgroups"]:
        raise OraError("ORA-15032: not all alterations performed", f"ORA-15001: diskgroup \"{name}\" does not "
                       "exist or is not mounted")
    _join(s, name, _disks_for(s, m["disks"], name, "ORA-15032: not all alterations performed"))
    if m["power"] != "0":
        s.state["rebalance"][name] = 2
    return s.done("Diskgroup altered.")


@statement(r"alter\s+diskgroup\s+(?P<name>\w+)\s+drop\s+disk\s+(?P<disks>\w+(?:\s*,\s*\w+)*)"
           r"(?:\s+rebalance\s+power\s+(?P<power>\d+))?")
def _drop_disks(s: Session, m: re.Match[str]) -> list[str]:
    _need_asm(s)
    name = m["name"].upper()
    for disk_name in split_top(m["disks"], ","):
        hit = [d for d in s.state["disks"] if d["name"] == disk_name.upper() and d["group"] == name]
        if not hit:
            raise OraError("ORA-15032: not all alterations performed",
                           f"ORA-15054: disk \"{disk_name.upper()}\" does not exist in diskgroup \"{name}\"")
        hit[0].update(group=None, name=None, header_status="FORMER")
    if m["power"] != "0":
        s.state["rebalance"][name] = 2
    return s.done("Diskgroup altered.")


@statement(r"drop\s+diskgroup\s+(?P<name>\w+)(?:\s+(?P<inc>including|excluding)\s+contents)?")
def _drop_dg(s: Session, m: re.Match[str]) -> list[str]:
    _need_asm(s)
    name = m["name"].upper()
    if name not in s.state["diskgroups"]:
        raise OraError(f"ORA-15001: diskgroup \"{name}\" does not exist or is not mounted")
    others = [n for n in mounted_on(s.state, name) if n != s.state["database"]["host_name"]]
    if others:  # ORA-15073: the drop needs the group dismounted everywhere else first
        raise OraError("ORA-15039: diskgroup not dropped",
                       f"ORA-15073: diskgroup {name} is mounted by another ASM instance")
    for d in s.state["disks"]:
        if d["group"] == name:
            d.update(group=None, name=None, header_status="FORMER")
    del s.state["diskgroups"][name]
    s.state["rebalance"].pop(name, None)
    return s.done("Diskgroup dropped.")


@statement(r"begin\s+(?P<call>.+?);\s*end;")
def _plsql(s: Session, m: re.Match[str]) -> list[str]:
    """Anonymous PL/SQL blocks call a registered procedure: PLSQL[name](session, args) sets OUT variables."""
    call = re.fullmatch(r"(?P<name>[\w$#.]+)\s*(?:\((?P<args>.*)\))?", m["call"].strip(), re.S)
    proc = PLSQL.get(call["name"].lower()) if call else None
    if proc is None:
        raise OraError("ORA-06550: line 1, column 7:", "PLS-00201: identifier must be declared",
                       "ORA-06550: line 1, column 7:", "PL/SQL: Statement ignored")
    s.need_open()
    proc(s, split_top(call["args"] or "", ",") if call["args"] else [])
    return s.done("PL/SQL procedure successfully completed.")


PLSQL: dict[str, Any] = {}  # "dbms_x.proc" -> fn(session, [arg texts]); ":name" args are bind variables
