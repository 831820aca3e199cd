"""Process-group records of commands on a locked host (planner/transport/remote_procs.py), over the local transport."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from planner.host import Host
from planner.transport.connection import LocalConnection
from planner.transport.remote_procs import TrackedConnection, prepare, running_dir, stop_leftovers

pytestmark = [pytest.mark.slow]


def _conn(tmp_path: Path) -> tuple[TrackedConnection, Path]:
    workdir = tmp_path / "run"
    local = LocalConnection(Host("here", "127.0.0.1", connection="local"))
    prepare(local, str(workdir))
    return TrackedConnection(local, str(workdir)), Path(running_dir(str(workdir)))


def test_the_command_is_execd_with_its_exit_code_and_output(tmp_path: Path) -> None:
    conn, _ = _conn(tmp_path)
    r = conn.run(["sh", "-c", 'echo "out $1"; echo err >&2; exit 7', "sh", "a b"])
    assert (r.exit_code, r.stdout, r.stderr.strip()) == (7, "out a b\n", "err")
    assert ".running" not in r.command  # the record keeping is not what the user's log shows
    # exec: the recording shell became the command, so the command's parent is not that shell
    parent = conn.run(["sh", "-c", 'tr "\\0" " " < /proc/$PPID/cmdline'])
    assert parent.ok and not parent.stdout.startswith("sh -c d=$1"), parent.stdout


def test_a_finished_commands_record_stays_and_is_never_stopped(tmp_path: Path) -> None:
    """Records are no longer removed after each command (one rm fork saved per command); _STOP must skip
    a group that is gone, and never touch a live process that merely reuses the number."""
    conn, running = _conn(tmp_path)
    conn.run(["true"])
    records = list(running.iterdir())
    assert len(records) == 1 and records[0].read_text().strip().isdigit()
    # a live, unrelated process group recorded under a start time that is not its own (pgid reuse)
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        (running / str(sleeper.pid)).write_text("1\n")
        assert stop_leftovers(conn.inner, str(tmp_path / "run")) == []
        assert sleeper.poll() is None  # still running: not ours
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not list(running.iterdir())  # _STOP clears what it went through


def test_a_live_recorded_group_is_stopped(tmp_path: Path) -> None:
    conn, running = _conn(tmp_path)
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        with open(f"/proc/{sleeper.pid}/stat") as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
        (running / str(sleeper.pid)).write_text(start + "\n")
        done = stop_leftovers(conn.inner, str(tmp_path / "run"))
        assert done == [f"stopped process group {sleeper.pid} left running by the dead controller"]
        assert sleeper.wait(timeout=10) != 0
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
    assert os.path.isdir(running)
