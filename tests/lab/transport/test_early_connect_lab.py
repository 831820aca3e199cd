"""Issue 47, stop 54: the first play's connections begun as soon as the inputs are checked, over the real sshd lab.

A run logs in to each host once: the pool takes the connection begun early (never a second login), and ``-f``
bounds how many are begun (the first ``forks`` hosts, the ones the pool starts first). A host whose key is not
known is refused with the pool's own words and exit 4, as before.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.errors import HostKeyError
from planner.rehearsal.lab import Lab
from planner.status import ExitCode
from planner.transport.connect import EarlyConnects, TransportOptions, connect
from planner.transport.ssh.client import SSHConnection

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
