"""SSHConnection against real OpenSSH servers: commands, streams, timeouts, files, become, reconnect."""

from __future__ import annotations

import _thread
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.rehearsal.lab import Lab
from planner.transport.ssh.client import SSHConnection

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


@pytest.fixture
def conn(lab: Lab) -> Iterator[SSHConnection]:
    c = SSHConnection(lab.hosts[0])
    c.connect()
    yield c
    c.close()


def _remote_procs(conn: SSHConnection, marker: str) -> list[str]:
    r = conn.run(["ps", "-eo", "pgid,args"])
    assert r.ok, r.stderr
    return [line for line in r.stdout.splitlines() if marker in line]


def _wait_gone(conn: SSHConnection, marker: str, deadline_s: float = 5.0) -> list[str]:
    """Poll (zombies may linger a moment until init reaps them) until no process carries the marker."""
    deadline = time.monotonic() + deadline_s
    while (left := _remote_procs(conn, marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_exit_code_streams_env_cwd_and_quoting(conn: SSHConnection, lab: Lab) -> None:
    sandbox = str(lab.sandbox(conn.host.name))
    r = conn.run(["sh", "-c", 'printf "%s|" "$X" "$1"; pwd; echo oops >&2; exit 7', "sh", "it's $HOME; `x`"],
                 env={"X": "a b"}, cwd=sandbox)
    assert r.exit_code == 7 and not r.ok and not r.timed_out
    assert r.stdout == f"a b|it's $HOME; `x`|{sandbox}\n"
    assert r.stderr == "oops\n"  # the process-group marker line is not shown
    assert r.command.startswith("cd ") and "env 'X=a b'" in r.command


def test_stdin_is_fed_and_closed(conn: SSHConnection) -> None:
    payload = os.urandom(300_000).hex().encode()  # bigger than one channel window chunk
    r = conn.run(["sh", "-c", "wc -c; cat > /dev/null"], stdin=payload)
    assert r.ok and r.stdout.strip() == str(len(payload))
    assert conn.run(["cat"]).stdout == ""  # no stdin: EOF at once, no hang


def test_50mb_output_with_interleaved_stderr_does_not_deadlock(conn: SSHConnection) -> None:
    # 4 MB on stderr before and after 50 MB on stdout: more than the channel window on both streams.
    script = ("head -c 3000000 /dev/zero | base64 >&2; head -c 39321600 /dev/zero | base64 -w0; "
              "head -c 3000000 /dev/zero | base64 >&2")
    r = conn.run(["sh", "-c", script], timeout=120)
    assert r.ok
    # Every byte arrived (counted); only the head and tail of each stream are kept (issue 14 row 7).
    assert r.stdout_bytes == 52_428_800
    assert r.stderr_bytes == 2 * 4_052_632  # 4_000_000 base64 chars + 52_632 newlines, twice
    assert r.truncated and r.stdout.startswith("A" * 1000) and r.stdout.endswith("A" * 1000)
    assert len(r.stdout) < 2 << 20 and len(r.stderr) < 2 << 20


def test_timeout_kills_the_whole_remote_process_tree(conn: SSHConnection) -> None:
    marker = "61.25"  # an unusual sleep length identifies our processes in ps
    started = time.monotonic()
    r = conn.run(["sh", "-c", f"sleep {marker} & sleep {marker}; echo never"], timeout=0.5)
    assert r.timed_out and r.exit_code == 124 and "never" not in r.stdout
    assert time.monotonic() - started < 10
    assert _wait_gone(conn, f"sleep {marker}") == []
    assert conn.run(["true"]).ok  # the connection is still usable


def test_ctrl_c_kills_the_remote_process_tree(conn: SSHConnection) -> None:
    marker = "62.25"
    timer = threading.Timer(0.5, _thread.interrupt_main)  # what Ctrl-C does to the main thread
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            conn.run(["sh", "-c", f"sleep {marker} & sleep {marker}"])
    finally:
        timer.cancel()
    assert _wait_gone(conn, f"sleep {marker}") == []


def test_binary_put_get_round_trip_with_mode(conn: SSHConnection, lab: Lab, tmp_path: Path) -> None:
    data = os.urandom(1_500_000) + b"\x00\r\n\xff"
    remote_dir = lab.sandbox(conn.host.name) / "new" / "dir"
    remote = remote_dir / "blob.bin"
    conn.put(data, str(remote), mode=0o751)  # parent directories are created
    assert remote.read_bytes() == data and (remote.stat().st_mode & 0o7777) == 0o751
    conn.put(b"second", str(remote), mode=0o600)  # replaces atomically
    assert remote.read_bytes() == b"second" and (remote.stat().st_mode & 0o7777) == 0o600
    assert sorted(p.name for p in remote_dir.iterdir()) == ["blob.bin"]  # no temp file left

    local_src = tmp_path / "src.bin"
    local_src.write_bytes(data)
    conn.put(local_src, str(remote))
    got = tmp_path / "out" / "got.bin"
    conn.get(str(remote), got)
    assert hashlib.sha256(got.read_bytes()).digest() == hashlib.sha256(data).digest()
    assert [p.name for p in got.parent.iterdir()] == ["got.bin"]


def test_get_inline_and_over_sftp_by_size(conn: SSHConnection, lab: Lab, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Small files come back in the exec itself (no SFTP session), larger ones over SFTP: both byte-exact."""
    from planner.transport.ssh import client as ssh
    from planner.transport.ssh import scripts as ssh_scripts

    sessions: list[int] = []
    real = ssh.SSHConnection._sftp_client

    def counted(self: SSHConnection) -> object:
        sessions.append(1)
        return real(self)

    monkeypatch.setattr(ssh.SSHConnection, "_sftp_client", counted)
    monkeypatch.setattr(ssh_scripts, "GET_INLINE_MAX", 4096)
    sandbox = lab.sandbox(conn.host.name)
    for name, size in (("small.bin", 4096), ("large.bin", 4097)):
        data = os.urandom(size - 3) + b"\x00\r\n"
        (sandbox / name).write_bytes(data)
        conn.get(str(sandbox / name), tmp_path / name)
        assert (tmp_path / name).read_bytes() == data
        assert len(sessions) == (0 if name == "small.bin" else 1), name
    (sandbox / "empty").write_bytes(b"")
    conn.get(str(sandbox / "empty"), tmp_path / "empty")
    assert (tmp_path / "empty").read_bytes() == b""


def test_get_refuses_bytes_that_do_not_match_the_hosts_checksum(conn: SSHConnection, lab: Lab, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A file rewritten between the checksum and the read (simulated: the host reports another checksum)."""
    from planner.transport.ssh import scripts as ssh_scripts

    (lab.sandbox(conn.host.name) / "moving.txt").write_text("version 2\n")
    monkeypatch.setattr(ssh_scripts, "GET", ssh_scripts.GET.replace('"inline $n ${h%% *}"', '"inline $n 0000"'))
    with pytest.raises(StepError, match="changed or was corrupted while copying"):
        conn.get(str(lab.sandbox(conn.host.name) / "moving.txt"), tmp_path / "m.txt")
    assert not (tmp_path / "m.txt").exists() and not list(tmp_path.glob(".*.part"))


def test_get_missing_file_is_a_step_error(conn: SSHConnection, lab: Lab, tmp_path: Path) -> None:
    with pytest.raises(StepError, match="cannot fetch"):
        conn.get(str(lab.sandbox(conn.host.name) / "nope"), tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_read_text_through_the_base_class(conn: SSHConnection, lab: Lab) -> None:
    path = lab.sandbox(conn.host.name) / "sys" / "block" / "sda" / "queue" / "scheduler"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[mq-deadline] none\n")
    assert conn.read_text(str(path)) == "[mq-deadline] none\n"
    assert conn.read_text(str(path.parent / "missing")) is None


@pytest.mark.skipif(shutil.which("sudo") is None, reason="sudo is not installed on this machine")
def test_become_via_sudo(conn: SSHConnection) -> None:
    r = conn.run(["id", "-un"], become=True, become_user="root")
    assert r.ok, r.stderr
    assert r.stdout.strip() == "root" and r.command.startswith("sudo -n -H -u root")
    r = conn.run(["sh", "-c", 'echo "$HOME"'], become=True, login=True)
    assert r.ok and r.stdout.strip() == os.path.expanduser("~root")


def test_reconnects_after_the_transport_dropped(conn: SSHConnection) -> None:
    first = conn.transport
    assert first is not None
    first.close()  # the TCP connection goes away between two steps
    r = conn.run(["echo", "back"])
    assert r.ok and r.stdout == "back\n"
    assert conn.transport is not first and conn.transport is not None and conn.transport.is_active()


def test_one_connection_is_reused(conn: SSHConnection) -> None:
    transport = conn.transport
    for _ in range(5):
        assert conn.run(["true"]).ok
    assert conn.transport is transport


def test_the_command_is_the_leader_of_its_own_process_group(conn: SSHConnection, tmp_path: Path) -> None:
    """setsid then exec: the command itself leads the group a timeout kills (no extra shell on the host),
    with or without a working directory and environment."""
    probe = ["sh", "-c", 'read -r pid _ _ _ pgrp _ < /proc/$$/stat; echo "$pid $pgrp $PWD $X"']
    for kw in ({}, {"cwd": "/", "env": {"X": "y z"}}):
        r = conn.run(probe, **kw)
        pid, pgrp, *rest = r.stdout.split()
        assert r.ok and pid == pgrp, (kw, r.stdout)
        if kw:
            assert rest == ["/", "y", "z"]
