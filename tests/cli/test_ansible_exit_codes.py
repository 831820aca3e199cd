"""Issue 46: exit codes as ansible-playbook 2.19 gives them (ansible/errors ExitCode, StrategyBase.run,
TaskQueueManager's SIGINT handler), and where planner keeps its own 5 for bad input (README says why)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.status import ExitCode, HostStats, exit_code

PLAN = """\
plan: p
plays:
  - name: p
    hosts: all
    workloads:
      - command: {argv: ["true"]}
"""


def test_an_unreachable_host_wins_over_a_failed_step() -> None:
    stats = {"a": HostStats(failed=1), "b": HostStats(unreachable=1)}
    assert exit_code(stats) == ExitCode.UNREACHABLE == 4
    assert exit_code({"a": HostStats(failed=1)}) == ExitCode.FAILED
    assert exit_code(stats, interrupted=True) == ExitCode.INTERRUPTED


def test_a_bad_option_is_argparse_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    assert main(["apply", str(tmp_path / "plan.yaml"), "--no-such-option"]) == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert main(["apply", str(tmp_path / "plan.yaml"), "-f", "two"]) == 2


def test_a_limit_that_leaves_no_host_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text("[web]\nw1 ansible_connection=local\n[db]\nd1 ansible_connection=local\n")
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-l", "web:&db",
                 "--runs-dir", str(tmp_path / "runs")]) == 1
    err = capsys.readouterr().err
    assert "Specified inventory, host pattern and/or --limit leaves us with no hosts to target" in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_started_with_sigint_ignored_a_kill_int_still_interrupts(tmp_path: Path) -> None:
    """A script's `planner apply ... &` starts it with SIGINT ignored; ansible-playbook still exits 99."""
    root = tmp_path / "host"
    root.mkdir()
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: p
        plays:
          - name: p
            hosts: all
            workloads:
              - command: {argv: [sh, -c, 'echo > "$0/started"; sleep 120', "{{ planner_root }}"]}
        """))
    (tmp_path / "hosts.ini").write_text(f"alpha ansible_connection=local planner_root={root}\n")
    proc = subprocess.Popen([sys.executable, "-m", "planner", "apply", str(tmp_path / "plan.yaml"), "-i",
                             str(tmp_path / "hosts.ini"), "--runs-dir", str(tmp_path / "runs"), "--no-report"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 60
        while not (root / "started").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for the workload's own file, as tests/test_interrupt.py does
        assert (root / "started").exists()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 99
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
