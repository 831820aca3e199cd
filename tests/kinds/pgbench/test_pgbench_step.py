"""The pgbench kind for real: a real PostgreSQL server (tests/pg_cluster.py), the host's real pgbench and psql.

The tables are built only when missing or of another scale; the password reaches libpq through a private
PGPASSFILE and never the record; a run pgbench refuses fails the point with pgbench's own words."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pg_cluster import PgCluster

from planner.host import Host
from planner.kinds.pgbench.step import Pgbench
from planner.parsers import parse_file
from planner.plan.model import SweepPoint
from planner.redaction import is_secret_name
from planner.status import Status
from planner.steps import REGISTRY
from planner.steps.base import StepContext
from planner.timeseries import read as read_series
from planner.transport.connection import CommandResult, LocalConnection

pytestmark = pytest.mark.slow


def _ctx(tmp: Path, cluster: PgCluster, log: list[CommandResult], index: int = 0, **vars_: object) -> StepContext:
    root = tmp / "host"
    root.mkdir(exist_ok=True)
    host = Host("db1", "localhost", connection="local", vars={"planner_root": str(root)})
    run = tmp / "run"
    art = run / "artifacts" / host.name / f"point{index:03d}"
    art.mkdir(parents=True, exist_ok=True)
    hv = {"pg_host": "127.0.0.1", "pg_port": cluster.port, "pg_user": "planner",
          "pg_password": cluster.password, **vars_}
    return StepContext(host=host, conn=LocalConnection(host), vars=hv, step_path="plays[0].workloads[0]",
                       plan_dir=tmp, artifacts=art, run_dir=run, log=lambda _h, _s, r: log.append(r),
                       point=SweepPoint(index, (("clients", 2),), 0))


@pytest.fixture
def database(pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)  # only the step's own password file may let it in
    return pg_cluster.new_database()


def test_the_kind_is_registered_from_its_folder() -> None:
    assert REGISTRY["pgbench"] is Pgbench


def test_builds_once_runs_and_reads_tps(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    log: list[CommandResult] = []
    args = {"database": database, "clients": 2, "jobs": 2, "seconds": 2, "progress_s": 1, "scale": 1}
    out = Pgbench(args).apply(_ctx(tmp_path, pg_cluster, log))
    assert out.status is Status.CHANGED, out.msg
    assert out.msg.startswith("tables built at scale 1")
    tps = {m.key: m.value for m in out.metrics}
    assert tps["pgbench.tps"] > 0
    assert any("pgbench -i -s 1" in r.command for r in log)
    # the next point finds the tables at the scale it wants: no second build
    log2: list[CommandResult] = []
    out2 = Pgbench({**args, "clients": 1, "jobs": 1}).apply(_ctx(tmp_path, pg_cluster, log2, index=1))
    assert out2.status is Status.CHANGED and out2.msg.startswith("tables at scale 1 kept"), out2.msg
    assert not any(" -i " in r.command for r in log2)
    # the password went through a file that is gone; it is in no command line and no output; the one command
    # that carries it (the file's content, on stdin) is masked by the run record, as pg_password names a secret
    assert not list((tmp_path / "host").rglob("pgpass"))
    assert all(pg_cluster.password not in (r.command + r.stdout + r.stderr) for r in log + log2)
    carrying = [r for r in log + log2 if pg_cluster.password in (r.stdin or "")]
    assert len(carrying) == 2 and all("umask 077" in r.command for r in carrying) and is_secret_name("pg_password")
    assert all(pg_cluster.password not in p.read_text(errors="replace")
               for p in (tmp_path / "run").rglob("*") if p.is_file())


def test_another_scale_rebuilds_and_init_false_refuses(pg_cluster: PgCluster, database: str,
                                                       tmp_path: Path) -> None:
    log: list[CommandResult] = []
    base = {"database": database, "clients": 1, "seconds": 1, "scale": 1}
    assert Pgbench(base).apply(_ctx(tmp_path, pg_cluster, log)).status is Status.CHANGED
    from planner.errors import StepError

    with pytest.raises(StepError, match="at scale 1, not scale 2, and init is false"):
        Pgbench({**base, "scale": 2, "init": False}).apply(_ctx(tmp_path, pg_cluster, log, index=1))
    rebuilt = Pgbench({**base, "scale": 2}).apply(_ctx(tmp_path, pg_cluster, log, index=2))
    assert rebuilt.status is Status.CHANGED and rebuilt.msg.startswith("tables built at scale 2 (they were at 1)")


def test_a_wrong_password_fails_with_the_servers_words(pg_cluster: PgCluster, database: str,
                                                       tmp_path: Path) -> None:
    from planner.errors import StepError

    with pytest.raises(StepError, match="password authentication failed"):
        Pgbench({"database": database, "clients": 1, "seconds": 1}).apply(
            _ctx(tmp_path, pg_cluster, [], pg_password="not-the-password"))


def test_a_database_that_does_not_exist_is_named(pg_cluster: PgCluster, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.errors import StepError

    monkeypatch.setenv("PGPASSFILE", os.devnull)
    with pytest.raises(StepError, match='database "no_such_db" does not exist'):
        Pgbench({"database": "no_such_db", "clients": 1, "seconds": 1}).apply(_ctx(tmp_path, pg_cluster, []))


def test_latency_log_gives_percentiles_and_a_series(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    """latency_log: pgbench's threads' logs joined on the host, fetched, read: the 99th percentile in the outcome,
    percentiles from the artifact as the report reads them, a latency series per progress interval."""
    args = {"database": database, "clients": 2, "jobs": 2, "seconds": 2, "progress_s": 1, "scale": 1,
            "builtin": "select-only", "latency_log": True}
    ctx = _ctx(tmp_path, pg_cluster, [])
    out = Pgbench(args).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert "99th percentile latency" in out.msg and "logged transactions" in out.msg
    kinds = {Path(a.path).name: a.kind for a in out.artifacts}
    assert kinds == {"pgbench.out": "pgbench", "pgbench_log.txn": "pgbench_log", "series.json": "series"}
    parsed = parse_file(ctx.run_dir / next(a.path for a in out.artifacts if a.kind == "pgbench_log"))
    got = {m.key: m.value for m in parsed.metrics}
    summary = {m.key: m.value for m in parse_file(ctx.run_dir / out.artifacts[0].path).metrics}
    # every transaction pgbench counted is in the log (no sampling), each thread's file joined
    assert got["pgbench.logged_transactions"] == summary["pgbench.transactions"] > 0
    assert 0 < got["pgbench.latency_ms{stat=p50}"] <= got["pgbench.latency_ms{stat=p99}"] \
        <= got["pgbench.latency_ms{stat=max}"]
    series = read_series(ctx.artifacts / "series.json")
    assert [s.metric for s in series] == ["pgbench.latency_ms"] and series[0].step_s == 1.0
    assert not list((tmp_path / "host").rglob("pgbench_log.[0-9]*"))  # the threads' files joined, then removed


def test_a_log_over_the_cap_is_not_fetched_and_the_outcome_says_what_rate_fits(
        pg_cluster: PgCluster, database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.kinds.pgbench import latency

    monkeypatch.setattr(latency, "MAX_LOG_BYTES", 64)  # two lines' worth: any real run is over it
    args = {"database": database, "clients": 1, "seconds": 1, "scale": 1, "builtin": "select-only",
            "latency_log": True}
    out = Pgbench(args).apply(_ctx(tmp_path, pg_cluster, []))
    assert out.status is Status.CHANGED, out.msg
    assert "over the 64 bytes planner fetches: no latency percentiles (sampling_rate" in out.msg
    assert [a.kind for a in out.artifacts] == ["pgbench"]
