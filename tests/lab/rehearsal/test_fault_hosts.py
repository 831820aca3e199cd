"""Issue 9 item 3: a host lost mid-workload (sshd killed, or its TCP connection cut) over the real SSH lab.

sshd killed: the other hosts finish every point, the lost host keeps its completed points and their
artifacts, the recap says unreachable, exit 4. TCP connection cut with sshd still up: the point is run once
more after reconnecting (recorded once, with a note) and the interrupted attempt's processes are gone.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.transport.ssh import client as ssh

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

# Each point counts itself (mark.N in the host's sandbox); the second one to start naps $2 seconds.
PLAN = """\
plan: host_lost
plays:
  - name: lose a host
    hosts: all
    workloads:
      - name: nap
        command:
          argv: [sh, -c, 'n=$(ls -- "$1" | grep -c "^mark" || true); touch "$1/mark.$n";
                          if [ "$n" -eq 1 ]; then sleep "$2"; fi; echo "point $n done {marker}"',
                 sh, "{{{{ planner_root }}}}", "{{{{ nap | default(0) }}}}"]
        repeat: 3
    collect:
      - vmstat: {{interval: 1}}
"""


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)  # polling a condition with a deadline, not synchronising on time
    return value


def processes_with(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -ww" not in line]


def project(lab: Lab, tmp: Path, marker: str, naps: dict[str, float]) -> Path:
    inv = tmp / "lab.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    for name, nap in naps.items():
        data["all"]["hosts"][name]["nap"] = nap
    inv.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp / "plan.yaml").write_text(PLAN.format(marker=marker))
    return inv


def apply_in_thread(tmp: Path, inv: Path) -> tuple[threading.Thread, list[int]]:
    code: list[int] = []
    args = ["apply", str(tmp / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp / "runs"), "--no-report",
            "-f", "10"]
    worker = threading.Thread(target=lambda: code.append(main(args)), daemon=True)
    worker.start()
    return worker, code


def only_run(tmp: Path) -> Path:
    (run,) = [p for p in (tmp / "runs").iterdir() if p.is_dir()]
    return run


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ssh.SSHConnection]]:
    """Every SSHConnection the run opens (so a test can cut one), in connect order."""
    opened: list[ssh.SSHConnection] = []
    real = ssh.SSHConnection.connect

    def connect(self: ssh.SSHConnection) -> None:
        real(self)
        if self not in opened:
            opened.append(self)

    monkeypatch.setattr(ssh.SSHConnection, "connect", connect)
    yield opened


def test_sshd_killed_mid_point_keeps_completed_points_and_others_finish(make_lab: Callable[..., Lab],
                                                                        tmp_path: Path) -> None:
    lab = make_lab(3)
    victim = lab.hosts[1].name
    marker = f"hostlost-{uuid.uuid4().hex[:8]}"
    inv = project(lab, tmp_path, marker, {victim: 60})
    started = time.monotonic()
    worker, code = apply_in_thread(tmp_path, inv)
    wait_for(lambda: (lab.sandbox(victim) / "mark.1").exists(), "the victim's second point to start")
    lab.kill_sshd(victim)
    worker.join(timeout=60)
    assert not worker.is_alive() and code == [4]
    assert time.monotonic() - started < 40  # the lost host did not hold the run for its 60 s nap

    run = only_run(tmp_path)
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "nap"]
    for h in lab.hosts:
        mine = [r for r in results if r["host"] == h.name]
        if h.name != victim:
            assert [(r["point"], r["status"]) for r in mine] == [(0, "changed"), (1, "changed"), (2, "changed")]
            continue
        # the completed point is kept with its artifact; the lost one says why; no point after it ran
        assert [(r["point"], r["status"]) for r in mine] == [(0, "changed"), (1, "unreachable")]
        assert "point 0 done" in mine[0]["data"]["stdout"]
        (vm,) = mine[0]["artifacts"]
        assert vm["kind"] == "vmstat" and (run / vm["path"]).stat().st_size > 0
        # (the window's OS-statistics stop reconnects first, so the message is the failed reconnect's: refused,
        # reset or a handshake cut short, depending on how far the dying sshd got)
        assert mine[1]["msg"].startswith(f"{victim}: ") and "ssh" in mine[1]["msg"].lower()
    recap = json.loads((run / "recap.json").read_text())
    assert recap[victim]["unreachable"] >= 1 and recap[victim]["failed"] == 0
    assert all(recap[h.name]["unreachable"] == 0 for h in lab.hosts if h.name != victim)
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "unreachable" and meta["exit_code"] == 4
    assert not list(run.rglob("*.tmp")) and not list(run.rglob("*.part"))


def test_tcp_connection_cut_mid_point_retries_it_once_and_kills_the_orphan(
        make_lab: Callable[..., Lab], tmp_path: Path, connections: list[ssh.SSHConnection]) -> None:
    lab = make_lab(2)
    victim = lab.hosts[0].name
    marker = f"tcpcut-{uuid.uuid4().hex[:8]}"
    inv = project(lab, tmp_path, marker, {victim: 45})
    worker, code = apply_in_thread(tmp_path, inv)
    wait_for(lambda: (lab.sandbox(victim) / "mark.1").exists(), "the victim's second point to start")
    wait_for(lambda: processes_with(f"point $n done {marker}"), "the point's process")
    conn = next(c for c in connections if c.host.name == victim)
    transport = conn.transport
    assert transport is not None
    transport.sock.shutdown(socket.SHUT_RDWR)  # the network drops: both ends see the TCP connection end
    started = time.monotonic()
    worker.join(timeout=60)
    assert not worker.is_alive() and code == [0]
    assert time.monotonic() - started < 30  # the retry did not wait for the dropped attempt's 45 s nap

    run = only_run(tmp_path)
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "nap"]
    mine = [r for r in results if r["host"] == victim]
    assert [(r["point"], r["status"]) for r in mine] == [(0, "changed"), (1, "changed"), (2, "changed")]
    retried = mine[1]["data"]["retried"]
    assert "retried after a connection drop" in mine[1]["msg"] and "connection lost" in retried["dropped"]
    assert len(retried["killed_pgids"]) == 1
    # the dropped attempt really ran and was stopped: the host saw the point start twice (mark.1, mark.2)
    # yet the record holds it once, and nothing of the interrupted attempt still runs
    assert "point 2 done" in mine[1]["data"]["stdout"]
    assert not processes_with(f"point $n done {marker}")
    assert len([r for r in results if r["host"] != victim]) == 3
