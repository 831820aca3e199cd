"""pgbench parser on real outputs, 9.4 to 17 (tests/data/pgbench/, each file's source in the README there)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.pgbench import parse as pgbench
from planner.kinds.pgbench import spec
from planner.metrics import Direction, Parsed
from planner.parsers.unwrap import unwrap

DATA = Path(__file__).parents[1] / "data" / "pgbench"


def read(name: str) -> Parsed:
    return pgbench.parse(unwrap((DATA / name).read_text()).text, name)


# file -> tps, its basis, clients, threads, transactions, latency avg, latency stddev (None: not printed)
PINNED = {
    "pg94_connect_r_custom_query.txt": (388.651729, "including connections establishing", 16, 4, 11662, 41.159, None),
    "pg13_aborted_fatal.txt": (3418.414178, "excluding connections establishing", 200, 1, 2051316, 58.507, None),
    "pg14_connect_P_markdown_trailing_spaces.md": (358.824451, "including reconnection times", 50, 2, 10803,
                                                   136.894, 125.682),
    "pg15_connect_C.md": (27.166807, "including reconnection times", 50, 1, 554, 1840.481, None),
    "pg16_rate_P_lag_aborted.txt": (3365.804033, "without initial connection time", 600, 10, 51186, 8699.6, 3955.854),
    "pg17_r_aborted_backend_died.md": (488.95287, "without initial connection time", 10, 2, 137267, 20.452, None),
    "pg_docs_15_latency_limit_r.txt": (346.224794, "without initial connection time", 10, 1, 10000, 28.488, 21.009),
    "local_15_two_builtins_P_r.txt": (477.610376, "without initial connection time", 4, 2, 1896, 8.283, 10.638),
    "local_15_serializable_max_tries_failures_detailed.txt": (249.486914, "without initial connection time", 8, 2,
                                                              990, 6.231, 8.031),
    "local_15_connect_C.txt": (93.359593, "including reconnection times", 4, 2, 283, 42.845, None),
    "local_15_rate_latency_limit.txt": (181.804825, "without initial connection time", 4, 2, 542, 6.696, 4.821),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_real_outputs_read_value_by_value(name: str) -> None:
    tps, basis, clients, threads, transactions, avg, stddev = PINNED[name]
    p = read(name)
    label = {"run": "1"} if p.get("pgbench.tps", run="1") else {}
    assert p.kind == "pgbench"
    assert p.value("pgbench.tps", **label) == tps
    assert p.fact("tps_basis") == basis
    assert p.value("pgbench.clients", **label) == clients
    assert p.value("pgbench.threads", **label) == threads
    assert p.value("pgbench.transactions", **label) == transactions
    assert p.value("pgbench.latency_ms", stat="avg", **label) == avg
    assert p.value("pgbench.latency_ms", stat="stddev", **label) == stddev
    assert p.get("pgbench.tps").direction is Direction.HIGHER
    assert p.get("pgbench.latency_ms").direction is Direction.LOWER
    assert p.errors == ()
    assert pgbench.looks_like((DATA / name).read_text())


def test_before_14_both_tps_lines_are_kept_and_excluding_is_the_tps() -> None:
    p = read("pg13_aborted_fatal.txt")
    assert p.value("pgbench.tps_including_connections", run="1") == 3418.405289
    assert p.value("pgbench.tps", run="1") == 3418.414178
    assert p.get("pgbench.tps", run="1").source.line == 12


def test_connect_before_14_takes_including_because_excluding_left_out_the_connections() -> None:
    # 9.4 -C: 388.65 including, 135108.21 excluding (every transaction paid for a connection): 388 is the rate
    p = read("pg94_connect_r_custom_query.txt")
    assert p.value("pgbench.tps") == 388.651729
    assert p.fact("transaction_type") == "Custom query"
    assert p.value("pgbench.duration_s") == 30
    assert p.value("pgbench.scale") == 1


def test_9x_tab_separated_statement_latency() -> None:
    p = read("pg94_connect_r_custom_query.txt")
    (row,) = p.all("pgbench.statement_latency_ms")
    assert row.value == 30.871288
    assert row.label("statement") == "select 1;"
    assert row.label("n") == "1"


def test_15_statement_table_with_failures_in_docs_form() -> None:
    p = read("pg_docs_15_latency_limit_r.txt")
    rows = p.all("pgbench.statement_latency_ms")
    assert [r.value for r in rows] == [0.012, 0.002, 0.002, 0.002, 0.319, 0.834, 0.641, 11.126, 12.961, 0.634, 1.957]
    assert rows[7].label("statement") == "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;"
    assert [m.value for m in p.all("pgbench.statement_failures")] == [0.0] * 11
    assert p.value("pgbench.late") == 1311
    assert p.value("pgbench.late_pct") == 13.11
    assert p.fact("latency_limit_ms") == "50.0"
    assert p.value("pgbench.transactions_intended") == 10000
    assert p.value("pgbench.initial_connection_ms") == 69.068


def test_failures_and_retries_table_and_detailed_failures() -> None:
    p = read("local_15_serializable_max_tries_failures_detailed.txt")
    assert p.value("pgbench.max_tries") == 3
    assert p.value("pgbench.failed") == 1894
    assert p.value("pgbench.failed_pct") == 65.673
    assert p.value("pgbench.failed", cause="serialization") == 1894
    assert p.value("pgbench.failed", cause="deadlock") == 0
    assert p.value("pgbench.retried") == 2184
    assert p.value("pgbench.retries") == 4198
    tellers = p.get("pgbench.statement_failures", n="8")
    assert tellers.value == 1627 and tellers.label("statement").startswith("UPDATE pgbench_tellers")
    assert p.value("pgbench.statement_retries", n="8") == 3479
    assert p.value("pgbench.statement_latency_ms", n="11") == 2.483


def test_several_scripts_each_section_and_its_statements() -> None:
    p = read("local_15_two_builtins_P_r.txt")
    assert p.fact("transaction_type") == "multiple scripts"
    assert p.fact("script_1") == "<builtin: TPC-B (sort of)>"
    assert p.fact("script_2") == "<builtin: select only>"
    assert p.value("pgbench.script_weight", script="1") == 3
    assert p.value("pgbench.script_transactions", script="1") == 1449
    assert p.value("pgbench.script_tps", script="1") == 365.009196
    assert p.value("pgbench.script_tps", script="2") == 112.60118
    assert p.value("pgbench.script_latency_ms", script="2", stat="avg") == 0.791
    assert p.value("pgbench.script_failed", script="2") == 0
    assert len([m for m in p.all("pgbench.statement_latency_ms") if m.label("script") == "1"]) == 11
    assert [m.value for m in p.all("pgbench.statement_latency_ms") if m.label("script") == "2"] == [0.003, 0.788]
    # the script sections' own "number of failed transactions" are not the run's
    assert [m.value for m in p.all("pgbench.failed")] == [0.0]


def test_progress_lines_are_a_series_and_summarised() -> None:
    rows = pgbench.progress((DATA / "pg16_rate_P_lag_aborted.txt").read_text())
    assert [r.t_s for r in rows] == [15.0, 16.2, 17.0, 18.0, 19.0, 20.0]
    assert rows[0].tps == 4463.5 and rows[0].lat_ms == 9282.401 and rows[0].stddev_ms == 291.795
    assert rows[0].failed == 0 and rows[0].lag_ms == 9151.783
    p = read("pg16_rate_P_lag_aborted.txt")
    assert p.value("pgbench.progress_tps", stat="max") == 4877.7
    assert p.value("pgbench.progress_tps", stat="min") == 4364.9
    assert p.value("pgbench.progress_samples") == 6
    assert p.value("pgbench.lag_ms", stat="avg") == 8537.507
    assert p.value("pgbench.lag_ms", stat="max") == 14600.129


def test_progress_with_skipped_and_with_retries() -> None:
    skipped = pgbench.progress((DATA / "local_15_rate_latency_limit.txt").read_text())
    assert [(r.lag_ms, r.skipped) for r in skipped] == [(0.597, 9), (0.392, 6), (0.533, 8)]
    retried = pgbench.progress((DATA / "local_15_serializable_max_tries_failures_detailed.txt").read_text())
    assert [(r.failed, r.retried, r.retries) for r in retried] == [(937, 1088, 2088), (957, 1096, 2110)]
    before_15 = pgbench.progress((DATA / "pg14_connect_P_markdown_trailing_spaces.md").read_text())
    assert [(r.t_s, r.tps, r.failed) for r in before_15] == [(10.0, 353.0, None), (20.0, 360.4, None),
                                                             (30.0, 361.9, None)]


def test_aborted_runs_are_counted_in_every_form() -> None:
    for name, clients in (("pg13_aborted_fatal.txt", None), ("pg16_rate_P_lag_aborted.txt", None),
                          ("pg17_r_aborted_backend_died.md", 10), ("local_15_aborted_division_by_zero.txt", 2)):
        p = read(name)
        labels = {"run": "1"} if name.startswith("pg13") else {}
        assert p.value("pgbench.aborted", **labels) == 1, name
        assert p.value("pgbench.clients_aborted", **labels) == clients, name
        assert "Run was aborted" in p.fact("aborted")
    assert read("pg15_connect_C.md").get("pgbench.aborted") is None


def test_a_run_aborted_before_any_transaction_has_no_tps_and_no_nan() -> None:
    # pgbench 15 prints "number of failed transactions: 0 (NaN%)" and no tps line when nothing ran
    p = read("local_15_aborted_division_by_zero.txt")
    assert p.get("pgbench.tps") is None
    assert p.value("pgbench.transactions") == 0
    assert p.value("pgbench.transactions_intended") == 10
    assert p.value("pgbench.failed") == 0
    assert p.get("pgbench.failed_pct") is None
    assert p.errors == ()


def test_several_runs_in_one_file_are_labelled() -> None:
    p = read("pg96_13_markdown_list_P_three_runs.md")  # "- number of clients: 10": a Markdown list around some lines
    assert [m.value for m in p.all("pgbench.tps")] == [1181.757528, 18814.351018, 1514.964706]
    assert [m.label("run") for m in p.all("pgbench.tps")] == ["1", "2", "3"]
    assert p.value("pgbench.clients", run="3") == 10
    assert p.value("pgbench.transactions", run="2") == 188166
    assert p.value("pgbench.progress_tps", run="2", stat="mean") == pytest.approx(18815.6)
    rows = pgbench.progress((DATA / "pg96_13_markdown_list_P_three_runs.md").read_text())
    assert [r.run for r in rows] == [1, 1, 2, 2, 3, 3]
    second = read("pg13_aborted_fatal.txt")
    assert second.value("pgbench.transactions_intended", run="2") == 20000
    assert second.get("pgbench.aborted", run="2") is None


def test_versions_from_the_banner() -> None:
    p = read("pg17_r_aborted_backend_died.md")
    assert (p.fact("version"), p.fact("server_version")) == ("17.6", "17.5")
    assert read("pg14_connect_P_markdown_trailing_spaces.md").fact("version") == "14.5"
    # the 16.4 Homebrew client against a 15.6 server (the README's pg16 source prints it so)
    q = pgbench.parse("pgbench (16.4 (Homebrew), server 15.6)\ntps = 1.0 (without initial connection time)\n")
    assert (q.fact("version"), q.fact("server_version")) == ("16.4", "15.6")


def test_a_paste_with_prompt_fence_and_indent_goes_through_unwrap() -> None:
    text = (DATA / "pg_docs_15_latency_limit_r.txt").read_text()
    pasted = "```\n$ pgbench -r -L 50 bench\n" + "".join(f"    {line}\n" for line in text.splitlines()) + "```\n"
    u = unwrap(pasted).text
    assert pgbench.looks_like(u)
    assert pgbench.parse(u).value("pgbench.tps") == 346.224794
    assert len(pgbench.parse(u).all("pgbench.statement_latency_ms")) == 11


def test_other_tools_outputs_are_not_pgbench() -> None:
    data = Path(__file__).parents[1] / "data"
    for f in sorted(data.glob("*/*")):
        if f.parent.name in ("pgbench",) or f.suffix in (".gz", ".html") or not f.is_file():
            continue
        assert not pgbench.looks_like(f.read_text(errors="replace")), f


def test_nothing_readable_is_a_named_error() -> None:
    with pytest.raises(ParseError, match="pgbench parser.*no 'tps = N"):
        pgbench.parse("starting vacuum...end.\n", "x.txt")


def test_windows_line_ends_read_the_same() -> None:
    text = (DATA / "local_15_two_builtins_P_r.txt").read_text()
    crlf, lf = pgbench.parse(text.replace("\n", "\r\n")), pgbench.parse(text)
    assert [(m.key, m.value) for m in crlf.metrics] == [(m.key, m.value) for m in lf.metrics]
    assert crlf.facts == lf.facts


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir() if p.name != "README.md"))
def test_every_result_line_gives_a_value_and_no_key_twice(name: str) -> None:
    """What the registry checks once the kind is registered (planner.parsers._checked): RESULT_LINES is the
    pattern the kind's ParserKind.result_lines will carry."""
    text = unwrap((DATA / name).read_text()).text
    p = pgbench.parse(text, name)
    keys = [m.key for m in p.metrics]
    assert len(keys) == len(set(keys)), name
    said = {m.source.line for m in p.metrics if m.source}
    unread = [line for no, line in enumerate(text.split("\n"), 1)
              if no not in said and re.search(spec.RESULT_LINES, line)]
    assert unread == [], name


