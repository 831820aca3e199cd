"""Opens the right Connection for each host: local, or SSH (imported only when a host needs it)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.connection import Connection, LocalConnection

if TYPE_CHECKING:
    import socket

    from planner.transport.ssh.target import SSHTarget


@dataclass(frozen=True, slots=True)
class TransportOptions:
    forks: int = 5
    accept_new_host_keys: bool = False
    known_hosts: Path | None = None  # default: ~/.ssh/known_hosts (or a host's planner_known_hosts var)
    ssh_config: Path | None = None
    connect_timeout: float = 10.0


def connect(hosts: Sequence[Host], opts: TransportOptions) -> dict[str, Connection | ConnectError]:
    out: dict[str, Connection | ConnectError] = {}
    remote: list[Host] = []
    for h in hosts:
        if h.connection == "local":
            out[h.name] = LocalConnection(h)
        else:
            remote.append(h)
    if remote:
        # Hosts may name their own known_hosts file (the test lab and rehearsal sandboxes do).
        by_kh: dict[Path | None, list[Host]] = {}
        for h in remote:
            kh = h.vars.get("planner_known_hosts")
            by_kh.setdefault(Path(kh) if kh else opts.known_hosts, []).append(h)
        for kh, group in by_kh.items():
            out.update(connect_all(group, opts.forks, known_hosts=kh,
                                   accept_new_host_keys=opts.accept_new_host_keys,
                                   ssh_config=opts.ssh_config, connect_timeout=opts.connect_timeout))
    return out


def connect_all(hosts: Iterable[Host], forks: int = 10, **kw: Any) -> dict[str, Connection | ConnectError]:
    """Open one SSH connection per host concurrently; a host that fails maps to its ConnectError."""
    hosts = list(hosts)

    def one(host: Host) -> Connection | ConnectError:
        early = _EarlySocket.start(host, kw)
        try:
            from planner.transport.ssh.client import SSHConnection  # paramiko loads only when a host needs it

            _ssh_imported.set()
            conn = SSHConnection(host, **kw)
            if early is not None:
                conn.first_socket = early.take(conn.target)
            conn.connect()
        except ConnectError as e:
            return e
        finally:
            if early is not None:
                early.close()  # not taken (an error first): nothing else would close it
        return conn

    if len(hosts) <= 1:  # one host (the engine connects each in its own worker): no thread of its own
        return {h.name: one(h) for h in hosts}
    from concurrent.futures import ThreadPoolExecutor  # here: it imports logging; one host needs no thread

    with ThreadPoolExecutor(max_workers=max(1, min(forks, len(hosts))), thread_name_prefix="ssh") as pool:
        return dict(zip((h.name for h in hosts), pool.map(one, hosts), strict=True))


# Set once planner.transport.ssh.client, and paramiko with it (~0.1 s of CPU), is imported: from then on a host's TCP
# connect has nothing to overlap.
_ssh_imported = threading.Event()


class _EarlySocket:
    """A host's TCP connect in a thread of its own while the first connection imports paramiko: the handshake and
    the wait for the server's banner (2 RTTs, 100 ms at 50 ms RTT) run during the import instead of after it. Only
    where no ssh_config file is read (it may name another HostName, Port or a proxy) and the inventory names no
    proxy: then the address is the inventory's, exactly as SSHConnection resolves it; take() checks that."""

    def __init__(self, target: SSHTarget, where: str, nodelay: bool) -> None:
        self.target = target
        self._sock: socket.socket | None = None
        self._error: ConnectError | None = None
        self._lock = threading.Lock()
        self._dropped = False  # close() came first: the thread closes the socket it gets
        self._begun = threading.Event()
        self._thread = threading.Thread(target=self._open, args=(where, nodelay), daemon=True, name="ssh-tcp")
        self._thread.start()
        self._begun.wait()  # the connect under way before the import takes the interpreter for ~0.1 s

    @classmethod
    def start(cls, host: Host, kw: Mapping[str, Any]) -> _EarlySocket | None:
        if _ssh_imported.is_set() or kw.get("ssh_config") is not None or Path("~/.ssh/config").expanduser().exists():
            return None
        from planner.transport.ssh.target import merge_target  # no paramiko: only for an SSH host

        try:
            t = merge_target(host, {}, known_hosts=kw.get("known_hosts"), connect_timeout=kw.get("connect_timeout"),
                             accept_new_host_keys=bool(kw.get("accept_new_host_keys")))
        except ConnectError:  # SSHConnection says the same, in order
            return None
        if t.proxy_command or t.proxy_jump:
            return None
        return cls(t, f"{host.name}: {t.user}@{t.hostname}:{t.port}", bool(kw.get("tcp_nodelay", True)))

    def _open(self, where: str, nodelay: bool) -> None:
        from planner.transport.ssh.sockets import tcp_socket

        self._begun.set()
        try:
            sock = tcp_socket(self.target, where, nodelay=nodelay)
        except ConnectError as e:
            self._error = e
            return
        with self._lock:
            if self._dropped:
                sock.close()
            else:
                self._sock = sock

    def take(self, target: SSHTarget) -> socket.socket | ConnectError | None:
        """The connected socket for ``target``, or the connect's error (SSHConnection.connect raises it where it
        would have opened the socket); None when ``target`` is not the one connected to: connect as usual."""
        self._thread.join()
        if (target.hostname, target.port, target.proxy_command, target.proxy_jump) != (
                self.target.hostname, self.target.port, None, None):
            return None
        with self._lock:
            sock, self._sock = self._sock, None
        return sock or self._error

    def close(self) -> None:
        """Drop a socket not taken, without waiting for a connect still under way (it closes what it gets)."""
        with self._lock:
            self._dropped = True
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


def connector(opts: TransportOptions):  # -> runner.Connector
    def _connect(hosts: Sequence[Host]) -> Mapping[str, Connection | ConnectError]:
        return connect(hosts, opts)

    return _connect
