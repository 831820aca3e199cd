"""The Swingbench stand-ins as the real tools behave (docs/oracle-behaviour.md 43.s*), and the kind's arguments
against them: each test here failed while the stand-in or the kind followed our expectation instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.kinds.swingbench.standin import install_home
from planner.kinds.swingbench.step import Swingbench, run_time_text
from planner.parsers import parse_text
from planner.rehearsal.standins import install_standins, update_state
from planner.testing import ScriptedConnection, scripted_host, step_context

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


BASE = {"home": "/opt/sb", "config": "configs/x.xml", "connect": "//h/s", "users": 1, "run_time": 120}


@pytest.mark.parametrize(("window", "ok"), [({"stats_start_s": 30, "stats_end_s": 90}, True),
                                            ({"stats_start_s": 30}, True), ({"stats_end_s": 120}, True),
                                            ({"stats_start_s": 90, "stats_end_s": 30}, False),
                                            ({"stats_end_s": 121}, False), ({"stats_start_s": 120}, False)])
def test_the_statistics_window_is_inside_the_run(window: dict, ok: bool) -> None:
    step = Swingbench({**BASE, **window})
    if ok:
        step.validate()
    else:
        with pytest.raises(StepError, match="not a window inside the run time"):
            step.validate()


def test_bs_be_are_refused_where_charbench_has_none(tmp_path: Path) -> None:
    old_help = "usage: parameters:\n -a   run automatically\n -rt <runtime>   run time\n"
    conn = ScriptedConnection(scripted_host(), {"/opt/sb/bin/charbench -h": old_help})
    with pytest.raises(StepError, match="lists no -bs or -be"):
        Swingbench({**BASE, "stats_start_s": 30})._check_window_options(step_context(conn, tmp_path))
    assert conn.commands == ["/opt/sb/bin/charbench -h"]


@pytest.mark.slow
def test_the_standin_records_only_the_window_bs_be_name(tmp_path: Path) -> None:
    help_text = _charbench(tmp_path / "a", "-h").stdout
    assert all(f"\n {flag} " in help_text for flag in ("-bs", "-be", "-rt"))
    whole = _charbench(tmp_path / "b", "-rt", run_time_text(120))
    part = _charbench(tmp_path / "c", "-rt", run_time_text(120), "-bs", run_time_text(30), "-be", run_time_text(90))
    assert whole.returncode == part.returncode == 0, part.stdout
    done = [parse_text((tmp_path / d / "r.xml").read_text(), "r.xml").value("swingbench.completed_txns") or 0
            for d in ("b", "c")]
    assert 0 < done[1] < done[0]
