"""``sync_start`` with the load generator on client hosts (issue 43, docs/load-generator-host.md): two database
hosts, each with its own client; the measured run (hammerdbcli's run.tcl) starts on the clients at the instant the
play's hosts share, as it does on the database hosts without a client. Before: the client's context got none of the
point's settings the engine puts on the database host's (its sync gate, its point folder, the measured-start hook):
both clients' measured runs started unsynchronised, sync_start.json named no host, and the timed run had no
time-out (a hung hammerdbcli on a client would hang the run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.engine.syncstart import MARKER
from planner.kinds.hammerdb import standin
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, write_listener
from planner.transport.connection import LocalConnection

HOME = "/opt/HammerDB-4.12"
PLAN = """\
plan: tproc_c_synced
plays:
  - name: oltp
    hosts: db
    sync_start: true
    workloads:
      - name: tproc-c
        hammerdb: {home: /opt/HammerDB-4.12, service: ORCL, virtual_users: 1, warehouses: 2, rampup: 1, duration: 1}
"""
DBS = {"alpha": "loadgen1", "beta": "loadgen2"}


def project(tmp: Path) -> None:
    """alpha and beta: databases (stand-in state, no kit); loadgen1 and loadgen2: a kit each and the listener
    stand-in naming their own database host's state."""
    lines = ["[db]"]
    clients = ["[clients]"]
    for db_name, client_name in DBS.items():
        db, client = tmp / "hosts" / db_name, tmp / "hosts" / client_name
        install_standins(db)
        standin.write_kit(client / HOME.lstrip("/"), "4.12")
        write_listener(client, {"//127.0.0.1:1521/ORCL": db / "var/lib/planner-standin/db.json"})
        lines.append(f"{db_name} ansible_connection=local ansible_host=127.0.0.1 planner_root={db} "
                     f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_diagnostics_pack=true "
                     f"load_generator_host={client_name}")
        clients.append(f"{client_name} ansible_connection=local planner_root={client} oracle_home=/u01/client")
    (tmp / "hosts.ini").write_text("\n".join([*lines, *clients, ""]))
    (tmp / "vars.json").write_text(json.dumps({"hammerdb_system_password": "Sys-pw-4-sync"}))
    (tmp / "plan.yaml").write_text(PLAN)


@pytest.mark.slow
def test_the_clients_measured_runs_start_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    project(tmp_path)
    timeouts: list[float | None] = []  # what each timed run was given: the real run, only watched
    real_run = LocalConnection.run

    def run(self: LocalConnection, argv: Any, **kw: Any) -> Any:
        if any(str(a).endswith("run.tcl") for a in argv) and "hammerdbcli" in " ".join(map(str, argv)):
            timeouts.append(kw.get("timeout"))
        return real_run(self, argv, **kw)

    monkeypatch.setattr(LocalConnection, "run", run)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report", "-e", f"@{tmp_path / 'vars.json'}"])
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "tproc-c"]
    assert code == 0, [r["msg"] for r in results]
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    timed = [c for c in commands if "/hammerdbcli auto " in str(c["command"]) and "run.tcl" in str(c["command"])]
    assert {c["host"] for c in timed} == set(DBS.values()), timed  # each timed run on its client
    for c in timed:  # ... sent through the start gate, in the client's own point folder
        assert "planner-sync-" in str(c["command"]), c["command"]
        assert str(tmp_path / "hosts" / c["host"]) in str(c["command"])
        assert MARKER not in str(c.get("stderr", ""))
    # a hung hammerdbcli on a client must not hang the run: its timed run has the step's budget, as on the host
    # (a start late beyond the tolerance, as on a loaded machine, runs the point once more: two timed runs more)
    starts = json.loads((run / "sync_start.json").read_text())
    assert len(timeouts) == 2 * len(starts) and all(t is not None and t > 0 for t in timeouts), (timeouts, starts)
    synced = [e for e in starts if not e.get("rerun")]
    assert synced, "no synchronised point recorded"
    for entry in synced:  # both database hosts' points arrived at the barrier and their start was read back
        assert set(entry["hosts"]) == set(DBS), entry
        assert all(h.get("start_ms") is not None and h["clock_offset_ms"] is not None
                   for h in entry["hosts"].values()), entry
        assert {h: e["clock_host"] for h, e in entry["hosts"].items()} == DBS  # whose clock started them
