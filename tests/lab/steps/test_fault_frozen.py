"""A frozen host (issue 14 row 9): its sshd session SIGSTOPped mid-command, over the real loopback lab.

TCP still acknowledges a stopped process's socket, so only an SSH-level keepalive that wants a reply can tell:
planner's dead-peer watch (planner_keepalive_s x planner_keepalive_count, OpenSSH's ServerAliveInterval x
ServerAliveCountMax) closes the connection, the point is UNREACHABLE and not retried, exit 4. The bound asserted is
derived from the configured keepalive, with room for a loaded machine; pytest-timeout guards the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

KEEPALIVE_S, COUNT = 1, 2

PLAN = """\
plan: frozen
plays:
  - name: freeze a host
    hosts: all
    workloads:
      - name: nap
        command: {{argv: [sh, -c, 'echo start; sleep 8; echo "done {marker}"']}}
"""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def sshd_sessions(listener: int) -> list[int]:
    """The sshd processes under this lab host's listener (the per-connection session processes), not the
    commands they run and not the listener itself."""
    tree, found, todo = _children(), [], list(_children().get(listener, []))
    while todo:
        pid = todo.pop()
        if _comm(pid).startswith("sshd"):
            found.append(pid)
            todo.extend(tree.get(pid, []))
    return found


def _wait_for(predicate: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)  # polling a condition with a deadline, not synchronising on time


@pytest.mark.timeout(180)
def test_a_frozen_host_becomes_unreachable_within_the_keepalive_bound(make_lab: Callable[..., Lab],
                                                                      tmp_path: Path) -> None:
    lab = make_lab(1)
    name = lab.hosts[0].name
    marker = f"frozen-{uuid.uuid4().hex[:8]}"
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"][name].update(planner_keepalive_s=KEEPALIVE_S, planner_keepalive_count=COUNT)
    inv.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / "plan.yaml").write_text(PLAN.format(marker=marker))
    code: list[int] = []
    args = ["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"),
            "--no-report"]
    worker = threading.Thread(target=lambda: code.append(main(args)), daemon=True)
    worker.start()
    stopped: list[int] = []
    try:
        _wait_for(lambda: any(marker in _cmdline(p) for p in _children_of_sessions(lab.sshd_pid(name))),
                  "the 8 s command to start")
        stopped = sshd_sessions(lab.sshd_pid(name))
        assert stopped, "no sshd session process found under the lab's listener"
        frozen_at = time.monotonic()
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        # Dead after KEEPALIVE_S * COUNT silent seconds (+ one interval of ping spacing and the watch's
        # 0.5 s tick); then the reconnect and clean-up: generous room for a loaded CI machine.
        bound = KEEPALIVE_S * (COUNT + 1) + 1 + 30
        worker.join(timeout=bound)
        assert not worker.is_alive(), f"planner still waits {bound} s after the host froze"
        assert time.monotonic() - frozen_at < bound
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert code == [4]
    (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    (nap,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "nap"]
    assert nap["status"] == "unreachable" and "stopped answering" in nap["msg"], nap["msg"]
    assert "retried after a connection drop" not in nap["msg"] and "retried" not in nap.get("data", {})
    assert json.loads((run / "meta.json").read_text())["exit_code"] == 4


def _children_of_sessions(listener: int) -> list[int]:
    tree = _children()
    out, todo = [], list(sshd_sessions(listener))
    while todo:
        pid = todo.pop()
        for child in tree.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


HUNG_PLAN = """\
plan: hung
plays:
  - name: a command that never ends
    hosts: all
    prep:
      - command: {argv: [sleep, "600"]}
"""


@pytest.mark.timeout(120)
def test_a_hung_command_is_stopped_by_the_default_step_timeout(lab: Lab, tmp_path: Path) -> None:
    """No timeout in the plan: a command still does not hold the run forever (planner_default_timeout_s, else an
    hour; a workload's own expected run time plus a margin)."""
    name = lab.hosts[0].name
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"][name]["planner_default_timeout_s"] = 1
    inv.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / "plan.yaml").write_text(HUNG_PLAN)
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "-l", name, "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"]) == 2
    (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    (step,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "command"]
    assert step["status"] == "failed" and "timed out" in step["msg"]


def test_a_workloads_default_timeout_is_its_run_time_plus_a_margin() -> None:
    from planner.steps import step_class
    from planner.steps.base import DEFAULT_TIMEOUT_S, TIMEOUT_MARGIN_S

    slob = step_class("slob")
    assert slob({"kit": "/k", "run_time": 300}).default_timeout_s({}) == 300 + TIMEOUT_MARGIN_S
    assert slob({"kit": "/k", "run_time": 7200}).default_timeout_s({}) == 7200 * 1.5
    assert slob({"kit": "/k"}).default_timeout_s({}) == DEFAULT_TIMEOUT_S
    assert step_class("command")({"argv": ["true"]}).default_timeout_s({"planner_default_timeout_s": 5}) == 5
