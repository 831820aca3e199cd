"""Issue 47, stop 54: `planner apply` begins the first play's connections the moment every input is checked
(planner.cli.apply.execute), before the run record is opened and the runner is set up, and only then.

Each host is a loopback listening socket of the test's own that never speaks SSH (test_early_connects.Listener):
what it accepts is a connect planner began. Bad input, the listings and the syntax check reach no host; the first
play's hosts (as --limit and the play's pattern select them) are reached before the run starts, the others not; a
connection not taken (an interrupt, a failure before the play) is closed and its thread ends; Ctrl-C is exit 99.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_early_connects import Listener, closed_by_peer, early_threads, no_early_thread_left

from planner.cli.main import main
from planner.engine.runner import Runner
from planner.status import ExitCode

PLAN = """\
plan: p
plays:
  - name: first
    hosts: {first}
    workloads:
      - command: {{argv: ["true"]}}
  - name: second
    hosts: b
    workloads:
      - command: {{argv: ["true"]}}
"""


@pytest.fixture
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Listener]]:
    """Hosts a and b, each a silent listener; an inventory of them in tmp_path/hosts.ini."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/config of the machine's
    listeners = {"a": Listener(), "b": Listener()}
    (tmp_path / "hosts.ini").write_text("".join(
        f"{name} ansible_host=127.0.0.1 ansible_port={srv.port} ansible_user=nobody "
        f"planner_known_hosts={tmp_path / 'known_hosts'}\n" for name, srv in listeners.items()))
    yield listeners
    for srv in listeners.values():
        srv.close()


def write_plan(tmp_path: Path, first: str = "all", text: str = PLAN) -> Path:
    (tmp_path / "plan.yaml").write_text(text.format(first=first))
    return tmp_path / "plan.yaml"


