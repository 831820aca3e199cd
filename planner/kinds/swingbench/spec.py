"""Swingbench's tables: its parser kinds (results XML, charbench console), metric words and axis words."""

from collections.abc import Mapping
from typing import Any

from planner.kindspec import HostVar, KindSpec, Oltp, OwnWindow, ParserKind, ReportWords


def _password(name: str, what: str) -> tuple[HostVar, ...]:
    """A password variable and the two that may name where it is instead (read in this order)."""
    return (HostVar(name, "text", "", f"{what} (a secret: masked in every record)"),
            HostVar(f"{name}_env", "text", "", f"an environment variable on the controller holding {what}"),
            HostVar(f"{name}_file", "path", "", f"a file holding {what} (a relative path: beside the plan)"))


def client_host(args: Mapping[str, Any]) -> str:
    """Why charbench cannot run on a client host for these arguments ("" when it can): it always can
    (docs/load-generator-host.md); a connect string naming another host than the database host is refused by the
    step's own check (Swingbench.check_args), which sees the host's variables."""
    return ""


KIND = KindSpec(
    "swingbench", step="planner.kinds.swingbench.step:Swingbench",
    oltp=Oltp(throughput="swingbench.tps", users="swingbench.users", generator="charbench",
              client_host="planner.kinds.swingbench.spec:client_host",
              rehearse_client="planner.kinds.swingbench.standin:serve_client"),
    # the run with every user logged on, from charbench's console (the step keeps it as charbench.log)
    own_window=OwnWindow("charbench.log", "planner.kinds.swingbench.window:logged_on_window"),
    standin="planner.kinds.swingbench.standin:install", standin_version="planner.kinds.swingbench.standin:version",
    host_vars=(
        *_password("swingbench_password", "the SOE user's password"),
        *_password("swingbench_dba_password", "the password of the DBA oewizard connects as (build: only)"),
        HostVar("swingbench_dba_user", "text", "system", "the DBA oewizard connects as to build the SOE schema"),
        HostVar("swingbench_build_timeout_s", "seconds", "1 h per scale unit + 600, at least 1800",
                "oewizard's own timeout (a load of a few GB takes far longer than a run)"),
    ),
    parsers=(
        ParserKind("swingbench", "planner.kinds.swingbench.parse", "Swingbench results XML (charbench -r)",
                   names=(r"(swingbench|charbench|results).*\.xml$",), xml_report=True, step_kind="swingbench",
                   reads="Swingbench results XML",
                   headline=(("swingbench.tps", {}), ("swingbench.tpm", {}), ("swingbench.max_tps", {}),
                             ("swingbench.failed_txns", {}))),
        ParserKind("swingbench_console", "planner.kinds.swingbench.parse", "Swingbench charbench console (-v columns)",
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
