"""Issue 15 item 2 over the SSH lab: ``--resume`` refuses a changed inventory (with its diff), and one resume
that fails early (an unknown host key) does not poison the next one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from test_fault_interrupts import meta_of, processes_with, unique_sleep
from test_fault_resume import PLAN, SCRIPT, kill_at_point_3, planner, workload_results

from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def project(tmp_path: Path, make_lab: Callable[..., Lab]) -> tuple[Lab, Path, Path, Path, Path, str]:
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    (root / "etc/prep.txt").write_text("original\n")
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv" / "hosts.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(script=SCRIPT, sleep=sleep))
    lab.write_inventory(inv)
    (inv.parent / "group_vars").mkdir()
    (inv.parent / "group_vars/all.yml").write_text("oracle_sid: SLOB\n")
    return lab, root, plan, inv, runs, sleep


@pytest.mark.timeout(120)
def test_resume_refuses_a_changed_inventory_or_vars_file(tmp_path: Path, make_lab: Callable[..., Lab]) -> None:
    lab, root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    files = meta_of(run)["inventory"]["files"]
    assert files and all(v["sha256"] and (run / v["copy"]).is_file() for v in files.values()), files
    assert not (run / "inventory_files.json").exists(), "the inventory is kept once, in inventory/"
    group_vars = inv.parent / "group_vars/all.yml"
    group_vars.write_text("oracle_sid: OTHERDB\n")
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"the inventory changed since run {run.name}" in done.stderr
    assert "-oracle_sid: SLOB" in done.stderr and "+oracle_sid: OTHERDB" in done.stderr, done.stderr
    assert processes_with(sleep), "a refused resume must not touch the host"
    group_vars.write_text("oracle_sid: SLOB\n")
    hosts = yaml.safe_load(inv.read_text())
    hosts["all"]["hosts"][lab.hosts[0].name]["oracle_sid"] = "OTHERDB"
    inv.write_text(yaml.safe_dump(hosts, sort_keys=False))
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 5 and "+      oracle_sid: OTHERDB" in done.stderr, done.stderr
    lab.write_inventory(inv)  # the inventory as the run read it: accepted
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert meta_of(run)["status"] == "complete"


@pytest.mark.timeout(120)
def test_a_resume_that_fails_early_does_not_poison_the_next(tmp_path: Path, make_lab: Callable[..., Lab]) -> None:
    lab, root, plan, inv, runs, sleep = project(tmp_path, make_lab)
    run = kill_at_point_3(root, plan, inv, runs, sleep)
    first_pid = meta_of(run)["pid"]
    keys = lab.known_hosts.read_text()
    lab.known_hosts.write_text("")  # the host key is unknown: the resume fails before it takes the lock
    try:
        failed = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    finally:
        lab.known_hosts.write_text(keys)
    assert failed.returncode == 4, failed.stdout + failed.stderr
    assert meta_of(run)["pid"] != first_pid
    assert processes_with(sleep), "the failed resume reached the host"
    assert (root / "etc/prep.txt").read_text() == "prepped\n"
    done = planner("apply", "--resume", run.name, "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "held by run" not in done.stdout + done.stderr
    assert "took over the lock of this run's dead controller" in done.stdout + done.stderr
    assert not processes_with(sleep)
    assert sorted(r["point"] for r in workload_results(run) if r["status"] == "changed") == [0, 1, 2, 3]
    assert (root / "etc/prep.txt").read_text() == "original\n"
    entries = json.loads((run / "restore.json").read_text())
    assert len(entries) == 1 and entries[0]["reverted"]
    assert entries[0]["saved"]["content"].startswith("(9 bytes, sha256 ")  # the original: in the private log
    meta = meta_of(run)
    assert meta["status"] == "complete" and len(meta["resumed"]) == 2
    assert not list(root.glob("tmp/planner.lock*"))


def test_a_run_recorded_with_the_old_second_copy_is_still_compared(tmp_path: Path) -> None:
    """Runs recorded before the one copy kept the texts in inventory_files.json: their resume still refuses."""
    from planner.engine.inventory_copy import _sha, check_inventory_unchanged
    from planner.errors import InputError

    inv = tmp_path / "hosts.ini"
    inv.write_text("db1 oracle_sid=SLOB\n")
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    key = str(inv.resolve())
    (run / "meta.json").write_text(json.dumps({"inventory_sha256": {key: _sha(inv.read_text())}}))
    (run / "inventory_files.json").write_text(json.dumps({key: inv.read_text()}))
    check_inventory_unchanged(run, [inv])  # unchanged: accepted
    inv.write_text("db1 oracle_sid=OTHER\n")
    with pytest.raises(InputError) as e:
        check_inventory_unchanged(run, [inv])
    text = str(e.value.problems[0].message)
    assert "-db1 oracle_sid=SLOB" in text and "+db1 oracle_sid=OTHER" in text, text
