"""sysbench parser on real outputs, 0.4 to 1.1 (tests/data/sysbench/, each file's source in the README there)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import ParseError
from planner.kinds.sysbench import parse as sysbench
from planner.kinds.sysbench import spec
from planner.metrics import Direction, Parsed
from planner.parsers.unwrap import unwrap

DATA = Path(__file__).parents[1] / "data" / "sysbench"


def read(name: str) -> Parsed:
    return sysbench.parse(unwrap((DATA / name).read_text()).text, name)


# file -> version, threads, tps, transactions, time, latency avg, the percentile read and its value
PINNED = {
    "sysbench_0_4_12_oltp_read_only.txt": ("0.4.12", 2, 7330.02, 439803, 60.0003, 0.27, "p95", 0.37),
    "sysbench_0_5_oltp_read_only_report_interval.txt": ("0.5", 1, 723.48, 36898, 51.0007, 1.38, "p95", 1.74),
    "local_1_0_20_pgsql_oltp_read_write_report_interval.txt": ("1.0.20", 4, 424.12, 1702, 4.0115, 9.41, "p95", 20.0),
    "local_1_0_20_pgsql_oltp_read_only_p99.txt": ("1.0.20", 2, 507.16, 1524, 3.0035, 3.93, "p99", 18.61),
    "sysbench_0_4_12_10_oltp_complex_report_interval.md": ("0.4.12.10", 8, 522.91, 31378, 60.0065, 15.29, "p99",
                                                           58.12),
    "sysbench_1_1_0_oltp_point_select.md": ("1.1.0-de18a03", 16, 1714.17, 1028516, 600.0085, 9.33, "p95", 10.65),
}
# no banner in the excerpt: the version and threads are not in it
UNBANNERED = {
    "sysbench_0_5_oltp_ro_99pct_no_comma.txt": (8128.29, 2454794, 302.0063, 7.87, "p99", 15.66),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_real_outputs_read_value_by_value(name: str) -> None:
    version, threads, tps, transactions, time_s, avg, pct, pct_value = PINNED[name]
    p = read(name)
    assert p.kind == "sysbench"
    assert p.fact("version") == version
    assert p.value("sysbench.threads") == threads
    assert p.value("sysbench.tps") == tps
    assert p.get("sysbench.tps").direction is Direction.HIGHER
    assert p.value("sysbench.transactions") == transactions
    assert p.value("sysbench.time_s") == time_s
    assert p.value("sysbench.latency_ms", stat="avg") == avg
    assert p.value("sysbench.latency_ms", stat=pct) == pct_value
    assert p.get("sysbench.latency_ms", stat=pct).direction is Direction.LOWER
    assert p.errors == ()
    assert sysbench.looks_like((DATA / name).read_text())


def test_queries_by_type_errors_and_qps_from_1_0() -> None:
    p = read("local_1_0_20_pgsql_oltp_read_write_report_interval.txt")
    assert [p.value("sysbench.queries", type=t) for t in ("read", "write", "other", "total")] == [24024, 6801, 3467,
                                                                                                  34292]
    assert p.value("sysbench.qps") == 8545.25
    assert p.value("sysbench.errors") == 14
    assert p.value("sysbench.errors_per_s") == 3.49
    assert p.value("sysbench.reconnects") == 0
    assert p.value("sysbench.latency_ms", stat="max") == 89.09
    assert p.value("sysbench.thread_events", stat="stddev") == 21.59


def test_0_4_and_0_5_words_read_requests_deadlocks_and_ms_suffixes() -> None:
    old = read("sysbench_0_4_12_oltp_read_only.txt")
    assert old.fact("test") == "OLTP"
    assert old.value("sysbench.deadlocks") == 0
    assert old.value("sysbench.rw_requests_per_s") == 7330.02
    assert old.value("sysbench.latency_ms", stat="max") == 0.85
    assert old.get("sysbench.qps") is None  # 0.4 printed no queries-per-second line
    five = read("sysbench_0_5_oltp_read_only_report_interval.txt")
    assert five.value("sysbench.latency_ms", stat="min") == 1.19
    assert five.value("sysbench.other_per_s") == 1446.96


def test_1_1_throughput_section_and_the_cpu_test() -> None:
    p = read("sysbench_1_1_0_oltp_point_select.md")
    assert p.value("sysbench.events_per_s") == 1714.1689
    assert p.value("sysbench.events") == 1028516
    cpu = read("sysbench_1_1_0_cpu.md")
    assert cpu.value("sysbench.cpu_events_per_s") == 114.08
    assert cpu.value("sysbench.events_per_s") == 114.075
    assert cpu.value("sysbench.latency_ms", stat="p95") == 8.74
    assert cpu.get("sysbench.tps") is None
    local = read("local_1_0_20_cpu.txt")
    assert local.value("sysbench.cpu_events_per_s") == 1251.58
    assert local.value("sysbench.latency_ms", stat="sum") == 3977.24


def test_report_interval_lines_are_a_series_in_both_layouts() -> None:
    new = sysbench.intervals((DATA / "local_1_0_20_pgsql_oltp_read_write_report_interval.txt").read_text())
    assert [r.t_s for r in new] == [1.0, 2.0, 3.0, 4.0]
    first = new[0]
    assert (first.threads, first.tps, first.qps, first.reads_per_s, first.writes_per_s, first.other_per_s) == (
        4, 453.17, 9180.15, 6433.2, 1820.66, 926.3)
    assert (first.percentile, first.lat_ms, first.errors_per_s, first.reconnects_per_s) == (95.0, 17.01, 2.99, 0.0)
    old = sysbench.intervals((DATA / "sysbench_0_5_oltp_read_only_report_interval.txt").read_text())
    assert len(old) == 25
    assert (old[0].t_s, old[0].threads, old[0].tps, old[0].reads_per_s, old[0].lat_ms) == (2.0, 1, 604.96, 6050.55,
                                                                                          2.18)
    assert old[0].qps is None
    p = read("sysbench_1_1_0_oltp_point_select.md")
    assert p.value("sysbench.interval_samples") == 60
    assert p.value("sysbench.interval_tps", stat="min") == 1634.69
    assert p.value("sysbench.interval_tps", stat="max") == 1738.1


def test_two_runs_in_one_file_are_labelled() -> None:
    one = (DATA / "local_1_0_20_pgsql_oltp_read_only_p99.txt").read_text()
    two = (DATA / "local_1_0_20_pgsql_oltp_read_write_report_interval.txt").read_text()
    p = sysbench.parse(one + two)
    assert p.value("sysbench.tps", run="1") == 507.16
    assert p.value("sysbench.tps", run="2") == 424.12
    assert p.value("sysbench.threads", run="2") == 4
    assert p.value("sysbench.interval_samples", run="2") == 4
    assert p.get("sysbench.interval_samples", run="1") is None


def test_a_paste_with_prompt_and_indent_goes_through_unwrap() -> None:
    text = (DATA / "sysbench_0_4_12_oltp_read_only.txt").read_text()
    pasted = "$ sysbench --test=oltp run\n" + "".join(f"> {line}\n" for line in text.splitlines())
    u = unwrap(pasted).text
    assert sysbench.looks_like(u)
    assert sysbench.parse(u).value("sysbench.tps") == 7330.02


def test_other_tools_outputs_are_not_sysbench() -> None:
    data = Path(__file__).parents[1] / "data"
    for f in sorted(data.glob("*/*")):
        if f.parent.name == "sysbench" or f.suffix in (".gz", ".html") or not f.is_file():
            continue
        assert not sysbench.looks_like(f.read_text(errors="replace")), f


def test_nothing_readable_is_a_named_error() -> None:
    with pytest.raises(ParseError, match="sysbench parser"):
        sysbench.parse("Creating table 'sbtest1'...\n", "x.txt")


def test_a_0_5_interval_line_without_errors_field() -> None:
    # a real 0.5 line (code index id 12307863821, README): reads/s, writes/s, the 99th percentile, no errors field
    line = "[ 230s] threads: 64, tps: 4221.96, reads/s: 59107.08, writes/s: 16886.75, response time: 47.44ms (99%)"
    (row,) = sysbench.intervals(line)
    assert (row.t_s, row.threads, row.tps, row.writes_per_s, row.lat_ms, row.percentile) == (230.0, 64, 4221.96,
                                                                                           16886.75, 47.44, 99.0)
    assert row.errors_per_s is None


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir() if p.name != "README.md"))
def test_every_result_line_gives_a_value_and_no_key_twice(name: str) -> None:
    """What the registry checks once the kind is registered (planner.parsers._checked), with RESULT_LINES."""
    text = unwrap((DATA / name).read_text()).text
    p = sysbench.parse(text, name)
    keys = [m.key for m in p.metrics]
    assert len(keys) == len(set(keys)), name
    said = {m.source.line for m in p.metrics if m.source}
    unread = [line for no, line in enumerate(text.split("\n"), 1)
              if no not in said and re.search(spec.RESULT_LINES, line)]
    assert unread == [], name


LINES = [line for p in sorted(DATA.iterdir()) if p.name != "README.md" for line in p.read_text().splitlines()]
ODD = ["0", "-1", "nan", "inf", "1e400", "", "9" * 40, "9" * 400, "1,234", "."]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES), max_size=60), st.lists(st.sampled_from(ODD), min_size=1, max_size=5))
def test_shuffled_lines_and_odd_numbers_give_values_or_a_parse_error(picked: list[str], odd: list[str]) -> None:
    text = "\n".join(re.sub(r"\d+(?:\.\d+)?", lambda m: odd[len(m.group()) % len(odd)], line) if i % 3 == 0
                     else line for i, line in enumerate(picked))
    try:
        p = sysbench.parse(text)
    except ParseError:
        return
    assert all(m.value == m.value and abs(m.value) != float("inf") for m in p.metrics)  # no NaN, no inf
    sysbench.intervals(text)


def test_digits_past_a_float_are_a_warning_not_infinity() -> None:
    p = sysbench.parse("    transactions:                        1702   (" + "9" * 400 + " per sec.)\n")
    assert p.value("sysbench.transactions") == 1702
    assert p.get("sysbench.tps") is None
    assert [e.section for e in p.errors] == ["sysbench.tps"]


def test_every_metric_has_display_words_and_every_sample_a_headline() -> None:
    names: set[str] = set()
    for f in sorted(DATA.iterdir()):
        if f.name != "README.md":
            p = read(f.name)
            names |= {m.name for m in p.metrics}
            assert any(p.get(name, **labels) for name, labels in spec.PARSERS[0].headline or ()), f
    assert names - set(spec.REPORT.metric_words) == set()


def test_the_latency_histogram_is_passed_over() -> None:
    p = read("sysbench_1_1_0_cpu_histogram.md")
    assert p.value("sysbench.latency_ms", stat="p99") == 49.21
    assert p.value("sysbench.events_per_s") == 6481.1278
    assert p.value("sysbench.threads") == 8
    assert p.errors == ()


def test_checkpoint_reports_are_labelled_and_the_final_report_is_the_run() -> None:
    # --report-checkpoints prints a whole report at each checkpoint, "[ 10s ] Checkpoint report:" above it
    # (sysbench.c; the lines are the local 1.0.20 run's own, its report repeated as a checkpoint)
    final = (DATA / "local_1_0_20_pgsql_oltp_read_only_p99.txt").read_text()
    report = final[final.index("SQL statistics:"):]
    text = final.replace("SQL statistics:", "[ 2s ] Checkpoint report:\n" + report.replace("507.16", "498.00")
                         + "\nSQL statistics:", 1)
    p = sysbench.parse(text)
    assert p.value("sysbench.tps") == 507.16  # the run's own figure first: the headline
    assert p.value("sysbench.tps", checkpoint="2s") == 498.0
    assert p.get("sysbench.tps", run="1") is None  # one run, no run label


@pytest.mark.parametrize("name", sorted(UNBANNERED))
def test_real_excerpts_without_a_banner_read_value_by_value(name: str) -> None:
    tps, transactions, time_s, avg, pct, pct_value = UNBANNERED[name]
    p = read(name)
    assert (p.value("sysbench.tps"), p.value("sysbench.transactions"), p.value("sysbench.time_s")) == (
        tps, transactions, time_s)
    assert p.value("sysbench.latency_ms", stat="avg") == avg and p.value("sysbench.latency_ms", stat=pct) == pct_value
    assert p.errors == ()


def test_an_early_0_5_interval_line_with_no_comma_before_response_time() -> None:
    """Some 0.5 builds print "writes/s: 0.00 response time: 12.65ms (99%)" (no comma): the series was empty."""
    rows = sysbench.intervals((DATA / "sysbench_0_5_oltp_ro_99pct_no_comma.txt").read_text())
    assert [(r.t_s, r.threads, r.tps, r.reads_per_s, r.writes_per_s, r.lat_ms, r.percentile) for r in rows] == [
        (290.0, 64, 8150.20, 114097.42, 0.0, 13.27, 99.0), (295.0, 64, 8154.40, 114163.16, 0.0, 12.06, 99.0),
        (300.0, 64, 8163.58, 114297.34, 0.0, 13.24, 99.0)]


@pytest.mark.parametrize(("name", "ops", "mibs"), [
    # a public note (README): 1.0.20 fileio --file-test-mode=rndrw, one thread
    ("sysbench_1_0_20_fileio_rndrw.md", (203.31, 135.54, 433.82), (3.18, 2.12)),
    # Debian's 1.0.20 here, with --report-interval
    ("local_1_0_20_fileio_rndrw_report_interval.txt", (9984.52, 6656.46, 667.47), (156.01, 104.01)),
])
def test_the_fileio_tests_operations_and_throughput_are_read(name: str, ops: tuple[float, ...],
                                                             mibs: tuple[float, ...]) -> None:
    """sysbench fileio's own results ("File operations:" per second, "Throughput:" in MiB/s) were dropped: only the
    latency and the run time were read from a storage test."""
    p = read(name)
    assert tuple(p.value("sysbench.file_ops_per_s", op=op) for op in ("read", "write", "fsync")) == ops
    assert tuple(p.value("sysbench.file_mib_per_s", op=op) for op in ("read", "write")) == mibs
    assert p.get("sysbench.file_ops_per_s", op="read").direction is Direction.HIGHER
    assert p.errors == ()


def test_fileio_interval_lines_are_summarised_as_throughput_not_dropped() -> None:
    """fileio's interval lines were passed over (no tps in them): their spread is now read, per op."""
    parsed = sysbench.parse((DATA / "local_1_0_20_fileio_rndrw_report_interval.txt").read_text())
    got = {(m.labels, m.value) for m in parsed.metrics if m.name == "sysbench.interval_file_mib_per_s"}
    assert ((("op", "read"), ("stat", "min")), 115.72) in got
    assert ((("op", "read"), ("stat", "max")), 184.23) in got
    assert ((("op", "write"), ("stat", "max")), 122.82) in got
    assert [m.value for m in parsed.metrics if m.name == "sysbench.interval_samples"] == [3.0]


