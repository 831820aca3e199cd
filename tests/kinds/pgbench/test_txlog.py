"""pgbench's per-transaction log (``--log``) read into latency percentiles, pinned on real logs (tests/data/pgbench_log,
README.md says where each comes from). The expected values were read from each file with ``sort -n``, not with the
parser: rank ceil(p/100 * n) of the completed transactions' latencies (µs), cross-checked against the count
pgbench's own summary printed for the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.db.libpq import Server
from planner.errors import ParseError, StepError
from planner.kinds.pgbench import txlog
from planner.kinds.pgbench.step import Pgbench
from planner.parsers import parse_file, parse_text

DATA = Path(__file__).resolve().parents[2] / "data" / "pgbench_log"


def _figures(text: str) -> dict[str, float]:
    parsed = parse_text(text, "<paste>", "pgbench_log")
    return {m.key: m.value for m in parsed.metrics}


def _pcts(p50: int, p90: int, p95: int, p99: int, top: int) -> dict[str, float]:
    return {f"pgbench.latency_ms{{stat={k}}}": v / 1000
            for k, v in (("p50", p50), ("p90", p90), ("p95", p95), ("p99", p99), ("max", top))}


# file -> (p50, p90, p95, p99, max in µs), completed, failed, skipped
CASES = {
    # two threads' files one after the other; 300/300 in pgbench's summary
    "local_15_txlog_select_only_two_threads.txn": ((81, 429, 3686, 7210, 23587), 300, 0, 0),
    # -R 300 -L 2: "skipped" lines, the schedule_lag field; summary: 387 processed, 248 skipped
    "local_15_txlog_rate_latency_limit_skipped.txn": ((6167, 15505, 19200, 30206, 32507), 387, 0, 248),
    # --max-tries=2 --failures-detailed: "serialization" in the time field, the retries field; summary: 228
    # processed, 1022 serialization failures
    "local_15_txlog_serializable_max_tries_failures_detailed.txn": ((9448, 22392, 27022, 38229, 65655), 228, 1022, 0),
    # a public paste (pgsql-admin, 2022): the shell line above it, ten transactions
    "pgsql_admin_2022_txlog_head.txt": ((156086, 168589, 170027, 170027, 170027), 10, 0, 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_percentiles_of_real_logs(name: str) -> None:
    (p50, p90, p95, p99, top), done, failed, skipped = CASES[name]
    parsed = parse_file(DATA / name, "pgbench_log")
    assert not parsed.errors
    got = {m.key: m.value for m in parsed.metrics}
    assert got == {**_pcts(p50, p90, p95, p99, top), "pgbench.logged_transactions": done,
                   "pgbench.logged_failed": failed, "pgbench.logged_skipped": skipped}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_log_is_recognised_without_being_named(name: str) -> None:
    assert parse_file(DATA / name).kind == "pgbench_log"


def test_pasted_forms_read_the_same() -> None:
    text = (DATA / "local_15_txlog_rate_latency_limit_skipped.txn").read_text()
    want = _figures(text)
    lines = text.splitlines()
    assert _figures("\r\n".join(lines) + "\r\n") == want  # CRLF
    assert _figures("\n".join(f"    {x}" for x in lines)) == want  # indented (a mail, a Markdown block)
    assert _figures("```text\n" + text + "```\n") == want  # fenced
    assert _figures("\n".join(x.replace(" ", "  ") for x in lines)) == want  # columns padded


def test_an_aggregated_log_is_refused_by_name() -> None:
    with pytest.raises(ParseError, match="aggregated log .*--aggregate-interval.*no percentile"):
        parse_file(DATA / "local_15_aggregate_interval.txn", "pgbench_log")


def test_lines_that_are_no_log_line_are_counted_not_read() -> None:
    text = (DATA / "pgsql_admin_2022_txlog_head.txt").read_text() + "pgbench: error: client 3 aborted\n"
    parsed = parse_text(text, "<paste>", "pgbench_log")
    assert [e.line for e in parsed.errors] == [12]
    assert {m.key: m.value for m in parsed.metrics}["pgbench.logged_transactions"] == 10


def test_no_log_line_at_all_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no per-transaction line"):
        parse_text("tps = 12.5 (without initial connection time)\n", "<x>", "pgbench_log")


def test_the_series_buckets_by_completion_time() -> None:
    # three transactions of 1, 3 and 2 ms: the first starts the window; 1 s buckets
    text = "0 1 1000 0 1700000000 1000\n1 1 3000 0 1700000000 900000\n0 2 2000 0 1700000001 500000\n"
    log = txlog.read(text.splitlines())
    s = txlog.series(log, 1.0)
    assert s is not None and s.metric == "pgbench.latency_ms" and s.unit == "ms"
    assert s.t == (0.0, 1.0) and s.values == (2.0, 2.0) and s.low == (1.0, 2.0) and s.high == (3.0, 2.0)
    assert dict(s.percentiles)["p99"] == (3.0, 2.0) and dict(s.percentiles)["p50"] == (1.0, 2.0)


def test_the_run_asks_for_the_log_only_when_told() -> None:
    server = Server("", "", "")
    base = {"database": "bench", "clients": 4}
    assert "-l" not in Pgbench(base).run_argv(server, "/w/p000")
    argv = Pgbench({**base, "latency_log": True}).run_argv(server, "/w/p000")
    assert argv[argv.index("-l") + 1] == "--log-prefix=/w/p000/pgbench_log" and "--sampling-rate=1" not in argv
    argv = Pgbench({**base, "latency_log": True, "sampling_rate": 0.05}).run_argv(server, "/w/p000")
    assert "--sampling-rate=0.05" in argv


@pytest.mark.parametrize("rate", [0, 1.5, "half"])
def test_a_sampling_rate_that_is_no_share_is_refused(rate: object) -> None:
    with pytest.raises(StepError, match="sampling_rate"):
        Pgbench({"database": "bench", "clients": 4, "latency_log": True, "sampling_rate": rate})
