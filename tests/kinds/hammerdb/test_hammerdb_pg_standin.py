"""The stand-in hammerdbcli on PostgreSQL (``dbset db pg``) against a real server: it builds the TPROC-C schema in
it and drives real transactions, printing what HammerDB prints at each release (docs/oracle-behaviour.md 44.h*):
NOPM first from 4.0, TPM first at 3.3, and HammerDB's words when Pgtcl cannot load. Before: "Unknown prefix pg"."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.kinds.hammerdb import standin
from planner.kinds.hammerdb.release import WAIT_LOOP
from planner.parsers import parse_text
from planner.rehearsal import postgres


@pytest.fixture(scope="module")
def server() -> Iterator[postgres.RehearsalServer]:
    """One real server for the module, under /tmp: the server's own user (as root) cannot reach pytest's 0700
    folders."""
    if postgres.server_bin() is None:
        pytest.skip("no PostgreSQL server programs here")
    base = Path(tempfile.mkdtemp(prefix="hammerdb-pg-"))
    srv = postgres.start(base)
    yield srv
    srv.stop()
    shutil.rmtree(base, ignore_errors=True)


def cli(tmp: Path, server: postgres.RehearsalServer, release: str, body: str, user: str = "tpcc",
        **env: str) -> subprocess.CompletedProcess[str]:
    hv = server.host_vars()
    program = standin.write_kit(tmp / f"HammerDB-{release}", release)
    script = tmp / "t.tcl"
    script.write_text(f'dbset db pg\ndiset connection pg_host "127.0.0.1"\ndiset connection pg_port "{hv["pg_port"]}"\n'
                      f'diset tpcc pg_superuser "{hv["pg_user"]}"\ndiset tpcc pg_superuserpass "{hv["pg_password"]}"\n'
                      f'diset tpcc pg_user "{user}"\ndiset tpcc pg_dbase "{user}"\n{body}')
    return subprocess.run([str(program), "auto", str(script)], capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, "PLANNER_STANDIN_TIME_SCALE": "0.02", **env})


def psql(server: postgres.RehearsalServer, db: str, sql: str) -> str:
    hv = server.host_vars()
    return subprocess.run(["psql", "-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(hv["pg_port"]), "-U",
                           str(hv["pg_user"]), "-d", db, "-c", sql], capture_output=True, text=True, timeout=60,
                          check=True, env={**os.environ, "PGPASSWORD": str(hv["pg_password"])}).stdout.strip()


RUN = ('diset tpcc pg_driver timed\ndiset tpcc pg_rampup "0"\ndiset tpcc pg_duration "2"\nprint dict\nvuset vu "2"\n'
       'vurun\n')


@pytest.mark.slow
def test_4_12_builds_in_the_real_server_and_counts_as_hammerdb_does(tmp_path: Path,
                                                                     server: postgres.RehearsalServer) -> None:
    build = cli(tmp_path, server, "4.12", 'diset tpcc pg_count_ware "2"\nbuildschema\n')
    assert "Database set to PostgreSQL" in build.stdout and "TPCC SCHEMA COMPLETE" in build.stdout, build.stdout
    assert psql(server, "tpcc", "select max(w_id) from warehouse") == "2"
    assert psql(server, "tpcc", "select pg_get_userbyid(datdba) from pg_database where datname = 'tpcc'") == "tpcc"
    before = int(psql(server, "tpcc", "select sum(d_next_o_id) from district"))
    run = cli(tmp_path, server, "4.12", RUN)
    p = parse_text(run.stdout, "hammerdb.log", "hammerdb")
    assert "System achieved" in run.stdout and "NOPM from" in run.stdout, run.stdout[-2000:]
    assert p.value("hammerdb.nopm") and p.value("hammerdb.tpm") and not p.value("hammerdb.vu_failed")
    assert int(psql(server, "tpcc", "select sum(d_next_o_id) from district")) > before  # real new orders


@pytest.mark.slow
def test_3_3_prints_tpm_first_lacks_pg_tspace_and_pgtcl_missing_fails_every_user(
        tmp_path: Path, server: postgres.RehearsalServer) -> None:
    build = cli(tmp_path, server, "3.3", f'diset tpcc pg_tspace "fast"\ndiset tpcc pg_count_ware "1"\nbuildschema\n'
                f"{WAIT_LOOP}\n", user="tpcc33")
    assert 'Dictionary "tpcc" for PostgreSQL exists but key "pg_tspace" doesn\'t' in build.stdout
    assert "TPCC33 SCHEMA COMPLETE" in build.stdout, build.stdout
    run = cli(tmp_path, server, "3.3", RUN + f"{WAIT_LOOP}\n", user="tpcc33")
    assert "PostgreSQL TPM at" in run.stdout, run.stdout[-2000:]  # 3.3's order (pgoltp.tcl v3.3 line 2344)
    assert parse_text(run.stdout, "hammerdb.log", "hammerdb").value("hammerdb.nopm") is not None
    gone = cli(tmp_path, server, "4.12", RUN, user="tpcc33", PLANNER_STANDIN_HAMMERDB_PGTCL="missing")
    assert gone.stdout.count("Failed to load Pgtcl - can't find package Pgtcl") == 3  # the monitor and 2 users
    assert "TEST RESULT" not in gone.stdout


@pytest.mark.slow
def test_partition_sslmode_and_vacuum_are_honoured_as_pgoltp_does(tmp_path: Path,
                                                                  server: postgres.RehearsalServer) -> None:
    """pg_partition (4.1+), pg_sslmode (4.3+) and pg_vacuum were not in the stand-in's dictionary or were ignored
    (docs/oracle-behaviour.md 44.h9-44.h11)."""
    build = cli(tmp_path, server, "4.12", 'diset tpcc pg_partition "true"\ndiset tpcc pg_count_ware "200"\n'
                "buildschema\n", user="tpccpart")
    assert "TPCCPART SCHEMA COMPLETE" in build.stdout, build.stdout
    # one hash partition per 100 warehouses (pgoltp.tcl v4.12 do_tpcc, CreateTables)
    assert psql(server, "tpccpart", "select count(*) from pg_inherits where inhparent = 'order_line'::regclass") == "2"
    old = cli(tmp_path, server, "4.0", 'diset tpcc pg_partition "true"\n', user="tpccpart")
    assert 'Dictionary "tpcc" for PostgreSQL exists but key "pg_partition" doesn\'t' in old.stdout
    # the lab's server has no SSL: require is refused by libpq, as Pgtcl's pg_connect would be
    ssl = cli(tmp_path, server, "4.12", 'diset connection pg_sslmode "require"\ndiset tpcc pg_count_ware "1"\n'
              "buildschema\n", user="tpccssl")
    assert "sslmode REQUIRE" in ssl.stdout and "FINISHED FAILED" in ssl.stdout and "SSL" in ssl.stdout, ssl.stdout
    vacuums = "select vacuum_count from pg_stat_sys_tables where relname = 'pg_class'"
    before = int(psql(server, "postgres", vacuums))
    run = cli(tmp_path, server, "4.12", 'diset tpcc pg_vacuum "true"\n' + RUN, user="tpccpart")
    assert "Vuser 1:Checkpoint and Vacuum Complete" in run.stdout, run.stdout[-2000:]
    assert parse_text(run.stdout, "hammerdb.log", "hammerdb").value("hammerdb.nopm") is not None
    assert int(psql(server, "postgres", vacuums)) > before  # the default database is vacuumed, not pg_dbase
