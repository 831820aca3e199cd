"""Round trips per host on the fan-out benchmark's plan (benchmarks/fanout/plan.yaml) over the real sshd lab.

Not a timing test: on a small controller every round trip costs the host an sshd session and a few process
starts, so the count is what planner's fan-out speed rests on. A change that adds one per host fails here.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_bench_fanout import apply_fanout, fanout_inventory

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.transport.ssh import client as ssh

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

# Warm apply, per host: ONE exec (planner.engine.batch): the lock, the facts, io_scheduler's resolve and
# template's read, `uname -a` (changed_when: false), the fetch (inline with its checksum), the lock's release.
# Before: 5 execs (facts + lock, probe batch, uname, fetch, release); before that 8 execs + 1 SFTP.
WARM_EXECS = 1
WARM_SFTP = 0
# Cold apply, per host: the same one exec (its answers: the 4 schedulers differ, the file is absent), then
# the lock taken again before the first change (1), io_scheduler's writes with their read-back (1: all devices in
# one exec), template's read (1: the writes dropped the batch's answers) and upload (1 SFTP session + its
# checksum/rename exec, 1); uname and the fetch were read before the first change, so they ask again (2); the
# lock's release (1). 1 + 1 + 1 + 1 + 1 + 2 + 1 = 8 execs, 1 SFTP session (before: 15, of which 8 were
# io_scheduler's write and read-back per device).
COLD_EXECS = 8
COLD_SFTP = 1


@dataclass
class Trips:
    """Exec channels and SFTP sessions opened per host, with the commands for the failure message."""

    execs: Counter[str] = field(default_factory=Counter)
    sftp: Counter[str] = field(default_factory=Counter)
    commands: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.execs.clear()
            self.sftp.clear()
            self.commands.clear()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Trips]:
    t = Trips()
    run, get, sftp_client = ssh.SSHConnection.run, ssh.SSHConnection.get, ssh.SSHConnection._sftp_client

    def counted_run(self: ssh.SSHConnection, argv: Any, **kw: Any) -> Any:
        with t.lock:
            t.execs[self.host.name] += 1
            shown = [str(a) for a in argv]
            if shown[:2] == ["sh", "-c"] and shown[2].startswith("d=$1"):  # remote_procs' tracking wrapper
                shown = shown[5:]
            t.commands[self.host.name].append(" ".join(shown)[:100])
        return run(self, argv, **kw)

    def counted_sftp(self: ssh.SSHConnection) -> Any:
        before = self._sftp
        client = sftp_client(self)
        if client is not before:
            with t.lock:
                t.sftp[self.host.name] += 1
        return client

    def counted_get(self: ssh.SSHConnection, remote: str, local: Path, **kw: Any) -> Any:
        with t.lock:  # one exec (GET), which SSHConnection.get runs without going through run()
            t.execs[self.host.name] += 1
            t.commands[self.host.name].append(f"get {remote}")
        return get(self, remote, local, **kw)

    monkeypatch.setattr(ssh.SSHConnection, "run", counted_run)
    monkeypatch.setattr(ssh.SSHConnection, "get", counted_get)
    monkeypatch.setattr(ssh.SSHConnection, "_sftp_client", counted_sftp)
    yield t


def test_cold_and_warm_apply_round_trips_per_host(make_lab: Callable[..., Lab], tmp_path: Path, trips: Trips) -> None:
    lab = make_lab(3)
    inventory = fanout_inventory(lab, tmp_path)
    cold = apply_fanout(inventory, tmp_path / "runs")
    assert all(r["changed"] == 2 and r["failed"] == 0 for r in cold.values()), cold
    for h in lab.hosts:
        execs, sessions = trips.execs[h.name], trips.sftp[h.name]
        assert execs == COLD_EXECS, f"{h.name}: {execs} exec round trips cold: {trips.commands[h.name]}"
        assert sessions == COLD_SFTP, f"{h.name}: {sessions} SFTP sessions cold"
        assert not list(lab.sandbox(h.name).glob("tmp/planner.lock*")), "the lock was not released"

    trips.reset()
    warm = apply_fanout(inventory, tmp_path / "runs")
    assert all(r["changed"] == 0 and r["failed"] == 0 and r["ok"] >= 5 for r in warm.values()), warm
    for h in lab.hosts:
        execs, sessions = trips.execs[h.name], trips.sftp[h.name]
        assert execs == WARM_EXECS, f"{h.name}: {execs} exec round trips: {trips.commands[h.name]}"
        assert sessions == WARM_SFTP, f"{h.name}: {sessions} SFTP sessions"
        assert not list(lab.sandbox(h.name).glob("tmp/planner.lock*")), "the lock was not released"


MISSING = """\
plan: fetch_missing
plays:
  - name: fetch
    hosts: all
    collect:
      - name: a file that is not there
        fetch: {src: /tmp/not-there.txt}
        ignore_errors: true
      - name: a directory
        fetch: {src: /tmp}
"""


def test_fetch_of_a_missing_file_says_so(lab: Lab, tmp_path: Path) -> None:
    """The existence test now runs only after a failed copy: the message is the same as when it ran first."""
    plan, inventory, runs = tmp_path / "plan.yaml", tmp_path / "inventory.yml", tmp_path / "runs"
    plan.write_text(MISSING)
    lab.write_inventory(inventory)
    host = lab.hosts[0].name
    (lab.sandbox(host) / "tmp").mkdir(exist_ok=True)
    assert main(["apply", str(plan), "-i", str(inventory), "--runs-dir", str(runs), "--no-report",
                 "--limit", host]) == 2
    (record,) = [p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()]
    results = [r for r in json.loads((record / "results.json").read_text()) if r["step"].startswith("plays")]
    assert [(r["status"], r["msg"]) for r in results] == [
        ("failed", f"/tmp/not-there.txt does not exist on {host}"), ("failed", f"/tmp does not exist on {host}")]
    assert not list((record / "artifacts").rglob("not-there.txt*")), "a partial copy was left"
