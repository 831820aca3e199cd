"""The buffer pools as the instance has them (not as the parameters ask), and the cache-size rounding rules.

Why: what a cache-size parameter asks for is not what the instance gives. Oracle rounds DB_CACHE_SIZE up to
at least 4 MB x CPU_COUNT and to the granule ("The value must be at least 4M * number of cpus (smaller values
are automatically rounded up to this value). A user-specified value larger than this is rounded up to the
nearest granule size", Oracle Database Reference 11.2-19c, DB_CACHE_SIZE,
https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/DB_CACHE_SIZE.html), gives
DB_KEEP_CACHE_SIZE / DB_RECYCLE_CACHE_SIZE the same floor ("values greater than zero are automatically modified
to be either the granule size * number of processor groups, or 4 MB * number of CPUs, whichever is greater",
Reference 11.1-19c, DB_KEEP_CACHE_SIZE.html / DB_RECYCLE_CACHE_SIZE.html) and the granule, and under SGA_TARGET /
MEMORY_TARGET takes DB_CACHE_SIZE only as a minimum of the DEFAULT pool. So planner reads the effective sizes from
V$SGA_DYNAMIC_COMPONENTS (bytes, with the granule) and V$BUFFER_POOL (the pools configured) after a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planner.db.access import Database

CACHE_PARAMETERS = frozenset({"db_cache_size", "db_keep_cache_size", "db_recycle_cache_size"})
_COMPONENTS = {"DEFAULT buffer cache": "DEFAULT", "KEEP buffer cache": "KEEP", "RECYCLE buffer cache": "RECYCLE"}
MB = 1 << 20


@dataclass(frozen=True, slots=True)
class BufferPools:
    """Current bytes of each pool of the primary block size (0: not configured) and the SGA granule."""

    default: int
    keep: int
    recycle: int
    granule: int

    def size(self, pool: str) -> int:
        return {"DEFAULT": self.default, "KEEP": self.keep, "RECYCLE": self.recycle}[pool]

    def holding(self, pool: str) -> str:
        """The pool that caches a segment created with BUFFER_POOL ``pool``: "If you specify KEEP or RECYCLE and
        the respective pool is not configured, then Oracle caches the object in the DEFAULT pool" (Oracle SQL
        Language Reference, storage_clause, BUFFER_POOL,
        https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/storage_clause.html)."""
        return pool if pool == "DEFAULT" or self.size(pool) > 0 else "DEFAULT"

    def describe(self) -> str:
        parts = [f"{name} {mb(self.size(name))}" for name in ("DEFAULT", "KEEP", "RECYCLE")]
        return f"effective buffer pools: {', '.join(parts)} (granule {mb(self.granule)})"

    def to_json(self) -> dict[str, int]:
        return {"DEFAULT": self.default, "KEEP": self.keep, "RECYCLE": self.recycle, "granule": self.granule}


def mb(n: int) -> str:
    return f"{n / MB:g}M" if n % MB == 0 or n >= MB else f"{n}B"


def read_pools(db: Database) -> BufferPools:
    """The DEFAULT / KEEP / RECYCLE caches from V$SGA_DYNAMIC_COMPONENTS (CURRENT_SIZE and GRANULE_SIZE in
    bytes: https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SGA_DYNAMIC_COMPONENTS.html)."""
    rows = db.query("select component, current_size, granule_size from v$sga_dynamic_components "
                    "where component in ('DEFAULT buffer cache', 'KEEP buffer cache', 'RECYCLE buffer cache')")
    sizes: dict[str, int] = {}
    granule = 0
    for comp, size, gran in rows:
        if comp in _COMPONENTS:
            sizes[_COMPONENTS[comp]] = int(float(size or 0))
            granule = max(granule, int(float(gran or 0)))
    return BufferPools(sizes.get("DEFAULT", 0), sizes.get("KEEP", 0), sizes.get("RECYCLE", 0), granule)


def configured_pools(db: Database) -> Mapping[str, int]:
    """V$BUFFER_POOL: the pools the instance has, CURRENT_SIZE in MB
    (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-BUFFER_POOL.html)."""
    return {str(n): int(float(s or 0)) * MB for n, s in db.query("select name, current_size from v$buffer_pool")
            if n}


def rounded(name: str, wanted: int, granule: int, cpu_count: int) -> int:
    """What Oracle makes of ``wanted`` bytes for a cache parameter (see the module docstring)."""
    if wanted <= 0 or granule <= 0:
        return wanted
    wanted = max(wanted, 4 * MB * max(1, cpu_count))  # all three caches: see the module docstring
    return -(-wanted // granule) * granule
