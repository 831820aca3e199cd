"""HammerDB's tables: its parser kind, metric words and axis words."""

from collections.abc import Mapping
from typing import Any

from planner.kindspec import HostVar, KindSpec, Oltp, OwnWindow, ParserKind, ReportWords


def client_host(args: Mapping[str, Any]) -> str:
    """Why hammerdbcli cannot run on a client host for these arguments ("" when it can): both engines' paths are
    built (docs/load-generator-host.md: Oracle through the listener, PostgreSQL (db: pg) over TCP to pg_host)."""
    del args  # every hammerdb step can: the function stays, as an empty one would mean "not built"
    return ""


KIND = KindSpec(
    "hammerdb", step="planner.kinds.hammerdb.step:HammerDB",
    oltp=Oltp(throughput="hammerdb.nopm", users="hammerdb.active_vu",
              one_core_source="HammerDB, How many warehouses for the TPROC-C test",
              generator="hammerdbcli", client_host="planner.kinds.hammerdb.spec:client_host",
              rehearse_client="planner.kinds.hammerdb.standin:serve_client",
              generator_source="HammerDB's documentation, Test Network Configuration: run on the same system as the "
                               "SUT the database cannot use all of the CPU (DocBook/docs.xml v4.12 lines 2430-2450)"),
    findings="planner.kinds.hammerdb.findings:setup",
    run_findings="planner.kinds.hammerdb.findings:run_findings",
    standin="planner.kinds.hammerdb.standin:install", standin_version="planner.kinds.hammerdb.standin:version",
    # the timed test after the ramp-up, from HammerDB's own timestamped log (the step keeps it as hammerdb.log)
    own_window=OwnWindow("hammerdb.log", "planner.kinds.hammerdb.window:timed_window"),
    host_vars=(
        HostVar("hammerdb_system_password", "text", "manager",
                "the system user's password the hammerdbcli scripts give (a secret: masked in every record)"),
        HostVar("hammerdb_tpcc_password", "text", "the TPROC-C user's name",
                "the TPROC-C user's password (a secret: masked in every record)"),
        HostVar("tns_admin", "path", "$ORACLE_HOME/network/admin",
                "the folder of tnsnames.ora when the service is a TNS alias kept elsewhere (hammerdbcli's TNS_ADMIN)"),
        HostVar("hammerdb_release", "choice", "4.12",
                "rehearsal only: the HammerDB release the stand-in imitates (3.3, 4.0, 4.5, 4.6, 4.12, 5.0 or 6.0)"),
        HostVar("hammerdb_build_timeout_s", "seconds", "2 min a warehouse per build virtual user + 600, at least 1800",
                "buildschema's own timeout (a build loads every warehouse: the run's minutes say nothing of it)"),
    ),
    parsers=(
        ParserKind("hammerdb", "planner.kinds.hammerdb.parse", "HammerDB (hammerdbcli) TPROC-C output",
                   names=(r"hammerdb",), headline=(("hammerdb.nopm", {}), ("hammerdb.tpm", {})),
                   result_lines=r"(?<!\")TEST RESULT\s*:\s*System achieved", step_kind="hammerdb",
                   reads="HammerDB output"),
    ),
    report=ReportWords(
        prefix="hammerdb", tool="HammerDB",
        metric_words={
            "hammerdb.nopm": "HammerDB NOPM", "hammerdb.tpm": "HammerDB TPM",  # new orders / transactions a minute
            "hammerdb.active_vu": "HammerDB active virtual users",
            "hammerdb.vu_finished": "HammerDB virtual users finished",
            "hammerdb.vu_failed": "HammerDB virtual users failed",
            "hammerdb.warehouses": "HammerDB warehouses in the schema",
            "hammerdb.rampup_min": "HammerDB ramp-up", "hammerdb.duration_min": "HammerDB timed test",
            "hammerdb.awr_begin_snap": "HammerDB AWR begin snapshot",
            "hammerdb.awr_end_snap": "HammerDB AWR end snapshot",
            "hammerdb.proc_calls": "HammerDB {proc} calls",
            "hammerdb.proc_avg_ms": "HammerDB {proc} average response time",
            "hammerdb.proc_min_ms": "HammerDB {proc} minimum response time",
            "hammerdb.proc_max_ms": "HammerDB {proc} maximum response time",
            "hammerdb.proc_p50_ms": "HammerDB {proc} median response time",
            "hammerdb.proc_p95_ms": "HammerDB {proc} 95th percentile response time",
            "hammerdb.proc_p99_ms": "HammerDB {proc} 99th percentile response time",
        },
        param_words={"virtual_users": "virtual users"}, counted=frozenset({"virtual_users"}),
        # the schema's warehouses beside NOPM (max(w_id), what the driver ran on: a DBA reads NOPM against them)
        table_metrics=("hammerdb.warehouses", "hammerdb.vu_failed"),
    ),
)
