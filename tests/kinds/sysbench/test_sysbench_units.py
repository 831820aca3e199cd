"""The sysbench step's pure parts: the commands it builds (no password on argv, libpq's defaults when the host says
nothing), the tables' check read back, and the series made from real --report-interval lines."""

from __future__ import annotations

from pathlib import Path

from planner.db.libpq import Server
from planner.kinds.sysbench.findings import run_findings
from planner.kinds.sysbench.series import build
from planner.kinds.sysbench.step import Sysbench, table_rows
from planner.parsers import parse_text
from planner.report.inside import inside
from planner.results.finding import Severity
from planner.results.measure import Measurement, RunData
from planner.results.point_series import PointSeries
from planner.results.runfolder import RunMeta
from planner.timeseries import TimeSeries

DATA = Path(__file__).resolve().parents[2] / "data" / "sysbench"
ARGS = {"database": "bench", "test": "oltp_read_write", "tables": 4, "table_size": 1000, "threads": 8,
        "seconds": 30, "report_interval": 2, "percentile": 99}


def test_the_run_command_passes_no_password_and_empty_connection_values() -> None:
    step = Sysbench(ARGS)
    argv = step.run_argv(Server("", "", ""))
    assert argv == ["sysbench", "oltp_read_write", "--db-driver=pgsql", "--pgsql-host=", "--pgsql-port=",
                    "--pgsql-user=", "--pgsql-db=bench", "--tables=4", "--table-size=1000", "--threads=8",
                    "--time=30", "--report-interval=2", "--percentile=99", "run"]
    assert not any("password" in a for a in argv)
    # prepare builds one table per thread, at most 8
    assert step.prepare_argv(Server("db", "5433", "bench"), "prepare")[-2:] == ["--threads=4", "prepare"]
    assert "-w" in step.count_argv(Server("db", "5433", "bench"))  # psql never prompts for a password


def test_the_tables_read_back_and_what_is_wrong_with_them() -> None:
    rows = table_rows("sbtest1 1000\nsbtest2 1000\nsbtest3 0\nsbtest10 5\nnot a row\n")
    assert rows == {1: 1000, 2: 1000, 3: 0, 10: 5}
    step = Sysbench(ARGS)
    assert step._wrong(rows) == "sbtest4 missing, sbtest3 is of 0 rows"
    assert step._wrong({1: 1000, 2: 1000, 3: 1000, 4: 1000}) == ""
    assert step._wrong({}) == "sbtest1 and 3 more missing"


def test_the_series_of_a_real_1_0_20_run() -> None:
    text = (DATA / "local_1_0_20_pgsql_oltp_read_write_report_interval.txt").read_text()
    series = {s.metric: s for s in build(text, 1.0)}
    tps = series["sysbench.tps"]
    # "[ 1s ] ... tps: 453.17": the first second's rate, in the bucket starting at 0
    assert tps.t[:2] == (0.0, 1.0) and tps.values[:2] == (453.17, 374.88) and tps.unit == "tx/s"
    assert series["sysbench.qps"].values[0] == 9180.15
    assert series["sysbench.latency_ms"].values[0] == 17.01
    assert series["sysbench.latency_ms"].labels == (("stat", "p95"),)
    assert series["sysbench.errors_per_s"].values[0] == 2.99


def test_0_5_lines_give_no_queries_series_and_no_lines_no_series() -> None:
    text = (DATA / "sysbench_0_5_oltp_read_only_report_interval.txt").read_text()
    metrics = {s.metric for s in build(text, 2.0)}
    assert "sysbench.tps" in metrics and "sysbench.qps" not in metrics
    assert build((DATA / "local_1_0_20_pgsql_oltp_read_only_p99.txt").read_text(), 1.0) == ()


