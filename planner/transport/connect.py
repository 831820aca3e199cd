"""Opens the right Connection for each host: local, or SSH (imported only when a host needs it)."""

from __future__ import annotations

import contextlib
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
            by_kh.setdefault(_known_hosts(h, opts), []).append(h)
        for kh, group in by_kh.items():
            out.update(connect_all(group, opts.forks, **_ssh_kw(kh, opts)))
    return out


def _known_hosts(host: Host, opts: TransportOptions) -> Path | None:
    kh = host.vars.get("planner_known_hosts")
    return Path(kh) if kh else opts.known_hosts


def _ssh_kw(known_hosts: Path | None, opts: TransportOptions) -> dict[str, Any]:
    """SSHConnection's keyword arguments for a host whose known_hosts file is ``known_hosts``."""
    return {"known_hosts": known_hosts, "accept_new_host_keys": opts.accept_new_host_keys,
            "ssh_config": opts.ssh_config, "connect_timeout": opts.connect_timeout}


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


class EarlyConnects:
    """The first play's SSH connections begun the moment every input is checked (planner.cli.apply.execute), so
    that their round trips (TCP and banner, key exchange, login: 4 RTTs, 200 ms at 50 ms RTT) overlap the run record's
    opening and the runner's set-up instead of following them; the pool takes each as it connects that host
    (connector). Each is what connect() makes of the host, the same SSHConnection with the same options: host keys
    checked and refused alike, a failure the same ConnectError, handed over where the pool would have met it. Only
    login: no channel, no command before the run's own exec.

    Which hosts: the first ``forks`` of the first play, the ones the pool starts first (its workers take hosts in
    order), so never more handshakes at once than ``forks``. Each is resolved once, here, by the pool's own function
    (through the ssh_config file, --ssh-config or ~/.ssh/config, when one is read), and that target handed over; one
    reached through a proxy is not begun (the pool's worker connects it, with that target). A host that is local, or
    whose lookup meets a ``Match exec`` (a command on the controller: it runs in the pool's connect, as before, once)
    or fails, keeps the pool's path and its words.
    close() drops what was not taken (an interrupt, a failure before the play): connections closed, handshakes ended.
    """

    def __init__(self, pending: Mapping[str, _Early]) -> None:
        self._pending = dict(pending)
        self._proxied: dict[str, _Proxied] = {}  # resolved here, through a proxy: the pool's worker connects them

    @property
    def hosts(self) -> tuple[str, ...]:
        """The hosts whose connection was begun and not taken yet."""
        return tuple(self._pending)

    def __enter__(self) -> EarlyConnects:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def start(cls, hosts: Sequence[Host], opts: TransportOptions) -> EarlyConnects:
        remote = [h for h in hosts[:max(1, opts.forks)] if h.connection != "local"]
        if not remote:
            return cls({})
        from planner.transport.ssh import sockets  # noqa: F401 - no paramiko; imported before the threads use it

        early = cls({})
        try:
            for host in remote:
                kw = _ssh_kw(_known_hosts(host, opts), opts)
                if (target := _resolved_target(host, kw)) is None:
                    continue
                if target.proxy_command or target.proxy_jump:
                    early._proxied[host.name] = _Proxied(host, target, kw)
                else:
                    early._pending[host.name] = _Early(host, target, kw)
            for one in early._pending.values():
                one.begun.wait()  # each connect under way before the import below takes the interpreter for ~0.1 s
            if early._pending:
                # Here, while the TCP connects are under way: the threads wait for this import rather than share
                # the interpreter with it (planner.transport.ssh.noinvoke swaps modules while paramiko is imported).
                import planner.transport.ssh.client  # noqa: F401

                _ssh_imported.set()
        except BaseException:  # Ctrl-C meanwhile: nobody will take them
            early.close()
            raise
        return early

    def take(self, host: Host) -> Connection | ConnectError | None:
        """The host's connection or its error, once its handshake is over (a proxied one's made now, by the
        caller, with the target resolved here); None when it was not resolved here."""
        proxied = self._proxied.pop(host.name, None)
        if proxied is not None and proxied.host == host:
            return proxied.connect()
        early = self._pending.pop(host.name, None)
        if early is None:
            return None
        if early.host != host:  # not the host it was begun for: never the case in a run, but not ours to use
            early.close()
            return None
        return early.result()

    def close(self) -> None:
        """Drop every connection not taken."""
        pending, self._pending, self._proxied = self._pending, {}, {}
        for early in pending.values():
            early.close()


