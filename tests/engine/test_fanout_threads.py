"""The run's fan-out: each host connects and runs its first exec in its own worker, without waiting for the
slowest host's handshake, and the worker threads are started once per run, not once per step."""

from __future__ import annotations

import io
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from planner.engine.console import Console
from planner.engine.runner import Runner, RunOptions
from planner.host import Host
from planner.plan.loader import load_plan
from planner.transport.connection import CommandResult, LocalConnection

pytestmark = [pytest.mark.slow]  # the steps run local shells

PLAN = """\
    plan: fan
    plays:
      - name: p
        hosts: all
        prep:
          - command: {argv: ["true"], changed_when: false}
          - command: {argv: ["true", "2"], changed_when: false}
          - command: {argv: ["true", "3"], changed_when: false}
"""


class _Announcing(LocalConnection):
    """A real local connection that says when its host's first command runs."""

    def __init__(self, host: Host, ran: threading.Event) -> None:
        super().__init__(host)
        self.ran = ran

    def run(self, argv: Any, **kw: Any) -> CommandResult:
        self.ran.set()
        return super().run(argv, **kw)


def _runner(tmp_path: Path, hosts: list[Host], connector: Any, forks: int) -> Runner:
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(textwrap.dedent(PLAN))
    opts = RunOptions(forks=forks, runs_dir=tmp_path / "runs")
    return Runner(load_plan(plan_file), {"p": hosts}, opts, Console(io.StringIO()), connector)


def test_a_host_runs_its_exec_while_another_is_still_connecting(tmp_path: Path) -> None:
    fast, slow = Host("fast", "localhost", connection="local"), Host("slow", "localhost", connection="local")
    ran = threading.Event()
    waited: list[bool] = []

    def connector(hosts: Sequence[Host]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for h in hosts:
            if h.name == "slow":  # its handshake ends only once the fast host has run a command
                waited.append(ran.wait(timeout=10))
            out[h.name] = _Announcing(h, ran) if h.name == "fast" else LocalConnection(h)
        return out

    outcome = _runner(tmp_path, [fast, slow], connector, forks=2).run()
    assert waited == [True] and outcome.exit_code == 0


def test_worker_threads_start_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hosts = [Host(f"h{i}", "localhost", connection="local") for i in range(4)]
    started: list[str] = []
    real_start = threading.Thread.start

    def counting_start(self: threading.Thread) -> None:
        started.append(self.name)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", counting_start)
    outcome = _runner(tmp_path, hosts, lambda hs: {h.name: LocalConnection(h) for h in hs}, forks=4).run()
    assert outcome.exit_code == 0
    # a pool per phase (facts, each step, the release) started 4 threads each time: 16 here
    assert len(started) <= 4, started


def test_the_callers_overlapping_work_begins_once_every_host_is_connected(tmp_path: Path) -> None:
    """RunOptions.when_connected (planner.cli.early_imports): once, when the last of the play's hosts is
    connected, not at the first (the other handshakes' CPU is still the critical path then)."""
    hosts = [Host(f"h{i}", "localhost", connection="local") for i in range(3)]
    connected: list[str] = []
    said: list[list[str]] = []
    guard = threading.Lock()

    def connector(hs: Sequence[Host]) -> dict[str, Any]:
        with guard:
            connected.extend(h.name for h in hs)
        return {h.name: LocalConnection(h) for h in hs}

    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(textwrap.dedent(PLAN))
    opts = RunOptions(forks=3, runs_dir=tmp_path / "runs", when_connected=lambda: said.append(sorted(connected)))
    outcome = Runner(load_plan(plan_file), {"p": hosts}, opts, Console(io.StringIO()), connector).run()
    assert outcome.exit_code == 0
    assert said == [["h0", "h1", "h2"]]
