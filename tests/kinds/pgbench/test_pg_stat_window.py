"""collect: [pg_stat] for real: a real PostgreSQL server (tests/pg_cluster.py), psql's snapshots around a real
pgbench point, the delta kept as the point's "database statistics" record."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pg_cluster import PgCluster

from planner.errors import StepError
from planner.host import Host
from planner.kinds.pgbench.step import Pgbench
from planner.parsers import parse_file
from planner.parsers.pg_stat import from_record
from planner.plan.model import SweepPoint
from planner.steps.base import StepContext
from planner.steps.pg_stat import PgStatCollect, PgToken
from planner.transport.connection import CommandResult, LocalConnection

pytestmark = pytest.mark.slow
DATA = Path(__file__).parents[2] / "data" / "pg_stat"


def _ctx(tmp: Path, cluster: PgCluster, database: str, log: list[CommandResult]) -> StepContext:
    root = tmp / "host"
    root.mkdir(exist_ok=True)
    host = Host("db1", "localhost", connection="local", vars={"planner_root": str(root)})
    run = tmp / "run"
    art = run / "artifacts" / host.name / "point000"
    art.mkdir(parents=True, exist_ok=True)
    hv = {"pg_host": "127.0.0.1", "pg_port": cluster.port, "pg_user": "planner", "pg_password": cluster.password}
    return StepContext(host=host, conn=LocalConnection(host), vars=hv, step_path="plays[0].workloads[0]",
                       plan_dir=tmp, artifacts=art, run_dir=run, log=lambda _h, _s, r: log.append(r),
                       point=SweepPoint(0, (("clients", 2),), 0), point_database=database)


@pytest.fixture
def database(pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)  # only the snapshot's own password file may let it in
    return pg_cluster.new_database()


def test_a_point_is_bracketed_and_its_delta_kept(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    log: list[CommandResult] = []
    ctx = _ctx(tmp_path, pg_cluster, database, log)
    pg_cluster.psql("CREATE EXTENSION pg_stat_statements", db=database)  # preloaded by tests/pg_cluster.py
    token = PgStatCollect.around_point_begin(ctx)
    assert token.statements
    out = Pgbench({"database": database, "clients": 2, "jobs": 2, "seconds": 1, "progress_s": 1,
                   "scale": 1}).apply(ctx)
    pg_cluster.psql("CHECKPOINT")  # a checkpoint inside the window, counted by the server
    collected = PgStatCollect.around_point_end(ctx, token)
    record = next(a for a in collected.artifacts if a.kind == "pg_stat")
    d = from_record((tmp_path / "run" / record.path).read_text())
    assert d.server_version_num >= 150000 and d.commits > 0 and d.seconds > 0
    assert d.cache_hit_pct is not None and 0 < d.cache_hit_pct <= 100
    assert d.checkpoints_requested >= 1 and d.wal_bytes and d.wal_bytes > 0 and d.blocks_written is not None
    assert d.statement_calls and d.statement_calls > d.commits  # pg_stat_statements: 5+ statements a transaction
    assert d.max_connections > 0 and d.shared_buffers_bytes >= 128 << 10 and d.database_bytes > 0
    metrics = {m.key: m.value for m in parse_file(tmp_path / "run" / record.path).metrics}
    assert metrics["pg_stat.tps"] > 0 and out.metrics
    # the release is asked once per step and host: a later point's begin starts from the earlier token
    again = PgStatCollect.around_point_begin(ctx, token)
    assert isinstance(again, PgToken) and again.version_num == token.version_num
    assert sum("pg_extension" in r.command for r in log) == 1
    # the password reached libpq through a file gone with its psql; it is in no command line or output
    assert all(pg_cluster.password not in (r.command + r.stdout + r.stderr) for r in log)
    assert not [p for p in Path("/tmp").glob("tmp.*") if p.is_file() and p.stat().st_uid == os.geteuid()
                and pg_cluster.password in p.read_text(errors="replace")]
    if os.environ.get("PLANNER_KEEP_PG_STAT_SAMPLE"):  # how tests/data/pg_stat was made (its README)
        DATA.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "run" / record.path, DATA / "pg_stat.json")
        for name in ("pg_stat_begin.txt", "pg_stat_end.txt"):
            shutil.copy(ctx.artifacts / name, DATA / name)


def test_a_reset_inside_the_point_is_refused_not_reported(pg_cluster: PgCluster, database: str,
                                                          tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, pg_cluster, database, [])
    token = PgStatCollect.around_point_begin(ctx)
    pg_cluster.psql("select count(*) from pg_class", db=database)
    pg_cluster.psql("select pg_stat_reset()", db=database)
    with pytest.raises(StepError, match="counters went down .*reset"):
        PgStatCollect.around_point_end(ctx, token)


def test_clients_above_max_connections_are_refused_before_anything_runs(pg_cluster: PgCluster, database: str,
                                                                        tmp_path: Path) -> None:
    """Before: the tables were built, then pgbench failed on "sorry, too many clients already" part way."""
    log: list[CommandResult] = []
    limit = int(pg_cluster.psql("show max_connections"))
    step = Pgbench({"database": database, "clients": limit + 1, "jobs": 2, "seconds": 1, "scale": 1})
    with pytest.raises(StepError, match=f"{limit + 1} clients, and the server lets this user open {limit} conn"):
        step.apply(_ctx(tmp_path, pg_cluster, database, log))
    assert not any("pgbench -i" in r.command or " -T " in r.command for r in log)


def test_the_points_set_up_is_not_counted(pg_cluster: PgCluster, database: str, tmp_path: Path) -> None:
    """Before: the begin snapshot was the window's start, so the first point's figures held the table build that
    came before its measured run (pgbench -i: its blocks written, its WAL, the checkpoints it caused)."""
    from planner.engine.window import WindowSpec, run_in_window

    ctx = _ctx(tmp_path, pg_cluster, database, [])

    def body() -> None:  # set-up (a table of ~3.5 MB of WAL), then the measured command
        pg_cluster.psql("create table setup as select g from generate_series(1, 100000) g", db=database)
        ctx.run(["true"], measured=True)

    w = run_in_window(ctx, WindowSpec(db_report="pg_stat"), str(tmp_path / "host" / "point000"), False, body)
    assert w.failure is None and ctx.before_measured is None
    record = next(a for a in w.artifacts if a.kind == "pg_stat")
    d = from_record((tmp_path / "run" / record.path).read_text())
    assert d.wal_bytes is not None and d.wal_bytes < 1 << 20, d


def test_a_user_that_is_not_a_superuser_does_not_count_the_reserved_slots(pg_cluster: PgCluster, database: str,
                                                                          tmp_path: Path) -> None:
    role, password = f"u_{database}", "not-a-superuser-pw"
    pg_cluster.psql(f"create role {role} login password '{password}'")
    reserved = int(pg_cluster.psql("show superuser_reserved_connections"))
    limit = int(pg_cluster.psql("show max_connections")) - reserved
    ctx = _ctx(tmp_path, pg_cluster, database, [])
    ctx.vars = {**ctx.vars, "pg_user": role, "pg_password": password}
    step = Pgbench({"database": database, "clients": limit + 1, "jobs": 2, "seconds": 1, "scale": 1})
    with pytest.raises(StepError, match=f"{limit + 1} clients, and the server lets this user open {limit} conn"):
        step.apply(ctx)
