"""The ``calibrate_io`` workload: DBMS_RESOURCE_MANAGER.CALIBRATE_IO through planner.db.access, one point.

Oracle's prerequisites are checked first, with a hint each: TIMED_STATISTICS=TRUE, DISK_ASYNCH_IO=TRUE and
asynchronous I/O on every datafile (V$IOSTAT_FILE.ASYNCH_IO = ASYNC_ON; datafiles on a filesystem need
FILESYSTEMIO_OPTIONS=SETALL or ASYNCH). The OUT values (max_iops, max_mbps, actual_latency) and the
DBA_RSRC_IO_CALIBRATE row are written to ``calibrate_io.txt`` in the layout the calibrate_io parser reads
(the common DBMS_OUTPUT idiom, then a SQL*Plus-style listing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from planner.db.access import config_for, open_database
from planner.db.identity import read_cluster_database
from planner.errors import StepError
from planner.kinds.calibrate_io.extra import Calibration
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.steps.base import Change, Duration, Outcome, StepContext, Workload, whole_number
from planner.steps.wl_common import finish, save_text

_COLUMNS = ("START_TIME", "END_TIME", "MAX_IOPS", "MAX_MBPS", "MAX_PMBPS", "LATENCY", "NUM_PHYSICAL_DISKS")


PARAMS_SQL = ("select name, value from v$parameter where name in "
              "('timed_statistics', 'disk_asynch_io', 'filesystemio_options')")
ASYNC_SQL = "select count(*) from v$iostat_file where filetype_name = 'Data File' and asynch_io <> 'ASYNC_ON'"
RESULT_SQL = ("select start_time, end_time, max_iops, max_mbps, max_pmbps, latency, "
              "num_physical_disks from dba_rsrc_io_calibrate")


def listing(rows: list[tuple[str | None, ...]]) -> list[str]:
    """A SQL*Plus-style listing of DBA_RSRC_IO_CALIBRATE rows: header, dashes sized to the widest cell."""
    widths = [max([len(c)] + [len(r[i] or "") for r in rows]) for i, c in enumerate(_COLUMNS)]
    out = [" ".join(c.ljust(w) for c, w in zip(_COLUMNS, widths, strict=True)).rstrip(),
           " ".join("-" * w for w in widths)]
    for r in rows:
        cells = [(v or "").ljust(w) if i < 2 else (v or "").rjust(w) for i, (v, w) in enumerate(zip(r, widths,
                                                                                                   strict=False))]
        out.append(" ".join(cells).rstrip())
    return out


@dataclass(frozen=True, slots=True)
class CalibrateIoArgs:
    """The step's arguments, read once: CALIBRATE_IO's two IN parameters."""

    num_physical_disks: int
    max_latency: int  # milliseconds

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> CalibrateIoArgs:
        return cls(whole_number(args, "num_physical_disks", 1, "calibrate_io", minimum=1),
                   whole_number(args, "max_latency", 20, "calibrate_io", minimum=1))


class CalibrateIo(Workload):
    kind: ClassVar[str] = "calibrate_io"
    args_schema = {
        "description": "DBMS_RESOURCE_MANAGER.CALIBRATE_IO",
        "type": "object",
        "properties": {
            "num_physical_disks": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "max_latency": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
        },
        "additionalProperties": False,
        "required": ["num_physical_disks", "max_latency"],
    }
    sections = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = False
    needs_database = True
    report_metrics = ("calibrate.max_iops", "calibrate.max_mbps", "calibrate.latency_ms")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        # observed 4.5 to 9 minutes for one disk (18.3, dbwhisperer.wordpress.com "IO calibration" runs)
        return Duration.with_margin(600.0)

    def preview(self, ctx: StepContext) -> str:
        disks, latency = self.params()
        self.check(ctx)
        user = ctx.vars.get("oracle_user")  # the database's OS account, reached through sudo (planner.db.access)
        line, who = ((ctx.shown("sqlplus -S / as sysdba", become=True, become_user=str(user)),
                      f"as {user} through sudo, in its login environment") if user else
                     ("sqlplus -S / as sysdba", "as the login user"))
        return "\n".join([
            f"$ {line}   ({who}, each script on stdin)", f"    {PARAMS_SQL};",
            f"    {ASYNC_SQL};",
            "    variable o0 number\n    variable o1 number\n    variable o2 number",
            f"    begin dbms_resource_manager.calibrate_io({disks}, {latency}, :o0, :o1, :o2); end;",
            "    select :o0, :o1, :o2 from dual;", f"    {RESULT_SQL};"])

    @cached_property
    def opts(self) -> CalibrateIoArgs:
        return CalibrateIoArgs.of(self.args)

    def params(self) -> tuple[int, int]:
        return self.opts.num_physical_disks, self.opts.max_latency

    def validate(self) -> None:
        """At plan check: max_latency below 10 ms is refused by CALIBRATE_IO itself (its minimum, PL/SQL Packages
        and Types Reference, DBMS_RESOURCE_MANAGER.CALIBRATE_IO)."""
        _disks, latency = self.params()
        if latency < 10:
            raise StepError(f"calibrate_io: max_latency {latency} ms is below Oracle's minimum of 10 ms",
                            hint="give max_latency: 10 or more (milliseconds)")

    def check(self, ctx: StepContext) -> Change:
        self.validate()
        disks, latency = self.params()
        return Change(True, f"would run DBMS_RESOURCE_MANAGER.CALIBRATE_IO({disks}, {latency})")

    @staticmethod
    def every_instance_open(db: Any) -> None:
        """"For Oracle Real Application Clusters (Oracle RAC) configurations, ensure that all instances are
        opened to calibrate the storage subsystem across nodes" (Oracle Database Performance Tuning Guide 11.2+,
        "Running I/O Calibration"): on RAC every enabled redo thread (one per instance, V$THREAD) must be OPEN."""
        if not read_cluster_database(db):
            return
        closed = [f"{r[1] or 'thread ' + str(r[0])} ({r[2]})" for r in db.query(
            "select thread#, instance, status from v$thread where enabled <> 'DISABLED'") if str(r[2]) != "OPEN"]
        if closed:
            raise StepError(f"CALIBRATE_IO on RAC needs every instance open, and {', '.join(closed)} is not: the "
                            "calibration would measure the storage from the open nodes only",
                            hint="start every instance (srvctl start database -db <name>) before this step")

    @staticmethod
    def prerequisites(db: Any) -> dict[str, str]:
        rows = db.query(PARAMS_SQL)
        params = {str(r[0]).lower(): str(r[1] or "") for r in rows if r and r[0]}
        if params.get("timed_statistics", "").upper() != "TRUE":
            raise StepError("CALIBRATE_IO needs timed_statistics=TRUE (it is "
                            f"{params.get('timed_statistics') or 'unset'})",
                            hint="ALTER SYSTEM SET timed_statistics=TRUE, or add an init_ora prep step")
        if params.get("disk_asynch_io", "").upper() != "TRUE":
            raise StepError("CALIBRATE_IO needs asynchronous I/O: disk_asynch_io is "
                            f"{params.get('disk_asynch_io') or 'unset'}",
                            hint="set disk_asynch_io=TRUE (static: SCOPE=SPFILE and a restart, e.g. an init_ora step)")
        off = db.query(ASYNC_SQL)
        if off and off[0] and off[0][0] not in (None, "0"):
            raise StepError(f"CALIBRATE_IO needs asynchronous I/O on every datafile; {off[0][0]} have ASYNC_OFF "
                            f"(filesystemio_options={params.get('filesystemio_options') or 'unset'})",
                            hint="datafiles on a filesystem need filesystemio_options=SETALL (or ASYNCH), "
                                 "set with SCOPE=SPFILE and a restart")
        return params

    def apply(self, ctx: StepContext) -> Outcome:
        disks, latency = self.params()
        db = open_database(ctx, config_for(ctx))
        try:
            params = self.prerequisites(db)
            self.every_instance_open(db)
            max_iops, max_mbps, actual = db.callproc("dbms_resource_manager.calibrate_io", [disks, latency],
                                                     out_types=[int, int, int])
            rows = db.query(RESULT_SQL)
        finally:
            db.close()
        if max_iops is None or max_mbps is None:
            raise StepError("CALIBRATE_IO returned no values (max_iops/max_mbps NULL)",
                            hint="another calibration may be running: check V$IO_CALIBRATION_STATUS")
        lines = []
        if ctx.simulated or ctx.root:
            lines.append("-- PLANNER STAND-IN: values from a simulated database, not a measurement")
        lines += [f"-- DBMS_RESOURCE_MANAGER.CALIBRATE_IO(num_physical_disks => {disks}, max_latency => {latency})",
                  f"-- timed_statistics={params.get('timed_statistics')} disk_asynch_io={params.get('disk_asynch_io')}"
                  f" filesystemio_options={params.get('filesystemio_options')}",
                  f"max_iops = {max_iops}", f"latency  = {actual}", f"max_mbps = {max_mbps}", ""]
        if rows:
            lines += ["-- DBA_RSRC_IO_CALIBRATE", *listing([tuple(r) for r in rows]), ""]
        art = save_text(ctx, "calibrate_io.txt", "\n".join(lines), "calibrate_io")
        msg = f"CALIBRATE_IO({disks}, {latency}): max_iops={max_iops} max_mbps={max_mbps} latency={actual} ms"
        return finish(ctx, "CALIBRATE_IO", [art], [art], None, msg=msg,
                      extra=Calibration(int(max_iops), int(max_mbps), actual))
