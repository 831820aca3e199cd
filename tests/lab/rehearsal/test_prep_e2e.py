"""Host prep end to end through `planner apply`: changed, ok on a second run, --check --diff, restore at the
end, after Ctrl-C and (with `planner restore RUN`) after a killed controller; and once over the SSH lab."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_prep_root
from prep_helpers import newest_run

from planner.cli.main import main
from planner.rehearsal.standins import load_state, standin_vars
from planner.steps.prep_os import parse_scheduler

PLAN = """\
plan: prep_e2e
description: host prep end to end
plays:
  - name: prep
    hosts: all
    prep:
      - io_scheduler: {{devices: [/dev/mapper/violin_lun1], scheduler: noop}}
      - sysctl: {{vm.swappiness: 1}}
      - init_ora: {{recycle_pool: 64M, filesystemio_options: setall}}
      - flashback: "off"
      - asm_diskgroup: {{name: SLOB, disks: ["/dev/mapper/lun0[12]"], redundancy: external}}
    workloads:
      - command: {{argv: [{workload}]}}
"""


RESTART = "Restarting the database once for the play's static parameters"


def snapshot(root: Path) -> dict[str, Any]:
    state = load_state(root)
    return {"sdb": parse_scheduler((root / "sys/block/sdb/queue/scheduler").read_text())[0],
            "sdc": parse_scheduler((root / "sys/block/sdc/queue/scheduler").read_text())[0],
            "swappiness": (root / "proc/sys/vm/swappiness").read_text(), "spfile": state["spfile"],
            "memory": state["memory"], "flashback": state["database"]["flashback_on"],
            "status": state["database"]["status"], "groups": sorted(state["diskgroups"])}


def project(tmp: Path, hosts: dict[str, dict[str, Any]], workload: str = "'true'") -> tuple[Path, Path]:
    plan, inv = tmp / "plan.yaml", tmp / "hosts.yml"
    plan.write_text(PLAN.format(workload=workload))
    inv.write_text(yaml.safe_dump({"all": {"hosts": hosts}}))
    return plan, inv


def local_hosts(tmp: Path, n: int = 1) -> dict[str, dict[str, Any]]:
    return {f"h{i}": {"ansible_connection": "local", **standin_vars(make_prep_root(tmp / f"h{i}"))} for i in range(n)}


def results(runs: Path, host: str = "h0") -> dict[str, tuple[str, str]]:
    """title -> (status, msg) of the latest run's steps on ``host`` (restores titled 'restore ...')."""
    latest = newest_run(runs)
    return {r["title"]: (r["status"], r["msg"]) for r in json.loads((latest / "results.json").read_text())
            if r["host"] == host and r["step"].startswith("plays")}


def changed(runs: Path, host: str = "h0") -> list[str]:
    return [t for t, (st, _) in results(runs, host).items() if st == "changed" and not t.startswith("restore")]


def apply(plan: Path, inv: Path, runs: Path, *extra: str) -> int:
    return main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", *extra])


@pytest.mark.slow
def test_apply_again_check_diff_and_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hosts = local_hosts(tmp_path, 2)
    root = Path(hosts["h0"]["planner_root"])
    before = snapshot(root)
    plan, inv = project(tmp_path, hosts)
    assert apply(plan, inv, tmp_path / "runs", "--check", "--diff") == 0
    out = capsys.readouterr().out
    assert "sdb: mq-deadline -> none (noop is none on this blk-mq kernel)" in out
    assert "db_recycle_cache_size: 0 (not in spfile) -> 64M" in out and "flashback_on: YES -> NO" in out
    assert "create SLOB: + /dev/mapper/lun01 (CANDIDATE)" in out and "vm.swappiness: 60 -> 1" in out
    assert snapshot(root) == before  # check mode changed nothing
    runs = tmp_path / "runs"
    assert apply(plan, inv, runs) == 0  # apply, measure, restore
    # one restart per play, after the last prep step (issue 15 item 4)
    assert changed(runs) == ["io_scheduler", "sysctl", "init_ora", "flashback", "asm_diskgroup", RESTART, "command"]
    res = results(runs)
    assert "restarts once at the end of the play's prep" in res["init_ora"][1]
    assert "restarted once for the play's static parameters (sqlplus shutdown immediate / startup)" in res[RESTART][1]
    assert "left disk group SLOB in place: the step was not destructive: true" in res["restore asm_diskgroup"][1]
    assert snapshot(root) == {**before, "groups": ["DATA", "SLOB"]}  # all back but the group it may not drop
    assert load_state(root)["restarts"] == 2  # one for the change, one for its revert
    assert apply(plan, inv, runs, "--keep-prep") == 0
    assert changed(runs) == ["io_scheduler", "sysctl", "init_ora", "flashback", RESTART, "command"]  # group: ok
    kept = snapshot(root)
    assert kept["sdb"] == "none" and kept["flashback"] == "NO" and kept["memory"]["filesystemio_options"] == "setall"
    assert apply(plan, inv, runs, "--keep-prep") == 0
    assert changed(runs) == ["command"] and changed(runs, "h1") == ["command"]  # prep all ok the second time
    assert snapshot(root) == kept and load_state(root)["restarts"] == 3


