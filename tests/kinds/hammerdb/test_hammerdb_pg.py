"""HammerDB on PostgreSQL (issue 44, ``db: pg``): the scripts each release takes (config/postgresql.xml at v3.3,
v4.0, v4.12), the engine the step needs, each engine's words only, and the point's failure naming Pgtcl."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.kinds.hammerdb import pg
from planner.kinds.hammerdb.release import Release
from planner.kinds.hammerdb.step import HammerDB
from planner.parsers import parse_text
from planner.steps.base import StepContext

ARGS = {"db": "pg", "home": "/opt/HammerDB-4.12", "virtual_users": 4, "warehouses": 8, "rampup": 1, "duration": 2}
VARS = {"db_engine": "postgresql", "pg_host": "127.0.0.1", "pg_port": 5433, "pg_user": "bench",
        "pg_password": "s3cr$t", "hammerdb_tpcc_password": "Tp[cc]"}


def ctx(**more: object) -> StepContext:
    return StepContext(host=Host("pglab", "127.0.0.1"), conn=None, vars={**VARS, **more},  # type: ignore[arg-type]
                       step_path="plays[0].workloads[0]", plan_dir=Path("."), artifacts=Path("."),
                       run_dir=Path("."), log=lambda *_: None)


def step(**more: object) -> HammerDB:
    return HammerDB({**ARGS, **more})


def test_the_scripts_say_postgresqls_dictionary_keys() -> None:
    build = pg.build_script(step(), ctx(), Release(4, 12))
    assert build.splitlines()[1:3] == ["dbset db pg", "dbset bm TPC-C"]
    for line in ('diset connection pg_host "127.0.0.1"', 'diset connection pg_port "5433"',
                 'diset tpcc pg_superuser "bench"', 'diset tpcc pg_superuserpass "s3cr\\$t"',
                 'diset tpcc pg_user "tpcc"', 'diset tpcc pg_pass "Tp\\[cc\\]"', 'diset tpcc pg_dbase "tpcc"',
                 'diset tpcc pg_count_ware "8"', 'diset tpcc pg_num_vu "1"', "buildschema"):
        assert line in build.splitlines()
    run = pg.run_script(step(), ctx(), Release(4, 5), 8)
    for line in ("diset tpcc pg_driver timed", 'diset tpcc pg_keyandthink "false"', 'diset tpcc pg_rampup "1"',
                 'diset tpcc pg_duration "2"',
                 'vuset vu "4"', "vurun", "while {![vucomplete]} {after 1000; update}", "vudestroy"):
        assert line in run.splitlines()
    assert "ora" not in run.replace("storedprocs", "")  # no Oracle word: dbset db ora, ora_driver, instance
    assert "pg_tspace" not in run  # HammerDB's pg_default unless the plan names one


def test_the_preview_masks_both_passwords() -> None:
    shown = pg.run_script(step(), ctx(), Release(4, 12), 8, masked=True)
    assert 'pg_superuserpass "********"' in shown and 'pg_pass "********"' in shown and "s3cr" not in shown


def test_without_passwords_hammerdbs_defaults_are_written() -> None:
    run = pg.build_script(step(), ctx(pg_password="", hammerdb_tpcc_password=""), Release(4, 12))
    assert 'pg_superuserpass "postgres"' in run and 'pg_pass "tpcc"' in run  # config/postgresql.xml


def test_a_tablespace_is_refused_for_3_3_which_has_no_pg_tspace() -> None:
    with pytest.raises(StepError, match="HammerDB 3.3 has no pg_tspace"):
        pg.refuse_for_release(pg.PgArgs.of({**ARGS, "tablespace": "fast"}), Release(3, 3))
    pg.refuse_for_release(pg.PgArgs.of({**ARGS, "tablespace": "fast"}), Release(4, 0))
    assert 'diset tpcc pg_tspace "fast"' in pg.build_script(step(tablespace="fast"), ctx(), Release(4, 0))


def test_the_engine_is_the_steps_db_and_the_hosts_must_match() -> None:
    assert HammerDB.engine(ARGS) == "postgresql" and HammerDB.engine({"service": "ORCL"}) == "oracle"
    HammerDB.check_args(ARGS, Path("."), VARS)  # no Diagnostics Pack asked: PostgreSQL has no AWR
    with pytest.raises(StepError, match="db_engine is postgresql, and this host's is oracle"):
        HammerDB.check_args(ARGS, Path("."), {"oracle_diagnostics_pack": True})
    with pytest.raises(StepError, match="needs a host whose db_engine is oracle"):
        HammerDB.check_args({"home": "/h", "service": "ORCL", "virtual_users": 1}, Path("."), VARS)


@pytest.mark.parametrize(("args", "words"), [
    ({**ARGS, "service": "ORCL"}, "service is Oracle's, and this step is db: pg"),
    ({"home": "/h", "virtual_users": 1, "database": "tpcc", "service": "S"}, "database is PostgreSQL's"),
    ({"home": "/h", "virtual_users": 1}, "hammerdb needs service on Oracle"),
])
def test_each_engines_words_only(args: dict, words: str) -> None:
    with pytest.raises(StepError, match=words):
        HammerDB(args).validate()


def test_only_postgresql_points_bracket_with_pg_stat_and_start_a_server() -> None:
    assert HammerDB(ARGS).writes_db_report is False and HammerDB({"service": "S"}).writes_db_report is True
    assert HammerDB.rehearsal_server_for(ARGS) == "postgresql" and not HammerDB.rehearsal_server_for({})
    capped = HammerDB.capped_for_rehearsal({**ARGS, "warehouses": 160})
    assert capped["warehouses"] == 4 and capped["virtual_users"] == 4
    assert HammerDB.capped_for_rehearsal({"service": "S", "warehouses": 320})["warehouses"] == 320


def test_pgtcl_missing_fails_the_point_with_hammerdbs_words_and_the_fix() -> None:
    text = ("Vuser 1:RUNNING\nError in Virtual User 1: Failed to load Pgtcl - can't find package Pgtcl\n"
            "Vuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\n")
    why = pg.failure(parse_text(text, "hammerdb.log", "hammerdb"), True)
    assert why is not None and "Failed to load Pgtcl" in why and "libpq" in why


@pytest.mark.parametrize("line", ["TEST RESULT : System achieved 1404 PostgreSQL TPM at 618 NOPM",
                                  "TEST RESULT : System achieved 618 NOPM from 1404 PostgreSQL TPM"])
def test_both_result_orders_read_the_same(line: str) -> None:
    p = parse_text(f"Vuser 1:3 Active Virtual Users configured\nVuser 1:{line}\n", "hammerdb.log", "hammerdb")
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.fact("database")) == (618, 1404, "PostgreSQL")
    assert pg.failure(p, True) is None


def test_a_window_without_a_new_order_fails_the_point_naming_hammerdbs_procedure_errors() -> None:
    """HammerDB 4.12 run from source with Debian's Pgtcl: every transaction failed, the users FINISHED SUCCESS and
    the result said 0 NOPM (docs/oracle-behaviour.md 44.h8)."""
    text = ("Vuser 2:New Order Procedure Error set RAISEERROR for Details\n" * 3 +
            "Vuser 1:2 Active Virtual Users configured\n"
            "Vuser 1:TEST RESULT : System achieved 0 NOPM from 8 PostgreSQL TPM\nVuser 1:FINISHED SUCCESS\n")
    why = pg.failure(parse_text(text, "hammerdb.log", "hammerdb"), True, text)
    assert why is not None and "0 NOPM" in why and "3 'Procedure Error' lines" in why and "pg_raiseerror" in why


def test_the_preview_says_the_scripts_holding_the_passwords_are_private_and_removed() -> None:
    """-C -D showed the scripts masked but not that the real ones hold the passwords, at 0600, removed after."""
    shown = pg.PgRun(step(), ctx()).preview(Release(4, 12))
    assert "0600" in shown and "removed from the host" in shown and "s3cr" not in shown


@pytest.mark.parametrize(("word", "value", "lacking", "having", "line"), [
    ("partition", True, Release(4, 0), Release(4, 1), 'diset tpcc pg_partition "true"'),
    ("sslmode", "require", Release(4, 2), Release(4, 3), 'diset connection pg_sslmode "require"'),
])
def test_partition_and_sslmode_are_said_where_the_release_has_them_and_refused_by_name_where_not(
        word: str, value: object, lacking: Release, having: Release, line: str) -> None:
    """pg_partition came with 4.1, pg_sslmode with 4.3 (config/postgresql.xml per tag): a plan could not set them,
    and an older release would have said "key doesn't exist" and run without them."""
    args = pg.PgArgs.of({**ARGS, word: value})
    with pytest.raises(StepError, match=f"HammerDB {lacking.name} has no pg_{word} \\(from {having.name}\\)"):
        pg.refuse_for_release(args, lacking)
    pg.refuse_for_release(args, having)
    assert line in pg.build_script(step(**{word: value}), ctx(), having).splitlines()
    assert f"pg_{word}" not in pg.build_script(step(), ctx(), lacking)  # a key the release lacks is never sent
    assert f"pg_{word}" not in pg.run_script(step(), ctx(), lacking, 8)


def test_vacuum_is_every_releases_and_said_in_the_run_always() -> None:
    """pg_vacuum is in config/postgresql.xml from 3.3 on: said in every run (4.5+ keeps a value set once)."""
    pg.refuse_for_release(pg.PgArgs.of({**ARGS, "vacuum": True}), Release(3, 3))
    assert 'diset tpcc pg_vacuum "true"' in pg.run_script(step(vacuum=True), ctx(), Release(3, 3), 8).splitlines()
    assert 'diset tpcc pg_vacuum "false"' in pg.run_script(step(), ctx(), Release(4, 12), 8).splitlines()
    # HammerDB's defaults said where the release has the key: a value left in 4.5+'s store is not kept
    build = pg.build_script(step(), ctx(), Release(4, 12)).splitlines()
    assert 'diset tpcc pg_partition "false"' in build and 'diset connection pg_sslmode "prefer"' in build


def test_the_new_words_are_in_the_steps_schema_and_refused_on_oracle() -> None:
    HammerDB.check_args({**ARGS, "partition": True, "sslmode": "verify-full", "vacuum": True}, Path("."), VARS)
    with pytest.raises(StepError, match="partition is PostgreSQL's"):
        pg.validate({"service": "ORCL", "partition": True})


def test_the_preview_refuses_a_word_the_release_lacks_as_apply_does() -> None:
    """-C -D on HammerDB 3.3 with a tablespace showed a build.tcl whose pg_tspace 3.3 ignores, and no refusal:
    only apply refused it."""
    with pytest.raises(StepError, match="HammerDB 3.3 has no pg_tspace"):
        pg.PgRun(step(tablespace="fast"), ctx()).preview(Release(3, 3))
    with pytest.raises(StepError, match="HammerDB 4.0 has no pg_partition"):
        pg.PgRun(step(partition=True), ctx()).preview(Release(4, 0))
    assert 'pg_partition "true"' in pg.PgRun(step(partition=True), ctx()).preview(Release(4, 1))


def client_ctx(address: str = "10.0.0.5", **db_vars: object) -> StepContext:
    """The database host alpha (10.0.0.5) with the load generator host loadgen (StepContext.generator)."""
    gen = StepContext(host=Host("loadgen", "10.0.0.9", vars={"planner_root": "/sandbox/loadgen"}),
                      conn=None, vars={}, step_path="plays[0].workloads[0]",  # type: ignore[arg-type]
                      plan_dir=Path("."), artifacts=Path("."), run_dir=Path("."), log=lambda *_: None)
    return StepContext(host=Host("alpha", address), conn=None,  # type: ignore[arg-type]
                       vars={**VARS, **db_vars}, step_path="plays[0].workloads[0]", plan_dir=Path("."),
                       artifacts=Path("."), run_dir=Path("."), log=lambda *_: None, generator=gen)


@pytest.mark.parametrize(("pg_host", "seen"), [
    ("/var/run/postgresql", "10.0.0.5"), ("localhost", "10.0.0.5"), ("127.0.0.1", "10.0.0.5"), ("", "10.0.0.5"),
    ("db-alpha.lan", "db-alpha.lan"), ("10.1.0.5", "10.1.0.5")])
def test_from_a_client_host_pg_host_is_the_server_on_the_network(pg_host: str, seen: str) -> None:
    """The database host's pg_host when it names the server on the network; its address when the pg_host is the
    local socket or loopback, which from the client would be no server or the client itself."""
    script = pg.build_script(step(), client_ctx(pg_host=pg_host), Release(4, 12)).splitlines()
    assert f'diset connection pg_host "{seen}"' in script and 'diset connection pg_port "5433"' in script
    assert pg.script_server(ctx(pg_host=pg_host)).host == pg_host  # on the database host: its own, as before


@pytest.mark.parametrize(("address", "pg_host", "seen"), [
    ("127.0.0.2", "127.0.0.1", "127.0.0.1"), ("localhost", "127.0.0.1", "127.0.0.1"),
    ("127.0.0.2", "/tmp/sock", "127.0.0.2")])
def test_a_database_host_on_loopback_shares_the_machine_and_keeps_its_loopback_pg_host(
        address: str, pg_host: str, seen: str) -> None:
    """A lab's or a rehearsal's hosts (127.0.0.x, localhost) are this machine: the server may listen on
    127.0.0.1 only, where the client reaches it too; a socket directory is still not a host name."""
    assert pg.script_server(client_ctx(address, pg_host=pg_host)).host == seen


def test_the_preview_shows_hammerdbcli_on_the_client_and_psql_on_the_database_host() -> None:
    shown = pg.PgRun(step(), client_ctx(pg_host="/var/run/postgresql")).preview(Release(4, 12))
    assert "cd /sandbox/loadgen/opt/HammerDB-4.12 && ./hammerdbcli auto" in shown
    assert "-h /var/run/postgresql" in shown  # planner's own questions, over the database host's socket
    assert "on the load generator host loadgen" in shown and "s3cr" not in shown


def test_a_refused_login_fails_the_point_with_pgtcls_and_libpqs_words() -> None:
    """HammerDB's ConnectToPostgres prints and raises Pgtcl's message, two lines (docs/oracle-behaviour.md 43.h13):
    the point said only "Connection to database failed", not the server's reason."""
    refused = ('Connection to database failed\nconnection to server at "10.0.0.5", port 5432 failed: FATAL:  no '
               'pg_hba.conf entry for host "10.0.0.9", user "tpcc", database "tpcc", no encryption\n')
    text = "".join(f"Vuser {n}:{refused}Error in Virtual User {n}: {refused}Vuser {n}:FINISHED FAILED\n"
                   for n in (1, 2)) + "ALL VIRTUAL USERS COMPLETE\n"
    why = pg.failure(parse_text(text, "hammerdb.log", "hammerdb"), True, text)
    assert why is not None and "Connection to database failed: connection to server at" in why, why
    assert 'no pg_hba.conf entry for host "10.0.0.9"' in why and "pg_hba.conf must admit" in why
