"""tests/cli/test_unexpected_apply.py's bug mid-apply on a host reached over real sshd (the lab): its prep put back
and its lock released there, the record closed as an error, exit 250 without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_unexpected_apply import BUGGY, PLAN

pytestmark = [pytest.mark.slow]


@pytest.mark.ssh
def test_over_ssh_a_bug_mid_apply_still_puts_the_host_back(tmp_path: Path, make_lab: Any) -> None:
    """The same bug on a host reached over real sshd: its prep put back and its lock released there too."""
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    (tmp_path / "plan.yaml").write_text(PLAN.replace("hosts: lab", "hosts: all"))
    lab.write_inventory(tmp_path / "inv.yml")
    r = subprocess.run([sys.executable, "-c", BUGGY, "apply", str(tmp_path / "plan.yaml"), "-i",
                        str(tmp_path / "inv.yml"), "--runs-dir", str(tmp_path / "runs"), "--no-report"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 250, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert (root / "result.txt").read_text() == "measured\n"
    assert not (root / "etc" / "scheduler.txt").exists()
    assert not list((root / "tmp").glob("planner.lock.*"))
    (run,) = (p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert json.loads((run / "meta.json").read_text())["status"] == "error"
