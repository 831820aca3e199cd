"""The OLTP stand-ins' CPU model (issue 43): an unsaturated Swingbench run is not "more sessions than CPUs" in
the AWR around it. Users think and wait in their client; only the time in the database is DB time."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import parse_file
from tests.kinds.swingbench.test_wl_swingbench import apply, project


@pytest.mark.slow
def test_32_users_on_16_cpus_are_not_32_active_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_CPUS", "16")
    monkeypatch.setenv("PLANNER_STANDIN_MAX_IOPS", "120000")  # the Violin's 8 LUNs: the device is not the limit
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("users: [2, 8]", "users: 32") + "    collect: [awr]\n")
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    awr = parse_file(next(run.rglob("awr*.txt")), "awr_text")
    aas, cpu = awr.value("db_time_per_s") or 0, awr.value("db_cpu_per_s") or 0
    assert 0 < cpu <= aas < 16  # was 32.0: every connected user counted active, the stand-in's CPU 13 x the AWR's
    assert awr.value("cpus") == 16


@pytest.mark.slow
def test_an_oltp_stand_ins_active_sessions_are_the_awrs_not_its_users(tmp_path: Path) -> None:
    # the hook for a workload stand-in that takes its own snapshots (awr_load, as hammerdbcli's): "active" wins
    from prep_helpers import context

    from planner.db.access import config_for, open_database
    from planner.host import Host
    from planner.rehearsal import sandbox
    from planner.rehearsal.standins import load_state, update_state

    host = Host(name="oel57", address="127.0.0.1", connection="local", vars={"cpus": 16, "cores": 8, "sockets": 2})
    sandbox.populate(tmp_path, host, devices=(), kits={}, oracle=True)
    ctx = context(tmp_path)
    db = open_database(ctx, config_for(ctx))
    dbid = load_state(tmp_path)["database"]["dbid"]
    b = db.callfunc("dbms_workload_repository.create_snapshot", int)
    e = db.callfunc("dbms_workload_repository.create_snapshot", int)
    update_state(tmp_path, lambda s: s.setdefault("awr_load", {}).__setitem__(str(e), {"sessions": 64, "active": 8}))
    text = db.execute(f"select output from table(dbms_workload_repository.awr_report_text({dbid}, 1, {b}, {e}))")
    from planner.parsers import parse_text

    assert 0 < (parse_text(text, "awr.txt", "awr_text").value("db_time_per_s") or 0) <= 8.5
