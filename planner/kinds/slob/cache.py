"""Whether a SLOB point would read storage or the buffer cache, and how long setup.sh may take to load the data:
both follow from the data set (schemas x SCALE blocks) and, for the cache, from the pool the kit's tables use."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from planner.db.access import config_for, open_database
from planner.db.memory import read_pools
from planner.db.segments import SegmentPlace, read_segment
from planner.errors import OracleError, StepError
from planner.kinds.slob.kit import KitVersion, data_bytes
from planner.steps.base import TIMEOUT_MARGIN_S, StepContext

SETUP_MB_PER_S = 5.0  # a conservative load rate for setup.sh (it inserts row by row per schema); slob_setup_mb_per_s
SETUP_MIN_S = 1800.0
MAX_CACHE_PCT = 10.0  # slob_max_cache_pct: a point whose data is more cached than this is refused


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
