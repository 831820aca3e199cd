"""Stand-in views and statements for what varies between hosts (planner/rehearsal/standins/profile.py).

NOT Oracle. Registers on import (sqlplus imports it): where SLOB's data lives (DBA_SEGMENTS, DBA_DATA_FILES,
CREATE TABLESPACE, the kit's CREATE TABLE) and the failure modes (an instance that does not come back, a
parameter refused). State: ``tablespaces`` {NAME: {files: [...]}}, ``segments`` {"OWNER.NAME":
{tablespace, buffer_pool, segment_type}}, ``failures`` {instance_stays_down, refused_parameters}.
"""

from __future__ import annotations

import re
from typing import Any

from _standin import VIEWS, OraError, Row, Session, statement


def _dba_segments(state: dict[str, Any]) -> list[Row]:
    """DBA_SEGMENTS: OWNER, SEGMENT_NAME, SEGMENT_TYPE, TABLESPACE_NAME, BUFFER_POOL (DEFAULT, KEEP or RECYCLE as
    the segment's STORAGE clause set it; Oracle Database Reference, DBA_SEGMENTS)."""
    rows = []
    for key, seg in (state.get("segments") or {}).items():
        owner, _, name = key.partition(".")
        rows.append({"owner": owner, "segment_name": name, "segment_type": seg.get("segment_type", "TABLE"),
                     "tablespace_name": seg["tablespace"], "buffer_pool": seg.get("buffer_pool", "DEFAULT")})
    return rows


def _dba_data_files(state: dict[str, Any]) -> list[Row]:
    """DBA_DATA_FILES: FILE_NAME (an ASM file is ``+GROUP/...``), FILE_ID, TABLESPACE_NAME (Reference)."""
    rows, n = [], 0
    for ts, t in (state.get("tablespaces") or {}).items():
        for f in t.get("files", []):
            n += 1
            rows.append({"file_name": f, "file_id": n, "tablespace_name": ts, "status": "AVAILABLE"})
    return rows


def _v_datafile(state: dict[str, Any]) -> list[Row]:
    """V$DATAFILE: FILE#, NAME of every data file of the database (Oracle Database Reference, V$DATAFILE)."""
    return [{"file#": r["file_id"], "name": r["file_name"], "status": "ONLINE"} for r in _dba_data_files(state)]


def _dba_tables(state: dict[str, Any]) -> list[Row]:
    """DBA_TABLES: OWNER, TABLE_NAME, TABLESPACE_NAME of every table segment (Oracle Database Reference), and
    the tables a stand-in build recorded without segments (a TPROC-C build's, from a kind's stand-in)."""
    rows: list[Row] = [{"owner": r["owner"], "table_name": r["segment_name"], "tablespace_name": r["tablespace_name"]}
                       for r in _dba_segments(state) if r["segment_type"] == "TABLE"]
    return rows + [{"tablespace_name": None, **t} for t in state.get("tables") or [] if isinstance(t, dict)]


# V$PARAMETER SPFILE (_standin.py) and V$DATABASE.CDB (_standin_cdb.py, 12.1+ only) have one definition each
VIEWS.update({"dba_segments": _dba_segments, "dba_tables": _dba_tables,
              "dba_data_files": _dba_data_files, "v$datafile": _v_datafile,
              "dba_tablespaces": lambda s: [{"tablespace_name": t} for t in (s.get("tablespaces") or {})]})


@statement(r"create\s+(?:bigfile\s+)?tablespace\s+(?P<name>\w+)\s+datafile\s+'(?P<file>[^']+)'\s+size\s+\w+"
           r"(?:\s+autoextend\s+on(?:\s+next\s+\w+)?(?:\s+maxsize\s+\w+)?)?")
def _create_tablespace(s: Session, m: re.Match[str]) -> list[str]:
    """A data file named by a disk group alone (``'+SLOB'``) is an Oracle-managed file in that group; the group
    must be mounted (ORA-15001). An existing name: ORA-01543 (Oracle Database Error Messages)."""
    s.need_open()
    name, where = m["name"].upper(), m["file"]
    spaces = s.state.setdefault("tablespaces", {})
    if name in spaces:
        raise OraError(f"ORA-01543: tablespace '{name}' already exists")
    if where.startswith("+"):
        group = where[1:].split("/")[0].upper()
        if group not in s.state["diskgroups"]:
            raise OraError("ORA-01119: error in creating database file '" + where + "'",
                           "ORA-17502: ksfdcre:4 Failed to create file " + where,
                           f'ORA-15001: diskgroup "{group}" does not exist or is not mounted')
        where = f"+{group}/{s.state['database']['name']}/DATAFILE/{name.lower()}.{256 + len(spaces)}.1"
    spaces[name] = {"files": [where]}
    return s.done("Tablespace created.")


@statement(r"create\s+table\s+(?P<owner>\w+)\.(?P<name>\w+)\s*\(.*?\)\s*tablespace\s+(?P<ts>\w+)"
           r"(?:\s+storage\s*\(\s*buffer_pool\s+(?P<pool>default|keep|recycle)\s*\))?")
def _create_table(s: Session, m: re.Match[str]) -> list[str]:
    """The stand-in kit's setup.sh creates cf1/cf2 this way; the tablespace must exist (ORA-00959)."""
    s.need_open()
    ts = m["ts"].upper()
    if ts not in (s.state.get("tablespaces") or {}):
        raise OraError(f"ORA-00959: tablespace '{ts}' does not exist")
    s.state.setdefault("segments", {})[f"{m['owner'].upper()}.{m['name'].upper()}"] = {
        "tablespace": ts, "buffer_pool": (m["pool"] or "DEFAULT").upper(), "segment_type": "TABLE"}
    return s.done("Table created.")


def refusal(state: dict[str, Any], name: str) -> None:
    """ALTER SYSTEM SET's refusal that depends on the host: a parameter the profile says is refused (no spfile in
    use is _standin_ddl._spfile_needed's, ORA-32001)."""
    if name in ((state.get("failures") or {}).get("refused_parameters") or ()):
        raise OraError("ORA-02097: parameter cannot be modified because specified value is invalid",
                       f"ORA-00384: Insufficient memory to grow cache ({name})")



@statement(r"select\s+max\s*\(\s*w_id\s*\)\s+from\s+(?P<owner>\w+)\s*\.\s*warehouse")
def _max_w_id(s: Session, m: re.Match[str]) -> list[str]:
    """A TPROC-C schema's warehouses as the TPROC-C driver reads them (``select max(w_id) from warehouse``,
    docs/oracle-behaviour.md 43.h5): the count an OLTP kit's stand-in build recorded (``tpcc`` {OWNER: N}); no
    schema: ORA-00942."""
    s.need_open()
    count = (s.state.get("tpcc") or {}).get(m["owner"].upper())
    if count is None:
        raise OraError("ORA-00942: table or view does not exist")
    return [str(count)]
