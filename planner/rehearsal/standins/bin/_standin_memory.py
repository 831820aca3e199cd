"""How Oracle sizes its memory, for the stand-ins: initialization parameters' defaults and the buffer pools.

NOT Oracle. Split from _standin.py (state and the SQL engine) along the seam "what the instance's memory looks
like" so the views and the RAC identity (_standin.py) and the DDL (_standin_ddl.py) share one memory model.
Leaf module: python3 stdlib only, imports nothing of the stand-ins.
"""

from __future__ import annotations

import re
from typing import Any

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
    "sessions": (3, "472", "FALSE", "FALSE"),  # derived: (1.5 * PROCESSES) + 22 (Reference 11.2-19c, SESSIONS)
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
    "resource_manager_plan": (2, "", "FALSE", "IMMEDIATE"),  # empty: Resource Manager off (profile.py)
    # hidden parameters SLOB's simple.ora sets to 0 "to force db file sequential read": V$PARAMETER lists a "_"
    # name only when it is not at its default (X$KSPPI / X$KSPPCV always do); the defaults here are the stand-in's
    "_db_block_prefetch_limit": (3, "0", "FALSE", "FALSE"),
    "_db_block_prefetch_quota": (3, "10", "FALSE", "FALSE"),
    "_db_file_noncontig_mblock_read_count": (3, "11", "FALSE", "FALSE"),
}
# "Modifiable in a PDB: No" (Oracle Database Reference 12.1-19c, each parameter's page), among those above
NOT_PDB_MODIFIABLE = frozenset({"db_keep_cache_size", "db_recycle_cache_size", "sga_max_size", "processes",
                                "filesystemio_options", "disk_asynch_io", "db_writer_processes", "use_large_pages",
                                "db_block_size", "memory_target", "compatible", "db_name",
                                "remote_login_passwordfile", "control_management_pack_access"})
CACHE_PARAMS = ("db_cache_size", "db_keep_cache_size", "db_recycle_cache_size")


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
    DB_KEEP_CACHE_SIZE / DB_RECYCLE_CACHE_SIZE have the same floor: "values greater than zero are automatically
    modified to be either the granule size * number of processor groups, or 4 MB * number of CPUs, whichever is
    greater" (Oracle Database Reference 11.2-19c, DB_KEEP_CACHE_SIZE / DB_RECYCLE_CACHE_SIZE:
    https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/DB_KEEP_CACHE_SIZE.html), then the
    granule."""
    if nbytes <= 0:
        return 0
    granule = granule_bytes(state)
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