@dataclass(frozen=True, slots=True)
class _Proxied:
    """A host reached through a proxy: resolved by the early connects, connected in the pool's worker as before."""

    host: Host
    target: SSHTarget
    kw: Mapping[str, Any]

    def connect(self) -> Connection | ConnectError:
        from planner.transport.ssh.client import SSHConnection

        conn = SSHConnection(self.host, target=self.target, **self.kw)  # not resolved a second time
        try:
            conn.connect()
        except ConnectError as e:
            return e
        return conn


class _Early:
    """One host's early connection, in a thread of its own: its TCP connect, then its login (SSHConnection)."""

    def __init__(self, host: Host, target: SSHTarget, kw: Mapping[str, Any]) -> None:
        self.host = host
        self.target = target
        self._kw = dict(kw)
        self._lock = threading.Lock()
        self._logging_in = False  # past the TCP connect: the thread ends soon after its socket is shut down
        self._sock: socket.socket | None = None  # during the login: close() shuts it down to end the handshake
        self._result: Connection | ConnectError | None = None
        self._failure: BaseException | None = None
        self._dropped = False
        self.begun = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="ssh-early")
        self._thread.start()

    def _run(self) -> None:
        from planner.transport.ssh.sockets import tcp_socket

        self.begun.set()
        t = self.target
        first: socket.socket | ConnectError
        try:
            first = tcp_socket(t, f"{self.host.name}: {t.user}@{t.hostname}:{t.port}")
        except ConnectError as e:
            first = e
        with self._lock:
            if self._dropped:
                _close(first)
                return
            self._logging_in = True
            self._sock = None if isinstance(first, ConnectError) else first
        result: Connection | ConnectError | None = None
        try:
            result = self._login(first)
        except BaseException as e:  # noqa: BLE001 - raised in the pool's thread instead, as connect_all's would be
            self._failure = e
        with self._lock:
            self._sock = None
            if self._dropped:
                _close(result)
            else:
                self._result = result

    def _login(self, first: socket.socket | ConnectError) -> Connection | ConnectError | None:
        from planner.transport.ssh.client import SSHConnection  # the starting thread imports it meanwhile

        conn = SSHConnection(self.host, target=self.target, **self._kw)  # resolved once, by start(): not again
        conn.first_socket = first
        try:
            conn.connect()
        except ConnectError as e:
            return e
        return conn

    def result(self) -> Connection | ConnectError | None:
        self._thread.join()
        if self._failure is not None:
            raise self._failure
        with self._lock:
            result, self._result = self._result, None
        return result

    def close(self) -> None:
        """Close the connection, or end its handshake and wait for the thread; a thread still in its TCP connect
        is not waited for (up to connect_timeout): it closes the socket it gets and returns."""
        with self._lock:
            self._dropped = True
            result, self._result, sock, logging_in = self._result, None, self._sock, self._logging_in
        _close(result)
        if sock is not None:  # a handshake under way: its reads end at once
            import socket  # imported already: the thread opened this one

            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if logging_in:
            self._thread.join()


def _resolved_target(host: Host, kw: Mapping[str, Any]) -> SSHTarget | None:
    """Where the pool's connect would reach the host, resolved by the same function (target.resolve) to be handed to
    it; None when its lookup meets a ``Match exec`` (its command runs where it always ran, in the pool's connect,
    once) or fails (a config that does not parse, a missing key file: the pool's connect says it, in its words)."""
    from planner.transport.ssh.target import ExecDeferred, resolve  # no paramiko: only a config file's lookup

    try:
        return resolve(host, _lookup_running_nothing, **kw)
    except (ConnectError, ExecDeferred):
        return None


def _lookup_running_nothing(host: Host, path: Path) -> Mapping[str, Any]:
    """The ssh_config file's answer, read as the pool's connect reads it (paramiko, imported here), stopping where a
    ``Match exec`` would run its command."""
    from planner.transport.ssh.client import config_lookup

    return config_lookup(host, path, run_exec=False)


def _close(thing: object) -> None:
    if isinstance(thing, Connection):
        thing.close()
    elif thing is not None and not isinstance(thing, ConnectError):
        with contextlib.suppress(OSError):
            thing.close()  # type: ignore[attr-defined]  # a socket


def connector(opts: TransportOptions, early: EarlyConnects | None = None):  # -> runner.Connector
    """The run's connector: a host the early connects began is taken from them (the pool connects one host a call)."""
    def _connect(hosts: Sequence[Host]) -> Mapping[str, Connection | ConnectError]:
        if early is not None and len(hosts) == 1:
            got = early.take(hosts[0])
            if got is not None:
                return {hosts[0].name: got}
        return connect(hosts, opts)

    return _connect
