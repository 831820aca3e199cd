"""Synchronised start over the real SSH lab (issue 15 item 11): the hosts' measured commands start at one
instant chosen after every host's set-up, never before it, and each point's start skew is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine.syncstart import MARKER
from planner.rehearsal.lab import Lab

pytestmark = pytest.mark.ssh

PLAN = """\
plan: synced
plays:
  - name: together
    hosts: all
    sync_start: true
    workloads:
      - name: clock
        command: {argv: [date, "+%s%N"]}
        repeat: 2
"""


def test_hosts_start_the_measured_command_together(lab: Lab, tmp_path: Path) -> None:
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    (tmp_path / "plan.yaml").write_text(PLAN)
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"),
               "--no-report"])
    assert rc == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    synced = json.loads((run / "sync_start.json").read_text())
    assert [e["point"] for e in synced] == [0, 1]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "clock"]
    assert len(results) == 6
    for entry in synced:
        assert set(entry["hosts"]) == {h.name for h in lab.hosts} and entry["spread_ms"] is not None
        release = entry["release_at_ns"]
        for host, h in entry["hosts"].items():
            assert h["start_ms"] >= 0, f"{host} started before the common start time"
            (r,) = [r for r in results if r["host"] == host and r["point"] == entry["point"]]
            # the command's own clock reading (host clock) is after the start time in that clock
            own = int(r["data"]["stdout"].strip())
            assert own >= release + h["clock_offset_ms"] * 1e6 - 1e6, (host, own, release)
            assert MARKER not in r["msg"] and MARKER not in r["data"]["stdout"]
