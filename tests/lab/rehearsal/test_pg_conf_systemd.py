"""pg_conf on a host whose PostgreSQL systemd runs (``pg_service``): restarted with ``systemctl restart``.

No systemd runs here, so the lab host's systemctl and journalctl are the stand-in (planner/rehearsal/standins/
bin/systemctl, docs/oracle-behaviour.md row 44.d1) over one unit whose control processes are the real pg_ctl of
a real server (tests/pg_cluster.py): ExecStart ``pg_ctl start -l LOG -w``, as Debian's and many sites' forking
units start PostgreSQL, so the server's own words are in its log file, not in the journal.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pg_cluster import PgCluster, own_cluster

from planner.errors import StepError
from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.rehearsal.labworld import Userland
from planner.status import Status
from planner.steps.base import StepContext
from planner.steps.prep_pg import PgConf
from planner.transport.connect import connect_all
from planner.transport.connection import CommandResult, Connection

pytestmark = [pytest.mark.slow, pytest.mark.ssh]
UNIT = "pgdemo.service"


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    yield from own_cluster("pg_conf")


@pytest.fixture
def host(make_lab: Callable[..., Lab], cluster: PgCluster, monkeypatch: pytest.MonkeyPatch) -> Iterator[
        tuple[Host, Connection, Path]]:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    if not Path("/usr/bin/systemctl").exists() or not Path("/usr/bin/journalctl").exists():
        pytest.skip("the stand-in covers /usr/bin/systemctl and /usr/bin/journalctl: this machine has neither")
    lab = make_lab(1, userland=(Userland.SYSTEMCTL, Userland.JOURNALCTL))
    name = lab.hosts[0].name
    units = lab.root / "sshd" / name / "userland"  # the covering folder: the stand-in's units, state, journal
    (units / "units").mkdir()
    opts = (f"-c listen_addresses=127.0.0.1 -p {cluster.port} -k {cluster.root / 'sock'} -c fsync=off "
            "-c max_connections=50 -c shared_preload_libraries=pg_stat_statements")
    data, pg_ctl = cluster.root / "data", cluster.bin / "pg_ctl"
    (units / "units" / UNIT).write_text(
        "[Unit]\nDescription=PostgreSQL demo cluster\n[Service]\nType=forking\n"
        + (f"User={cluster.as_user[2]}\n" if cluster.as_user else "")
        + f"ExecStart={pg_ctl} start -D {data} -l {cluster.root / 'log'} -w -t 60 -o {shlex.quote(opts)}\n"
        + f"ExecStop={pg_ctl} stop -D {data} -m fast -w\n")
    (units / "state").mkdir()
    (units / "state" / UNIT).write_text("active\n")  # the unit's ExecStart is how the cluster was started
    conn = connect_all([lab.hosts[0]])[name]
    assert isinstance(conn, Connection), conn
    yield lab.hosts[0], conn, units
    conn.close()


def _ctx(tmp: Path, h: tuple[Host, Connection, Path], c: PgCluster, log: list[CommandResult],
         service: str = UNIT) -> StepContext:
    run = tmp / "run-pgconf"
    art = run / "artifacts" / h[0].name / "prep"
    art.mkdir(parents=True, exist_ok=True)
    hv = {"pg_host": "127.0.0.1", "pg_port": c.port, "pg_user": "planner", "pg_password": c.password,
          "pg_service": service}
    return StepContext(host=h[0], conn=h[1], vars=hv, step_path="plays[0].prep[0]", plan_dir=tmp, artifacts=art,
                       run_dir=run, log=lambda _h, _s, r: log.append(r))


def _show(c: PgCluster, name: str) -> str:
    return c.psql(f"select setting from pg_settings where name = '{name}'").strip()


def test_systemctl_restarts_the_server_and_restore_restarts_it_back(
        cluster: PgCluster, host: tuple[Host, Connection, Path], tmp_path: Path) -> None:
    before = _show(cluster, "shared_buffers")
    log: list[CommandResult] = []
    step = PgConf({"params": {"shared_buffers": "256MB"}})
    preview = step.check(_ctx(tmp_path, host, cluster, log))
    assert f"a restart is needed (systemctl restart {UNIT})" in preview.msg, preview.msg
    ctx = _ctx(tmp_path, host, cluster, log)
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and f"; restarted (systemctl restart {UNIT})" in out.msg, out.msg
    assert _show(cluster, "shared_buffers") == "32768"
    assert any(r.command.startswith("sudo ") and "systemctl" in r.command and UNIT in r.command for r in log)
    journal = (host[2] / "journal" / UNIT).read_text()
    assert "Stopped PostgreSQL demo cluster." in journal
    assert journal.rstrip().endswith("Started PostgreSQL demo cluster.")
    back = step.revert(_ctx(tmp_path, host, cluster, log), saved)
    assert back.status is Status.CHANGED and f"restarted (systemctl restart {UNIT})" in back.msg, back.msg
    assert _show(cluster, "shared_buffers") == before
    assert all(cluster.password not in r.command + r.stdout + r.stderr for r in log)


def test_a_unit_that_fails_to_start_gets_the_original_file_back_with_the_servers_words(
        cluster: PgCluster, host: tuple[Host, Connection, Path], tmp_path: Path) -> None:
    step = PgConf({"params": {"shared_buffers": "4TB"}})  # in range, but no machine here maps 4 TB
    ctx = _ctx(tmp_path, host, cluster, [])
    saved = step.save(ctx)
    with pytest.raises(StepError) as e:
        step.apply(ctx)
    text = str(e.value)
    assert f"did not start with the new parameters (systemctl restart {UNIT})" in text, text
    assert "put the original postgresql.auto.conf back" in text, text
    # the reason is in the server's log (pg_ctl -l), not in the journal: planner reads both
    assert "could not map anonymous shared memory" in text, text
    assert _show(cluster, "shared_buffers") == "16384"
    assert (host[2] / "state" / UNIT).read_text().strip() == "active"  # running as before, under its unit
    assert step.revert(_ctx(tmp_path, host, cluster, []), saved).status is Status.OK


def test_a_unit_that_is_not_the_running_server_is_refused_before_any_change(
        cluster: PgCluster, host: tuple[Host, Connection, Path], tmp_path: Path) -> None:
    auto = cluster.psql("select pg_read_file('postgresql.auto.conf')")
    log: list[CommandResult] = []
    step = PgConf({"params": {"shared_buffers": "256MB"}})
    with pytest.raises(StepError) as e:
        step.apply(_ctx(tmp_path, host, cluster, log, service="postgresql-typo"))
    text = str(e.value) + (e.value.hint or "")
    assert "postgresql-typo" in text and "not active" in text, text
    assert cluster.psql("select pg_read_file('postgresql.auto.conf')") == auto
    assert not any("alter system" in r.command for r in log)
