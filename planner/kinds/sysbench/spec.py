"""sysbench's tables: its parser kind, metric words, axis words and where its step is. planner reads sysbench's
output of any release (``planner parse``, ``planner analyze``) and runs sysbench 1.0+'s OLTP scripts against
PostgreSQL (the ``sysbench`` step)."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

# The lines that always give a value (the registry names any it finds unread): the rates, the run time, the
# latency average and percentile. Interval lines are summarised, not each read.
RESULT_LINES = (r"^[ \t]*(?:transactions|queries|read/write requests):\s*\d+\s*\(|"
                r"^[ \t]*(?:total time|time elapsed):\s*\d|"
                r"^[ \t]*(?:avg|\d+(?:\.\d+)?th percentile|approx\.\s+\d+(?:\.\d+)? percentile):\s*\d|"
                r"^[ \t]*(?:(?:reads|writes|fsyncs)/s|(?:read|written), MiB/s):\s*\d|"
                r"^[ \t]*Operations performed:\s*\d+ reads?,|^[ \t]*Read [\d.]+\s*[KMGT]?b\s+Written|"
                r"^[ \t]*[\d.]+ Requests/sec executed|"
                r"^[ \t]*(?:read|write|fsync):\s*IOPS=\d|^[ \t]*(?:Total operations|Operations performed):\s*\d+\s*\(|"
                r"^[ \t]*[\d.]+\s*Mi?B transferred\s*\(")
PARSERS = (
    ParserKind("sysbench", "planner.kinds.sysbench.parse", "sysbench output (statistics, --report-interval)",
               names=(r"sysbench.*\.(txt|log|out)$",),
               headline=(("sysbench.tps", {}), ("sysbench.qps", {}), ("sysbench.latency_ms", {"stat": "p95"}),
                         ("sysbench.latency_ms", {"stat": "avg"}), ("sysbench.events_per_s", {}),
                         ("sysbench.file_mib_per_s", {"op": "read"}), ("sysbench.file_mib_per_s", {"op": "write"}),
                         ("sysbench.file_mib_per_s", {"op": "total"}), ("sysbench.memory_mib_per_s", {})),
               result_lines=RESULT_LINES, step_kind="sysbench", reads="sysbench output"),
)
REPORT = ReportWords(
    prefix="sysbench", tool="sysbench",
    metric_words={
        "sysbench.tps": "sysbench transactions per second",
        "sysbench.qps": "sysbench queries per second",
        "sysbench.rw_requests_per_s": "sysbench read/write requests per second",
        "sysbench.other_per_s": "sysbench other operations per second",
        "sysbench.transactions": "sysbench transactions",
        "sysbench.queries": "sysbench {type} queries",
        "sysbench.errors": "sysbench ignored errors",
        "sysbench.file_ops_per_s": "sysbench file {op} operations per second",
        "sysbench.file_mib_per_s": "sysbench file {op} throughput",
        "sysbench.errors_per_s": "sysbench ignored errors per second",
        "sysbench.file_ops": "sysbench file {op} operations",
        "sysbench.file_transferred_mib": "sysbench file {op} MiB transferred",
        "sysbench.file_requests_per_s": "sysbench file requests per second",
        "sysbench.memory_operations": "sysbench memory operations",
        "sysbench.memory_ops_per_s": "sysbench memory operations per second",
        "sysbench.memory_transferred_mib": "sysbench memory MiB transferred",
        "sysbench.memory_mib_per_s": "sysbench memory throughput",
        "sysbench.reconnects": "sysbench reconnects",
        "sysbench.deadlocks": "sysbench deadlocks",
        "sysbench.time_s": "sysbench run time",
        "sysbench.events": "sysbench events",
        "sysbench.events_per_s": "sysbench events per second",
        "sysbench.cpu_events_per_s": "sysbench CPU speed (events per second)",
        "sysbench.latency_ms": "sysbench latency",
        "sysbench.threads": "sysbench threads",
        "sysbench.thread_events": "sysbench events per thread",
        "sysbench.thread_time_s": "sysbench run time per thread",
        "sysbench.interval_tps": "sysbench interval transactions per second",
        "sysbench.interval_file_mib_per_s": "sysbench interval file {op} throughput",
        "sysbench.interval_samples": "sysbench interval reports",
    },
    param_words={"threads": "sysbench threads"},
    counted=frozenset({"threads"}),
)

# The host variables its step reads (pg_host, pg_port, pg_user, pg_password) are declared once, by the other
# PostgreSQL client kind (a variable is declared by one kind).
KIND = KindSpec("sysbench", step="planner.kinds.sysbench.step:Sysbench", parsers=PARSERS, report=REPORT,
                run_findings="planner.kinds.sysbench.findings:run_findings")
