"""pg_conf on a real PostgreSQL server (tests/pg_cluster.py, a cluster of this file's own: the step restarts it).

Set with ALTER SYSTEM and restarted, previewed, idempotent, restored; each bad input refused with the server's
own words and nothing left changed: a value outside the range (before any change), a server that will not start
(its original postgresql.auto.conf put back and started), a wrong password, a database that does not exist."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_cluster import PgCluster, own_cluster

from planner.db.pg_settings import Setting, checked, same
from planner.errors import StepError
from planner.host import Host
from planner.status import Status
from planner.steps import REGISTRY
from planner.steps.base import StepContext
from planner.steps.prep_pg import PgConf
from planner.transport.connection import CommandResult, LocalConnection

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    yield from own_cluster("pg_conf")


@pytest.fixture(autouse=True)
def no_pgpass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)  # only the step's own password file may let it in


def _ctx(tmp: Path, c: PgCluster, log: list[CommandResult], **vars_: object) -> StepContext:
    host = Host("db1", "localhost", connection="local", vars={})
    run = tmp / "run-pgconf"
    art = run / "artifacts" / "db1" / "prep"
    art.mkdir(parents=True, exist_ok=True)
    hv = {"pg_host": "127.0.0.1", "pg_port": c.port, "pg_user": "planner", "pg_password": c.password, **vars_}
    return StepContext(host=host, conn=LocalConnection(host), vars=hv, step_path="plays[0].prep[0]", plan_dir=tmp,
                       artifacts=art, run_dir=run, log=lambda _h, _s, r: log.append(r))


def _show(c: PgCluster, name: str) -> str:
    return c.psql(f"select setting from pg_settings where name = '{name}'").strip()


def _auto(c: PgCluster) -> str:
    return c.psql("select pg_read_file('postgresql.auto.conf')")


def test_sets_restarts_previews_is_idempotent_and_restores(cluster: PgCluster, tmp_path: Path) -> None:
    assert REGISTRY["pg_conf"] is PgConf
    before, auto = (_show(cluster, "shared_buffers"), _show(cluster, "work_mem")), _auto(cluster)
    step = PgConf({"params": {"shared_buffers": "256MB", "work_mem": "8MB"}})
    log: list[CommandResult] = []
    # what already runs, with no other value in postgresql.auto.conf for the next start, is left alone
    same = PgConf({"params": {"shared_buffers": "128MB", "work_mem": 4096}})
    assert not same.check(_ctx(tmp_path, cluster, log)).changed
    preview = step.check(_ctx(tmp_path, cluster, log))
    # pg_ctl restarts it with the log file its start named (where the postmaster's stderr goes)
    assert preview.changed and "a restart is needed (" in preview.msg
    assert f" restart (log {cluster.root}/log)" in preview.msg
    assert "shared_buffers: 16384 (128MB) -> 32768 (256MB) (restart needed)" in (preview.diff or "")
    assert "work_mem: 4096 (4MB) -> 8192 (8MB) (reload)" in (preview.diff or "")
    assert _auto(cluster) == auto  # a preview changes nothing
    ctx = _ctx(tmp_path, cluster, log)
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and "; restarted (" in out.msg and "pg_ctl -D " in out.msg, out.msg
    assert "postgresql.auto.conf backed up to " in out.msg and out.artifacts
    assert (_show(cluster, "shared_buffers"), _show(cluster, "work_mem")) == ("32768", "8192")
    assert sum(" restart" in r.command and "pg_ctl" in r.command for r in log) == 1
    assert all(cluster.password not in r.command + r.stdout + r.stderr for r in log)
    again = _ctx(tmp_path, cluster, [])
    assert not step.check(again).changed and step.apply(again).status is Status.OK  # idempotent
    back = step.revert(_ctx(tmp_path, cluster, log), saved)
    assert back.status is Status.CHANGED and "restarted (" in back.msg, back.msg
    assert (_show(cluster, "shared_buffers"), _show(cluster, "work_mem")) == before and _auto(cluster) == auto
    assert "planner-" not in cluster.psql("select string_agg(f, ' ') from pg_ls_dir('.') f")  # backup removed
    assert step.revert(_ctx(tmp_path, cluster, []), saved).status is Status.OK


def test_refused_values_are_all_named_before_any_change(cluster: PgCluster, tmp_path: Path) -> None:
    auto = _auto(cluster)
    log: list[CommandResult] = []
    step = PgConf({"params": {"work_mem": "8MB", "shared_buffers": "64kB", "huge_pages": "sometimes",
                              "wal_buffers": "8XB", "max_connections": 80, "block_size": 16384,
                              "no_such_parameter": 1}})
    with pytest.raises(StepError, match="unrecognized configuration parameter.*no_such_parameter"):
        step.apply(_ctx(tmp_path, cluster, log))
    del step.args["params"]["no_such_parameter"]
    with pytest.raises(StepError) as e:
        step.apply(_ctx(tmp_path, cluster, log))
    text = str(e.value)
    assert "shared_buffers = '64kB' is 8 (64kB), outside the range the server takes: 16 (128kB) to" in text
    assert "huge_pages: available values are off, on, try" in text
    assert "block_size cannot be changed with ALTER SYSTEM (pg_settings.context internal" in text
    assert "invalid unit 'XB'" in text and "max_connections is set by the server's command line" in text
    assert _auto(cluster) == auto and not any("alter system" in r.command for r in log)


def test_a_server_that_will_not_start_gets_its_original_file_back(cluster: PgCluster, tmp_path: Path) -> None:
    auto = _auto(cluster)
    step = PgConf({"params": {"shared_buffers": "4TB"}})  # in range, but no machine here maps 4 TB
    ctx = _ctx(tmp_path, cluster, [])
    saved = step.save(ctx)
    with pytest.raises(StepError) as e:
        step.apply(ctx)
    text = str(e.value)
    assert "did not start with the new parameters" in text and "shared memory" in text, text
    assert "put the original postgresql.auto.conf back" in text
    assert _show(cluster, "shared_buffers") == "16384" and _auto(cluster) == auto  # running as before
    assert "FATAL:  could not map anonymous shared memory" in text and "fast shutdown" not in text  # the words
    assert step.revert(_ctx(tmp_path, cluster, []), saved).status is Status.OK  # nothing left to undo
    assert "planner-" not in _files(cluster)


@pytest.mark.parametrize(("vars_", "words"), [
    ({"pg_password": "not-the-password"}, "password authentication failed"),
    ({}, 'database "no_such_db" does not exist'),
])
def test_a_wrong_password_or_database_is_the_servers_words(cluster: PgCluster, tmp_path: Path,
                                                           vars_: dict[str, str], words: str) -> None:
    auto = _auto(cluster)
    args = {"params": {"work_mem": "8MB"}, **({} if vars_ else {"database": "no_such_db"})}
    with pytest.raises(StepError, match=words):
        PgConf(args).apply(_ctx(tmp_path, cluster, [], **vars_))
    assert _auto(cluster) == auto


# user-settable parameters of each unit family: SET shows what the server itself makes of a value
_AS_THE_SERVER_READS = [
    ("work_mem", ["30.1GB", "1.0001TB", "1000.7kB", "64.3MB", "1.5GB", "4096.5", "0x1000", "010000"]),  # kB
    ("temp_buffers", ["1.0001GB", "8.9MB", "1001kB"]),  # 8kB pages
    ("lock_timeout", ["1.1h", "2.5min", "0.0015s", "1500us", "1.7"]),  # ms (statement_timeout would cancel the SELECT)
    ("vacuum_cost_delay", ["0.0015s", "2ms", "500us", "1.23456"]),  # a real, in ms
    ("enable_seqscan", ["of", "t", "Y", "fal", "1", "ON"]),  # a Boolean: any unambiguous prefix
]


@pytest.mark.parametrize(("name", "values"), _AS_THE_SERVER_READS, ids=[n for n, _ in _AS_THE_SERVER_READS])
def test_a_value_is_read_as_the_server_reads_it(cluster: PgCluster, name: str, values: list[str]) -> None:
    """A fractional value with a unit is rounded to the next smaller unit first (30.1GB is 30822MB): a reading that
    differs from the server's makes a second apply change again and the first one call its value not in effect."""
    s = Setting.of(json.loads(cluster.psql(f"select row_to_json(s) from pg_settings s where name = '{name}'")))
    for value in values:
        server = cluster.psql(f"set {name} = '{value}'; select setting from pg_settings where name = '{name}'")
        assert same(s, checked(s, value), server.strip()), (value, checked(s, value), server.strip())


