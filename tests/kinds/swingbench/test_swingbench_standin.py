"""The Swingbench stand-ins as the real tools behave (docs/oracle-behaviour.md 43.s*), and the kind's arguments
against them: each test here failed while the stand-in or the kind followed our expectation instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner.kinds.swingbench.standin import install_home
from planner.kinds.swingbench.step import run_time_text
from planner.parsers import parse_text
from planner.rehearsal.standins import install_standins, update_state

HOME = "/opt/swingbench"


def _charbench(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    root = tmp / "h"
    install_standins(root)
    home = install_home(root, HOME)
    update_state(root, lambda s: s["segments"].update(
        {"SOE.ORDERS": {"tablespace": "SOE", "buffer_pool": "DEFAULT", "segment_type": "TABLE"}}))
    return subprocess.run([sys.executable, str(home / "bin" / "charbench"), "-c",
                           str(home / "configs" / "SOE_Server_Side_V2.xml"), "-cs", "//h/s", "-u", "soe", "-p", "x",
                           "-uc", "2", "-a", "-r", str(tmp / "r.xml"), *args],
                          capture_output=True, text=True, check=False, env={"PLANNER_STANDIN_TIME_SCALE": "0"})


@pytest.mark.slow
def test_charbench_refuses_a_run_time_in_hh_mm_ss(tmp_path: Path) -> None:
    r = _charbench(tmp_path, "-rt", "0:01:30")
    assert r.returncode == 1 and "hh:mm.sec" in r.stdout
    assert not (tmp_path / "r.xml").exists()


@pytest.mark.slow
def test_the_kinds_run_time_is_what_charbench_reads(tmp_path: Path) -> None:
    r = _charbench(tmp_path, "-rt", run_time_text(90))
    assert r.returncode == 0, r.stdout
    assert parse_text((tmp_path / "r.xml").read_text(), "r.xml").value("swingbench.run_time_s") == 90
