"""Issue 39: ``apply --resume RUN`` reaches the hosts with the run's own connection settings (its
--known-hosts, -i, -e) unless they are given again; given again, they are taken, not refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_restore_options import inventory_naming_no_known_hosts

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PLAN = """\
plan: resume_conn
plays:
  - name: p
    hosts: all
    workloads:
      - command: {argv: [sh, -c, 'test -e "$1/ok"', sh, "{{ planner_root }}"]}
"""


def test_resume_uses_the_runs_known_hosts_and_takes_inventory_given_again(
        make_lab: Callable[..., Lab], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ssh/known_hosts to fall back on
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    inv, known = inventory_naming_no_known_hosts(lab, tmp_path)
    plan, runs = tmp_path / "plan.yaml", tmp_path / "runs"
    plan.write_text(PLAN)
    monkeypatch.chdir(tmp_path)
    assert main(["apply", "plan.yaml", "-i", "inv.yml", "--runs-dir", "runs", "--no-report",
                 "--known-hosts", "known_hosts"]) == 2  # the workload fails: the run is left to resume
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    monkeypatch.chdir(runs)  # the run's relative -i and --known-hosts are relative to where it started
    # its own -i and --known-hosts: the host is reached (exit 2: the workload fails again; unreachable was 4)
    assert main(["apply", "--resume", str(run), "--no-report"]) == 2
    (root / "ok").write_text("")
    assert main(["apply", "--resume", str(run), "--no-report", "-i", str(inv)]) == 0  # -i given again: taken
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "complete" and len(meta["resumed"]) == 2
    assert not (tmp_path / "home/.ssh/known_hosts").exists()
