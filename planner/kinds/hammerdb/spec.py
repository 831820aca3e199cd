"""HammerDB's tables: its parser kind, metric words and axis words."""

from planner.kindspec import KindSpec, Oltp, ParserKind, ReportWords

KIND = KindSpec(
    "hammerdb", step="planner.steps.wl_hammerdb:HammerDB",
    oltp=Oltp(throughput="hammerdb.nopm", users="hammerdb.active_vu"),
    parsers=(
        ParserKind("hammerdb", "hammerdb", "HammerDB (hammerdbcli) TPROC-C output", names=(r"hammerdb",),
                   headline=(("hammerdb.nopm", {}), ("hammerdb.tpm", {})),
                   result_lines=r"(?<!\")TEST RESULT\s*:\s*System achieved", step_kind="hammerdb",
                   reads="HammerDB output"),
    ),
    report=ReportWords(
        prefix="hammerdb", tool="HammerDB",
        metric_words={
            "hammerdb.nopm": "HammerDB NOPM", "hammerdb.tpm": "HammerDB TPM",  # new orders / transactions a minute
            "hammerdb.active_vu": "HammerDB active virtual users",
            "hammerdb.vu_finished": "HammerDB virtual users finished",
            "hammerdb.vu_failed": "HammerDB virtual users failed", "hammerdb.warehouses": "HammerDB warehouses",
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
    ),
)