LINES = [line for p in sorted(DATA.iterdir()) if p.name != "README.md" for line in p.read_text().splitlines()]
ODD = ["0", "-1", "nan", "-nan", "inf", "1e400", "", "9" * 40, "9" * 400, "1,234", "NaN", "."]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES), max_size=60), st.lists(st.sampled_from(ODD), min_size=1, max_size=5))
def test_shuffled_lines_and_odd_numbers_give_values_or_a_parse_error(picked: list[str], odd: list[str]) -> None:
    text = "\n".join(re.sub(r"\d+(?:\.\d+)?", lambda m: odd[len(m.group()) % len(odd)], line) if i % 3 == 0
                     else line for i, line in enumerate(picked))
    try:
        p = pgbench.parse(text)
    except ParseError:
        return
    assert all(m.value == m.value and abs(m.value) != float("inf") for m in p.metrics)  # no NaN, no inf
    pgbench.progress(text)


def test_digits_past_a_float_are_a_warning_not_infinity() -> None:
    p = pgbench.parse("number of clients: 4\ntps = " + "9" * 400 + " (without initial connection time)\n"
                      "progress: 1.0 s, " + "9" * 400 + " tps, lat 1.0 ms stddev 0.1\n")
    assert p.get("pgbench.tps") is None
    assert [e.section for e in p.errors] == ["pgbench.tps"]
    assert p.value("pgbench.clients") == 4
    assert pgbench.progress("progress: 1.0 s, " + "9" * 400 + " tps, lat 1.0 ms stddev 0.1\n") == ()
    table = pgbench.parse("statement latencies in milliseconds and failures:\n   0.5  " + "9" * 400 + "  BEGIN;\n")
    assert table.value("pgbench.statement_latency_ms", n="1") == 0.5
    assert [e.section for e in table.errors] == ["pgbench.statement_failures"]


