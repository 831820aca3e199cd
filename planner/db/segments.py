"""Where a workload kit's data lives, read from the database: a table's BUFFER_POOL and data files.

Kits' releases differ in the pool their set-up gives their tables (docs/oracle-behaviour.md row 1a), and a disk
group a play prepares holds a kit's data only if its tablespace was created there (row 2). Both are read, never
inferred from the kit: DBA_SEGMENTS gives the table's tablespace and BUFFER_POOL ("Buffer pool to be used for
segment blocks: DEFAULT, KEEP, RECYCLE", Oracle Database Reference, DBA_SEGMENTS), DBA_DATA_FILES the files of
that tablespace (FILE_NAME; an ASM file is ``+GROUP/...``). Which table is a kit's is the kind's to say.
A read that fails is an error with the reason: no silent default pool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.db.access import Database, sql_literal
from planner.errors import OracleError, StepError

_IDENT = re.compile(r"^[A-Z][A-Z0-9_$#]{0,127}$")


@dataclass(frozen=True, slots=True)
class SegmentPlace:
    """A table's tablespace, buffer pool and data files, as the dictionary has them."""

    owner: str
    table: str
    tablespace: str
    buffer_pool: str  # DEFAULT | KEEP | RECYCLE
    files: tuple[str, ...]

    def describe(self) -> str:
        return (f"{self.owner}.{self.table} in tablespace {self.tablespace} (BUFFER_POOL {self.buffer_pool}; "
                f"DBA_DATA_FILES: {', '.join(self.files[:4])}{' ...' if len(self.files) > 4 else ''})")

    def to_json(self) -> dict[str, object]:
        return {"owner": self.owner, "table": self.table, "tablespace": self.tablespace,
                "buffer_pool": self.buffer_pool, "files": list(self.files)}


@dataclass(frozen=True, slots=True)
class KitPool:
    """The pool a kit's tables use and where planner read it (a kind's init_ora cache option sizes it): the
    dictionary once the kit has loaded them, else the kit's own set-up script (a new database)."""

    pool: str  # KEEP | RECYCLE
    source: str  # words for the step's message
    loaded: bool  # read from the database (True) or from the kit, to be checked when the kit's step runs
    tables: str = "the kit's tables"  # whose tables, in words (as "<tool> tables")

    @property
    def parameter(self) -> str:
        return {"KEEP": "db_keep_cache_size", "RECYCLE": "db_recycle_cache_size"}[self.pool]


def find_segment(db: Database, owner: str, table: str) -> SegmentPlace | None:
    """DBA_SEGMENTS -> DBA_DATA_FILES for ``owner.table``; None when the table is not there yet (a new database,
    before the kit loads it); StepError (with the reason) when it cannot be read."""
    what = f"{owner}.{table}"
    try:
        rows = db.query(f"select tablespace_name, buffer_pool from dba_segments where owner = '{owner}' "
                        f"and segment_name = '{table}'")
    except OracleError as e:
        raise StepError(f"cannot read {what}'s segment (DBA_SEGMENTS): {e.message}", hint=e.hint) from e
    if not rows or not rows[0][0]:
        return None
    tablespace, pool = str(rows[0][0]).strip().upper(), str(rows[0][1] or "").strip().upper()
    if pool not in ("DEFAULT", "KEEP", "RECYCLE") or not _IDENT.fullmatch(tablespace):
        raise StepError(f"DBA_SEGMENTS gave {what} an unreadable tablespace / BUFFER_POOL "
                        f"({tablespace[:40]!r}, {pool[:40]!r})")
    try:
        files = tuple(str(r[0]) for r in db.query(
            f"select file_name from dba_data_files where tablespace_name = '{tablespace}'") if r and r[0])
    except OracleError as e:
        raise StepError(f"cannot read tablespace {tablespace}'s data files (DBA_DATA_FILES): {e.message}",
                        hint=e.hint) from e
    if not files:
        raise StepError(f"DBA_DATA_FILES lists no file of tablespace {tablespace} (holding {what})")
    return SegmentPlace(owner, table, tablespace, pool, files[:256])


def on_storage(files: tuple[str, ...], data_on: str) -> bool:
    """Every file is in the disk group ``+NAME`` (ASM names are case-insensitive) or under the directory."""
    if data_on.startswith("+"):
        group = data_on.rstrip("/").upper() + "/"
        return all(f.upper().startswith(group) for f in files)
    base = data_on.rstrip("/") + "/"
    return all(f.startswith(base) for f in files)


