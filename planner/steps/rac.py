"""RAC: how many instances a database has, and the global (cluster) AWR report beside the per-instance one.

A per-instance AWR report (awrrpt / AWR_REPORT_TEXT, SLOB's awr.txt) covers one instance: on RAC its physical
reads are that instance's share, never the cluster's. The cluster's figures are in the global report:
``DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT(dbid, inst_num_list, bid, eid)`` (Oracle Database PL/SQL
Packages and Types Reference, DBMS_WORKLOAD_REPOSITORY; an empty instance list reports every instance), or
``awrgrpt.sql``, which SLOB 2.x runs after each test (runit.sh ``f_generate_awr_report``: awr_rac.txt, and
awr_rac.html gzipped to awr_rac.html.gz). Statspack has no global report: on RAC it is per instance only, and
planner says so (never a silent fallback).

A database is RAC when GV$INSTANCE has more than one row, or when CLUSTER_DATABASE is TRUE (one instance of a
cluster database still open: the report says that only one instance was seen). SLOB 2.4+ writes awr_rac.txt on
every AWR run, RAC or not (2.4.0 runit.sh f_generate_awr_report, goryszewskig/SLOB-PDB @ e8d9167 :696-710; the
kit's own sample is a "RAC NO" report), so the file is no proof of RAC: the database decides, and only when
GV$INSTANCE cannot be read does the global report's own instance count.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from planner.db.access import Database, config_for, open_database
from planner.db.identity import Instance, read_cluster_database, read_instances
from planner.errors import OracleError
from planner.steps.base import StepContext


@dataclass(frozen=True, slots=True)
class Cluster:
    instances: int  # rows of GV$INSTANCE (1 when it could not be read and CLUSTER_DATABASE is not TRUE)
    cluster_database: bool
    why: str  # how planner knows, in words
    read: bool = True  # False: GV$INSTANCE could not be read (the instance count is a guess)

    @property
    def rac(self) -> bool:
        return self.instances > 1 or self.cluster_database


def read_cluster(db: Database, cluster_database: bool | None = None) -> Cluster:
    """Ask the database whether it is RAC: the same two reads as the restart's identity (planner.db.identity),
    but a failure here is said in the report rather than stopping the collection. ``cluster_database``: read
    before on this instance (a static parameter: it changes only with a restart), so not asked again."""
    cluster = bool(cluster_database)
    if cluster_database is None:
        with contextlib.suppress(OracleError):  # GV$INSTANCE below decides; its failure is said
            cluster = read_cluster_database(db)
    try:
        return cluster_from(cluster, read_instances(db))
    except (OracleError, ValueError, TypeError) as e:
        return cluster_from(cluster, e)


def cluster_from(cluster_database: bool, instances: tuple[Instance, ...] | Exception) -> Cluster:
    """The Cluster from CLUSTER_DATABASE and GV$INSTANCE's rows, or the error GV$INSTANCE was read with."""
    if isinstance(instances, Exception):
        why = f"GV$INSTANCE could not be read ({str(instances).splitlines()[0][:120]})"
        return Cluster(1, cluster_database, why + ("; CLUSTER_DATABASE=TRUE" if cluster_database
                                                   else "; CLUSTER_DATABASE is not TRUE"), read=False)
    n = len(instances)
    why = f"GV$INSTANCE has {n} instance(s)" + ("; CLUSTER_DATABASE=TRUE" if cluster_database else "")
    return Cluster(max(1, n), cluster_database, why)


def global_report_sql(dbid: int, begin: int, end: int | str) -> str:
    """The global report over every instance (an empty instance list is all of them). ``end``: a snapshot id, or
    the SQL*Plus bind variable holding it (":e")."""
    return (f"select output from table(dbms_workload_repository.awr_global_report_text("
            f"{dbid}, '', {begin}, {end}))")


def statspack_note(c: Cluster) -> str:
    return (f"RAC ({c.why}): Statspack has no global report, so the figures are per instance only (the instance "
            "planner connected to), not the cluster's — collect awr (Diagnostics Pack) for cluster totals")


def from_global_report(c: Cluster, instances_in_report: int | None) -> Cluster:
    """When GV$INSTANCE could not be read, the global report's own instance count decides (its Database
    Instances table lists every instance it covers)."""
    if c.read or not instances_in_report:
        return c
    return Cluster(instances_in_report, c.cluster_database,
                   f"{c.why}; the kit's global report lists {instances_in_report} instance(s)", read=False)


def cluster_of(ctx: StepContext) -> Cluster:
    """read_cluster over a connection of its own (the step's database settings)."""
    db = open_database(ctx, config_for(ctx))
    try:
        return read_cluster(db)
    finally:
        db.close()
