"""HammerDB's load generator on a client host (issue 43, docs/load-generator-host.md): the database host's
``load_generator_host`` names another host of the inventory; hammerdbcli runs there, over that host's own
connection, locked like any host, with an EZConnect string to the database host's listener in its 0600 script;
the schema checks and AWR stay on the database host. The stand-in hammerdbcli on the client reaches the database
host's stand-in state through that connect string (the lab's listener stand-in), as the real tool reaches the
listener, and a service no listener serves fails as ORA-12514."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.hammerdb import standin
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, write_listener
from planner.results.evaluate import evaluate
from planner.results.measure import read_run

HOME = "/opt/HammerDB-4.12"
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
CLIENT_HOME = "/u01/client"  # the client's Oracle client install: Oratcl loads its libclntsh (no instance there)


def apply(tmp: Path, *flags: str) -> tuple[int, Path, list[dict]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", "-e", f"@{tmp / 'vars.json'}", *flags])
    runs = [p for p in (tmp / "runs").iterdir() if p.is_dir()] if (tmp / "runs").exists() else []
    run = runs[0] if runs else tmp
    path = run / "results.json"
    return code, run, [r for r in json.loads(path.read_text()) if r["title"] == "tproc-c"] if path.exists() else []


def project(tmp: Path, service: str = "ORCL") -> tuple[Path, Path]:
    """alpha: the database (stand-in state, no HammerDB kit); loadgen: the kit and an Oracle client, no database,
    and the lab's listener stand-in naming alpha's listener."""
    db, client = tmp / "hosts" / "alpha", tmp / "hosts" / "loadgen"
    install_standins(db)
    standin.write_kit(client / HOME.lstrip("/"), "4.12")
    write_listener(client, {f"//127.0.0.1:1521/{service}": db / "var/lib/planner-standin/db.json"})
    (tmp / "hosts.ini").write_text(
        f"[lab]\nalpha ansible_connection=local ansible_host=127.0.0.1 planner_root={db} oracle_home={DEFAULT_HOME}"
        f" oracle_sid=orcl oracle_diagnostics_pack=true load_generator_host=loadgen\n"
        f"[clients]\nloadgen ansible_connection=local planner_root={client} oracle_home={CLIENT_HOME}\n")
    (tmp / "vars.json").write_text(json.dumps({"hammerdb_system_password": "Sys-pw-4-client"}))
    (tmp / "plan.yaml").write_text(PLAN)
    return db, client


@pytest.mark.slow
def test_hammerdbcli_runs_on_the_client_and_reaches_the_database_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: validate refused a client host (exit 5, "not built yet"): the generator could only run on the
    database host."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    db, client = project(tmp_path)
    code, run, results = apply(tmp_path, "--limit", "alpha")  # a limit to the database host keeps its client
    assert code == 0, [r["msg"] for r in results] or (run / "meta.json").read_text()
    assert [r["status"] for r in results] == ["changed"] and results[0]["host"] == "alpha"
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    ran = {c["host"] for c in commands if "/hammerdbcli auto " in str(c["command"])}
    assert ran == {"loadgen"}, ran  # the build and the timed run, on the client's own connection
    script = next(run / a["path"] for a in results[0]["artifacts"] if a["path"].endswith("run.tcl")).read_text()
    assert 'diset connection instance "//127.0.0.1:1521/ORCL"' in script and "Sys-pw-4-client" not in script
    state = json.loads((db / "var/lib/planner-standin/db.json").read_text())
    assert state["tpcc"]["TPCC"] == 4  # the build on the client made the database host's schema
    assert not (client / "var/lib/planner-standin/db.json").exists()
    names = [Path(a["path"]).name for a in results[0]["artifacts"]]
    assert any(n.startswith("awr_") for n in names)  # the report over HammerDB's window, on the database host
    codes = {f.code: f for f in evaluate(read_run(run)).findings}  # the report's findings
    assert "generator_on_db_host" not in codes and "ran on loadgen" in codes["generator_on_client"].message
    lock = json.loads((run / "meta.json").read_text())["remote"]["loadgen"]["lock"]  # locked as any host
    assert lock.startswith(str(client)) and not Path(lock).exists()  # and released at the run's end


@pytest.mark.slow
def test_the_stand_in_refuses_a_service_no_listener_serves(tmp_path: Path) -> None:
    """As a listener does (ORA-12514): a client's connect string that reaches no database must not find one."""
    _db, client = project(tmp_path, service="OTHER")
    script = tmp_path / "run.tcl"
    script.write_text('dbset db ora\ndiset connection instance "//127.0.0.1:1521/ORCL"\nloadscript\nvuset vu 1\n'
                      "vucreate\nvurun\n")
    out = subprocess.run([str(client / HOME.lstrip("/") / "hammerdbcli"), "auto", str(script)], capture_output=True,
                         text=True, check=False, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "ORACLE_HOME": CLIENT_HOME,
                              "LD_LIBRARY_PATH": f"{CLIENT_HOME}/lib", "PLANNER_STANDIN_TIME_SCALE": "0.001"})
    assert "ORA-12514" in out.stdout and "FINISHED FAILED" in out.stdout, out.stdout + out.stderr
