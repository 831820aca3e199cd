"""The sysbench kind for real: a real PostgreSQL server (tests/pg_cluster.py), Debian's real sysbench (pgsql driver)
and psql.

The sbtest tables are built only when missing or of another size, and checked after sysbench's prepare (whose exit
status does not say); the password reaches libpq through a private PGPASSFILE and never argv nor the record; the
--report-interval lines become the point's series; a run sysbench fails fails the point with its output kept."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pg_cluster import PgCluster

from planner.errors import StepError
from planner.host import Host
from planner.kinds.sysbench.step import Sysbench
from planner.plan.model import SweepPoint
from planner.status import Status
from planner.steps import REGISTRY
from planner.steps.base import StepContext
from planner.timeseries import read
from planner.transport.connection import CommandResult, LocalConnection

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("sysbench") is None, reason="no sysbench here (Debian: sysbench)")]


def _ctx(tmp: Path, cluster: PgCluster, log: list[CommandResult], index: int = 0) -> StepContext:
    root = tmp / "host"
    root.mkdir(exist_ok=True)
    host = Host("db1", "localhost", connection="local", vars={"planner_root": str(root)})
    run = tmp / "run"
    art = run / "artifacts" / host.name / f"point{index:03d}"
    art.mkdir(parents=True, exist_ok=True)
    hv = {"pg_host": "127.0.0.1", "pg_port": cluster.port, "pg_user": "planner", "pg_password": cluster.password}
    return StepContext(host=host, conn=LocalConnection(host), vars=hv, step_path="plays[0].workloads[0]",
                       plan_dir=tmp, artifacts=art, run_dir=run, log=lambda _h, _s, r: log.append(r),
                       point=SweepPoint(index, (("threads", 2),), 0))


@pytest.fixture
def database(pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)  # only the step's own password file may let it in
    return pg_cluster.new_database()


def test_the_kind_is_registered_from_its_folder() -> None:
    assert REGISTRY["sysbench"] is Sysbench


def test_builds_once_runs_reads_tps_and_the_series(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    log: list[CommandResult] = []
    args = {"database": database, "test": "oltp_read_only", "tables": 2, "table_size": 500, "threads": 2,
            "seconds": 2, "report_interval": 1}
    out = Sysbench(args).apply(_ctx(tmp_path, pg_cluster, log))
    assert out.status is Status.CHANGED, out.msg
    assert out.msg.startswith("2 table(s) of 500 rows built (sbtest1 and 1 more missing)"), out.msg
    metrics = {m.key: m.value for m in out.metrics}
    assert metrics["sysbench.tps"] > 0
    assert sum(" prepare" in r.command for r in log) == 1 and not any(" cleanup" in r.command for r in log)
    series = {s.metric: s for a in out.artifacts if a.kind == "series" for s in read(tmp_path / "run" / a.path)}
    assert set(series) == {"sysbench.tps", "sysbench.qps", "sysbench.latency_ms", "sysbench.errors_per_s"}
    assert series["sysbench.tps"].t[0] == 0.0 and min(series["sysbench.tps"].values) > 0
    assert series["sysbench.latency_ms"].labels == (("stat", "p95"),)
    # the next point finds the tables as it wants them: no second build
    log2: list[CommandResult] = []
    out2 = Sysbench({**args, "threads": 1}).apply(_ctx(tmp_path, pg_cluster, log2, index=1))
    assert out2.status is Status.CHANGED and out2.msg.startswith("2 table(s) of 500 rows kept"), out2.msg
    assert not any(" prepare" in r.command for r in log2)
    # the password: never --pgsql-password, in no command line or output; only the passfile's stdin carries it
    # (masked by the run record), and the file is gone
    assert not any("--pgsql-password" in r.command for r in log + log2)
    assert all(pg_cluster.password not in (r.command + r.stdout + r.stderr) for r in log + log2)
    assert [r for r in log + log2 if pg_cluster.password in (r.stdin or "")] != []
    assert not list((tmp_path / "host").rglob("pgpass"))
    assert all(pg_cluster.password not in p.read_text(errors="replace")
               for p in (tmp_path / "run").rglob("*") if p.is_file())


def test_another_size_rebuilds_and_prepare_false_refuses(pg_cluster: PgCluster, database: str,
                                                         tmp_path: Path) -> None:
    base = {"database": database, "test": "oltp_point_select", "tables": 1, "table_size": 100, "threads": 1,
            "seconds": 1}
    assert Sysbench(base).apply(_ctx(tmp_path, pg_cluster, [])).status is Status.CHANGED
    log: list[CommandResult] = []
    out = Sysbench({**base, "table_size": 200}).apply(_ctx(tmp_path, pg_cluster, log, index=1))
    assert out.status is Status.CHANGED and "built (sbtest1 is of 100 rows)" in out.msg, out.msg
    assert [c for c in ("cleanup", "prepare") if any(f" {c}" in r.command for r in log)] == ["cleanup", "prepare"]
    with pytest.raises(StepError, match=r"sbtest1 is of 200 rows, and prepare is false"):
        Sysbench({**base, "prepare": False}).apply(_ctx(tmp_path, pg_cluster, [], index=2))


def test_a_prepare_that_failed_with_exit_0_is_caught(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    # A leftover that is not a table (a view named sbtest1): prepare's CREATE TABLE fails, and sysbench 1.0 with
    # two prepare threads still exits 0 (docs/oracle-behaviour.md): the tables are asked again and found wrong.
    pg_cluster.psql("CREATE VIEW sbtest1 AS SELECT 1 AS id", db=database)
    args = {"database": database, "test": "oltp_read_only", "tables": 2, "table_size": 50, "threads": 1,
            "seconds": 1}
    with pytest.raises(StepError, match=r"(?s)prepare left the tables wrong \(sbtest1 missing\).*already exists"):
        Sysbench(args).apply(_ctx(tmp_path, pg_cluster, []))


def test_a_failed_run_fails_the_point_with_its_output_kept(pg_cluster: PgCluster, database: str,
                                                           tmp_path: Path) -> None:
    # more threads than the server's max_connections (50 in the test cluster): the server refuses the rest and
    # sysbench exits 1 with libpq's words
    args = {"database": database, "test": "oltp_point_select", "tables": 1, "table_size": 50, "threads": 60,
            "seconds": 1}
    out = Sysbench(args).apply(_ctx(tmp_path, pg_cluster, []))
    assert out.status is Status.FAILED
    assert "sysbench exit code 1" in out.msg and "too many clients" in out.msg, out.msg
    kept = [a for a in out.artifacts if a.kind == "sysbench"]
    assert kept and "too many clients" in (tmp_path / "run" / kept[0].path).read_text()
