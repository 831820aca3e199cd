"""``planner apply --rehearse`` with a client host (docs/load-generator-host.md, issue 43): the database host's
``load_generator_host`` gets a sandbox of its own (the kit, no database) and the lab's listener file; the runner is
handed that simulated client, never the real one; the world record and the report say the client was simulated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.host import Host
from planner.plan.loader import load_plan
from planner.rehearsal import clients

PLAN = """\
plan: tproc_c
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: tproc-c
        hammerdb: {home: /opt/HammerDB-4.12, service: ORCL, virtual_users: 2, warehouses: 4, rampup: 1, duration: 2}
    collect: [awr]
"""


def test_the_client_uses_are_the_generator_steps_of_hosts_naming_another_host(tmp_path: Path) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    plan = load_plan(tmp_path / "plan.yaml", inventory_must_exist=False)
    alpha = Host("alpha", "127.0.0.1", vars={"load_generator_host": "loadgen"})
    beta = Host("beta", "127.0.0.1", vars={"load_generator_host": "beta"})  # itself: the database host runs it
    uses = clients.client_uses(plan, {"oltp": [alpha, beta]}, {})
    assert [(u.client, u.database, u.kind, u.args["service"]) for u in uses] == [
        ("loadgen", "alpha", "hammerdb", "ORCL")]
    kits = {"alpha": {"hammerdb": "/opt/h", "slob": "/home/oracle/SLOB"}, "beta": {"hammerdb": "/opt/h"}}
    assert clients.kits_where_run(uses, kits) == {"alpha": {"slob": "/home/oracle/SLOB"},
                                                  "beta": {"hammerdb": "/opt/h"}, "loadgen": {"hammerdb": "/opt/h"}}
    assert clients.role(uses, "loadgen") == "a simulated client host, the load generator of alpha"
    assert clients.role(uses, "alpha") == ""


@pytest.mark.slow
def test_a_rehearsal_simulates_the_client_host_and_never_reaches_the_real_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the rehearsal handed the runner no client host, so the database host's play failed ("a rehearsal
    does not simulate a client host yet") and the plan could not be rehearsed at all."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")
    real = tmp_path / "real-loadgen"  # the real client's "/": a run that reached it would lock it there
    (tmp_path / "hosts.ini").write_text(
        "[lab]\nalpha ansible_connection=local oracle_home=/u01/db oracle_sid=orcl oracle_diagnostics_pack=true "
        "cpus=16 load_generator_host=loadgen\n[clients]\n"
        f"loadgen ansible_connection=local oracle_home=/u01/client cpus=4 planner_root={real}\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    code = main(["apply", "--rehearse", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report", "--limit", "alpha"])
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir() and (p / "meta.json").exists())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "tproc-c"]
    assert code == 0 and [r["status"] for r in results] == ["changed"], [r["msg"] for r in results]
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    assert {c["host"] for c in commands if "/hammerdbcli auto " in str(c["command"])} == {"loadgen"}
    meta = json.loads((run / "meta.json").read_text())
    lock = meta["remote"]["loadgen"]["lock"]  # the simulated client, locked in its rehearsal sandbox
    assert "planner-rehearsal-" in lock and not lock.startswith(str(real)) and not real.exists()
    worlds = {w["host"]: w for w in meta["world"]}
    assert worlds["loadgen"]["role"] == "a simulated client host, the load generator of alpha"
    assert worlds["loadgen"]["database"] == "" and worlds["alpha"]["database"] and not worlds["alpha"]["role"]
    assert ["HammerDB", "4.12"] in worlds["loadgen"]["tools"]
    awr = [run / a["path"] for a in results[0]["artifacts"] if Path(a["path"]).name.startswith("awr_")]
    host_rows = [line for p in awr for line in p.read_text().splitlines() if line.startswith(("alpha", "loadgen"))]
    assert host_rows and all(r.split()[0] == "alpha" for r in host_rows), host_rows  # the database's, not the client's
