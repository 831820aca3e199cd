"""pgbench's tables: its parser kind, metric words and axis words (the host variables that reach the server are
everyone's PostgreSQL client variables: planner.variables)."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

# The lines that always give a value (the registry names any it finds unread): the tps lines, the latency
# lines (the run's and each script's), the transaction counts. Progress lines are summarised, not each read.
RESULT_LINES = (r"\btps\s*=\s*\d[\d.]*\s*\(|latency (?:average|stddev)\s*[=:]\s*\d|"
                r"number of (?:transactions actually processed|failed transactions):\s*\d")
PARSERS = (
    ParserKind("pgbench", "planner.kinds.pgbench.parse", "pgbench output (summary, -r, -P)",
               names=(r"pgbench.*\.(txt|log|out)$",),
               headline=(("pgbench.tps", {}), ("pgbench.latency_ms", {"stat": "avg"}), ("pgbench.failed", {})),
               result_lines=RESULT_LINES, step_kind="pgbench", reads="pgbench output"),
    ParserKind("pgbench_log", "planner.kinds.pgbench.txlog", "pgbench per-transaction log (--log)",
               names=(r"pgbench_log\.\d+(?:\.\d+)?$", r"pgbench_log\.txn$"),
               headline=(("pgbench.latency_ms", {"stat": "p99"}),), step_kind="pgbench",
               reads="pgbench per-transaction log"),
)
REPORT = ReportWords(
    prefix="pgbench", tool="pgbench",
    metric_words={
        "pgbench.tps": "pgbench transactions per second",
        "pgbench.tps_including_connections": "pgbench TPS including connection set-up",
        "pgbench.tps_excluding_connections": "pgbench TPS excluding connection set-up",
        "pgbench.latency_ms": "pgbench transaction latency",
        "pgbench.initial_connection_ms": "pgbench initial connection time",
        "pgbench.connection_ms": "pgbench connection time per transaction",
        "pgbench.lag_ms": "pgbench schedule lag",
        "pgbench.transactions": "pgbench transactions processed",
        "pgbench.transactions_intended": "pgbench transactions intended",
        "pgbench.failed": "pgbench failed transactions",
        "pgbench.failed_pct": "pgbench failed transactions share",
        "pgbench.retried": "pgbench transactions retried",
        "pgbench.retries": "pgbench retries",
        "pgbench.skipped": "pgbench transactions skipped",
        "pgbench.late": "pgbench transactions over the latency limit",
        "pgbench.late_pct": "pgbench share over the latency limit",
        "pgbench.clients": "pgbench clients",
        "pgbench.threads": "pgbench threads",
        "pgbench.scale": "pgbench scale factor",
        "pgbench.duration_s": "pgbench run time",
        "pgbench.max_tries": "pgbench maximum tries",
        "pgbench.aborted": "pgbench run aborted",
        "pgbench.clients_aborted": "pgbench clients aborted",
        "pgbench.statement_latency_ms": "{statement}, latency",
        "pgbench.statement_failures": "{statement}, failures",
        "pgbench.statement_retries": "{statement}, retries",
        "pgbench.script_tps": "pgbench script {script} transactions per second",
        "pgbench.script_transactions": "pgbench script {script} transactions",
        "pgbench.script_weight": "pgbench script {script} weight",
        "pgbench.script_failed": "pgbench script {script} failed transactions",
        "pgbench.script_latency_ms": "pgbench script {script} latency",
        "pgbench.progress_tps": "pgbench progress transactions per second",
        "pgbench.progress_samples": "pgbench progress reports",
        "pgbench.logged_transactions": "pgbench transactions in the per-transaction log",
        "pgbench.logged_failed": "pgbench failed transactions in the per-transaction log",
        "pgbench.logged_skipped": "pgbench skipped transactions in the per-transaction log",
    },
    param_words={"clients": "pgbench clients", "jobs": "pgbench threads"},
    counted=frozenset({"clients", "jobs"}),
)

KIND = KindSpec(
    "pgbench", step="planner.kinds.pgbench.step:Pgbench", parsers=PARSERS, report=REPORT,
    run_findings="planner.kinds.pgbench.findings:run_findings",
)