def test_every_metric_has_display_words_and_every_sample_a_headline() -> None:
    names: set[str] = set()
    for f in sorted(DATA.iterdir()):
        if f.name != "README.md":
            p = read(f.name)
            names |= {m.name for m in p.metrics}
            headline = spec.PARSERS[0].headline or ()
            assert any(p.get(name, **labels) for name, labels in headline) or p.get("pgbench.aborted"), f
    assert names - set(spec.REPORT.metric_words) == set()
    # pgbench -l writes pgbench_log.<pid>[.<thread>]: per-transaction rows, another format, never this kind
    assert [bool(re.search(spec.PARSERS[0].names[0], n)) for n in ("pgbench_c16.log", "pgbench_log.4242")] == [True,
                                                                                                           False]


def test_a_nohup_file_with_three_results_on_one_line() -> None:
    # "number of transactions actually processed: 7504   tps = 370.51 (including ...)   tps = 377.96 (excluding ...)"
    p = read("pg91_nohup_glued_lines_r.md")
    assert p.value("pgbench.transactions") == 7504
    assert p.value("pgbench.tps") == 377.964565
    assert p.value("pgbench.tps_including_connections") == 370.510431
    assert p.fact("transaction_type") == "TPC-B (sort of)"
    assert len(p.all("pgbench.statement_latency_ms")) == 14


