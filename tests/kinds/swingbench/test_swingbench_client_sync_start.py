"""``sync_start`` with charbench on client hosts (issue 43, docs/load-generator-host.md): two database hosts, each
with its own client; charbench's measured run starts on the clients at the instant the play's hosts share. Before:
the client's context had no start gate (the engine set it on the database host's context only), so both clients'
charbench started whenever each got there, and sync_start.json named no host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.swingbench.standin import install_home
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, write_listener

HOME = "/opt/swingbench"
PLAN = """\
plan: soe_synced
plays:
  - name: oltp
    hosts: db
    sync_start: true
    workloads:
      - name: soe
        swingbench: {home: /opt/swingbench, config: configs/SOE_Server_Side_V2.xml, connect: orcl, users: 1,
                     run_time: 20, build: {scale: 1}}
"""
DBS = {"alpha": "loadgen1", "beta": "loadgen2"}


def project(tmp: Path) -> None:
    lines, clients = ["[db]"], ["[clients]"]
    for db_name, client_name in DBS.items():
        db, client = tmp / "hosts" / db_name, tmp / "hosts" / client_name
        install_standins(db)
        install_home(client, HOME)
        write_listener(client, {"//127.0.0.1:1521/orcl": db / "var/lib/planner-standin/db.json"})
        lines.append(f"{db_name} ansible_connection=local ansible_host=127.0.0.1 planner_root={db} "
                     f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_access=sqlplus oracle_poll_interval_s=0 "
                     f"load_generator_host={client_name} swingbench_password=Soe-pw-1 swingbench_dba_password=Dba-pw-1")
        clients.append(f"{client_name} ansible_connection=local planner_root={client}")
    (tmp / "hosts.ini").write_text("\n".join([*lines, *clients, ""]))
    (tmp / "plan.yaml").write_text(PLAN)


@pytest.mark.slow
def test_the_clients_charbench_runs_start_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.01")
    project(tmp_path)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"])
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "soe"]
    assert code == 0, [r["msg"] for r in results]
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    measured = [c for c in commands if "/bin/charbench " in str(c["command"]) and " -rt " in str(c["command"])]
    assert {c["host"] for c in measured} == set(DBS.values()), measured  # each on its client ...
    assert all("planner-sync-" in str(c["command"]) for c in measured), measured  # ... through the start gate
    synced = [e for e in json.loads((run / "sync_start.json").read_text()) if not e.get("rerun")]
    assert synced, "no synchronised point recorded"
    for entry in synced:
        assert {h: e.get("clock_host") for h, e in entry["hosts"].items()} == DBS, entry
        assert all(e.get("start_ms") is not None for e in entry["hosts"].values()), entry
