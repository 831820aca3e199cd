"""db_engine (issue 44): the inventory says which database a host runs (oracle by default); validate refuses a
step of the other engine on it, at the step's line, every problem at once, exit 5, before any host is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """plan: p
plays:
  - name: pg
    hosts: pg
    workloads:
      - pgbench: {database: bench, clients: 2}
    collect: [pg_stat]
  - name: ora
    hosts: ora
    workloads:
      - pgbench: {database: bench, clients: 2}
    collect: [awr, pg_stat]
"""


def _validate(tmp: Path, inventory: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    (tmp / "hosts.ini").write_text(inventory)
    (tmp / "plan.yaml").write_text(PLAN)
    code = main(["validate", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini")])
    return code, capsys.readouterr().err


def test_a_step_of_the_other_engine_is_refused_at_its_line(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _validate(tmp_path, "[pg]\np1 ansible_host=192.0.2.1 db_engine=postgresql\n"
                          "[ora]\no1 ansible_host=192.0.2.2 oracle_diagnostics_pack=true\n", capsys)
    assert code == 5, err
    # the ora play: pgbench (line 11) and pg_stat (line 12) on an Oracle host; awr there is fine
    assert "plan.yaml:11:" in err and "step kind 'pgbench' needs a host whose db_engine is postgresql, " \
        "and this host's is oracle" in err
    assert "plan.yaml:12:" in err and "'pg_stat' needs a host whose db_engine is postgresql" in err
    assert "'awr' needs" not in err and "plan.yaml:6:" not in err and "plan.yaml:7:" not in err
    assert "Traceback" not in err


def test_an_oracle_step_on_a_postgresql_host_and_a_bad_engine_are_refused(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _validate(tmp_path, "[pg]\np1 ansible_host=192.0.2.1 db_engine=postgres\n"
                          "[ora]\no1 ansible_host=192.0.2.2 db_engine=postgresql oracle_diagnostics_pack=true\n",
                          capsys)
    assert code == 5, err
    assert "step kind 'awr' needs a host whose db_engine is oracle, and this host's is postgresql" in err
    assert "db_engine is 'postgres', not oracle or postgresql" in err and "plan.yaml:6:" in err


def test_a_plan_on_the_right_engines_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[pg]\np1 ansible_host=192.0.2.1 db_engine=postgresql\n")
    (tmp_path / "plan.yaml").write_text(PLAN.split("  - name: ora")[0])
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    assert code == 0, capsys.readouterr().err


def test_every_postgresql_kind_is_refused_on_an_oracle_host(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """sysbench and pg_conf landed beside db_engine without declaring theirs: validate let them onto an Oracle
    host, where they failed only once a host was touched."""
    (tmp_path / "hosts.ini").write_text("[ora]\no1 ansible_host=192.0.2.2\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: e\nplays:\n  - name: ora\n    hosts: ora\n    prep:\n"
        "      - pg_conf: {params: {work_mem: 4MB}}\n"
        "    workloads:\n      - sysbench: {database: sb, threads: 4}\n")
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5, err
    for kind in ("pg_conf", "sysbench"):
        assert f"step kind '{kind}' needs a host whose db_engine is postgresql" in err, err
