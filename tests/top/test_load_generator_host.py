"""Where an OLTP kind's load generator runs (issue 43): the database host's inventory names it with
``load_generator_host``, a host variable of type "host" (planner.variables), checked at validate before any
host is touched. The generator runs on a client host for HammerDB (Oracle and PostgreSQL) and Swingbench
(docs/load-generator-host.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import kindspec, variables
from planner.cli.main import main
from planner.variables import LOAD_GENERATOR_HOST

HAMMERDB = """\
plan: tproc_c
plays:
  - name: oltp
    hosts: db
    workloads:
      - name: tproc-c
        hammerdb: {home: /opt/HammerDB-4.12, service: ORCL, virtual_users: 2}
"""
HAMMERDB_PG = HAMMERDB.replace("service: ORCL", "db: pg")
SWINGBENCH = """\
plan: soe
plays:
  - name: oltp
    hosts: db
    workloads:
      - name: soe
        swingbench: {home: /opt/sb, config: configs/x.xml, connect: //alpha/orcl, users: 2, run_time: 60}
"""


def validate(tmp: Path, plan: str, generator: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    (tmp / "hosts.ini").write_text(
        f"[db]\nalpha ansible_connection=local oracle_home=/u01/db oracle_sid=orcl oracle_diagnostics_pack=true"
        f"{f' load_generator_host={generator}' if generator else ''}\n[clients]\nloadgen ansible_connection=local\n")
    (tmp / "plan.yaml").write_text(plan)
    code = main(["validate", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini")])
    got = capsys.readouterr()
    return code, got.out + got.err


def test_the_variable_is_declared_once_as_a_host_and_the_oltp_kinds_name_their_generator() -> None:
    assert LOAD_GENERATOR_HOST.type == "host" and LOAD_GENERATOR_HOST.name in variables.declared()
    assert {k: o.generator for k, o in kindspec.oltp().items() if o.generator} == {
        "hammerdb": "hammerdbcli", "swingbench": "charbench"}


@pytest.mark.parametrize("plan", [HAMMERDB, SWINGBENCH])
def test_a_load_generator_host_the_inventory_does_not_hold_is_refused_at_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], plan: str) -> None:
    """Before: the variable was read by nothing: a typo ran the generator on the database host, silently."""
    code, out = validate(tmp_path, plan, "loadgne", capsys)
    assert code == 5, out
    assert f"{tmp_path / 'plan.yaml'}:7:" in out and "load_generator_host" in out and "'loadgne'" in out
    assert "host alpha" in out and "Traceback" not in out


def test_swingbench_validates_with_a_client_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: refused ("running charbench on another host than the database's is not built yet"); its connect
    names the database host (tests/kinds/swingbench/test_swingbench_client_host.py: another host is refused)."""
    code, out = validate(tmp_path, SWINGBENCH, "loadgen", capsys)
    assert code == 0, out


def test_hammerdb_on_oracle_validates_with_a_client_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The client path is built for HammerDB on Oracle (tests/kinds/hammerdb/test_hammerdb_client_host.py)."""
    code, out = validate(tmp_path, HAMMERDB, "loadgen", capsys)
    assert code == 0, out


@pytest.mark.parametrize("plan", [HAMMERDB, SWINGBENCH])
@pytest.mark.parametrize("generator", ["", "alpha"])
def test_the_database_host_itself_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str], plan: str,
                                            generator: str) -> None:
    code, out = validate(tmp_path, plan, generator, capsys)
    assert code == 0, out


@pytest.mark.parametrize("inventory, said", [
    ("[db]\nalpha {v} load_generator_host=loadgen\nbeta {v} load_generator_host=loadgen\n[clients]\nloadgen {v}\n",
     "'loadgen' is named by hosts alpha, beta: their load generators would share its CPU"),
    ("[db]\nalpha {v} load_generator_host=beta\nbeta {v}\n", "'beta' of host alpha is a host of the play itself"),
])
def test_a_client_host_serves_one_database_host_and_no_play_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], inventory: str, said: str) -> None:
    """Before: validate looked at one host at a time, so two database hosts naming one client (their users
    sharing its CPU unknowingly) or a client that is a host of the play itself validated."""
    v = "ansible_connection=local oracle_home=/u01/db oracle_sid=orcl oracle_diagnostics_pack=true"
    (tmp_path / "hosts.ini").write_text(inventory.format(v=v))
    (tmp_path / "plan.yaml").write_text(HAMMERDB)
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    got = capsys.readouterr()
    assert code == 5 and said in got.out + got.err, got.out + got.err
    assert f"{tmp_path / 'plan.yaml'}:4:" in got.out + got.err


def test_hammerdb_on_postgresql_validates_with_a_client_host(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Built at stop 52 (tests/kinds/hammerdb/test_hammerdb_pg_client_host.py); before: refused, exit 5."""
    (tmp_path / "hosts.ini").write_text("[db]\nalpha ansible_connection=local db_engine=postgresql "
                                        "load_generator_host=loadgen\n[clients]\nloadgen ansible_connection=local\n")
    (tmp_path / "plan.yaml").write_text(HAMMERDB_PG)
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    got = capsys.readouterr()
    assert code == 0, got.out + got.err
