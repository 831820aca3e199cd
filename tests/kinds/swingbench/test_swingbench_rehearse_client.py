"""``planner apply --rehearse`` of a Swingbench plan whose database host names a client host (issue 43,
docs/load-generator-host.md): the simulated client gets the Swingbench kit and the lab's listener file (its
``-cs`` -> the database host's stand-in state), so oewizard and charbench run there and reach the database; the
AWR around charbench names the database server, never the client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: soe
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: soe
        swingbench: {home: /opt/swingbench, config: configs/SOE_Server_Side_V2.xml, connect: ORCL, users: 2,
                     run_time: 60, build: {scale: 1}}
    collect: [awr]
"""


@pytest.mark.slow
def test_a_swingbench_rehearsal_runs_charbench_on_the_simulated_client(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: Swingbench named no ``rehearse_client``, so the simulated client had the kit but no listener file:
    its stand-in oewizard and charbench read the client's own state, which has no database (the build failed on
    the client, the point failed)."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.02")
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")
    real = tmp_path / "real-loadgen"
    (tmp_path / "hosts.ini").write_text(
        "[lab]\nalpha ansible_connection=local oracle_home=/u01/db oracle_sid=orcl oracle_diagnostics_pack=true "
        "cpus=16 load_generator_host=loadgen swingbench_password=soe-pw swingbench_dba_password=dba-pw\n"
        f"[clients]\nloadgen ansible_connection=local cpus=4 planner_root={real}\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    code = main(["apply", "--rehearse", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report", "--limit", "alpha"])
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir() and (p / "meta.json").exists())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"].startswith("soe")]
    assert code == 0 and results and {r["status"] for r in results} == {"changed"}, [r["msg"] for r in results]
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    assert {c["host"] for c in commands if "/bin/charbench " in str(c["command"])} == {"loadgen"}
    assert {c["host"] for c in commands if "/bin/oewizard " in str(c["command"])} == {"loadgen"}
    assert not real.exists()
    worlds = {w["host"]: w for w in json.loads((run / "meta.json").read_text())["world"]}
    assert worlds["loadgen"]["role"] == "a simulated client host, the load generator of alpha"
    awr = [run / a["path"] for r in results for a in r["artifacts"] if Path(a["path"]).name.startswith("awr_")]
    host_rows = [line for p in awr for line in p.read_text().splitlines() if line.startswith(("alpha", "loadgen"))]
    assert host_rows and all(r.split()[0] == "alpha" for r in host_rows), host_rows  # the database's, not the client's
