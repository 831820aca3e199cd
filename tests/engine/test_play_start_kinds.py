"""A play's start, once its hosts are connected, reads only the specs of the kinds the play names (issue 47,
stop 54): the load generator's check read every kind's spec (ten modules and the classes they are made of) on
the main thread, for plans that name no load generator at all. Not a timing test: it asserts what the process
imported, which is what that CPU rests on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

# The apply up to the end of Runner._generators (the play's hosts connected, its load generators looked for), then
# what it imported and stop. The tail's import thread (planner.cli.early_imports) reads every kind's spec on its
# own when the run is pushed to a store: not what is measured here.
PROBE = """
import os, sys
import planner.cli.early_imports as early
early.start = lambda names, kind_findings: None
from planner.engine.runner import Runner

real = Runner._generators
def generators(self, *args, **kwargs):
    real(self, *args, **kwargs)
    print(" ".join(sorted(sys.modules)))
    sys.stdout.flush()
    os._exit(0)

Runner._generators = generators
from planner.cli.main import main
main(["apply", {plan!r}, "-i", {inventory!r}, "--runs-dir", {runs!r}, "--no-report"])
"""


def _modules_at_the_play_start(tmp_path: Path, step: str) -> set[str]:
    (tmp_path / "plan.yaml").write_text(f"plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n{step}")
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path / 'root'}\n")
    (tmp_path / "root").mkdir()
    code = PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                        runs=str(tmp_path / "runs"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    mods = set(done.stdout.split())
    assert "planner.engine.runner" in mods, done.stdout  # the probe reached the play
    return mods


def test_a_play_without_a_workload_kind_reads_no_kind_spec_at_its_start(tmp_path: Path) -> None:
    mods = _modules_at_the_play_start(tmp_path, '      - name: say\n        command: {argv: ["true"]}\n')
    read = {m for m in mods if m.startswith(("planner.kinds.", "planner.kindparts"))}
    assert read == set(), sorted(read)

