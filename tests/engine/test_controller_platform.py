"""meta.json's controller_platform (issue 47, stop 53): ``platform.platform()`` forked ``uname -p`` for the
processor (Python's uname() unpacks it), ~10 ms of CPU and more of wall before every apply's first host command,
for a field Linux leaves empty ("unknown", or the machine again)."""

from __future__ import annotations

import platform
import sys

import pytest

from planner.engine import runrecord
from planner.engine.origin import controller_platform


def test_a_runs_environment_is_read_without_starting_a_process() -> None:
    """The fast tier fails a test that starts a process (tests/conftest.py): before, this one did."""
    meta = runrecord.environment_meta()
    assert meta["controller_platform"].startswith(platform.system())


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="elsewhere it is platform.platform() itself")
def test_it_is_platform_platforms_text() -> None:
    assert controller_platform() == platform.platform()