def test_statements_wrapped_over_two_lines_are_one_row() -> None:
    p = read("pg_pre14_P_elided_wrapped_statements.md")
    rows = p.all("pgbench.statement_latency_ms")
    assert [r.value for r in rows] == [0.004, 0.001, 0.001, 0.001, 0.145, 4.907, 0.320, 0.419, 0.367, 0.269, 5.020]
    assert rows[5].label("statement") == "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"
    assert rows[10].label("statement") == "END;"  # the shell's "[1]+ Done" line below is not part of it
    # "....", "0:07.70" and a note after a progress line do not stop the series
    assert [r.t_s for r in pgbench.progress(unwrap((DATA / "pg_pre14_P_elided_wrapped_statements.md").read_text())
                                            .text)] == [1, 2, 3, 4, 5, 6, 7, 13, 14, 15]


def test_9x_space_aligned_rows_and_old_transaction_type() -> None:
    p = read("pg92_tpcb_r_spaces.md")
    assert p.fact("transaction_type") == "TPC-B (sort of)"
    assert p.value("pgbench.tps") == 266.567761
    assert p.value("pgbench.statement_latency_ms", n="11") == 337.067165
    assert p.get("pgbench.statement_latency_ms", n="4").label("statement") == "\\setrandom aid 1 :naccounts"


