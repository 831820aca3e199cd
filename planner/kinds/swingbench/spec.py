"""Swingbench's tables: its parser kinds (results XML, charbench console), metric words and axis words."""

from planner.kindspec import KindSpec, Oltp, ParserKind, ReportWords

KIND = KindSpec(
    "swingbench", step="planner.steps.wl_swingbench:Swingbench",
    oltp=Oltp(throughput="swingbench.tps", users="swingbench.users"),
    parsers=(
        ParserKind("swingbench", "swingbench", "Swingbench results XML (charbench -r)",
                   names=(r"(swingbench|charbench|results).*\.xml$",), xml_report=True, step_kind="swingbench",
                   reads="Swingbench results XML",
                   headline=(("swingbench.tps", {}), ("swingbench.tpm", {}), ("swingbench.max_tps", {}),
                             ("swingbench.failed_txns", {}))),
        ParserKind("swingbench_console", "swingbench", "Swingbench charbench console (-v columns)",
                   "looks_like_console", "parse_console", (r"charbench.*\.(log|txt|out)$",),
                   headline=(("swingbench.console_tps", {"stat": "mean"}),
                             ("swingbench.console_tpm", {"stat": "mean"}))),
    ),
    report=ReportWords(
        prefix="swingbench", tool="Swingbench",
        metric_words={
            "swingbench.tps": "Swingbench transactions per second",
            "swingbench.tpm": "Swingbench transactions per minute",
            "swingbench.max_tps": "Swingbench peak transactions per second",
            "swingbench.max_tpm": "Swingbench peak transactions per minute",
            "swingbench.completed_txns": "Swingbench completed transactions",
            "swingbench.failed_txns": "Swingbench failed transactions", "swingbench.users": "Swingbench users",
            "swingbench.run_time_s": "Swingbench run time", "swingbench.console_tps": "Swingbench console TPS",
            "swingbench.console_tpm": "Swingbench console TPM",
            "swingbench.console_errors": "Swingbench console errors",
            "swingbench.tx_count": "{transaction}, completed",
            "swingbench.tx_failed": "{transaction}, failed", "swingbench.response_ms": "{transaction}, response time",
        },
        param_words={"users": "Swingbench users"}, counted=frozenset({"users"}),
    ),
)
