"""The TCP socket under an SSH connection, opened by planner rather than paramiko (no paramiko here).

paramiko never sets TCP_NODELAY, so each command round trip waited ~40 ms on Nagle's algorithm; opening
the socket ourselves fixes that and names each failure in the user's words.
"""

from __future__ import annotations

import socket

from planner.errors import ConnectError
from planner.transport.ssh.target import SSHTarget


def tcp_socket(t: SSHTarget, where: str, *, nodelay: bool = True) -> socket.socket:
    try:
        sock = socket.create_connection((t.hostname, t.port), timeout=t.connect_timeout)
    except socket.gaierror as e:
        raise ConnectError(f"{where}: cannot resolve {t.hostname}: {e}",
                           hint="check ansible_host and HostName in ~/.ssh/config") from e
    except TimeoutError as e:
        raise ConnectError(f"{where}: connect timed out after {t.connect_timeout:g}s",
                           hint="is the host up and port reachable (firewall)?") from e
    except OSError as e:
        raise ConnectError(f"{where}: cannot connect: {e.strerror or e}",
                           hint="is sshd running there? check ansible_host/ansible_port") from e
    if nodelay:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock
