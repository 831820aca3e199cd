"""The load generator on a client host over real sshd (issue 43, docs/load-generator-host.md): two lab hosts on
loopback reached as a non-root login with sudo as the lab ships it; the database host names the other as its
``load_generator_host``. ``planner apply`` runs hammerdbcli on the client, over the client's own connection,
and the schema checks and AWR on the database host."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import planner
from planner.cli.main import main
from planner.kinds.hammerdb import standin
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser, closed_to_others
from planner.rehearsal.standins import DEFAULT_HOME, STATE_REL, install_standins, write_listener

HOME = "/opt/HammerDB-4.12"
PLAN = """\
plan: tproc_c_client
plays:
  - name: oltp
    hosts: alpha
    workloads:
      - name: tproc-c
        hammerdb: {home: /opt/HammerDB-4.12, service: ORCL, virtual_users: 2, warehouses: 4, rampup: 1, duration: 2}
    collect: [awr]
"""


@pytest.fixture
def two_hosts() -> Iterator[Lab]:
    """alpha and loadgen, logged in to as the lab's non-root user (planner-lab), who may sudo. The lab's folder
    is made outside pytest's 0700 tmp folders: the login must reach its sandboxes, as on a host."""
    reason = sshd_available() or LabUser.unavailable()
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    top = Path(tempfile.mkdtemp(prefix="planner-client-lab-"))
    top.chmod(0o755)
    try:
        with build_lab(top / "lab", 2, names=["alpha", "loadgen"], user=LabUser()) as lab:
            yield lab
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _hand_over(root: Path, ids: tuple[int, int]) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, *ids)


@pytest.mark.slow
@pytest.mark.ssh
def test_hammerdbcli_runs_on_the_client_lab_host_and_awr_on_the_database_host(two_hosts: Lab) -> None:
    lab = two_hosts
    db, client = lab.sandbox("alpha"), lab.sandbox("loadgen")
    install_standins(db)  # the database; the client has HammerDB and an Oracle client, no database
    standin.write_kit(client / HOME.lstrip("/"), "4.12")
    write_listener(client, {f"//{lab.host('alpha').address}:1521/ORCL": db / STATE_REL})
    for root in (db, client):
        _hand_over(root, LabUser().ids(lab.user))
    inventory = lab.root / "hosts.yaml"
    lab.write_inventory(inventory)
    data = yaml.safe_load(inventory.read_text())
    data["all"]["hosts"]["alpha"].update(oracle_home=DEFAULT_HOME, oracle_sid="orcl", oracle_diagnostics_pack=True,
                                         load_generator_host="loadgen")
    data["all"]["hosts"]["loadgen"].update(oracle_home="/u01/client")
    inventory.write_text(yaml.safe_dump(data))
    (lab.root / "plan.yaml").write_text(PLAN)
    runs = lab.root / "runs"
    code = main(["apply", str(lab.root / "plan.yaml"), "-i", str(inventory), "--runs-dir", str(runs), "--no-report"])
    run = next(p for p in runs.iterdir() if (p / "meta.json").exists())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "tproc-c"]
    assert code == 0 and [r["status"] for r in results] == ["changed"], [r["msg"] for r in results]
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    assert {c["host"] for c in commands if "/hammerdbcli auto " in str(c["command"])} == {"loadgen"}
    assert {c["host"] for c in commands if "sqlplus" in str(c["command"])} == {"alpha"}  # schema checks, AWR
    assert any(Path(a["path"]).name.startswith("awr_") for a in results[0]["artifacts"])
    assert json.loads((db / STATE_REL).read_text())["tpcc"]["TPCC"] == 4  # built from the client, in alpha's db
    assert (db / STATE_REL).stat().st_uid == LabUser().ids(lab.user)[0]  # the non-root login wrote it
    lock = json.loads((run / "meta.json").read_text())["remote"]["loadgen"]["lock"]
    assert lock.startswith(str(client)) and not Path(lock).exists()  # locked as any host, released at the end


SOE_PLAN = """\
plan: soe_client
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
@pytest.mark.ssh
def test_a_rehearsed_client_logged_in_as_another_user_writes_the_database_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the lab handed each sandbox to its own login, so oewizard on a client whose ansible_user was not the
    database host's could not write the database's stand-in state (PermissionError on db.tmp, a traceback in
    oewizard.log) and the point failed."""
    reason = sshd_available() or LabUser.unavailable() or (
        "planner's files are closed to other users" if closed_to_others(Path(planner.__file__)) else None)
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.02")
    monkeypatch.delenv("PLANNER_REHEARSE_TRANSPORT", raising=False)
    (tmp_path / "hosts.ini").write_text(
        "[lab]\nalpha ansible_user=oracle oracle_home=/u01/db oracle_sid=orcl oracle_diagnostics_pack=true "
        "load_generator_host=loadgen swingbench_password=soe-pw swingbench_dba_password=dba-pw\n"
        "[clients]\nloadgen ansible_user=swing\n")
    (tmp_path / "plan.yaml").write_text(SOE_PLAN)
    code = main(["apply", "--rehearse", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir() and (p / "meta.json").exists())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"].startswith("soe")]
    assert code == 0 and results and {r["status"] for r in results} == {"changed"}, [r["msg"] for r in results]
    meta = json.loads((run / "meta.json").read_text())
    assert "logged in as oracle, swing" in json.dumps(meta), "the rehearsal did not log in as both users"
