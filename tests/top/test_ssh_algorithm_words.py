"""ssh_config's algorithm keywords read OpenSSH's way (planner/transport/ssh/algorithms.py): pure units."""

from __future__ import annotations

import pytest

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.ssh.algorithms import Kind, Wanted, dash_o, resolve, wanted

DEFAULT = ("rsa-sha2-512", "rsa-sha2-256", "ssh-ed25519")
SUPPORTED = ("ssh-ed25519", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")


def _r(value: str) -> tuple[str, ...]:
    return resolve(Wanted(Kind.HOSTKEY, value, "test"), DEFAULT, SUPPORTED, "h")


def test_plus_minus_caret_and_plain_lists() -> None:
    assert _r("+ssh-rsa") == (*DEFAULT, "ssh-rsa")
    assert _r("-rsa-sha2-*") == ("ssh-ed25519",)
    assert _r("^ssh-rsa,ssh-ed25519") == ("ssh-rsa", "ssh-ed25519", "rsa-sha2-512", "rsa-sha2-256")
    assert _r("ssh-rsa") == ("ssh-rsa",)
    assert _r("ssh-dss,ssh-rsa") == ("ssh-rsa",)  # a name planner cannot use is left out, as an unknown one
    with pytest.raises(ConnectError, match="HostKeyAlgorithms ssh-dss .* leaves planner no host key type"):
        _r("ssh-dss")


def test_dash_o_forms_and_first_value_wins() -> None:
    assert dash_o("-o A=1 -oB=2 -o 'C 3' -i key -o D") == [("a", "1"), ("b", "2"), ("c", "3"), ("d", "")]
    assert dash_o("-o 'unbalanced") == []
    host = Host("h", "h", vars={"ansible_ssh_common_args": "-o HostKeyAlgorithms=+ssh-rsa",
                                "ansible_ssh_extra_args": "-o HostKeyAlgorithms=ssh-ed25519 -o MACs=hmac-sha1"})
    got = wanted(host, {"hostkeyalgorithms": "ssh-dss", "pubkeyacceptedkeytypes": "+ssh-rsa", "ciphers": "aes128-ctr"})
    assert got == (Wanted(Kind.HOSTKEY, "+ssh-rsa", "ansible_ssh_common_args"),
                   Wanted(Kind.PUBKEY, "+ssh-rsa", "~/.ssh/config"),
                   Wanted(Kind.CIPHER, "aes128-ctr", "~/.ssh/config"),
                   Wanted(Kind.MAC, "hmac-sha1", "ansible_ssh_extra_args"))
