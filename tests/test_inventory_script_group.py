"""An inventory script that leaves a background child holding its stdout (issue 40): the script itself exited,
so its time bound was over, and planner then read the pipe until the child closed it, past the 60 s bound.
The bound is the whole run's now: at it, the script's process group is killed, the run refused in words."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from planner.inventory.script import run_script


@pytest.mark.slow
def test_a_background_child_holding_stdout_is_killed_at_the_bound(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "inv.sh"
    # the child keeps the script's stdout and stderr; it sleeps far past the bound the test gives
    script.write_text(f"#!/bin/sh\necho '{{}}'\nsleep 600 &\necho $! > {pid_file}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    run = run_script(script, ["--list"], timeout=2)
    assert run.failure is not None and "kept its output open (killed)" in run.failure, run.failure
    child = int(pid_file.read_text())
    try:  # killed, then reaped by init (or a zombie at most: gone from the group's live members)
        os.kill(child, 0)
        state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        assert state == "Z", f"the background child {child} still runs ({state})"
    except ProcessLookupError:
        pass