def test_a_play_previews_then_restarts_once_and_restores_once(cluster: PgCluster, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI: `--check --diff` shows each change and changes nothing; two pg_conf steps with postmaster
    parameters get one restart after the play's prep and one after its restore (the password from PGPASSFILE)."""
    from planner.cli.main import main

    monkeypatch.setenv("PGPASSFILE", str(cluster.pgpass))
    plan = tmp_path / "pg.yaml"
    plan.write_text(f"""plan: pg_conf_play
version: 1
vars: {{db_engine: postgresql, pg_host: 127.0.0.1, pg_port: {cluster.port}, pg_user: planner}}
plays:
  - name: two steps, one restart
    hosts: localhost
    prep:
      - pg_conf: {{params: {{shared_buffers: 256MB}}}}
      - pg_conf: {{params: {{max_prepared_transactions: 10, work_mem: 8MB}}}}
    workloads:
      - command: {{cmd: "true"}}
""")
    before, auto = [_show(cluster, n) for n in ("shared_buffers", "max_prepared_transactions")], _auto(cluster)
    assert main(["apply", "--check", "--diff", str(plan), "--runs-dir", str(tmp_path / "check")]) == 0
    out = "".join(capsys.readouterr())
    assert "shared_buffers: 16384 (128MB) -> 32768 (256MB) (restart needed)" in out, out[-3000:]
    assert "max_prepared_transactions: 0 -> 10 (restart needed)" in out and "work_mem: 4096 (4MB) -> 8192" in out
    assert _auto(cluster) == auto
    assert main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")]) == 0, "".join(capsys.readouterr())
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    steps = [r["step"] for r in json.loads((run / "results.json").read_text())]
    assert steps.count("plays[0].prep.restart") == 2  # once after the prep, once after the restore
    assert [_show(cluster, n) for n in ("shared_buffers", "max_prepared_transactions")] == before
    assert _auto(cluster) == auto


def test_a_refusal_in_a_later_step_leaves_the_server_as_it_was(cluster: PgCluster, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The first step has written shared_buffers (its restart deferred), the second is refused: the play fails,
    its restore puts postgresql.auto.conf back, and the server is never restarted."""
    from planner.cli.main import main

    monkeypatch.setenv("PGPASSFILE", str(cluster.pgpass))
    plan = tmp_path / "pg.yaml"
    plan.write_text(f"""plan: pg_conf_refused
version: 1
vars: {{db_engine: postgresql, pg_host: 127.0.0.1, pg_port: {cluster.port}, pg_user: planner}}
plays:
  - name: the second step refused
    hosts: localhost
    prep:
      - pg_conf: {{params: {{shared_buffers: 256MB}}}}
      - pg_conf: {{params: {{huge_pages: sometimes}}}}
    workloads:
      - command: {{cmd: "true"}}
""")
    auto, started = _auto(cluster), cluster.psql("select pg_postmaster_start_time()")
    code = main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")])
    out = "".join(capsys.readouterr())
    assert code != 0 and "huge_pages: available values are off, on, try" in out, out[-2000:]
    assert "Traceback" not in out
    assert _auto(cluster) == auto and cluster.psql("select pg_postmaster_start_time()") == started


def _files(c: PgCluster) -> str:
    return c.psql("select string_agg(f, ' ') from pg_ls_dir('.') f")


def test_restore_keeps_the_backup_until_every_step_is_back(cluster: PgCluster, tmp_path: Path) -> None:
    """Restore runs the play's steps last first: the first one reverted must not drop the backup of the original
    postgresql.auto.conf that the others (and a failed restart) still need."""
    auto = _auto(cluster)
    first, second = PgConf({"params": {"shared_buffers": "256MB"}}), PgConf({"params": {"work_mem": "8MB"}})
    saved = []
    for step in (first, second):
        ctx = _ctx(tmp_path, cluster, [])
        saved.append(step.save(ctx))
        step.apply(ctx)
    assert second.revert(_ctx(tmp_path, cluster, []), saved[1]).status is Status.CHANGED
    assert "postgresql.auto.conf.planner-" in _files(cluster)  # shared_buffers is not back yet
    assert "restarted (" in first.revert(_ctx(tmp_path, cluster, []), saved[0]).msg
    assert "planner-" not in _files(cluster) and _auto(cluster) == auto


def test_a_password_in_a_conninfo_is_put_back_and_never_recorded(cluster: PgCluster, tmp_path: Path) -> None:
    """The record masks a conninfo's password; the restore must still write the original one back."""
    cluster.psql("alter system set primary_conninfo = 'host=standby1 password=orig-secret'")
    cluster.psql("select pg_reload_conf()")  # running too: pg_settings shows it to a superuser
    try:
        auto = _auto(cluster)
        step = PgConf({"params": {"primary_conninfo": "host=standby2 password=new-secret"}})
        log: list[CommandResult] = []
        ctx = _ctx(tmp_path, cluster, log)
        saved = step.save(ctx)
        out = step.apply(ctx)
        assert "orig-secret" not in json.dumps(saved) + out.msg + (out.diff or "")
        assert "new-secret" not in out.msg + (out.diff or "")
        assert step.revert(_ctx(tmp_path, cluster, log), saved).status is Status.CHANGED
        assert _auto(cluster) == auto and "password=orig-secret" in auto
    finally:
        cluster.psql("alter system reset primary_conninfo")
        cluster.psql("select pg_reload_conf()")


def test_a_play_whose_restart_fails_leaves_the_server_running_as_before(cluster: PgCluster, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The play's one restart (the engine's, deferred) fails: the original file is put back and the server
    started again, the play fails with the server's own words, and its restore finds nothing left to undo."""
    from planner.cli.main import main

    monkeypatch.setenv("PGPASSFILE", str(cluster.pgpass))
    plan = tmp_path / "pg.yaml"
    plan.write_text(f"""plan: pg_conf_no_start
version: 1
vars: {{db_engine: postgresql, pg_host: 127.0.0.1, pg_port: {cluster.port}, pg_user: planner}}
plays:
  - name: too big to start
    hosts: localhost
    prep:
      - pg_conf: {{params: {{shared_buffers: 4TB}}}}
    workloads:
      - command: {{cmd: "true"}}
""")
    auto = _auto(cluster)
    code = main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")])
    out = "".join(capsys.readouterr())
    assert code != 0 and "did not start with the new parameters" in out and "shared memory" in out, out[-3000:]
    assert "Traceback" not in out
    assert _auto(cluster) == auto and _show(cluster, "shared_buffers") == "16384"
    assert "planner-" not in _files(cluster)  # the copy is gone once the restore found all as it was


def test_a_value_only_the_server_can_judge_is_refused_and_the_others_put_back(cluster: PgCluster,
                                                                              tmp_path: Path) -> None:
    """A string the server checks itself (a time zone name): ALTER SYSTEM refuses it after work_mem was written;
    work_mem is put back, so nothing changed, and the error is the server's own."""
    auto = _auto(cluster)
    step = PgConf({"params": {"work_mem": "8MB", "timezone": "Not/AZone"}})
    with pytest.raises(StepError) as e:
        step.apply(_ctx(tmp_path, cluster, []))
    assert 'invalid value for parameter "TimeZone": "Not/AZone"' in str(e.value)
    assert "put back: nothing changed" in str(e.value) and _auto(cluster) == auto
    assert _show(cluster, "work_mem") == "4096"
    # a name pg_settings spells in mixed case is set, checked in effect and restored like any other
    step = PgConf({"params": {"TimeZone": "Europe/Paris"}})
    ctx = _ctx(tmp_path, cluster, [])
    saved = step.save(ctx)
    assert step.apply(ctx).status is Status.CHANGED and _show(cluster, "TimeZone") == "Europe/Paris"
    assert step.revert(_ctx(tmp_path, cluster, []), saved).status is Status.CHANGED and _auto(cluster) == auto
