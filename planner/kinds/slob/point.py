"""What a SLOB point reads of its database besides the cache (the container, Resource Manager's caging, whose
AWR a PDB's snapshots go to), and everything the point gathered as its typed record (planner.kinds.slob.extra)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.db.access import config_for, open_database
from planner.db.caging import read_caging
from planner.db.container import AwrLevel, read_awr_level, read_container
from planner.errors import OracleError, StepError
from planner.extras import CagingSeen, ClusterSeen, ContainerSeen
from planner.kinds.slob.extra import SlobCache, SlobPoint
from planner.steps.base import StepContext


def point_extra(info: Mapping[str, Any]) -> SlobPoint:
    """What apply gathered of the point, as the typed record its result keeps."""
    cont, cag, cluster = info["container"], info["caging"], info.get("cluster")
    return SlobPoint(
        info["sessions"], info["schemas"], info["threads_per_schema"], info["update_pct"], info["kit_version"],
        info["statistics"], info["statistics_why"],
        SlobCache(info["cache_pool"], info["kit_pool"], info["cache_bytes"], info["data_bytes"],
                  info["cache_pct_of_data"], info["buffer_pools"], info["slob_data"]),
        ContainerSeen(cont["cdb"], cont["name"], cont["pdb"], cont["describe"]),
        CagingSeen(cag["caged"], cag["cpu_count"], cag["describe"], cag["plan"], tuple(cag["windows"]),
                   cag["resource_manager_plan"]),
        info.get("rac"),
        ClusterSeen(cluster["instances"], cluster["rac"], cluster["why"]) if cluster else None,
        info.get("awr_level") or "")


def point_database(ctx: StepContext, stats: str = "") -> dict[str, Any]:
    """Read per point, as a window may open between two points: the container the kit runs in and whether
    Resource Manager cages the CPU (planner.db.container, planner.db.caging); with AWR in a PDB, whose AWR the kit's
    snapshots go to. Unreadable: the point is refused."""
    try:
        db = open_database(ctx, config_for(ctx))
        container = read_container(db)
        out: dict[str, Any] = {"container": container.to_json(), "caging": read_caging(db).to_json()}
    except OracleError as exc:
        raise StepError(f"slob: cannot read the container and Resource Manager state: {exc.message}",
                        hint=exc.hint) from exc
    if stats == "awr" and container.pdb:
        out["awr_level"] = kit_awr_level(container.name, read_awr_level(db, container))
    return out


def kit_awr_level(pdb: str, level: AwrLevel) -> str:
    """What the point says of SLOB's own AWR in a PDB. runit.sh snaps over ADMIN_SQLNET_SERVICE, in the PDB, and
    reports with V$DATABASE.DBID (public 2.5 runit.sh f_snap_database_stats, f_generate_awr_report, code index id
    38272540123). Before 12.2 AWR is CDB-level only; from 12.2 a snapshot taken in a PDB can be the PDB's own, so the
    report's header, not planner, says which it is (docs/oracle-behaviour.md 25.11d)."""
    if level.autoflush:
        return (f"AWR: the kit snaps in {pdb} over ADMIN_SQLNET_SERVICE; from 12.2 that can be {pdb}'s own AWR "
                f"(AWR_PDB_AUTOFLUSH_ENABLED={level.autoflush} there): awr.txt's header says whether its report is "
                "the PDB's or the CDB's, covering every PDB")
    return f"AWR taken at CDB level: covers every PDB ({level.why})"
