"""AWR / Statspack snapshots around a workload point that does not write its own database report
(CALIBRATE_IO, ORION or an I/O tool on the database's LUNs), for plays whose collect has ``awr`` or ``statspack``.

The engine calls ``begin(ctx, kind)`` before the point and ``end(ctx, token, kind)`` after it; ``end``
returns the report as an artifact of the point (``awr_<b>_<e>.txt`` from
DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT, or ``sp_<b>_<e>.txt`` from ``@?/rdbms/admin/spreport``, which needs
the sqlplus backend). On RAC (planner.steps.rac) the AWR end also keeps the global report over every instance,
``awr_rac_<b>_<e>.txt`` from AWR_GLOBAL_REPORT_TEXT; Statspack, which has none, says the figures are per instance.
On a host whose sessions run in a PDB (inventory ``oracle_pdb``) the AWR level is decided once
(planner.db.container.read_awr_level): the PDB's own snapshots, reported with its DBID, where it keeps its own
AWR, else the CDB's, taken in CDB$ROOT and said to cover every PDB.
Between two points of a step on one host, AWR's end snapshot, its reports and the next point's begin snapshot are
one session (``end_then_begin``): the next point's interval then begins right after this one's reports, so it
also covers the gap between the points (planner's work on the results, the next point's folder and samplers'
start, ~0.1-0.5 s in which the workload does not run): AWR's per-second rates are diluted by that gap over the
point's length (under 1% for a point of a minute). Statspack's report is its own session; its begins are not chained.
Steps whose class says ``writes_db_report = True`` (a kit that takes its own snapshots) are not bracketed.
The collect steps ``awr`` / ``statspack`` themselves only declare this; they have nothing to do at the end.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from planner.db.access import Database, Part, PartOutput, SqlplusDatabase, cdb_root, config_for, open_database
from planner.db.config import DbConfig
from planner.db.container import AwrLevel, read_awr_level, read_container
from planner.db.identity import (
    CLUSTER_DATABASE_SQL,
    INSTANCES_SQL,
    Instance,
    cluster_database_from,
    instances_from,
)
from planner.db.licence import LICENCE_VAR, diagnostics_pack
from planner.errors import StepError
from planner.plan.kind_schema import sampled_around_points
from planner.plan.model import Section
from planner.status import Artifact, Status
from planner.steps.base import AroundPoint, Change, Collected, Outcome, StepContext
from planner.steps.rac import Cluster, cluster_from, global_report_sql, read_cluster, statspack_note
from planner.steps.wl_common import point_dir, save_text

KINDS = ("awr", "statspack")


@dataclass(frozen=True, slots=True)
class SnapToken:
    kind: str
    begin_snap: int
    dbid: int
    inst_num: int
    cluster: Cluster = Cluster(1, False, "not asked")
    level: AwrLevel = AwrLevel()

    @property
    def notes(self) -> tuple[str, ...]:
        """What the point's result says about the report's scope (the engine's window adds them as warnings)."""
        level = (self.level.describe(),) if self.kind == "awr" and self.level.describe() else ()
        if self.kind == "statspack" and self.cluster.rac:
            return (statspack_note(self.cluster),)
        if self.kind == "awr" and self.cluster.rac and self.cluster.instances < 2:
            return (*level,
                    f"RAC ({self.cluster.why}): only one instance is open, so the global report covers it alone")
        return level


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise StepError(f"unknown database report kind {kind!r}", hint="use awr or statspack")


_SNAP_FN = {"awr": "dbms_workload_repository.create_snapshot", "statspack": "statspack.snap"}
DBID_SQL = "select dbid from v$database"
INSTANCE_SQL = "select instance_number from v$instance"


def _snap(db: object, kind: str) -> int:
    fn = _SNAP_FN[kind]
    snap = db.callfunc(fn, int)  # type: ignore[attr-defined]
    if snap is None:
        raise StepError(f"{fn} returned no snapshot id")
    return int(snap)


def _snap_part(kind: str) -> Part:
    """The snapshot into the session's bind variable :s, which later parts of the same script read."""
    fn = _SNAP_FN[kind]
    return Part(f"variable s number\nbegin\n  :s := {fn};\nend;\n/\nselect :s from dual;", fn)


def _number(out: PartOutput, what: str, default: int | None = None) -> int:
    rows = [r for r in out.rows() if r and r[0] is not None]
    if rows:
        return int(float(str(rows[-1][0])))
    if default is None:
        raise StepError(f"{what} returned nothing")
    return default


def _begin_script(db: SqlplusDatabase, kind: str, known: SnapToken | None, level: AwrLevel) -> SnapToken:
    """The begin snapshot and what the point needs to know, in one sqlplus session: each session is a process
    start and a connect on the database host, in the dead time between the points."""
    parts = [_snap_part(kind)]
    if known is None:
        parts += [Part(DBID_SQL + ";", DBID_SQL), Part(INSTANCE_SQL + ";", INSTANCE_SQL),
                  Part(CLUSTER_DATABASE_SQL + ";", CLUSTER_DATABASE_SQL, may_fail=True)]
    parts.append(Part(INSTANCES_SQL + ";", INSTANCES_SQL, may_fail=True))  # its failure is said, as read_cluster's
    out = db.run_parts(parts)
    snap = _number(out[0], _SNAP_FN[kind])
    if known is None:
        dbid, inst = level.dbid or _number(out[1], DBID_SQL, 0), _number(out[2], INSTANCE_SQL, 1)
        cluster_database = out[3].error is None and cluster_database_from(out[3].rows())
    else:
        dbid, inst, cluster_database = known.dbid, known.inst_num, known.cluster.cluster_database
    return SnapToken(kind, snap, dbid, inst, _cluster_of(out[-1], cluster_database), level)


def _cluster_of(gv: PartOutput, cluster_database: bool) -> Cluster:
    """The Cluster from a GV$INSTANCE part's output (its failure is said, as read_cluster's)."""
    try:
        instances: tuple[Instance, ...] | Exception = gv.error or instances_from(gv.rows())
    except (ValueError, TypeError) as e:
        instances = e
    return cluster_from(cluster_database, instances)


def _begin_calls(db: Database, kind: str, known: SnapToken | None, level: AwrLevel) -> SnapToken:
    """As _begin_script, one call at a time over the one connection (the thin backend)."""
    snap = _snap(db, kind)
    if known is None:
        dbid = level.dbid or int(db.query(DBID_SQL)[0][0] or 0)
        inst = int(db.query(INSTANCE_SQL)[0][0] or 1)
    else:
        dbid, inst = known.dbid, known.inst_num
    cluster = read_cluster(db, known.cluster.cluster_database if known is not None else None)
    return SnapToken(kind, snap, dbid, inst, cluster, level)


def begin(ctx: StepContext, kind: str, known: SnapToken | None = None) -> SnapToken:
    """Take the begin snapshot; the token says what ``end`` needs.

    ``known``: this host's token from an earlier point of the same workload step. The licence, DBID and
    instance number and CLUSTER_DATABASE it holds cannot change between the points, so they are not asked
    again. GV$INSTANCE is read at every point (an instance of a RAC may leave during a sweep). With sqlplus all
    of it is one session; the licence read of the first point is one more (it must come before any snapshot)."""
    _check_kind(kind)
    if known is not None and known.kind != kind:
        known = None
    if kind == "awr" and known is None:  # AWR is the Diagnostics Pack's (planner.db.licence): never taken unlicensed
        licensed, why = diagnostics_pack(ctx)
        if not licensed:
            raise StepError(f"collect awr: AWR needs the Oracle Diagnostics Pack and {why}",
                            hint=f"collect statspack instead, or state {LICENCE_VAR}: true for the host when the "
                                 "pack is licensed")
    level = known.level if known is not None else _awr_level(ctx, kind)
    db = open_database(ctx, _session(ctx, kind, level))
    try:
        if isinstance(db, SqlplusDatabase):
            return _begin_script(db, kind, known, level)
        if kind == "statspack":
            raise StepError("Statspack reports need the sqlplus access (spreport.sql is a SQL*Plus script)",
                            hint="set oracle_access: sqlplus for this host, or collect awr instead")
        return _begin_calls(db, kind, known, level)
    finally:
        db.close()


def _awr_level(ctx: StepContext, kind: str) -> AwrLevel:
    """In the inventory's PDB, which AWR the snapshots go to (read there, once per host and step)."""
    cfg = config_for(ctx)
    if kind != "awr" or not cfg.pdb:
        return AwrLevel()
    db = open_database(ctx, cfg)
    try:
        return read_awr_level(db, read_container(db))
    finally:
        db.close()


def _session(ctx: StepContext, kind: str, level: AwrLevel) -> DbConfig:
    """The PDB's own AWR is snapped and reported in the PDB; the CDB's in CDB$ROOT, whatever oracle_pdb says."""
    cfg = config_for(ctx)
    return cdb_root(cfg) if kind == "awr" and cfg.pdb and not level.pdb else cfg


def _awr_sql(token: SnapToken, end: int | str) -> str:
    return (f"select output from table(dbms_workload_repository.awr_report_text("
            f"{token.dbid}, {token.inst_num}, {token.begin_snap}, {end}))")


Ended = tuple[list[Artifact], SnapToken | None]  # the point's reports; the next point's begin, when taken


def _next_begin(token: SnapToken, snap: int | None, cluster: Cluster) -> SnapToken | None:
    """The next point's begin token, taken in the end's session (None: it was not, and that point takes its own)."""
    return None if snap is None else SnapToken(token.kind, snap, token.dbid, token.inst_num, cluster, token.level)


def _awr_end_script(ctx: StepContext, db: SqlplusDatabase, token: SnapToken, then_begin: bool) -> Ended:
    """The end snapshot and its reports in one sqlplus session: the reports take the snapshot id from the
    session's bind variable :s. ``then_begin``: the next point's begin snapshot and GV$INSTANCE follow in the
    same session, after the reports (whose own load is then not in the next point's interval); their failure
    is not the point's, the next point then takes its begin itself."""
    parts = [_snap_part("awr"), Part(_awr_sql(token, ":s") + ";", "AWR_REPORT_TEXT")]
    if token.cluster.rac:  # the cluster's figures: the per-instance report has one instance's share
        parts.append(Part(global_report_sql(token.dbid, token.begin_snap, ":s") + ";", "AWR_GLOBAL_REPORT_TEXT"))
    if then_begin:
        parts += [dataclasses.replace(_snap_part("awr"), may_fail=True),
                  Part(INSTANCES_SQL + ";", INSTANCES_SQL, may_fail=True)]
    out = db.run_parts(parts)
    b, e = token.begin_snap, _number(out[0], _SNAP_FN["awr"])
    kept = [save_text(ctx, f"awr_{b}_{e}.txt", out[1].text, "awr_text")]
    if token.cluster.rac:
        kept.append(save_text(ctx, f"awr_rac_{b}_{e}.txt", out[2].text, "awr_rac_text"))
    if not then_begin:
        return kept, None
    snap = out[-2]
    nxt = None if snap.error else _number(snap, _SNAP_FN["awr"], -1)
    return kept, _next_begin(token, None if nxt is None or nxt < 0 else nxt,
                             _cluster_of(out[-1], token.cluster.cluster_database))


def end(ctx: StepContext, token: SnapToken, kind: str) -> list[Artifact]:
    """Take the end snapshot and keep the report between the two as an artifact of the point."""
    return end_then_begin(ctx, token, kind, False)[0]


def end_then_begin(ctx: StepContext, token: SnapToken, kind: str, then_begin: bool) -> Ended:
    """As ``end``; with ``then_begin`` (another point follows on this host) AWR also takes the next point's begin
    snapshot in the same session, right after the reports: one database session between two points instead of
    two. That point's AWR interval then also holds the gap between the points (planner's work on this point's
    results, the next point's folder and samplers' start: no load of the workload's). Statspack's report is a
    session of its own (spreport.sql), so its next begin is not chained."""
    _check_kind(kind)
    db = open_database(ctx, _session(ctx, kind, token.level))
    try:
        if kind == "awr" and isinstance(db, SqlplusDatabase):
            return _awr_end_script(ctx, db, token, then_begin)
        e = _snap(db, kind)
        b = token.begin_snap
        if kind == "awr":
            out = [save_text(ctx, f"awr_{b}_{e}.txt", _report_text(db, _awr_sql(token, e), "AWR_REPORT_TEXT"),
                             "awr_text")]
            if token.cluster.rac:
                text = _report_text(db, global_report_sql(token.dbid, b, e), "AWR_GLOBAL_REPORT_TEXT")
                out.append(save_text(ctx, f"awr_rac_{b}_{e}.txt", text, "awr_rac_text"))
            return out, (_thin_next(db, token) if then_begin else None)
        assert isinstance(db, SqlplusDatabase)
        work = point_dir(ctx, "statspack")
        ctx.run(["chmod", "1777", work], check=False)  # the Oracle OS user writes the report there
        remote = posixpath.join(work, f"sp_{b}_{e}.lst")
        db.run_script(f"set define on\ndefine begin_snap={b}\ndefine end_snap={e}\ndefine num_days=1\n"
                      f"define report_name={remote}\n@?/rdbms/admin/spreport", "spreport")
        return [ctx.fetch(remote, f"sp_{b}_{e}.txt", "statspack")], None
    finally:
        db.close()


def _thin_next(db: Database, token: SnapToken) -> SnapToken | None:
    """The next point's begin over the end's connection (the thin backend); a failure leaves it to that point."""
    try:
        snap = _snap(db, token.kind)
    except StepError:
        return None
    return _next_begin(token, snap, read_cluster(db, token.cluster.cluster_database))


def report_between(ctx: StepContext, begin_snap: int, end_snap: int, dbid: int | None = None,
                   inst: int | None = None) -> list[Artifact]:
    """The AWR report between two snapshots the workload took itself (a timed driver that snapshots its own
    window): its measured window, not planner's bracket around the whole point. ``dbid``/``inst``: the ones the
    workload printed for its snapshots (in a PDB from 12.2 a manual snapshot is the PDB's, filed under its own
    DBID), else this session's V$DATABASE and V$INSTANCE."""
    db = open_database(ctx, config_for(ctx))
    try:
        dbid = dbid or int(db.query(DBID_SQL)[0][0] or 0)
        inst = inst or int(db.query(INSTANCE_SQL)[0][0] or 1)
        sql = (f"select output from table(dbms_workload_repository.awr_report_text("
               f"{dbid}, {inst}, {int(begin_snap)}, {int(end_snap)}))")
        name = f"awr_{int(begin_snap)}_{int(end_snap)}.txt"
        return [save_text(ctx, name, _report_text(db, sql, "AWR_REPORT_TEXT"), "awr_text")]
    finally:
        db.close()


def _report_text(db: object, sql: str, what: str) -> str:
    if isinstance(db, SqlplusDatabase):  # raw text: query() would strip the report's indentation
        return db.run_script(sql + ";", what)
    return "\n".join((r[0] or "") for r in db.query(sql)) + "\n"  # type: ignore[attr-defined]


class _Declared(AroundPoint):
    sections = frozenset({Section.COLLECT})
    needs_database = True

    def check(self, ctx: StepContext) -> Change:
        return Change(False, f"{self.kind} reports are taken around each workload point")

    def apply(self, ctx: StepContext) -> Outcome:
        return Outcome(Status.OK, f"{self.kind} reports were taken around each workload point (see their artifacts)")

    @classmethod
    def around_point_begin(cls, ctx: StepContext, previous: object | None = None) -> SnapToken:
        return begin(ctx, cls.kind, previous if isinstance(previous, SnapToken) else None)

    @classmethod
    def around_point_end(cls, ctx: StepContext, token: object, then_begin: bool = False) -> Collected:
        assert isinstance(token, SnapToken)  # the one around_point_begin gave
        kept, nxt = end_then_begin(ctx, token, cls.kind, then_begin)
        return Collected(tuple(kept), token.notes, nxt)


class AwrCollect(_Declared):
    kind: ClassVar[str] = "awr"
    args_schema = sampled_around_points("AWR report around each workload point")

    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Also: the licence is a statement (planner.db.licence), so a host whose inventory, plan or -e does not
        state it true is known before any host to fail at its first point."""
        super().check_args(rendered, plan_dir, variables)
        if variables is not None and str(variables.get(LICENCE_VAR, "")).strip().lower() not in ("true", "yes", "1",
                                                                                                   "on"):
            said = (f"{LICENCE_VAR} is {variables[LICENCE_VAR]!r}" if LICENCE_VAR in variables
                    else f"{LICENCE_VAR} is not stated")
            raise StepError(f"collect awr: AWR needs the Oracle Diagnostics Pack and {said} for this host",
                            hint=f"collect statspack instead, or state {LICENCE_VAR}: true for the host when the "
                                 "pack is licensed")


class StatspackCollect(_Declared):
    kind: ClassVar[str] = "statspack"
    args_schema = sampled_around_points("Statspack report around each workload point")
