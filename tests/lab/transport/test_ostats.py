"""OS statistics sampling (planner/transport/ostats.py) on the local host through LocalConnection."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from planner.errors import InputError, StepError
from planner.host import Host
from planner.transport import ostats
from planner.transport.connection import Argv, CommandResult, LocalConnection

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or any(shutil.which(t) is None for t in (*ostats.TOOLS, "setsid", "ps")),
    reason="needs Linux with sysstat (iostat, mpstat), procps (vmstat, ps) and setsid")

HOST = Host(name="localhost", address="localhost", connection="local")
ISO_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", re.M)  # iostat -t with S_TIME_FORMAT=ISO
VMSTAT_ROW = re.compile(r"^\s*\d+\s+\d+\s.*\s\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", re.M)
MPSTAT_ALL = re.compile(r"^\d\d:\d\d:\d\d\s+all\s", re.M)


def _samples(path: Path, pattern: re.Pattern[str]) -> int:
    return len(pattern.findall(path.read_text())) if path.exists() else 0


def _wait_for(condition: Callable[[], bool], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _group_alive(pgid: int) -> list[str]:
    """Non-zombie processes of group ``pgid``, read from /proc (independently of ostats.members)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(comm)
    return found


@pytest.mark.slow
def test_samples_each_tool_for_the_window_and_stops_the_whole_group(tmp_path: Path) -> None:
    conn = LocalConnection(HOST)
    remote = str(tmp_path / "o st'$(touch x)")  # quoting-hostile: must reach the host as one argument
    started = time.monotonic()
    sampler = ostats.start(conn, remote, interval_s=1)
    assert time.monotonic() - started < 5  # returned at once: nothing held the command's output open
    try:
        assert sampler.tools == ostats.TOOLS and sampler.skipped == ()
        assert sampler.pgid is not None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", sampler.started_at)
        assert Path(remote, "ostats.pgid").read_text().strip() == str(sampler.pgid)
        pgid = sampler.pgid
        # start returns once the tools are launched; a tool's subshell may not have exec'd it yet (seen in CI:
        # 'sh' twice, then vmstat): the group becomes the three tools and their shell
        assert _wait_for(lambda: sorted(_group_alive(pgid)) == ["iostat", "mpstat", "sh", "vmstat"], 10), \
            sorted(_group_alive(pgid))
        d = Path(remote)
        assert _wait_for(lambda: _samples(d / "iostat.txt", ISO_DATETIME) >= 2
                         and _samples(d / "mpstat.txt", MPSTAT_ALL) >= 2
                         and _samples(d / "vmstat.txt", VMSTAT_ROW) >= 2, within_s=8)
    finally:
        files = sampler.stop()
    assert files == [f"{remote}/iostat.txt", f"{remote}/mpstat.txt", f"{remote}/vmstat.txt"]
    assert _group_alive(sampler.pgid) == []
    assert not Path(remote, "ostats.pgid").exists()
    assert not (tmp_path / "x").exists() and not Path("x").exists()

    iostat, mpstat, vmstat = (Path(f).read_text() for f in files)
    assert "avg-cpu:  %user" in iostat and re.search(r"^Device\s+r/s", iostat, re.M)
    assert re.search(r"^\d\d:\d\d:\d\d\s+CPU\s+%usr", mpstat, re.M)
    assert re.search(r"^\d\d:\d\d:\d\d\s+0\s", mpstat, re.M)  # per-CPU rows, not only "all"
    assert "-----timestamp-----" in vmstat.splitlines()[0]
    assert vmstat.count("swpd") == 1  # -n: header printed once
    assert sampler.stop() == files  # idempotent


class _PathConnection(LocalConnection):
    """LocalConnection whose commands see a restricted PATH (to make a tool look uninstalled)."""

    def __init__(self, host: Host, path: str) -> None:
        super().__init__(host)
        self.path = path

    def run(self, argv: Argv, *, env: Mapping[str, str] | None = None, **kw: object) -> CommandResult:
        return super().run(argv, env={**(env or {}), "PATH": self.path}, **kw)  # type: ignore[arg-type]


