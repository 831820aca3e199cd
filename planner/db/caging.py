"""Whether Resource Manager cages the instance's CPU at the time of a point - read per point, said in words.

Why: CPU_COUNT alone does not limit an instance; "Instance caging is enabled if the CPU_COUNT initialization
parameter is set to a value other than 0 and Resource Manager is enabled" (Oracle Database Reference 11.2+,
V$RSRC_PLAN.INSTANCE_CAGING, https://docs.oracle.com/cd/E24693_01/server.11203/e24448/dynviews_2158.htm).
Resource Manager is enabled by RESOURCE_MANAGER_PLAN, or by a scheduler window: the maintenance windows open
DEFAULT_MAINTENANCE_PLAN at night (the value then reads SCHEDULER[0x...]:DEFAULT_MAINTENANCE_PLAN; Reference,
RESOURCE_MANAGER_PLAN), so one point of a sweep may be caged and the next not. SLOB ships misc/dis_resmgr.sql
to switch the windows' plan off. Sources: V$RSRC_PLAN (active plans, IS_TOP_PLAN, CPU_MANAGED, INSTANCE_CAGING
11.2.0.2+), DBA_SCHEDULER_WINDOWS.ACTIVE.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.db.access import Database
from planner.errors import OracleError


@dataclass(frozen=True, slots=True)
class Caging:
    """``plan``: the top plan active (""); ``caged``: V$RSRC_PLAN.INSTANCE_CAGING = ON; ``cpu_count`` as set."""

    plan: str
    caged: bool
    cpu_count: int
    windows: tuple[str, ...] = ()
    set_by: str = ""  # RESOURCE_MANAGER_PLAN as read

    def describe(self) -> str:
        opened = f", opened by the scheduler window {', '.join(self.windows)}," if self.windows else ""
        if self.caged:
            return (f"caged: Resource Manager plan {self.plan}{opened} limits the instance to CPU_COUNT="
                    f"{self.cpu_count} CPUs")
        if self.plan:
            return (f"not caged: Resource Manager plan {self.plan}{opened} is active but CPU_COUNT is not set, so "
                    "it does not cage the CPU")
        return f"not caged: no Resource Manager plan active (CPU_COUNT={self.cpu_count} only sizes the instance)"

    def to_json(self) -> dict[str, object]:
        return {"plan": self.plan, "caged": self.caged, "cpu_count": self.cpu_count, "windows": list(self.windows),
                "resource_manager_plan": self.set_by, "describe": self.describe()}


def read_caging(db: Database) -> Caging:
    params = {str(n): str(v or "") for n, v in db.query(
        "select name, value from v$parameter where name in ('cpu_count', 'resource_manager_plan')") if n}
    try:
        rows = db.query("select name, instance_caging from v$rsrc_plan where is_top_plan = 'TRUE'")
    except OracleError as e:  # before 11.2.0.2 V$RSRC_PLAN has no INSTANCE_CAGING: CPU managed is what caged
        if "ORA-00904" not in str(e):
            raise
        rows = db.query("select name, cpu_managed from v$rsrc_plan where is_top_plan = 'TRUE'")
    top = rows[0] if rows else (None, None)
    caged = str(top[1] or "").upper() == "ON"
    windows = tuple(str(r[0]) for r in db.query(
        "select window_name from dba_scheduler_windows where active = 'TRUE'") if r and r[0])
    count = int(float(params.get("cpu_count") or 0))
    return Caging(str(top[0] or ""), caged, count, windows, params.get("resource_manager_plan", ""))
