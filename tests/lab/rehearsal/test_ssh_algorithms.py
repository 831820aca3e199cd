"""sshd as labs run it (issue 41; docs/userlands.md): the algorithm sets OpenSSH 5.3p1 (RHEL/OL 6), 7.4p1
(RHEL/OL 7) and 8.0p1 (RHEL/OL 8) offered, served by this machine's sshd restricted to them, and ssh_config's
algorithm keywords (and ``-o`` in ansible_ssh_common_args) honoured as OpenSSH's client honours them."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ConnectError
from planner.rehearsal.labworld import SshdAlgorithms
from planner.transport.ssh.client import SSHConnection

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def _connect(host, config: Path | None = None) -> SSHConnection:  # type: ignore[no-untyped-def]
    conn = SSHConnection(host, ssh_config=config)
    conn.connect()
    return conn


def test_openssh_5_3_is_refused_in_openssh_words_then_reached_as_ssh_config_says(make_lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """It said "Incompatible ssh peer (no acceptable host key) — is an SSH server listening there?"."""
    lab = make_lab(1, sshd=SshdAlgorithms.OPENSSH_5_3)
    host = lab.hosts[0]
    with pytest.raises(ConnectError) as refused:
        _connect(host)
    said = str(refused.value) + " " + str(refused.value.hint)
    assert "no matching host key type found. Their offer: ssh-rsa" in said, said
    assert "HostKeyAlgorithms +ssh-rsa" in said and "PubkeyAcceptedAlgorithms +ssh-rsa" in said, said

    config = tmp_path / "ssh_config"
    config.write_text("Host *\n    HostKeyAlgorithms ssh-rsa\n    PubkeyAcceptedAlgorithms ssh-rsa\n")
    conn = _connect(host, config)
    try:
        r = conn.run(["echo", "hi"])
        assert (r.exit_code, r.stdout) == (0, "hi\n"), r.stderr
        t = conn.transport
        assert t is not None and t.host_key_type == "ssh-rsa"
        assert t.remote_cipher.endswith("-ctr") and t.remote_mac in ("hmac-sha1", "hmac-md5")
    finally:
        conn.close()


def test_the_old_keyword_in_ansible_ssh_common_args(make_lab) -> None:  # type: ignore[no-untyped-def]
    """``PubkeyAcceptedKeyTypes`` (OpenSSH < 8.5's name). A plain list here: this machine's sshd, unlike 5.3,
    names every signature it knows in server-sig-algs, which a ``+`` list would then pick from (SHA-2 first)."""
    lab = make_lab(1, sshd=SshdAlgorithms.OPENSSH_5_3)
    host = lab.hosts[0]
    host.vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=yes -o HostKeyAlgorithms=+ssh-rsa " \
                                           "-o 'PubkeyAcceptedKeyTypes ssh-rsa'"
    conn = _connect(host)
    try:
        assert conn.run(["true"]).ok
    finally:
        conn.close()


@pytest.mark.parametrize("release", [SshdAlgorithms.OPENSSH_7_4, SshdAlgorithms.OPENSSH_8_0])
def test_openssh_7_4_and_8_0_as_shipped_need_nothing(make_lab, release: SshdAlgorithms) -> None:  # type: ignore[no-untyped-def]
    lab = make_lab(1, sshd=release)
    host = lab.hosts[0]
    host.vars["ansible_ssh_extra_args"] = "-o Ciphers=-chacha20*,aes*-ctr"  # the `-` form: GCM is left
    conn = _connect(host)
    try:
        assert conn.run(["true"]).ok
        t = conn.transport
        assert t is not None and t.remote_cipher.endswith("-gcm@openssh.com")
        assert t.host_key_type != "ssh-rsa"  # SHA-2 signatures when the server has them
    finally:
        conn.close()


def test_openssh_4_3_needs_a_sha1_key_exchange_which_ssh_config_can_name(make_lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """OL/RHEL 5 (the seed's OL 5.7): only SHA-1 key exchanges, which paramiko 5 dropped."""
    lab = make_lab(1, sshd=SshdAlgorithms.OPENSSH_4_3)
    host = lab.hosts[0]
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n    HostKeyAlgorithms ssh-rsa\n    PubkeyAcceptedAlgorithms ssh-rsa\n")
    with pytest.raises(ConnectError) as refused:
        _connect(host, config)
    said = str(refused.value) + " " + str(refused.value.hint)
    assert "no matching key exchange method found. Their offer: diffie-hellman-group-exchange-sha1," in said, said
    assert "KexAlgorithms +diffie-hellman-group-exchange-sha1" in said, said
    config.write_text(config.read_text() + "    KexAlgorithms +diffie-hellman-group14-sha1\n")
    conn = _connect(host, config)
    try:
        assert conn.run(["true"]).ok  # the sshd offers SHA-1 key exchanges only: one of them was agreed
    finally:
        conn.close()
