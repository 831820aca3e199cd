"""The PostgreSQL store's own behaviour (issue 19): credentials only from libpq's places, a shared schema
migrated on purpose, an unreachable server in words, and an apply pushing its run to the team's store."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from pg_cluster import PgCluster
from test_report_helpers import seed_study
from test_store_backends import cli, migrated

from planner.store import open_store, parse_store_url

pytestmark = [pytest.mark.slow]


@pytest.fixture
def pg(pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> PgCluster:
    """No credentials anywhere to start with: each test gives the one it means."""
    for var in ("PGPASSFILE", "PGPASSWORD", "PLANNER_STORE", "PGSERVICE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return pg_cluster


def test_an_unmigrated_server_asks_for_store_migrate(pg: PgCluster, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    url = pg.url(pg.new_database())
    code, _, err = cli(capsys, "runs", "--store", url)
    assert code == 5 and f"run `planner store migrate --store {url}`" in err and "Traceback" not in err
    assert cli(capsys, "store", "migrate", "--store", url)[0] == 0
    assert cli(capsys, "runs", "--store", url)[0] == 0


def test_the_password_comes_from_pgpass_and_lands_nowhere(pg: PgCluster, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    url = pg.url(pg.new_database())
    code, _, err = cli(capsys, "store", "migrate", "--store", url)  # no credentials at all
    assert code == 5 and "refused the login" in err and "~/.pgpass" in err and "Traceback" not in err
    pgpass = tmp_path / "home" / ".pgpass"  # the file every libpq client reads
    pgpass.write_text(pg.pgpass.read_text())
    pgpass.chmod(0o600)
    assert cli(capsys, "store", "migrate", "--store", url)[0] == 0
    pgpass.unlink()
    monkeypatch.setenv("PGPASSWORD", pg.password)  # and the environment, as CI jobs give it
    monkeypatch.setenv("PLANNER_STORE", url)
    run = seed_study(tmp_path / "runs")
    code, out, err = cli(capsys, "store", "push", str(run))
    assert code == 0 and "pushed" in out
    assert pg.password not in out + err
    dump = pg.psql("SELECT string_agg(convert_from(content, 'UTF8'), '') FROM run_files", db=url.rsplit("/", 1)[1])
    dump += pg.psql("SELECT string_agg(r::text, '') FROM runs r", db=url.rsplit("/", 1)[1])
    assert "slob_violin_vs_exadata" in dump and pg.password not in dump


def test_an_unreachable_server_or_missing_database_is_told_in_words(pg: PgCluster, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # bound, never listening: connection refused
        code, _, err = cli(capsys, "runs", "--store", f"postgresql://planner@127.0.0.1:{closed}/planner")
    assert code == 4 and "cannot reach the results store" in err and "Traceback" not in err
    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    code, _, err = cli(capsys, "runs", "--store", pg.url("no_such_db"))
    assert code == 5 and "does not exist" in err and "createdb" in err


def test_apply_pushes_its_run_to_the_team_store(pg: PgCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from test_engine_local import PLAN, TEMPLATE

    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    url = migrated(pg.url(pg.new_database()))
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "init.ora.j2").write_text(TEMPLATE)
    (tmp_path / "hosts" / "alpha" / "etc").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path}/hosts/alpha\n")
    (tmp_path / "plan.yaml").write_text(PLAN.format(extra=""))
    code, out, err = cli(capsys, "apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                         "--runs-dir", str(tmp_path / "runs"), "--no-report", "--store", url)
    assert code == 0, err
    run = next(p for p in (tmp_path / "runs").iterdir() if (p / "meta.json").is_file())
    assert "not saved" not in out + err
    with open_store(parse_store_url(url, Path("."))) as st:
        row = st.run(run.name)
        assert row is not None and row.status == "complete" and row.hosts == ("alpha",)
        assert row.controller == json.loads((run / "meta.json").read_text())["controller"]
        stored = st.stored_run(run.name)
    assert stored is not None and "recap.json" in dict(stored.files)
    code, out, _ = cli(capsys, "runs", "--store", url, "--host", "alpha")
    assert code == 0 and run.name in out and "CONTROLLER" in out