def _wait_for(cond: Any, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling a file another process writes, bounded by the deadline


def _start(plan: Path, inv: Path, runs: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    return subprocess.Popen([sys.executable, "-m", "planner", "apply", str(plan), "-i", str(inv), "--runs-dir",
                             str(runs), "--no-report"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def _prepped(runs: Path, root: Path) -> bool:
    recs = list(runs.glob("*/restore.json")) if runs.exists() else []
    # ... and the play's one restart, which follows the last prep step: done once the instance is open again
    # (shutdown and startup are two sqlplus calls; between them the database is down)
    state = load_state(root)
    return bool(recs) and len(json.loads(recs[0].read_text() or "[]")) == 5 and "SLOB" in state["diskgroups"] \
        and state["restarts"] >= 1 and state["database"]["status"] == "OPEN"


@pytest.mark.slow
def test_killed_controller_then_planner_restore(tmp_path: Path) -> None:
    hosts = local_hosts(tmp_path)
    root = Path(hosts["h0"]["planner_root"])
    before = snapshot(root)
    plan, inv = project(tmp_path, hosts, workload="sleep, '60'")
    runs = tmp_path / "runs"
    proc = _start(plan, inv, runs)
    try:
        _wait_for(lambda: _prepped(runs, root), "the prep to be applied")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the controller and its workload die without restoring anything
        proc.wait()
    assert snapshot(root)["flashback"] == "NO"
    run_dir = next(p for p in runs.iterdir() if p.is_dir())
    assert main(["restore", str(run_dir)]) == 0
    assert snapshot(root) == {**before, "groups": ["DATA", "SLOB"]}
    # all but the disk group, left in place without destructive: true (and so not "reverted": issue 15 item 5)
    assert [e["kind"] for e in json.loads((run_dir / "restore.json").read_text()) if not e["reverted"]] == \
        ["asm_diskgroup"]
    assert main(["restore", str(run_dir)]) == 0  # idempotent: nothing left to do


@pytest.mark.slow
def test_ctrl_c_during_the_workload_restores(tmp_path: Path) -> None:
    hosts = local_hosts(tmp_path)
    root = Path(hosts["h0"]["planner_root"])
    before = snapshot(root)
    plan, inv = project(tmp_path, hosts, workload="sleep, '60'")
    runs = tmp_path / "runs"
    proc = _start(plan, inv, runs)
    try:
        _wait_for(lambda: _prepped(runs, root), "the prep to be applied")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 99
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert snapshot(root) == {**before, "groups": ["DATA", "SLOB"]}


@pytest.mark.ssh
@pytest.mark.slow
def test_prep_over_the_ssh_lab(make_lab: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lab = make_lab(2)
    lab.write_inventory(tmp_path / "lab.yml")
    data = yaml.safe_load((tmp_path / "lab.yml").read_text())
    for name, hv in data["all"]["hosts"].items():
        make_prep_root(lab.sandbox(name))
        hv.update({k: v for k, v in standin_vars(lab.sandbox(name)).items() if k != "planner_root"})
    befores = {n: snapshot(lab.sandbox(n)) for n in data["all"]["hosts"]}
    plan, inv = project(tmp_path, data["all"]["hosts"])
    assert apply(plan, inv, tmp_path / "runs", "--check", "--diff") == 0
    assert "sdc: mq-deadline -> none" in capsys.readouterr().out
    assert {n: snapshot(lab.sandbox(n)) for n in befores} == befores
    runs = tmp_path / "runs"
    assert apply(plan, inv, runs, "--keep-prep") == 0
    assert "unreachable=0" in capsys.readouterr().out
    first_run = newest_run(runs)
    assert all(len(changed(runs, n)) == 7 for n in befores)  # 6 steps and the play's one restart
    assert all(snapshot(lab.sandbox(n))["flashback"] == "NO" for n in befores)
    assert apply(plan, inv, runs, "--keep-prep") == 0
    assert all(changed(runs, n) == ["command"] for n in befores)  # apply again: all ok
    assert main(["restore", str(first_run)]) == 0  # over SSH, from the first run's record
    assert {n: snapshot(lab.sandbox(n)) for n in befores} == {n: {**b, "groups": ["DATA", "SLOB"]}
                                                              for n, b in befores.items()}
