"""An inventory script that leaves a background child holding its stdout (issue 40): the script itself exited,
so its time bound was over, and planner then read the pipe until the child closed it, past the 60 s bound.
The bound is the whole run's now: at it, the script's process group is killed, the run refused in words."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from planner.inventory.script import run_script


@pytest.mark.slow
def test_a_background_child_holding_stdout_is_killed_at_the_bound(tmp_path: Path) -> None:
    script = tmp_path / "inv.sh"
    # the child keeps the script's stdout and stderr; it sleeps far past the bound the test gives
    script.write_text("#!/bin/sh\necho '{}'\nsleep 600 &\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    run = run_script(script, ["--list"], timeout=2)
    # "(killed)" is said only once both pipes reached their end after the kill: the child holds them no more
    assert run.failure is not None and "kept its output open (killed)" in run.failure, run.failure
    assert run.stdout == "{}\n"