@pytest.mark.slow
def test_missing_tool_is_skipped_not_fatal(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        if os.path.isdir(d):
            for name in os.listdir(d):
                if name != "vmstat" and not (bin_dir / name).exists():
                    (bin_dir / name).symlink_to(os.path.join(d, name))
    conn = _PathConnection(HOST, str(bin_dir))
    sampler = ostats.start(conn, str(tmp_path / "out"), interval_s=1)
    try:
        assert sampler.tools == ("iostat", "mpstat")
        assert sampler.skipped == ("vmstat",)
    finally:
        files = sampler.stop()
    assert files == [str(tmp_path / "out" / "iostat.txt"), str(tmp_path / "out" / "mpstat.txt")]
    assert not (tmp_path / "out" / "vmstat.txt").exists()
    assert sampler.pgid is not None and _group_alive(sampler.pgid) == []


@pytest.mark.slow
def test_stop_stale_kills_a_group_left_by_a_crashed_controller(tmp_path: Path) -> None:
    conn = LocalConnection(HOST)
    remote = str(tmp_path / "run")
    sampler = ostats.start(conn, remote, interval_s=1, tools=("vmstat",))
    assert sampler.pgid is not None
    try:
        with pytest.raises(StepError, match="already being sampled"):
            ostats.start(conn, remote, interval_s=1)
        # A new controller knows only the directory.
        assert ostats.stop_stale(conn, remote) is True
        assert _group_alive(sampler.pgid) == []
        assert ostats.stop_stale(conn, remote) is False  # nothing recorded any more
    finally:
        sampler.stop()


@pytest.mark.slow
def test_stop_stale_leaves_a_reused_pgid_alone(tmp_path: Path) -> None:
    conn = LocalConnection(HOST)
    remote = tmp_path / "run"
    remote.mkdir()
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        (remote / "ostats.pgid").write_text(f"{other.pid}\n")  # the old group id now belongs to 'sleep'
        assert ostats.stop_stale(conn, str(remote)) is False
        assert other.poll() is None
        assert not (remote / "ostats.pgid").exists()
    finally:
        other.kill()
        other.wait()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tools": ("iostat", "sar")}, "unknown OS statistics tool"),
    ({"interval_s": 0}, "interval"),
    ({"interval_s": 1.5}, "interval"),
])
def test_bad_arguments_are_input_errors(tmp_path: Path, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        ostats.start(LocalConnection(HOST), str(tmp_path), **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "ostats.pgid").exists()


@pytest.mark.slow
@pytest.mark.ssh
def test_over_ssh_the_group_outlives_the_connection_and_stop_stale_ends_it(tmp_path: Path) -> None:
    from planner.rehearsal.lab import build_lab, sshd_available
    from planner.transport.ssh.client import SSHConnection

    if (why := sshd_available()) is not None:
        pytest.skip(why)
    with build_lab(tmp_path / "lab", 1) as lab:
        remote = str(tmp_path / "ost")
        conn = SSHConnection(lab.hosts[0], known_hosts=lab.known_hosts)
        started = time.monotonic()
        sampler = ostats.start(conn, remote, interval_s=1)
        assert time.monotonic() - started < 5  # the channel closed: the group is detached from it
        conn.close()  # the controller "crashes"
        assert sampler.pgid is not None
        pgid = sampler.pgid
        # start returns once the tools are launched; a tool's subshell may not have exec'd it yet (seen in CI:
        # 'sh' twice, then vmstat): the group becomes the three tools and their shell
        assert _wait_for(lambda: sorted(_group_alive(pgid)) == ["iostat", "mpstat", "sh", "vmstat"], 10), \
            sorted(_group_alive(pgid))
        with SSHConnection(lab.hosts[0], known_hosts=lab.known_hosts) as again:
            assert ostats.stop_stale(again, remote) is True
        assert _group_alive(sampler.pgid) == []


def _logging_bin(bin_dir: Path, log: Path) -> str:
    """A PATH whose every program first writes its name to ``log``: what a command runs, counted, not timed."""
    bin_dir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            real = os.path.join(d, name)
            shim = bin_dir / name
            if shim.exists() or not os.access(real, os.X_OK) or os.path.isdir(real) or "'" in name:
                continue
            shim.write_text(f"#!/bin/sh\necho '{name}' >>'{log}'\nexec '{real}' \"$@\"\n")
            shim.chmod(0o755)
    return str(bin_dir)


@pytest.mark.slow
def test_first_samples_wait_is_one_sleep_not_a_loop_of_polls(tmp_path: Path) -> None:
    # Before: the wait polled every 0.1 s, each poll running awk, wc and grep per tool (~12 ms of CPU); a point
    # shorter than the interval paid 10-20 polls. Now it counts with shell builtins and sleeps once until the
    # samples are due (a late sampler on a loaded host: a few doubling sleeps more).
    log = tmp_path / "ran.log"
    path = _logging_bin(tmp_path / "bin", log)
    sampler = ostats.start(LocalConnection(HOST), str(tmp_path / "out"), interval_s=1)
    try:
        counted = dataclasses.replace(sampler, conn=_PathConnection(HOST, path))
        samples = counted.wait_for_samples()
    finally:
        sampler.stop()
    assert samples["iostat"] >= 2 and samples["vmstat"] >= 2 and samples["mpstat"] >= 1
    ran = log.read_text().split()
    assert set(ran) <= {"sh", "sleep"}, ran  # no awk, grep, wc per check
    assert ran.count("sh") == 1
    assert ran.count("sleep") <= 6, ran  # one, or a few doubling ones for a sampler late on a loaded host


class _CountingConnection(LocalConnection):
    """LocalConnection that keeps every command it ran (round trips, counted, not timed)."""

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.ran: list[Argv] = []

    def run(self, argv: Argv, **kw: object) -> CommandResult:
        self.ran.append(argv)
        return super().run(argv, **kw)  # type: ignore[arg-type]


@pytest.mark.slow
def test_starting_and_stopping_the_samplers_is_one_round_trip_each(tmp_path: Path) -> None:
    """Issue 47: the start read the pgid file first (`sh -c 'test -e ..; cat ..'`, not in commands.jsonl), then
    started the group. The stop was `kill`, then `ps -e` until the group was gone (0.05 s apart), then `rm` of the
    pgid file: 5-6 commands a point, each a round trip over SSH in the dead time between points. Now one to start
    and one to stop; the group is gone and the pgid file removed as before; a second stop is harmless."""
    conn = _CountingConnection(HOST)
    remote = tmp_path / "run"
    sampler = ostats.start(conn, str(remote), interval_s=1)
    assert sampler.pgid is not None and _group_alive(sampler.pgid)
    assert len(conn.ran) == 1, conn.ran  # the check for a group already recorded there is in the start command
    conn.ran.clear()
    files = sampler.stop()
    assert len(conn.ran) == 1, conn.ran
    assert _group_alive(sampler.pgid) == [] and not (remote / "ostats.pgid").exists()
    assert files == [str(remote / f"{t}.txt") for t in ostats.TOOLS]
    assert sampler.stop() == files and len(conn.ran) == 2


@pytest.mark.slow
def test_a_group_that_survives_kill_is_named(tmp_path: Path) -> None:
    """The one-command stop keeps the old refusal: a member that outlives SIGKILL (here: a `ps` that shows
    the group alive for ever) is named with the group to kill by hand, and the pgid file stays."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        if os.path.isdir(d):
            for name in os.listdir(d):
                if name != "ps" and not (bin_dir / name).exists():
                    (bin_dir / name).symlink_to(os.path.join(d, name))
    (bin_dir / "ps").write_text("#!/bin/sh\necho ' 4242 999999 S stuck'\n")
    (bin_dir / "ps").chmod(0o755)
    remote = tmp_path / "run"
    remote.mkdir()
    (remote / "ostats.pgid").write_text("999999\n")
    conn = _PathConnection(HOST, str(bin_dir))
    with pytest.raises(StepError, match=r"survived SIGKILL: 4242 stuck") as e:
        ostats._kill_group(conn, 999999, 0.05, remote_dir=str(remote), kill_wait_s=0.05)  # noqa: SLF001
    assert "kill process group 999999 by hand" in str(e.value.hint)
    assert (remote / "ostats.pgid").exists()


@pytest.mark.slow
def test_a_reused_pgid_in_the_folder_does_not_stop_a_start(tmp_path: Path) -> None:
    """The start's own check (one command) finds a recorded group with a process in it; only then the controller
    asks whether it is ours: a `sleep` that took the id is not, so the samplers start and the sleep is left alone."""
    conn = _CountingConnection(HOST)
    remote = tmp_path / "run"
    remote.mkdir()
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        (remote / "ostats.pgid").write_text(f"{other.pid}\n")
        sampler = ostats.start(conn, str(remote), interval_s=1, tools=("vmstat",))
        try:
            assert sampler.pgid is not None and sampler.pgid != other.pid and other.poll() is None
            assert (remote / "ostats.pgid").read_text().strip() == str(sampler.pgid)
        finally:
            sampler.stop()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


@pytest.mark.slow
def test_the_start_waits_for_the_group_in_short_steps_first(tmp_path: Path) -> None:
    """Issue 47: the start waited for the group's id in 0.05 s sleeps; the id comes a few ms after setsid, so
    the first sleep was most of a start's wall between two points. Now 0.01 s steps first (each sleep's
    argument logged by a `sleep` shim, not timed)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "sleeps.log"
    for d in os.environ["PATH"].split(os.pathsep):
        if os.path.isdir(d):
            for name in os.listdir(d):
                if name != "sleep" and not (bin_dir / name).exists():
                    (bin_dir / name).symlink_to(os.path.join(d, name))
    real = shutil.which("sleep")
    (bin_dir / "sleep").write_text(f"#!/bin/sh\necho \"$*\" >>'{log}'\nexec '{real}' \"$@\"\n")
    (bin_dir / "sleep").chmod(0o755)
    sampler = ostats.start(_PathConnection(HOST, str(bin_dir)), str(tmp_path / "out"), interval_s=1,
                           tools=("vmstat",))
    try:
        assert sampler.pgid is not None
    finally:
        sampler.stop()
    slept = log.read_text().split() if log.exists() else []
    assert set(slept[:5]) <= {"0.01"}, slept
