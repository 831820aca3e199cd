"""RAC statements for the sqlplus stand-in (PLANNER STAND-IN, not Oracle):
DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT.

Loaded after planner/rehearsal/standins/sql_workload.py by the sqlplus stand-in (bin/sqlplus). RAC mode is the
stand-in state's ``database.cluster_database`` and ``database.instances`` (planner/rehearsal/standins/awrgen.py
reads them with single-instance defaults).

AWR_GLOBAL_REPORT_TEXT(l_dbid, l_inst_num, l_bid, l_eid [, l_options]): l_inst_num is a comma-separated list of
instance numbers, empty or NULL for all of them (Oracle Database PL/SQL Packages and Types Reference,
DBMS_WORKLOAD_REPOSITORY, AWR_GLOBAL_REPORT_TEXT); unknown snapshots raise ORA-20200 as AWR_REPORT_TEXT does.
"""

from __future__ import annotations

import re

from _standin import OraError, Session  # type: ignore[import-not-found]  # bin/, on sys.path for the stand-ins

from planner.rehearsal.standins import awrgen, awrgen_rac
from planner.rehearsal.standins.sql_workload import SNAP_ARG, _report, snap_arg, statement

# GV$INSTANCE itself is served by bin/_standin_rac.py (RAC identity), from the same db.json fields.


@statement(r"select\s+output\s+from\s+table\s*\(\s*dbms_workload_repository\.awr_global_report_text\s*\(\s*(\d+)\s*,"
           r"\s*(?:'([\d,\s]*)'|null)\s*,\s*" + SNAP_ARG + r"\s*,\s*" + SNAP_ARG + r"\s*(?:,\s*\d+\s*)?\)\s*\)")
def _awr_global_report_text(s: Session, m: re.Match[str]) -> list[str]:
    s.need_open()
    fig, host, db, iv = _report(s, "awr_snaps", snap_arg(s, m.group(3)), snap_arg(s, m.group(4)))
    insts = awrgen.instances(s.state)
    wanted = {int(x) for x in re.findall(r"\d+", m.group(2) or "")}
    if wanted:
        insts = tuple(i for i in insts if i.inst_id in wanted)
    if not insts:  # a single-instance database: its one instance is the whole "cluster"
        insts = (awrgen.Instance(1, db.instance, host.name),)
    if int(m.group(1)) != db.dbid:
        raise OraError(f"ORA-20200: Database/Instance {m.group(1)}/1 does not exist in DBA_HIST_DATABASE_INSTANCE")
    return awrgen_rac.global_text(fig, host, db, iv, insts).splitlines()
