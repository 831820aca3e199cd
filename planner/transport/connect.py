"""Opens the right Connection for each host: local, or SSH (imported only when a host needs it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.connection import Connection, LocalConnection


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
    from planner.transport.ssh.client import SSHConnection  # paramiko loads only when a host needs it

    hosts = list(hosts)

    def one(host: Host) -> Connection | ConnectError:
        try:
            conn = SSHConnection(host, **kw)
            conn.connect()
        except ConnectError as e:
            return e
        return conn

    if len(hosts) <= 1:  # one host (the engine connects each in its own worker): no thread of its own
        return {h.name: one(h) for h in hosts}
    from concurrent.futures import ThreadPoolExecutor  # here: it imports logging; one host needs no thread

    with ThreadPoolExecutor(max_workers=max(1, min(forks, len(hosts))), thread_name_prefix="ssh") as pool:
        return dict(zip((h.name for h in hosts), pool.map(one, hosts), strict=True))


def connector(opts: TransportOptions):  # -> runner.Connector
    def _connect(hosts: Sequence[Host]) -> Mapping[str, Connection | ConnectError]:
        return connect(hosts, opts)

    return _connect