@pytest.mark.parametrize(("name", "ops", "mib", "mib_s", "requests", "p95"), [
    # a public Raspberry Pi note, 0.4.12 fileio rndrw for 300 s (README); "Gb"/"Mb" are 1024-based there
    ("sysbench_0_4_12_fileio_rndrw.txt", (479820, 319880, 1023496, 1823196), (7.3215 * 1024, 4.881 * 1024,
                                                                              12.202 * 1024), 41.65, 2665.62, 0.06),
    # a public issue comment, 0.5 fileio, quoted with "> ": "reads"/"writes" in lower case there
    ("sysbench_0_5_fileio_rndrw_quoted.txt", (2996, 2004, 10, 5010), (46.812, 31.312, 78.125), 29.944, 1916.43,
     19.61),
])
def test_0_4_and_0_5_fileio_results_are_read(name: str, ops: tuple[int, ...], mib: tuple[float, ...],
                                             mib_s: float, requests: float, p95: float) -> None:
    """0.4/0.5's fileio results ("Operations performed:", "Total transferred ... (X Mb/sec)", "Requests/sec
    executed") were dropped: only the run time and the latency were read from a storage test."""
    p = read(name)
    assert tuple(p.value("sysbench.file_ops", op=op) for op in ("read", "write", "other", "total")) == ops
    got = tuple(p.value("sysbench.file_transferred_mib", op=op) for op in ("read", "write", "total"))
    assert got == pytest.approx(mib)
    assert p.value("sysbench.file_mib_per_s", op="total") == mib_s
    assert p.value("sysbench.file_requests_per_s") == requests
    assert p.value("sysbench.latency_ms", stat="p95") == p95
    assert p.errors == ()


def test_0_4_12_10_intermediate_results_lines_are_a_series_and_annotated_values_are_read() -> None:
    """0.4.12.10's "[  10s] Intermediate results: 8 threads, tps: ..." lines were no series, and a paste whose author
    wrote a note after each value (a tab, then the note) lost its queries and latencies."""
    name = "sysbench_0_4_12_10_oltp_complex_report_interval.md"
    rows = sysbench.intervals((DATA / name).read_text())
    assert [(r.t_s, r.threads, r.tps, r.lat_ms, r.percentile) for r in rows][::5] == [
        (10.0, 8, 582.994023, 48.261058, 99.0), (60.0, 8, 510.752034, 43.136643, 99.0)]
    assert rows[0].reads_per_s == 8233.315586 and rows[0].writes_per_s == 2940.469852 and len(rows) == 6
    p = read(name)
    assert p.value("sysbench.deadlocks") == 56 and p.value("sysbench.queries", type="write") == 157170
    assert p.value("sysbench.latency_ms", stat="max") == 180.78