def apply(tmp_path: Path, *extra: str, plan: Path | None = None) -> ExitCode:
    return main(["apply", str(plan or tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report", *extra])


def reached(listeners: dict[str, Listener]) -> list[str]:
    return [name for name, srv in listeners.items() if srv.pending()]


BAD = {
    "a step's unknown key": ("plan", ["--check"]),
    "--runs-dir a file (checked by execute)": ("runs-file", []),
    "--store of no known kind (checked by execute)": ("plan-ok", ["--store", "ftp://nowhere/x"]),
    "-f 0": ("plan-ok", ["-f", "0"]),
    "--limit naming no such pattern syntax": ("plan-ok", ["--limit", "a:&"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exit_5_and_no_host_is_reached(tmp_path: Path, hosts: dict[str, Listener], case: str) -> None:
    what, extra = BAD[case]
    plan = write_plan(tmp_path, text=PLAN.replace("argv:", "argz:") if what == "plan" else PLAN)
    if what == "runs-file":
        (tmp_path / "runs").write_text("")
    assert apply(tmp_path, *extra, plan=plan) == ExitCode.BAD_INPUT
    assert reached(hosts) == [] and early_threads() == []


@pytest.mark.parametrize("verb", [["apply", "--list-hosts"], ["apply", "--list-tasks"], ["apply", "--syntax-check"],
                                  ["validate"]])
def test_listings_and_checks_reach_no_host(tmp_path: Path, hosts: dict[str, Listener], verb: list[str]) -> None:
    plan = write_plan(tmp_path)
    assert main([*verb, str(plan), "-i", str(tmp_path / "hosts.ini")]) == ExitCode.OK
    assert reached(hosts) == [] and early_threads() == []


def run_starting(monkeypatch: pytest.MonkeyPatch, then: Callable[[], None]) -> None:
    """Runner.run (the record's opening, the plays) begins with ``then``."""
    real = Runner.run

    def run(self: Runner):  # type: ignore[no-untyped-def]
        then()
        return real(self)

    monkeypatch.setattr(Runner, "run", run)


def test_the_first_plays_hosts_are_reached_before_the_run_starts(tmp_path: Path, hosts: dict[str, Listener],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the first TCP connect came from the pool, inside Runner.run, after the record was opened."""
    write_plan(tmp_path, first="a")
    seen: list[object] = []

    def first() -> None:
        seen.append(hosts["a"].accept())  # the connect begun by execute (None: nothing came within 10 s)
        seen.append(reached(hosts))  # b is the second play's: not yet
        for srv in hosts.values():
            srv.close()  # then refused, or closed without a banner: both hosts unreachable, as the pool says

    run_starting(monkeypatch, first)
    assert apply(tmp_path, "--check") == ExitCode.UNREACHABLE
    assert seen[0] is not None, "no connection began before the run"
    assert seen[1] == []
    assert no_early_thread_left()


def test_the_limit_is_obeyed(tmp_path: Path, hosts: dict[str, Listener], monkeypatch: pytest.MonkeyPatch) -> None:
    write_plan(tmp_path, first="all")
    seen: list[object] = []

    def first() -> None:
        seen.append(hosts["b"].accept())
        seen.append(reached(hosts))
        for srv in hosts.values():
            srv.close()

    run_starting(monkeypatch, first)
    assert apply(tmp_path, "--check", "--limit", "b") == ExitCode.UNREACHABLE
    assert seen[0] is not None and seen[1] == []  # a: outside the limit, never reached


@pytest.mark.parametrize("failure", [KeyboardInterrupt, RuntimeError])
def test_a_connection_not_taken_is_closed(tmp_path: Path, hosts: dict[str, Listener], monkeypatch: pytest.MonkeyPatch,
                                          failure: type[BaseException]) -> None:
    """An interrupt, or a failure, before the play: the connection begun is closed, its thread gone."""
    write_plan(tmp_path, first="a")
    accepted = []

    def first() -> None:
        accepted.append(hosts["a"].accept())
        raise failure("before the play")

    run_starting(monkeypatch, first)
    code = apply(tmp_path, "--check")  # an internal error is said by the CLI's last resort, exit 250 as ansible's
    assert code is (ExitCode.INTERRUPTED if failure is KeyboardInterrupt else ExitCode.UNEXPECTED)
    [conn] = accepted
    assert conn is not None and closed_by_peer(conn)
    assert no_early_thread_left()


@pytest.mark.slow
def test_ctrl_c_while_the_first_connect_is_under_way_is_exit_99(tmp_path: Path, hosts: dict[str, Listener]) -> None:
    write_plan(tmp_path, first="a")
    proc = subprocess.Popen([sys.executable, "-m", "planner", "apply", str(tmp_path / "plan.yaml"), "-i",
                             str(tmp_path / "hosts.ini"), "--runs-dir", str(tmp_path / "runs"), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "HOME": str(tmp_path)})
    try:
        conn = hosts["a"].accept(timeout=60)
        assert conn is not None, "planner did not connect"
        proc.send_signal(signal.SIGINT)
        conn.close()  # no banner: the handshake ends at once wherever the interrupt lands
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitCode.INTERRUPTED, out
    assert "Traceback" not in out


def named_in_ssh_config(tmp_path: Path, hosts: dict[str, Listener], where: str) -> list[str]:
    """Hosts a and b known to the inventory by an alias only, which the ssh_config (``--ssh-config`` or
    ~/.ssh/config) renames to the listener; the apply's extra arguments."""
    config = tmp_path / ("ssh_config" if where == "--ssh-config" else ".ssh/config")
    config.parent.mkdir(exist_ok=True)
    config.write_text("".join(f"Host alias-{name}\n  HostName 127.0.0.1\n  Port {srv.port}\n  User nobody\n"
                              for name, srv in hosts.items()))
    (tmp_path / "hosts.ini").write_text("".join(
        f"{name} ansible_host=alias-{name} planner_known_hosts={tmp_path / 'known_hosts'}\n" for name in hosts))
    return ["--ssh-config", str(config)] if where == "--ssh-config" else []


@pytest.mark.parametrize("where", ["--ssh-config", "~/.ssh/config"])
def test_hosts_named_in_an_ssh_config_are_reached_before_the_run_starts(
        tmp_path: Path, hosts: dict[str, Listener], monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Before: an ssh_config file read (given, or any ~/.ssh/config) kept the pool's late path."""
    extra = named_in_ssh_config(tmp_path, hosts, where)
    write_plan(tmp_path, first="a")
    seen: list[object] = []

    def first() -> None:
        seen.append(hosts["a"].accept() is not None)  # the connect begun by execute, at the config's address
        seen.append(reached(hosts))  # b is the second play's: not yet
        for srv in hosts.values():
            srv.close()

    run_starting(monkeypatch, first)
    assert apply(tmp_path, "--check", *extra) == ExitCode.UNREACHABLE
    assert seen == [True, []]
    assert no_early_thread_left()


@pytest.mark.parametrize("where", ["--ssh-config", "~/.ssh/config"])
def test_bad_input_with_an_ssh_config_reaches_no_host(tmp_path: Path, hosts: dict[str, Listener], where: str) -> None:
    extra = named_in_ssh_config(tmp_path, hosts, where)
    plan = write_plan(tmp_path, text=PLAN.replace("argv:", "argz:"))
    assert apply(tmp_path, "--check", *extra, plan=plan) == ExitCode.BAD_INPUT
    assert reached(hosts) == [] and early_threads() == []
