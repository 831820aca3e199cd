"""Issue 47, stop 54: the first play's connections begun as soon as the inputs are checked, over the real sshd lab.

A run logs in to each host once: the pool takes the connection begun early (never a second login), and ``-f``
bounds how many are begun (the first ``forks`` hosts, the ones the pool starts first). A host whose key is not
known is refused with the pool's own words and exit 4, as before. Hosts named through an ssh_config file (--ssh-config
or ~/.ssh/config) are resolved once, by the pool's own function, and begun early unless a proxy or a Match exec.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.cli.main import main
from planner.errors import HostKeyError
from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.status import ExitCode
from planner.transport.connect import EarlyConnects, TransportOptions, connect
from planner.transport.ssh import target as target_module
from planner.transport.ssh.client import SSHConnection
from planner.transport.ssh.target import SSHTarget

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PLAN = """\
plan: p
plays:
  - name: first
    hosts: all
    workloads:
      - command: {argv: ["true"]}
"""


def _apply(tmp_path: Path, inventory: Path, *extra: str) -> ExitCode:
    (tmp_path / "plan.yaml").write_text(PLAN)
    return main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inventory), "--runs-dir", str(tmp_path / "runs"),
                 "--no-report", *extra])


def test_a_run_logs_in_once_per_host_and_begins_forks_of_them(tmp_path: Path, lab: Lab,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/config: it would keep the pool's path
    logins: Counter[str] = Counter()
    lock = threading.Lock()
    real_connect = SSHConnection.connect

    def connect_counted(self: SSHConnection) -> None:
        with lock:
            logins[self.host.name] += 1
        real_connect(self)

    begun: list[str] = []
    real_start = EarlyConnects.start.__func__  # type: ignore[attr-defined]

    def start(cls: type[EarlyConnects], hosts: list[object], opts: TransportOptions) -> EarlyConnects:
        early = real_start(cls, hosts, opts)
        begun.extend(early.hosts)
        return early

    monkeypatch.setattr(SSHConnection, "connect", connect_counted)
    monkeypatch.setattr(EarlyConnects, "start", classmethod(start))
    lab.write_inventory(tmp_path / "inventory.yml")
    assert _apply(tmp_path, tmp_path / "inventory.yml", "-f", "2") == ExitCode.OK
    names = [h.name for h in lab.hosts]
    assert begun == names[:2]
    assert logins == dict.fromkeys(names, 1)


def test_an_unknown_host_key_is_refused_in_the_same_words(tmp_path: Path, lab: Lab, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    host = lab.hosts[0]
    usual = connect([dataclasses.replace(host, vars={**host.vars, "planner_known_hosts": str(empty)})],
                    TransportOptions())[host.name]
    assert isinstance(usual, HostKeyError)
    lab.write_inventory(tmp_path / "inventory.yml")
    inv = yaml.safe_load((tmp_path / "inventory.yml").read_text())
    inv["all"]["hosts"] = {host.name: {**inv["all"]["hosts"][host.name], "planner_known_hosts": str(empty)}}
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inv))
    capsys.readouterr()
    assert _apply(tmp_path, tmp_path / "inventory.yml") == ExitCode.UNREACHABLE
    said = capsys.readouterr()
    assert usual.message in said.out + said.err
    assert empty.read_text() == ""  # refused, not learnt


def _through_ssh_config(tmp_path: Path, lab: Lab, where: str) -> tuple[Path, list[str]]:
    """An inventory naming the hosts as an ssh_config file knows them, and that file (``--ssh-config``, or
    ~/.ssh/config under the test's HOME); the apply's extra arguments. db1 is renamed by ``Host alias`` (address,
    port; user, key and known_hosts from ``Host *``), db2 is behind a ProxyJump, db3 behind a ProxyCommand, db4 is
    matched by a ``Match final exec`` whose command writes a line to tmp_path/ran each time it runs."""
    h0, h1, h2 = lab.hosts
    proxy = (f"ssh -F /dev/null -q -i {lab.client_key} -o UserKnownHostsFile={lab.known_hosts} -o BatchMode=yes "
             f"-p {h0.port} {lab.user}@{h0.address} -W %h:%p")
    config = tmp_path / ("ssh_config" if where == "--ssh-config" else ".ssh/config")
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        f"Host alias-db1\n  HostName {h0.address}\n  Port {h0.port}\n"
        f"Host jumped\n  HostName {h1.address}\n  Port {h1.port}\n  ProxyJump {lab.user}@{h0.address}:{h0.port}\n"
        f"Host viacmd\n  HostName {h2.address}\n  Port {h2.port}\n  ProxyCommand {proxy}\n"
        f"Match final originalhost {h2.address} exec \"sh -c 'echo ran >> {tmp_path / 'ran'}'\"\n"
        f"  ServerAliveInterval 9\n"
        f"Host *\n  User {lab.user}\n  IdentityFile {lab.client_key}\n  UserKnownHostsFile {lab.known_hosts}\n")
    hosts = {"db1": {"ansible_host": "alias-db1"}, "db2": {"ansible_host": "jumped"},
             "db3": {"ansible_host": "viacmd"}, "db4": {"ansible_host": h2.address, "ansible_port": h2.port}}
    for name, hv in hosts.items():
        (tmp_path / "roots" / name).mkdir(parents=True)
        hv["planner_root"] = str(tmp_path / "roots" / name)
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump({"all": {"hosts": hosts}}))
    return tmp_path / "inventory.yml", ["--ssh-config", str(config)] if where == "--ssh-config" else []


@pytest.mark.parametrize("where", ["--ssh-config", "~/.ssh/config"])
def test_hosts_through_an_ssh_config_log_in_once_the_direct_one_begun_early(
        tmp_path: Path, lab: Lab, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Before: any ssh_config file read kept every host on the pool's late path (begun == [])."""
    monkeypatch.setenv("HOME", str(tmp_path))
    inventory, extra = _through_ssh_config(tmp_path, lab, where)
    logins: Counter[str] = Counter()
    targets: dict[str, SSHTarget] = {}
    resolved: Counter[str] = Counter()
    lock = threading.Lock()
    real_connect, real_merge = SSHConnection.connect, target_module.merge_target

    def connect_counted(self: SSHConnection) -> None:
        with lock:
            logins[self.host.name] += 1
            targets[self.host.name] = self.target
        real_connect(self)

    def merge_counted(host: Host, *args: Any, **kw: Any) -> SSHTarget:
        with lock:
            resolved[host.name] += 1
        return real_merge(host, *args, **kw)

    begun: list[str] = []
    real_start = EarlyConnects.start.__func__  # type: ignore[attr-defined]

    def start(cls: type[EarlyConnects], hosts: list[object], opts: TransportOptions) -> EarlyConnects:
        early = real_start(cls, hosts, opts)
        begun.extend(early.hosts)
        return early

    monkeypatch.setattr(SSHConnection, "connect", connect_counted)
    monkeypatch.setattr(target_module, "merge_target", merge_counted)
    monkeypatch.setattr(EarlyConnects, "start", classmethod(start))
    assert _apply(tmp_path, inventory, "-f", "4", *extra) == ExitCode.OK
    names = ["db1", "db2", "db3", "db4"]
    assert begun == ["db1"]  # the others: a proxy each, and a Match exec
    assert {n: logins[n] for n in names} == dict.fromkeys(names, 1)
    assert {n: resolved[n] for n in names} == dict.fromkeys(names, 1)  # never resolved twice
    h0 = lab.hosts[0]
    t = targets["db1"]
    assert (t.hostname, t.port, t.user, t.key_files) == (h0.address, h0.port, lab.user, (str(lab.client_key),))
    assert (tmp_path / "ran").read_text() == "ran\n"  # Match exec's command: once, in the pool's connect
