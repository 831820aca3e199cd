"""Issue 47, stop 54: the first play's connections begun the moment every input is checked
(planner.transport.connect.EarlyConnects): which hosts (the first ``forks``, SSH, no ssh_config file or proxy), what
the pool is handed (the connect's own answer), and one not taken is dropped: its socket closed, its thread ended.

A host here is a loopback listening socket of the test's own that says nothing (no SSH banner): what it accepts is a
connect the controller began, an end of file read there is the controller closing it. No process is started.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.connect import EarlyConnects, TransportOptions, connect


class Listener:
    """A loopback TCP port that accepts and never speaks."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []

    def host(self, name: str = "h1", **host_vars: object) -> Host:
        return Host(name, "127.0.0.1", port=self.port, user="nobody", vars=host_vars)

    def accept(self, timeout: float = 10.0) -> socket.socket | None:
        """The next connection, or None when none came within ``timeout``."""
        self.sock.settimeout(timeout)
        try:
            conn, _ = self.sock.accept()
        except TimeoutError:
            return None
        self.accepted.append(conn)
        return conn

    def pending(self) -> bool:
        """A connection waits in the accept queue (the kernel completed its handshake)."""
        return bool(select.select([self.sock], [], [], 0)[0])

    def close(self) -> None:
        for conn in self.accepted:
            conn.close()
        self.sock.close()


@pytest.fixture
def listener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Listener]:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/config of the machine's: it would keep the pool's path
    srv = Listener()
    yield srv
    srv.close()


def closed_by_peer(conn: socket.socket) -> bool:
    """Reads what the controller sent (its SSH banner) up to the end of file it sends when it closes."""
    conn.settimeout(10)
    try:
        while conn.recv(4096):
            pass
    except TimeoutError:
        return False
    return True


def early_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ssh-early"]


def no_early_thread_left() -> bool:
    """A dropped connection's thread returns once it has closed its socket: polled, within a deadline."""
    deadline = time.monotonic() + 10
    while early_threads():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)  # poll interval, bounded by the deadline
    return True


def test_one_not_taken_is_closed_and_its_thread_ends(listener: Listener) -> None:
    early = EarlyConnects.start([listener.host()], TransportOptions())
    conn = listener.accept()
    assert conn is not None and early.hosts == ("h1",)
    early.close()  # an interrupt or a failure before the play: nobody takes it
    assert closed_by_peer(conn)
    assert no_early_thread_left()
    assert early.hosts == ()


def test_the_first_forks_ssh_hosts_only(listener: Listener) -> None:
    hosts = [Host("here", "127.0.0.1", connection="local"), *(listener.host(f"h{i}") for i in range(2, 6))]
    early = EarlyConnects.start(hosts, TransportOptions(forks=3))
    try:
        # the pool's workers take the hosts in order: the first three are the ones it starts first, one is local
        assert early.hosts == ("h2", "h3")
        got = [listener.accept(), listener.accept()]
        assert all(got)
    finally:
        early.close()
    assert all(closed_by_peer(c) for c in got if c is not None)
    assert not listener.pending()  # h4 and h5: left to the pool
    assert no_early_thread_left()


def test_an_ssh_config_file_or_a_missing_key_keeps_the_pool_path(listener: Listener, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n  ProxyCommand nc %h %p\n")
    assert EarlyConnects.start([listener.host()], TransportOptions(ssh_config=config)).hosts == ()
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text("Host *\n  ProxyJump jump\n")  # ~/.ssh/config may name a proxy
    assert EarlyConnects.start([listener.host()], TransportOptions()).hosts == ()
    (tmp_path / ".ssh" / "config").unlink()
    keyless = Host("h1", "127.0.0.1", port=listener.port, key_file=tmp_path / "no-such-key")
    assert EarlyConnects.start([keyless], TransportOptions()).hosts == ()  # the pool's connect says why
    assert not listener.pending()


def _refuse_banner(srv: Listener) -> threading.Thread:
    """Accept one connection and end it without a banner, in a thread (the connect under test blocks): an end of
    file, then what the client sent read to its own (a close with unread data would be a reset, other words)."""
    def run() -> None:
        conn = srv.accept()
        if conn is not None:
            conn.shutdown(socket.SHUT_WR)
            closed_by_peer(conn)
            conn.close()

    t = threading.Thread(target=run)
    t.start()
    return t


def test_the_pool_is_handed_the_connects_own_error(listener: Listener) -> None:
    host = listener.host()
    server = _refuse_banner(listener)
    usual = connect([host], TransportOptions())[host.name]
    server.join()
    server = _refuse_banner(listener)
    early = EarlyConnects.start([host], TransportOptions())
    got = early.take(host)
    server.join()
    assert isinstance(usual, ConnectError) and isinstance(got, ConnectError)
    assert (str(got), got.hint) == (str(usual), usual.hint)
    assert early.take(host) is None  # taken once; the pool connects any other call itself
    assert no_early_thread_left()
