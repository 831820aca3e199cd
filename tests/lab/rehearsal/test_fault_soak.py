"""Issue 9 item 11: a soak — 200 sweep points on 10 lab hosts while connections drop at random.

A chaos thread (seeded RNG, bounded in count and time) cuts the TCP connection of a random host's SSH
transport from the client side, or SIGKILLs the sshd process serving it on the server side. planner's
policy (planner.engine.execute.run_step): a workload point whose connection drops reconnects, kills what the
dropped attempt left running, and runs the point once more; only the final attempt is recorded. The run
must end with every point recorded exactly once per host, all of them successful, and nothing left running.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.transport.ssh import client as ssh

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

HOSTS, POINTS, MAX_DROPS, SEED = 10, 200, 40, 20240917
# one drop per host per second at most: a drop during the single retry itself would (rightly) make the host
# unreachable, and a point takes tens of milliseconds here
HOST_QUIET_S = 1.0

PLAN = """\
plan: soak
plays:
  - name: soak
    hosts: all
    workloads:
      - name: tick
        command: {{argv: [sh, -c, 'echo "tick {marker}"; i=0; while [ $i -lt 20 ]; do i=$((i+1)); done']}}
        repeat: {points}
"""


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ssh.SSHConnection]]:
    """host name -> the SSHConnection the run uses for it."""
    opened: dict[str, ssh.SSHConnection] = {}
    real = ssh.SSHConnection.connect

    def connect(self: ssh.SSHConnection) -> None:
        real(self)
        opened[self.host.name] = self

    monkeypatch.setattr(ssh.SSHConnection, "connect", connect)
    yield opened


def sshd_children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
    return out


class Chaos(threading.Thread):
    """Drops connections at random moments once the run is past its first point, until the budget is spent,
    the run is past 80 % of its points, or 45 s have gone by."""

    def __init__(self, lab: Lab, conns: dict[str, ssh.SSHConnection], runs: Path, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.lab, self.conns, self.runs, self.rng = lab, conns, runs, rng
        self.stop = threading.Event()
        self.drops: list[tuple[str, str]] = []  # (host, how)

    def progress(self) -> int:
        """How many points have started on the first host (one artifacts folder each): cheap to poll."""
        with contextlib.suppress(OSError, StopIteration, ValueError):  # ValueError: no connection opened yet
            run = next(p for p in self.runs.iterdir() if p.is_dir())
            first = min(self.conns)
            return len(os.listdir(run / "artifacts" / "soak" / first / "workloads_0")) - 1
        return -1

    def run(self) -> None:
        deadline = time.monotonic() + 45
        last: dict[str, float] = {}
        while not self.stop.wait(self.rng.uniform(0.05, 0.25)):  # the moments of the faults, not a sync
            if time.monotonic() > deadline or len(self.drops) >= MAX_DROPS:
                return
            done = self.progress()
            if done < 0:
                continue
            if done >= POINTS * 0.8:
                return
            now = time.monotonic()
            quiet = [h for h in sorted(self.conns) if now - last.get(h, -1e9) > HOST_QUIET_S]
            if not quiet:
                continue
            name = self.rng.choice(quiet)
            how = self.rng.choice(("tcp-cut", "sshd-killed"))
            if how == "tcp-cut":
                t = self.conns[name].transport
                if t is None or t.sock is None:
                    continue
                with contextlib.suppress(OSError):
                    t.sock.shutdown(socket.SHUT_RDWR)
            else:
                children = sshd_children(self.lab.sshd_pid(name))
                if not children:
                    continue
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.rng.choice(children), signal.SIGKILL)
            last[name] = now
            self.drops.append((name, how))


def test_soak_every_point_recorded_exactly_once_despite_drops(make_lab: Callable[..., Lab], tmp_path: Path,
                                                              connections: dict[str, ssh.SSHConnection]) -> None:
    lab = make_lab(HOSTS)
    marker = f"soak-{uuid.uuid4().hex[:8]}"
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    (tmp_path / "plan.yaml").write_text(PLAN.format(marker=marker, points=POINTS))
    runs = tmp_path / "runs"
    chaos = Chaos(lab, connections, runs, random.Random(SEED))
    chaos.start()
    started = time.monotonic()
    try:
        code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(runs), "--no-report",
                     "-f", str(HOSTS)])
    finally:
        chaos.stop.set()
        chaos.join(timeout=10)
    elapsed = time.monotonic() - started

    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "tick"]
    bad = [(r["host"], r["point"], r["status"], r["msg"][:300]) for r in results if r["status"] != "changed"]
    assert code == 0 and not bad, (code, bad, chaos.drops)
    per_host = Counter((r["host"], r["point"]) for r in results)
    assert set(per_host) == {(h.name, p) for h in lab.hosts for p in range(POINTS)}  # every point...
    assert set(per_host.values()) == {1}  # ...exactly once
    assert all(f"tick {marker}" in r["data"]["stdout"] for r in results)  # each a complete, final attempt

    retried = [r for r in results if "retried" in r["data"]]
    assert len(chaos.drops) >= 10, chaos.drops  # the faults really happened...
    assert retried, "no drop landed inside a point"  # ...some of them mid-point
    assert all("retried after a connection drop" in r["msg"] for r in retried)
    assert all(r["data"]["retried"]["attempts"] == 2 for r in retried)
    leftover = subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"tick {marker}" not in leftover
    print(f"soak: {HOSTS} hosts x {POINTS} points in {elapsed:.1f}s; {len(chaos.drops)} drops "
          f"({Counter(h for _, h in chaos.drops)}), {len(retried)} points retried")
    # no bound on elapsed: speed belongs in benchmarks/, and pytest-timeout stops a hang
