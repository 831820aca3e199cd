"""Issue 15 items 1 and 3 over the real sshd lab: ``when:`` on workload steps, and the host lock keyed by
inventory host name (three inventory names for one machine in one run do not block each other)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.cli.main import main
from planner.engine.runner import Runner
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

WHEN_PLAN = """\
plan: when_workloads
plays:
  - name: measure
    hosts: all
    prep:
      - command: {argv: [sh, -c, 'echo prep >> "$1/ran"', sh, "{{ planner_root }}"]}
        when: run_prep | default(true)
    workloads:
      - name: written
        command: {argv: [sh, -c, 'echo "$2" >> "$1/ran"', sh, "{{ planner_root }}", "{{ inventory_hostname }}"]}
        when: inventory_hostname != skip_on
      - name: never
        command: {argv: [sh, -c, 'echo never >> "$1/ran"', sh, "{{ planner_root }}"]}
        when: false
"""


def run_results(runs: Path) -> list[dict[str, Any]]:
    [run] = sorted(p for p in runs.iterdir() if p.is_dir())
    return json.loads((run / "results.json").read_text())


def test_when_on_workloads_is_honoured_per_host(lab: Lab, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    lab.write_inventory(inv)
    plan.write_text(WHEN_PLAN)
    names = [h.name for h in lab.hosts]
    for n in names:
        (lab.sandbox(n) / "ran").unlink(missing_ok=True)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--no-report",
                 "-e", f"skip_on={names[1]}"])
    out = capsys.readouterr().out
    assert code == 0, out
    for n in names:
        ran = (lab.sandbox(n) / "ran").read_text().split()
        assert "never" not in ran, f"{n}: a workload with when: false ran"
        assert (n in ran) is (n != names[1]), f"{n}: when: on a workload not honoured per host: {ran}"
    assert f"skipping: [{names[1]}]" in out and "condition was false" in out
    skipped = [(r["host"], r["title"]) for r in run_results(tmp_path / "runs") if r["status"] == "skipped"]
    assert sorted(skipped) == sorted([(names[1], "written"), *((n, "never") for n in names)])
    recap = {line.split()[0]: line for line in out.splitlines() if "skipped=" in line}
    assert "skipped=2" in recap[names[1]] and "skipped=1" in recap[names[0]], recap


def test_when_false_workload_is_not_counted_as_would_run_in_check_mode(lab: Lab, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    lab.write_inventory(inv)
    plan.write_text(WHEN_PLAN)
    code = main(["check", str(plan), "-i", str(inv), "--no-report", "-l", lab.hosts[0].name,
                 "-e", f"skip_on={lab.hosts[0].name}"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "would run" not in out, "check mode predicts running workloads whose when: is false"
    assert out.count("condition was false") == 2, out


def one_machine_inventory(lab: Lab, path: Path, names: list[str], extra: dict[str, Any] | None = None) -> None:
    """Several inventory hosts that are one lab machine (same address, port and root)."""
    lab.write_inventory(path)
    [(_, machine)] = yaml.safe_load(path.read_text())["all"]["hosts"].items()
    path.write_text(yaml.safe_dump({"all": {"hosts": {n: {**machine, **(extra or {})} for n in names}}}))


LOCK_PLAN = """\
plan: one_machine
plays:
  - name: three names
    hosts: all
    workloads:
      - command: {argv: [sh, -c, 'echo "$2" >> "$1/ran"', sh, "{{ planner_root }}", "{{ inventory_hostname }}"]}
"""


def test_three_inventory_hosts_on_one_machine_do_not_block_each_other(
        make_lab: Callable[..., Lab], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Runner, "_done_with", lambda self, hs, interrupted: False)  # keep the host folders to look at
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    one_machine_inventory(lab, inv, ["db1", "db2", "db3"])
    plan.write_text(LOCK_PLAN)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "held by run" not in out
    assert sorted((root / "ran").read_text().split()) == ["db1", "db2", "db3"]
    # one run folder per inventory host on the machine: their point folders are never shared
    [run] = [p.name for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert sorted(p.name for p in (root / "tmp/planner" / run).iterdir()) == ["db1", "db2", "db3"]
    assert not list((root / "tmp").glob("planner*.lock*")), "a lock was left behind"


def test_planner_lock_makes_one_machine_one_lock(make_lab: Callable[..., Lab], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The README's planner_lock: hosts that name one lock share it, so only one of them is taken by a run."""
    lab = make_lab(1)
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    one_machine_inventory(lab, inv, ["db1", "db2"], {"planner_lock": "/tmp/the_machine.lock"})
    plan.write_text(LOCK_PLAN)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "another of its inventory hosts names the same lock (planner_lock)" in out, out
    locks = [r for r in run_results(tmp_path / "runs") if r["step"] == "lock"]
    assert len(locks) == 1 and locks[0]["status"] == "failed", locks


def test_a_lock_that_names_no_holder_yet_is_asked_again_and_said_so(make_lab: Callable[..., Lab], tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The lock is made (mkdir) before its holder.json is written: a host asking in between read no holder and was
    told the lock's "controller on another machine" (holder unknown) — under load, the race that made
    test_planner_lock_makes_one_machine_one_lock fail once. The window held open: the lock with no holder.json."""
    lab = make_lab(1)
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    one_machine_inventory(lab, inv, ["db1"], {"planner_lock": "/tmp/being_taken.lock"})
    (lab.sandbox(lab.hosts[0].name) / "tmp/being_taken.lock").mkdir(mode=0o700, parents=True)
    plan.write_text(LOCK_PLAN)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "it names no holder: being taken at this moment" in out and "another machine" not in out, out
