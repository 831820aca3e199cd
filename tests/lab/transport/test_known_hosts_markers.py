"""known_hosts markers as OpenSSH reads them (issue 14 row 8), over the real loopback sshd.

``@revoked``: that key is refused always, --accept-new-host-keys included, and never appended.
``@cert-authority``: a CA key, never taken for a host key; planner cannot check host certificates (paramiko does
not), so a host covered only by a CA line is refused with that said plainly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import HostKeyError
from planner.rehearsal.lab import Lab
from planner.transport.ssh.client import SSHConnection
from planner.transport.ssh.known_hosts import known_keys

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def _lab_line(lab: Lab) -> tuple[str, str]:
    """The lab's known_hosts line for its first host: (name, "type base64")."""
    name, keytype, blob = lab.known_hosts.read_text().splitlines()[0].split()[:3]
    return name, f"{keytype} {blob}"


@pytest.mark.parametrize("accept_new", [False, True])
@pytest.mark.parametrize("also_plain", [False, True])
def test_a_revoked_host_key_is_refused_and_never_appended(lab: Lab, tmp_path: Path, accept_new: bool,
                                                          also_plain: bool) -> None:
    name, key = _lab_line(lab)
    known = tmp_path / "known_hosts"
    text = f"@revoked {name} {key}\n" + (f"{name} {key}\n" if also_plain else "")
    known.write_text(text)
    with pytest.raises(HostKeyError) as exc:
        SSHConnection(lab.hosts[0], known_hosts=known, accept_new_host_keys=accept_new).connect()
    assert "REVOKED HOST KEY" in exc.value.message and f"{known}:1" in exc.value.message
    assert known.read_text() == text  # nothing appended


def test_a_wildcard_revoked_line_covers_the_host(lab: Lab, tmp_path: Path) -> None:
    name, key = _lab_line(lab)
    known = tmp_path / "known_hosts"
    known.write_text(f"@revoked * {key}\n")
    with pytest.raises(HostKeyError, match="REVOKED"):
        SSHConnection(lab.hosts[0], known_hosts=known, accept_new_host_keys=True).connect()
    assert known.read_text() == f"@revoked * {key}\n"


@pytest.mark.parametrize("accept_new", [False, True])
def test_a_cert_authority_line_is_not_a_host_key(lab: Lab, tmp_path: Path, accept_new: bool) -> None:
    name, key = _lab_line(lab)
    known = tmp_path / "known_hosts"
    known.write_text(f"@cert-authority {name} {key}\n")
    assert [k.marker for k in known_keys([known], name)] == ["cert-authority"]
    with pytest.raises(HostKeyError) as exc:
        SSHConnection(lab.hosts[0], known_hosts=known, accept_new_host_keys=accept_new).connect()
    assert "certificate authority" in exc.value.message and "cannot check host certificates" in exc.value.message
    assert known.read_text() == f"@cert-authority {name} {key}\n"


def test_a_cert_authority_line_beside_the_plain_key_changes_nothing(lab: Lab, tmp_path: Path) -> None:
    name, key = _lab_line(lab)
    known = tmp_path / "known_hosts"
    known.write_text(f"@cert-authority *.example.com {key}\n{name} {key}\n")
    with SSHConnection(lab.hosts[0], known_hosts=known) as c:
        c.connect()
        assert c.run(["true"]).ok