def _run(tmp: Path, text: str) -> RunData:
    parsed = parse_text(text, "sysbench")
    ms = tuple(Measurement("r", "pg", "pglab", "plays[0].workloads[0]", "sysbench", "sysbench", "a/sysbench.out",
                           "sysbench", (("threads", 4),), 0, 0, False, m.name, m.labels, m.value, m.unit,
                           m.direction, False) for m in parsed.metrics)
    return RunData(tmp, RunMeta.from_mapping({"plays": [{"name": "pg"}]}), (), ms, (), {}, ())


def test_ignored_errors_are_said_with_their_share_of_the_transactions(tmp_path: Path) -> None:
    text = (DATA / "local_1_0_20_pgsql_oltp_read_write_report_interval.txt").read_text()
    found = run_findings(_run(tmp_path, text))
    assert [(f.code, f.severity) for f in found] == [("sysbench_ignored_errors", Severity.NOTE)]
    assert found[0].message.startswith("14 ignored errors against 1702 transactions (0.8%)")
    assert found[0].point == "threads=4"
    more = text.replace("ignored errors:                      14 ", "ignored errors:                      40 ")
    assert [f.severity for f in run_findings(_run(tmp_path, more))] == [Severity.WARNING]
    assert run_findings(_run(tmp_path, (DATA / "local_1_0_20_pgsql_oltp_read_only_p99.txt").read_text())) == []


def test_a_points_sysbench_series_is_what_it_is_judged_and_charted_by(tmp_path: Path) -> None:
    # the real 1.0.20 run's four interval lines, stretched to ten so the point is long enough to judge
    text = (DATA / "local_1_0_20_pgsql_oltp_read_write_report_interval.txt").read_text()
    lines = [line for line in text.splitlines() if line.startswith("[ ")]
    longer = "\n".join(line.replace(f"[ {i % 4 + 1}s ]", f"[ {i + 1}s ]") for i, line in
                       enumerate(lines * 3)) + "\n"
    cpu = TimeSeries("mpstat.busy_pct", "%", "mpstat -P ALL", 1, (0, 1, 2), (99.0,) * 3, (99.0,) * 3, (99.0,) * 3,
                     (("cpu", "all"),))
    p = PointSeries("pg", "pglab", "plays[0].workloads[0]", "sysbench", "sysbench", 0, "threads=4", 0, False,
                    (*build(longer, 1.0), cpu))
    assert p.headline is not None and p.headline.metric == "sysbench.tps" and len(p.headline.t) == 12
    assert p.latency is not None and p.latency.metric == "sysbench.latency_ms"
    got = inside([p], tmp_path, tmp_path, charts=True)
    assert [v["trend"].split(" ")[:4] for v in got["verdicts"]] == [["sysbench", "transactions", "per", "second"]]
    assert [c["title"].split(" over time")[0] for c in got["best"][0]["charts"]] == [
        "sysbench transactions per second", "sysbench latency"]


def test_fileio_interval_lines_are_the_points_series() -> None:
    """fileio's own --report-interval line (reads/writes MiB/s, fsyncs/s, latency) was no series at all: the
    interval record was shaped for OLTP's tps/qps. A real 1.0.20 run's three lines, hand-read."""
    text = (DATA / "local_1_0_20_fileio_rndrw_report_interval.txt").read_text()
    series = {(s.metric, s.labels): s for s in build(text, 1.0)}
    read = series[("sysbench.file_mib_per_s", (("op", "read"),))]
    assert read.t == (0.0, 1.0, 2.0) and read.values == (115.72, 184.23, 169.58) and read.unit == "MiB/s"
    assert series[("sysbench.file_mib_per_s", (("op", "write"),))].values == (77.15, 122.82, 113.05)
    assert series[("sysbench.file_ops_per_s", (("op", "fsync"),))].values == (489.76, 787.95, 723.14)
    assert series[("sysbench.latency_ms", (("stat", "p95"),))].values == (0.010, 0.012, 0.013)
    assert len(series) == 4
    p = PointSeries("pg", "pglab", "plays[0].workloads[0]", "sysbench", "sysbench", 0, "threads=2", 0, False,
                    tuple(series.values()))
    assert p.latency is not None and p.latency.metric == "sysbench.latency_ms"
