"""Which database statistics planner may take: AWR only where the Diagnostics Pack is licensed.

Why: AWR (DBMS_WORKLOAD_REPOSITORY snapshots and reports, DBA_HIST_* views) is part of the Oracle Diagnostics
Pack: "The following are part of the Oracle Diagnostics Pack: ... Automatic Workload Repository ...
DBMS_WORKLOAD_REPOSITORY package" (Oracle Database Licensing Information User Manual, Oracle Diagnostics
Pack, https://docs.oracle.com/en/database/oracle/oracle-database/19/dblic/Licensing-Information.html).
CONTROL_MANAGEMENT_PACK_ACCESS (11g+) is not a licence: its default on Enterprise Edition is
"DIAGNOSTIC+TUNING" whether the packs were bought or not (Oracle Database Reference,
https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/CONTROL_MANAGEMENT_PACK_ACCESS.html). So the
licence must be stated, ``oracle_diagnostics_pack: true|false`` in the inventory (or the plan); the parameter can
only forbid AWR: with "NONE" the packs are switched off, licensed or not. Statspack ships with the database and
needs no pack. Nothing stated: no AWR, and the reason says what to state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.db.access import StepContext, config_for, open_database
from planner.errors import OracleError, StepError

LICENCE_VAR = "oracle_diagnostics_pack"


def _as_bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    text = str(v).strip().lower()
    return True if text in ("true", "yes", "1", "on") else False if text in ("false", "no", "0", "off") else None


def diagnostics_pack(ctx: StepContext, vars_: Mapping[str, Any] | None = None) -> tuple[bool, str]:
    """(AWR allowed, why): the ``oracle_diagnostics_pack`` statement, then CONTROL_MANAGEMENT_PACK_ACCESS=NONE
    (which switches the packs off) as the only thing read that can say no."""
    v = (vars_ if vars_ is not None else ctx.vars).get(LICENCE_VAR)
    stated = _as_bool(v) if v is not None else None
    if stated is None:
        return False, (f"the Diagnostics Pack licence is not stated ({LICENCE_VAR} in the inventory): "
                       "CONTROL_MANAGEMENT_PACK_ACCESS=DIAGNOSTIC+TUNING is the Enterprise Edition default, not a "
                       "licence")
    said = f"{LICENCE_VAR}: {str(v).lower()} (stated in the plan or inventory)"
    if not stated:
        return False, said
    try:
        rows = open_database(ctx, config_for(ctx)).query(
            "select value from v$parameter where name = 'control_management_pack_access'")
    except OracleError as exc:
        return False, f"{said}, but CONTROL_MANAGEMENT_PACK_ACCESS is unreadable ({exc.message[:120]})"
    value = str(rows[0][0] if rows and rows[0] and rows[0][0] else "").upper()
    if value == "NONE":
        return False, f"{said}, but CONTROL_MANAGEMENT_PACK_ACCESS=NONE switches the packs off on this database"
    return True, said + (f"; CONTROL_MANAGEMENT_PACK_ACCESS={value}" if value else "")


def statistics_choice(ctx: StepContext, asked: str, source: str, *, can_statspack: bool) -> tuple[str, str]:
    """('awr' | 'statspack', why). ``asked`` is what the plan or kit wants, ``source`` says who asked."""
    if asked != "awr":
        return "statspack", f"{source}; Statspack needs no pack"
    licensed, why = diagnostics_pack(ctx)
    if licensed:
        return "awr", f"{source}; Diagnostics Pack: {why}"
    if can_statspack:
        return "statspack", (f"{source} asked for AWR, but {why}: AWR needs the Diagnostics Pack, so planner "
                             "sets DATABASE_STATISTICS_TYPE=statspack for this run")
    raise StepError(f"AWR needs the Diagnostics Pack and {why}; this workload can only take AWR snapshots",
                    hint=f"use a SLOB 2.4+ kit with DATABASE_STATISTICS_TYPE=statspack, or state {LICENCE_VAR}: true "
                         "in the inventory when the pack is licensed")
