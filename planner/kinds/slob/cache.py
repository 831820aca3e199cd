"""Whether a SLOB point would read storage or the buffer cache, and how long setup.sh may take to load the data:
both follow from the data set (schemas x SCALE blocks) and, for the cache, from the pool the kit's tables use."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from planner.db.access import Database, config_for, open_database
from planner.db.container import read_container
from planner.db.memory import read_pools
from planner.db.segments import KitPool, SegmentPlace, find_in_pdbs, find_segment
from planner.errors import OracleError, StepError
from planner.kinds.slob.kit import KitVersion, data_bytes
from planner.steps.base import TIMEOUT_MARGIN_S, StepContext, check_host_path

SETUP_MB_PER_S = 5.0  # a conservative load rate for setup.sh (it inserts row by row per schema); slob_setup_mb_per_s
SETUP_MIN_S = 1800.0
MAX_CACHE_PCT = 10.0  # slob_max_cache_pct: a point whose data is more cached than this is refused
SLOB_OWNER, SLOB_TABLE = "USER1", "CF1"  # SLOB's first schema's table: every schema is loaded alike
TABLES = "SLOB tables"  # init_ora's words for them (planner.db.segments.KitPool)


def cache_check(ctx: StepContext, version: KitVersion, schemas: int, conf: Mapping[str, str],
                original: str | None) -> tuple[str | None, dict[str, Any]]:
    """Refuse a point whose data would be read from the buffer cache, not storage: the kit's tables live in
    the BUFFER_POOL DBA_SEGMENTS gives USER1.CF1 (SLOB 2.4.0 RECYCLE, 2.5.x KEEP: read, never inferred from
    the kit), or in DEFAULT when that pool is not configured; a uniform random read over the data set hits
    the cache about cache/data of the time."""
    db = open_database(ctx, config_for(ctx))
    place = read_segment(db)
    try:
        pools = read_pools(db)
    except OracleError as exc:
        raise StepError(f"slob: cannot read the buffer pools (V$SGA_DYNAMIC_COMPONENTS): {exc.message}",
                        hint=exc.hint) from exc
    wanted = place.buffer_pool
    pool = pools.holding(wanted)
    size = data_bytes(conf, original, schemas)
    cache = pools.size(pool)
    info = {"cache_pool": pool, "kit_pool": wanted, "cache_bytes": cache, "data_bytes": size,
            "buffer_pools": pools.to_json(), "slob_data": place.to_json()}
    limit = float(ctx.vars.get("slob_max_cache_pct", MAX_CACHE_PCT))
    pct = 100.0 * cache / size if size else 100.0
    info["cache_pct_of_data"] = round(pct, 1)
    if version is KitVersion.SLOB1 or min(pct, 100.0) <= limit:
        return None, info
    return _cached_refusal(place, pool, cache, size, schemas, pct, limit), info


def place(cache: Mapping[str, Any]) -> SegmentPlace:
    """Where the cache check found USER1.CF1 (its ``slob_data``)."""
    d = cache["slob_data"]
    return SegmentPlace(d["owner"], d["table"], d["tablespace"], d["buffer_pool"], tuple(d["files"]))


def where(at: SegmentPlace) -> str:
    """'tablespace IOPS on +DATA' (the disk group, or the data files' directory)."""
    first = at.files[0]
    on = first.split("/", 1)[0] if first.startswith("+") else posixpath.dirname(first)
    return f"tablespace {at.tablespace} on {on}"


def _cached_refusal(at: SegmentPlace, pool: str, cache: int, size: int, schemas: int, pct: float,
                    limit: float) -> str:
    wanted = at.buffer_pool
    held = (f"no {wanted} pool is configured, so they are cached in DEFAULT" if pool != wanted
            else f"the {wanted} pool is")
    return (f"SLOB tables use BUFFER_POOL {wanted} (DBA_SEGMENTS.BUFFER_POOL of {at.owner}.{at.table}); {held} "
            f"{cache >> 20}M for a {size >> 20}M data set ({schemas} schemas): about {min(pct, 100):.0f}% of "
            f"reads would be cache hits, not storage I/O (limit slob_max_cache_pct={limit:g})")


def setup_budget_s(variables: Mapping[str, Any], size: int) -> float:
    """setup.sh's timeout: the data it loads at ``slob_setup_mb_per_s`` (default 5 MB/s) plus the margin, at least
    half an hour; ``slob_setup_timeout_s`` states it outright. A planner estimate: no SLOB source gives a rate."""
    given = variables.get("slob_setup_timeout_s")
    if given not in (None, ""):
        return float(given)
    rate = float(variables.get("slob_setup_mb_per_s") or SETUP_MB_PER_S)
    return max(SETUP_MIN_S, size / (rate * (1 << 20)) + TIMEOUT_MARGIN_S)


def read_segment(db: Database, owner: str = SLOB_OWNER, table: str = SLOB_TABLE) -> SegmentPlace:
    """DBA_SEGMENTS -> DBA_DATA_FILES for ``owner.table``; StepError (with the reason) when it cannot be read."""
    place = find_segment(db, owner, table)
    if place is None:
        raise StepError(f"DBA_SEGMENTS has no {owner}.{table}: the SLOB schemas are not loaded in this database",
                        hint="run the kit's setup.sh (slob step setup: true) before measuring")
    return place


_KIT_POOL = re.compile(r"BUFFER_POOL\s+(DEFAULT|KEEP|RECYCLE)\b", re.I)


def kit_pools(setup_sh: str) -> set[str]:
    """The BUFFER_POOLs a SLOB kit's setup.sh gives its tables: f_create_table's ``STORAGE (BUFFER_POOL KEEP
    INITIAL 1M ...)`` for cf1 and cf2 in 2.5.3.0, ``BUFFER_POOL RECYCLE`` in 2.4.0 (docs/oracle-behaviour.md row
    1a). Empty when the script names none."""
    return {m.upper() for m in _KIT_POOL.findall(setup_sh)}


def kit_pool(ctx: StepContext) -> KitPool:
    """init_ora's slob_cache (KindSpec.cache_option): where the SLOB kit's tables live; their pool must be KEEP or
    RECYCLE for slob_cache to size it."""
    db = open_database(ctx, config_for(ctx))
    place = find_segment(db, SLOB_OWNER, SLOB_TABLE)
    if place is None:
        return _pool_in_a_pdb(db) or _pool_from_kit(ctx)
    if place.buffer_pool == "DEFAULT":
        raise StepError(f"init_ora slob_cache: {place.owner}.{place.table} uses BUFFER_POOL DEFAULT "
                        "(DBA_SEGMENTS), so no KEEP or RECYCLE pool would hold it",
                        hint="size the DEFAULT cache with db_cache_size instead of slob_cache")
    return KitPool(place.buffer_pool, f"BUFFER_POOL {place.buffer_pool} of {place.owner}.{place.table} "
                                      "(DBA_SEGMENTS)", loaded=True, tables=TABLES)


def _pool_in_a_pdb(db: Database) -> KitPool | None:
    """In CDB$ROOT (no oracle_pdb) SLOB's tables are a PDB's and its DBA_SEGMENTS does not show them; the KEEP and
    RECYCLE pools are the whole CDB's, set only here (ISPDB_MODIFIABLE FALSE), so the pool is read in the PDB
    that holds the tables, through CDB_SEGMENTS, and named. None outside CDB$ROOT or when no PDB holds them."""
    container = read_container(db)
    if not container.cdb or container.pdb:
        return None
    found = find_in_pdbs(db, SLOB_OWNER, SLOB_TABLE)
    if found is None:
        return None
    if found.buffer_pool == "DEFAULT":
        raise StepError(f"init_ora slob_cache: {SLOB_OWNER}.{SLOB_TABLE} of PDB {found.pdb} uses BUFFER_POOL DEFAULT "
                        "(CDB_SEGMENTS), so no KEEP or RECYCLE pool would hold it",
                        hint="size the DEFAULT cache with db_cache_size instead of slob_cache")
    return KitPool(found.buffer_pool, f"BUFFER_POOL {found.buffer_pool} of {SLOB_OWNER}.{SLOB_TABLE} in PDB "
                                      f"{found.pdb} (CDB_SEGMENTS, read from CDB$ROOT, where the CDB's "
                                      f"{found.buffer_pool} pool is set)", loaded=True, tables=TABLES)


def _pool_from_kit(ctx: StepContext) -> KitPool:
    """A new database has no SLOB tables yet: the pool is the one the kit's setup.sh will create them in (its
    STORAGE (BUFFER_POOL ...) clause), read from the kit the ``slob_kit`` variable names; the SLOB step checks
    DBA_SEGMENTS against it once setup.sh has run (planner.kinds.slob.cache)."""
    kit = str(ctx.vars.get("slob_kit") or "").rstrip("/")
    absent = f"DBA_SEGMENTS has no {SLOB_OWNER}.{SLOB_TABLE} yet (SLOB's setup.sh has not loaded this database)"
    if not kit.startswith("/"):
        raise StepError(f"init_ora slob_cache: {absent}, and no slob_kit variable names the kit whose setup.sh "
                        "says the pool", hint="set slob_kit to the SLOB folder (vars: {slob_kit: /home/oracle/SLOB})"
                        ", or load the schemas before this play")
    path = ctx.path(check_host_path(kit, "slob_kit") + "/setup.sh")
    pools = kit_pools(ctx.conn.read_text(path) or "") - {"DEFAULT"}
    if len(pools) != 1:
        found = ", ".join(sorted(pools)) or "none"
        raise StepError(f"init_ora slob_cache: {absent}, and {kit}/setup.sh names {found} of KEEP and RECYCLE "
                        "in its STORAGE (BUFFER_POOL ...) clauses", hint="load the schemas before this play, or set "
                        "db_keep_cache_size / db_recycle_cache_size yourself")
    pool = pools.pop()
    return KitPool(pool, f"BUFFER_POOL {pool} from {kit}/setup.sh: {SLOB_OWNER}.{SLOB_TABLE} is not loaded yet, "
                         "checked in DBA_SEGMENTS at the first SLOB point", loaded=False, tables=TABLES)