def placement_refusal(place: SegmentPlace, data_on: str, reads: str) -> str | None:
    """Why the point would not measure the storage the play prepared, or None when the data is there; ``reads``
    says whose data the table is ("the data <tool> reads")."""
    if on_storage(place.files, data_on):
        return None
    return (f"{place.owner}.{place.table} ({reads}) is in tablespace {place.tablespace}, whose files "
            f"are {', '.join(place.files[:3])}{' ...' if len(place.files) > 3 else ''} (DBA_SEGMENTS -> "
            f"DBA_DATA_FILES), not on {data_on}, which the step's data_on names: the figures would describe "
            "other storage")


def tablespace_files(db: Database, name: str) -> tuple[str, ...] | None:
    """The data files of tablespace ``name``; None when it does not exist."""
    if not _IDENT.fullmatch(name):
        raise StepError(f"refusing tablespace name {name[:40]!r}", hint="a tablespace name is letters, digits, _ $ #")
    if not db.query(f"select tablespace_name from dba_tablespaces where tablespace_name = '{name}'"):
        return None
    return tuple(str(r[0]) for r in db.query(
        f"select file_name from dba_data_files where tablespace_name = '{name}'") if r and r[0])


def ensure_tablespace(db: Database, name: str, data_on: str, size: str, option: str = "") -> str:
    """A kit's load needs its tablespace to exist (a kit's set-up may first create a test table in it): create it
    on ``data_on`` when missing (a bigfile tablespace, the data file an Oracle-managed file in the disk group, or
    ``<dir>/<name>01.dbf``); an existing one elsewhere is refused, never moved. ``option`` names the variable or
    argument that chose the name, for the hint."""
    name = name.upper()
    files = tablespace_files(db, name)
    if files is not None:
        if not on_storage(files, data_on):
            raise StepError(f"tablespace {name} exists on {', '.join(files[:3])}, not on {data_on}",
                            hint=f"give {option or 'the tablespace'} a new name, or drop that tablespace "
                                 "yourself")
        return f"tablespace {name} already on {data_on}"
    where = data_on if data_on.startswith("+") else f"{data_on.rstrip('/')}/{name.lower()}01.dbf"
    db.execute(f"create bigfile tablespace {name} datafile '{where}' size {size} autoextend on")
    return f"created tablespace {name} on {data_on} ({size}, autoextend)"


def table_exists(db: Database, owner: str, table: str) -> bool:
    """Whether OWNER.TABLE is in DBA_TABLES: an OLTP kit's schema, checked before its build runs or is skipped."""
    rows = db.query(f"select count(*) from dba_tables where owner = {sql_literal(owner.upper())} "
                    f"and table_name = {sql_literal(table.upper())}")
    return bool(rows) and str(rows[0][0]).strip() not in ("", "0")


@dataclass(frozen=True, slots=True)
class PdbSegment:
    """A table of a PDB as CDB$ROOT sees it through CDB_SEGMENTS: the PDB's name and the segment's pool."""

    pdb: str
    buffer_pool: str


def find_in_pdbs(db: Database, owner: str, table: str) -> PdbSegment | None:
    """From CDB$ROOT, where DBA_SEGMENTS shows no PDB's local users: CDB_SEGMENTS (every open container's, with
    CON_ID; Oracle Database Reference, "CDB_* views") and V$CONTAINERS for the PDB's name. None when no PDB
    holds it; the first PDB in CON_ID order when several do."""
    try:
        rows = db.query(f"select con_id, buffer_pool from cdb_segments where owner = '{owner}' "
                        f"and segment_name = '{table}' order by con_id")
        rows = [r for r in rows if str(r[0] or "").isdigit() and int(str(r[0])) > 2]
        if not rows:
            return None
        names = db.query(f"select name from v$containers where con_id = {int(str(rows[0][0]))}")
    except OracleError as e:
        raise StepError(f"cannot read {owner}.{table}'s segment in the PDBs (CDB_SEGMENTS): {e.message}",
                        hint=e.hint) from e
    pool = str(rows[0][1] or "").strip().upper()
    name = str(names[0][0] if names and names[0][0] else "").strip().upper()
    if pool not in ("DEFAULT", "KEEP", "RECYCLE") or not _IDENT.fullmatch(name):
        raise StepError(f"CDB_SEGMENTS / V$CONTAINERS gave {owner}.{table} an unreadable PDB / BUFFER_POOL "
                        f"({name[:40]!r}, {pool[:40]!r})")
    return PdbSegment(name, pool)
