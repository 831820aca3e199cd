"""The lab builder itself: addresses, keys, inventory, and stopping only what it started."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def test_lab_hosts_are_distinct_and_listening(lab: Lab) -> None:
    hosts = lab.hosts
    assert len(hosts) == 3 and len({(h.address, h.port) for h in hosts}) == 3
    assert all(h.address.startswith("127.") and (h.port or 0) > 1024 for h in hosts)
    assert lab.known_hosts.read_text().count("ssh-ed25519") == 3
    for h in hosts:
        sandbox = Path(h.vars["planner_root"])
        assert sandbox.is_dir() and sandbox == lab.sandbox(h.name)
        with socket.create_connection((h.address, h.port or 22), timeout=2) as s:
            assert s.recv(4) == b"SSH-"


def test_inventory_describes_the_lab(lab: Lab, tmp_path: Path) -> None:
    path = tmp_path / "inv" / "hosts.yml"
    lab.write_inventory(path)
    doc = yaml.safe_load(path.read_text())
    hosts = doc["all"]["hosts"]
    assert list(hosts) == [h.name for h in lab.hosts]
    first = hosts[lab.hosts[0].name]
    assert first["ansible_host"] == lab.hosts[0].address and first["ansible_port"] == lab.hosts[0].port
    assert first["ansible_ssh_private_key_file"] == str(lab.client_key)
    assert first["planner_known_hosts"] == str(lab.known_hosts)
    assert first["planner_root"] == str(lab.sandbox(lab.hosts[0].name))


def test_unreachable_host_has_nothing_listening(lab: Lab) -> None:
    h = lab.unreachable_host()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((h.address, h.port or 22), timeout=2).close()


def test_stop_kills_only_the_lab_processes(make_lab: Callable[..., Lab]) -> None:
    lab = make_lab(2)
    pids = [lab.sshd_pid(h.name) for h in lab.hosts]
    assert all(Path(f"/proc/{p}").exists() for p in pids)
    lab.stop()
    assert not any(Path(f"/proc/{p}").exists() for p in pids)
    assert Path(f"/proc/{os.getpid()}").exists()
    lab.stop()  # idempotent
