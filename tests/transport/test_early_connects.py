"""Issue 47, stop 54: the first play's connections begun the moment every input is checked
(planner.transport.connect.EarlyConnects): which hosts (the first ``forks``, SSH, resolved through any ssh_config, no
proxy or ``Match exec``), what the pool is handed (the connect's own answer), and one not taken is dropped: its socket
closed, its thread ended.

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
from planner.transport.ssh import noinvoke
from planner.transport.ssh.target import ExecDeferred


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


def test_a_proxy_in_an_ssh_config_file_or_a_missing_key_keeps_the_pool_path(listener: Listener, tmp_path: Path) -> None:
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


def _alias(listener: Listener, user: str = "cfguser") -> str:
    """An ssh_config entry renaming host "alias" to the listener, with a user of its own."""
    return f"Host alias\n  HostName 127.0.0.1\n  Port {listener.port}\n  User {user}\n"


@pytest.mark.parametrize("where", ["--ssh-config", "~/.ssh/config"])
def test_a_host_renamed_by_an_ssh_config_is_begun_at_the_configs_address(listener: Listener, tmp_path: Path,
                                                                          where: str) -> None:
    """Before: any ssh_config file read (given, or ~/.ssh/config) kept every host on the pool's path."""
    config = tmp_path / ("ssh_config" if where == "--ssh-config" else ".ssh/config")
    config.parent.mkdir(exist_ok=True)
    config.write_text(_alias(listener))
    opts = TransportOptions(ssh_config=config if where == "--ssh-config" else None)
    early = EarlyConnects.start([Host("h1", "alias")], opts)
    try:
        assert early.hosts == ("h1",)
        assert listener.accept() is not None
        t = early._pending["h1"].target  # what the pool's SSHConnection is handed, resolved once
        assert (t.hostname, t.port, t.user) == ("127.0.0.1", listener.port, "cfguser")
    finally:
        early.close()
    assert no_early_thread_left()


def test_a_match_exec_is_not_run_early_and_keeps_that_host_on_the_pool_path(listener: Listener,
                                                                            tmp_path: Path) -> None:
    """A command on the controller runs where it always ran (the pool's connect), once: the early lookup stops
    where it would run it. A host the Match never reaches it for is begun."""
    ran = tmp_path / "ran"
    config = tmp_path / "ssh_config"
    config.write_text(f"Match originalhost execd exec \"sh -c 'echo x >> {ran}'\"\n  User other\n"
                      + _alias(listener) + f"Host execd\n  HostName 127.0.0.1\n  Port {listener.port}\n")
    early = EarlyConnects.start([Host("h1", "execd"), Host("h2", "alias")], TransportOptions(ssh_config=config))
    try:
        assert early.hosts == ("h2",)
        assert not ran.exists()
    finally:
        early.close()
    assert no_early_thread_left()


def test_a_config_that_does_not_parse_keeps_the_pool_path_and_its_words(listener: Listener, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(_alias(listener) + "Match nonsense\n")
    host = Host("h1", "alias")
    assert EarlyConnects.start([host], TransportOptions(ssh_config=config)).hosts == ()
    said = connect([host], TransportOptions(ssh_config=config))["h1"]
    assert isinstance(said, ConnectError) and f"h1: cannot read ssh config {config}" in str(said)
    assert not listener.pending()


def test_a_paramiko_whose_match_exec_is_not_trapped_defers_every_lookup_of_a_file_saying_exec() -> None:
    """The trap rests on paramiko's ``_does_match`` expanding the command through ``_tokenize`` ("match-exec") just
    before running it; a release that did otherwise would run the command early, and again in the pool's connect."""

    class Other:  # a paramiko SSHConfig whose Match code names no "match-exec"
        def _does_match(self) -> None:
            pass

        def lookup(self, hostname: str) -> dict[str, str]:
            return {"hostname": hostname}

    config = noinvoke._config_class(Other)()
    assert config.lookup("h") == {"hostname": "h"}
    config.says_exec = True
    assert config.lookup("h") == {"hostname": "h"}  # the pool's lookup runs it, as before
    with noinvoke.exec_allowed(False), pytest.raises(ExecDeferred):
        config.lookup("h")
