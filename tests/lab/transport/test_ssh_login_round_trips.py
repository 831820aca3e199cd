"""The key login's round trip over a real sshd (issue 47, stop 53): the signed publickey request goes out right behind
the service request, not after the server's SERVICE_ACCEPT (planner/transport/ssh/early_auth.py). Before, paramiko
sent it only once the accept was read: one round trip more per connect (benchmarks/fanout/round_trips.py: 6 waits
on the peer per warm host, now 5).

The first TCP connects start before paramiko is imported, so their handshakes overlap the import.
Nor a keepalive at connect (OpenSSH's ServerAliveInterval asks after an interval of silence).

Not a timing test: each packet paramiko writes or reads is noted in wire order, with whether the transport's own
thread did it. A request sent by the connecting thread was not waiting for anything the transport read; one sent by
the transport thread (an RSA key whose signature algorithm waits for the server's EXT_INFO) is early when that thread
had not read its service's accept yet.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.rehearsal.labworld import SshdAlgorithms
from planner.transport.ssh import client as ssh

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

Wire = list[tuple[str, str, bool]]  # (send | read, message name, done by the transport's own thread)


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    pk, names = ssh.paramiko.packet.Packetizer, ssh.paramiko.common.MSG_NAMES
    send, read = pk.send_message, pk.read_message
    seen: Wire = []
    lock = threading.Lock()

    def note(direction: str, cmd: int) -> None:
        with lock:
            seen.append((direction, names.get(cmd, str(cmd)),
                         isinstance(threading.current_thread(), ssh.paramiko.Transport)))

    def sent(self, data):  # type: ignore[no-untyped-def]
        note("send", data.asbytes()[0])
        return send(self, data)

    def got(self):  # type: ignore[no-untyped-def]
        cmd, m = read(self)
        note("read", cmd)
        return cmd, m

    monkeypatch.setattr(pk, "send_message", sent)
    monkeypatch.setattr(pk, "read_message", got)
    yield seen


def _late_logins(seen: Wire) -> list[int]:
    """Indexes of the userauth requests sent only after their service's accept was read."""
    late, requests, accepts = [], 0, 0
    for i, (direction, name, by_transport) in enumerate(seen):
        if (direction, name) == ("send", "service-request"):
            requests += 1
        elif (direction, name) == ("read", "service-accept"):
            accepts += 1
        elif (direction, name) == ("send", "userauth-request") and by_transport and accepts >= requests:
            late.append(i)
    return late


def _login(host: Host, config: Path | None = None) -> None:
    conn = ssh.SSHConnection(host, ssh_config=config)
    conn.connect()
    try:
        assert conn.run(["true"]).ok
    finally:
        conn.close()


def test_a_key_login_goes_out_behind_its_service_request(lab: Lab, wire: Wire) -> None:
    _login(lab.hosts[0])
    logins = [i for i, (d, name, _) in enumerate(wire) if (d, name) == ("send", "userauth-request")]
    assert len(logins) == 1 and not _late_logins(wire), wire


def test_a_session_shorter_than_the_keepalive_interval_sends_no_keepalive(lab: Lab, wire: Wire) -> None:
    """As OpenSSH's ServerAliveInterval, the first keepalive goes out after an interval (15 s by default), not at
    connect: a warm host's session (one exec) sends none. Before, one went out at once and sshd answered it."""
    _login(lab.hosts[0])
    assert [name for d, name, _ in wire if d == "send" and name == "global-request"] == [], wire


def test_a_refused_key_then_the_accepted_one_each_without_waiting(lab: Lab, wire: Wire, tmp_path: Path) -> None:
    """The first key is refused (USERAUTH_FAILURE), the second logs in: two service requests, each answered, and
    both logins early (the second's handler ignores the first's accept, read before the failure)."""
    wrong = tmp_path / "wrong_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(wrong)], check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)
    config = tmp_path / "ssh_config"
    config.write_text(f"Host *\n    IdentityFile {lab.client_key}\n")
    _login(dataclasses.replace(lab.hosts[0], key_file=wrong), config)
    assert [name for d, name, _ in wire if d == "read" and name.startswith("userauth-")] == [
        "userauth-failure", "userauth-success"], wire
    assert not _late_logins(wire), wire


def test_an_rsa_key_signed_as_the_servers_ext_info_says_still_early(make_lab, wire: Wire, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """OpenSSH 5.3's algorithms (an RSA key, ssh-rsa only, as ssh_config names): the signature algorithm is chosen
    from the server's EXT_INFO, so the request waits for it when paramiko's thread has not read it yet, and still
    leaves before the accept."""
    lab = make_lab(1, sshd=SshdAlgorithms.OPENSSH_5_3)
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n    HostKeyAlgorithms ssh-rsa\n    PubkeyAcceptedAlgorithms ssh-rsa\n")
    _login(lab.hosts[0], config)
    assert ("read", "ext-info") in [(d, n) for d, n, _ in wire]
    assert not _late_logins(wire), wire


# A fresh interpreter (paramiko is already imported in this one): connect one lab host and say whether the SSH client
# module (paramiko with it) had finished importing when the TCP connect began.
_FIRST_CONNECT = r'''
import socket, sys
from pathlib import Path
from planner.host import Host
seen = []
real = socket.create_connection
def create_connection(*a, **kw):
    seen.append(hasattr(sys.modules.get("planner.transport.ssh.client"), "SSHConnection"))
    return real(*a, **kw)
socket.create_connection = create_connection
from planner.transport.connect import connect_all
host = Host(sys.argv[1], sys.argv[2], port=int(sys.argv[3]), user=sys.argv[4], key_file=Path(sys.argv[5]),
            vars={"planner_known_hosts": sys.argv[6]})
conn = connect_all([host])[host.name]
assert not isinstance(conn, Exception), conn
assert conn.run(["true"]).ok
conn.close()
print("client imported at the connect:", seen)
'''


def test_the_first_tcp_connect_runs_while_paramiko_is_imported(lab: Lab, tmp_path: Path) -> None:
    """The first connection imported paramiko (~0.1 s of CPU) and only then opened its socket, so the TCP handshake
    and the server's banner (2 RTTs) came after the import; now the connect starts first, in a thread of its own
    (where no ssh_config file is read: it may name another address)."""
    h = lab.hosts[0]
    env = dict(os.environ, HOME=str(tmp_path))  # no ~/.ssh/config
    out = subprocess.run([sys.executable, "-c", _FIRST_CONNECT, h.name, h.address, str(h.port), str(h.user),
                          str(lab.client_key), str(lab.known_hosts)], env=env, capture_output=True, text=True,
                         check=False, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "client imported at the connect: [False]" in out.stdout, out.stdout + out.stderr[-2000:]
