"""Faults on the real OpenSSH lab: unreachable hosts, host keys, a host dying mid-command, bad auth."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.errors import ConnectError, HostKeyError
from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.transport.connect import connect_all
from planner.transport.connection import CommandResult
from planner.transport.ssh.client import SSHConnection

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def _close_all(conns: dict[str, SSHConnection | ConnectError]) -> None:
    for c in conns.values():
        if isinstance(c, SSHConnection):
            c.close()


def test_unreachable_host_fails_alone(lab: Lab) -> None:
    dead = lab.unreachable_host()
    conns = connect_all([*lab.hosts, dead], forks=10)
    try:
        assert list(conns) == [*(h.name for h in lab.hosts), dead.name]
        err = conns[dead.name]
        assert isinstance(err, ConnectError) and not isinstance(err, HostKeyError)
        assert "refused" in err.message and err.hint and err.exit_code == 4
        for h in lab.hosts:
            c = conns[h.name]
            assert isinstance(c, SSHConnection) and c.run(["true"]).ok
    finally:
        _close_all(conns)


def test_unknown_host_key_refused_then_accepted_and_appended(lab: Lab, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text("")
    host = lab.hosts[1]
    with pytest.raises(HostKeyError) as exc:
        SSHConnection(host, known_hosts=known).connect()
    assert "unknown host key" in exc.value.message and "--accept-new-host-keys" in str(exc.value.hint)
    assert known.read_text() == ""  # refused means nothing recorded

    with SSHConnection(host, known_hosts=known, accept_new_host_keys=True) as c:
        c.connect()
        assert c.run(["true"]).ok
    line = known.read_text()
    assert line.startswith(f"[{host.address}]:{host.port} ssh-ed25519 ") and line.count("\n") == 1
    with SSHConnection(host, known_hosts=known) as c:  # now known: no flag needed
        c.connect()


def test_changed_host_key_refused_naming_file_and_line(make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    host = lab.hosts[0]
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "other")], check=True)
    other = (tmp_path / "other.pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    # A comment, a garbage line (must not spoil the file) and then the wrong key on line 3.
    known.write_text(f"# lab\nthis is not a key line\n[{host.address}]:{host.port} {other[0]} {other[1]}\n")
    for accept in (False, True):  # a changed key is refused even with accept-new
        with pytest.raises(HostKeyError) as exc:
            SSHConnection(host, known_hosts=known, accept_new_host_keys=accept).connect()
        assert "HOST KEY CHANGED" in exc.value.message
        assert f"{known}:3" in exc.value.message and f"{known}:3" in str(exc.value.hint)
        assert "ssh-keygen -R" in str(exc.value.hint)
    assert known.read_text().count("\n") == 3


def test_hashed_known_hosts_entries_match(make_lab: Callable[..., Lab]) -> None:
    lab = make_lab(1)
    subprocess.run(["ssh-keygen", "-q", "-H", "-f", str(lab.known_hosts)], check=True, capture_output=True)
    assert lab.known_hosts.read_text().startswith("|1|")
    with SSHConnection(lab.hosts[0]) as c:  # planner_known_hosts host var points at the hashed file
        c.connect()
        assert c.run(["true"]).ok


def test_sshd_killed_mid_command_fails_that_host_only(make_lab: Callable[..., Lab]) -> None:
    lab = make_lab(2)
    victim, other = lab.hosts
    conns = connect_all(lab.hosts, forks=2)
    try:
        vconn, oconn = conns[victim.name], conns[other.name]
        assert isinstance(vconn, SSHConnection) and isinstance(oconn, SSHConnection)
        outcome: list[CommandResult | BaseException] = []

        def work() -> None:
            try:
                outcome.append(vconn.run(["sh", "-c", "echo started; sleep 63.25"], timeout=60))
            except BaseException as e:  # collected for the assertion below
                outcome.append(e)

        worker = threading.Thread(target=work)
        worker.start()
        deadline = time.monotonic() + 10
        while "63.25" not in oconn.run(["ps", "-eo", "args"]).stdout:  # the lab shares one kernel
            assert time.monotonic() < deadline, "the long command never started"
            time.sleep(0.02)
        lab.kill_sshd(victim.name)
        worker.join(timeout=30)
        assert not worker.is_alive()
        err = outcome[0]
        assert isinstance(err, ConnectError), err
        assert "connection lost while running" in err.message and "sleep 63.25" in err.message
        assert oconn.run(["echo", "fine"]).stdout == "fine\n"  # the other host is unaffected
        with pytest.raises(ConnectError, match="refused"):  # reconnecting to the dead host fails clearly
            vconn.run(["true"])
    finally:
        _close_all(conns)


def test_wrong_key_is_an_authentication_error(lab: Lab, tmp_path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")], check=True)
    h = lab.hosts[0]
    stranger = Host(name=h.name, address=h.address, port=h.port, user=h.user, key_file=tmp_path / "k",
                    vars=h.vars)
    with pytest.raises(ConnectError, match="authentication failed"):
        SSHConnection(stranger, allow_agent=False).connect()


def test_missing_key_file_is_reported_before_connecting(lab: Lab, tmp_path: Path) -> None:
    h = lab.hosts[0]
    with pytest.raises(ConnectError, match="does not exist"):
        SSHConnection(Host(name=h.name, address=h.address, port=h.port, key_file=tmp_path / "nokey"))


def test_a_port_that_never_speaks_ssh_is_unreachable_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 14 row 12: a TCP port that accepts but never sends an SSH banner. paramiko's transport thread
    logged its own traceback to stderr (Python's last-resort log handler); planner says it in words."""
    import socket

    from planner.cli.main import main

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:  # accept and say nothing until the test ends
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    port = listener.getsockname()[1]
    (tmp_path / "inv.ini").write_text(f"[lab]\nsilent ansible_host=127.0.0.1 ansible_port={port} "
                                      "planner_connect_timeout=2\n")
    (tmp_path / "plan.yaml").write_text("plan: silent\nplays:\n  - name: p\n    hosts: lab\n"
                                        "    prep:\n      - command: {cmd: 'true'}\n")
    try:
        code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "inv.ini"), "--runs-dir",
                     str(tmp_path / "runs"), "--no-report", "--known-hosts", str(tmp_path / "kh")])
    finally:
        stop.set()
        for s in held:
            s.close()
        listener.close()
    out = capsys.readouterr()
    assert code == 4
    assert "Traceback" not in out.err + out.out and "Exception (client)" not in out.err + out.out
    assert "no SSH banner" in out.out + out.err