def test_10_to_13_script_statistics_header_over_the_table() -> None:
    # "script statistics:" then " - statement latencies in milliseconds:" (10-13, one script)
    p = read("pg10_13_script_statistics_rds_nohup.md")
    assert p.value("pgbench.tps") == 0.666016
    rows = p.all("pgbench.statement_latency_ms")
    assert len(rows) == 11 and rows[4].value == 213.795 and rows[4].label("statement") == "BEGIN;"
    assert all(not r.label("script") for r in rows)
    # twice in one file: each run keeps its own table
    text = unwrap((DATA / "pg10_13_script_statistics_rds_nohup.md").read_text()).text
    two = pgbench.parse(text + "\n" + text.replace("0.666016", "0.7"))
    assert [m.value for m in two.all("pgbench.tps")] == [0.666016, 0.7]
    assert len([m for m in two.all("pgbench.statement_latency_ms") if m.label("run") == "1"]) == 11
    assert len([m for m in two.all("pgbench.statement_latency_ms") if m.label("run") == "2"]) == 11


def test_9_6_to_13_two_scripts_and_a_connect_run_the_summary_cannot_tell() -> None:
    # 9.6-13 under -C: "excluding" (321.16) is only 5% above "including" (305.35) here, and before 14 nothing in
    # the summary says -C (the command line is a paste wrapper unwrap takes off): both figures are kept
    p = read("pg96_13_connect_two_scripts.md")
    assert p.value("pgbench.tps") == 321.164275
    assert p.fact("tps_basis") == "excluding connections establishing"
    assert p.value("pgbench.tps_including_connections") == 305.345263
    assert p.value("pgbench.transactions_intended") == 2000
    assert p.value("pgbench.script_weight", script="1") == 1
    assert p.value("pgbench.script_transactions", script="2") == 1018
    assert p.value("pgbench.script_tps", script="2") == 155.420739
    assert p.value("pgbench.script_latency_ms", script="1", stat="stddev") == 17.322
    assert p.fact("script_2") == "mysql.sql"


def test_a_paste_of_only_the_summarys_last_lines_is_recognised_and_read() -> None:
    """A note that kept only "latency average", "initial connection time" and "tps = … (without initial connection
    time)" of five runs (pgbouncer's three pool modes) was "not a recognised benchmark output"."""
    from planner.parsers import parse_file

    p = parse_file(DATA / "pg17_tails_only_pgbouncer_modes.md")
    assert p.kind == "pgbench" and p.errors == ()
    assert [p.value("pgbench.tps", run=str(n)) for n in range(1, 6)] == [
        10110.033249, 10255.067469, 95233.918819, 96869.238527, 96711.368256]
    assert [p.value("pgbench.latency_ms", stat="avg", run=str(n)) for n in range(1, 6)] == [
        0.989, 0.975, 0.105, 0.103, 0.103]
    assert p.value("pgbench.initial_connection_ms", run="5") == 4.135
