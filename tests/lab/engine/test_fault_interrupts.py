"""Fault suite, issue 9 item 1: Ctrl-C (SIGINT) and SIGTERM in every phase of a run over the SSH lab.

Each phase is made to block deterministically on the host (no sleeps as synchronisation): the blocking
command first writes a marker file in the host's sandbox, then sleeps for a duration unique to the test
(so ``ps`` finds exactly its processes). The test waits for the marker, signals the controller and checks:
no remote process left, prep restored, the run record complete (meta.json interrupted with the phase,
results.json valid, console.log written), exit code 99.

- facts: the lab host's ``/etc/os-release`` (sourced by the facts script from the host's root) blocks;
- prep / workload / collect: a ``command`` step in that section blocks (selected with ``-e block=...``);
- report: the plan's report template runs until the sandbox's time limit (5 s); the test waits until meta.json
  says the run itself has ended, which happens only just before the report is rendered.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PLAN = """\
plan: phases
plays:
  - name: phases
    hosts: all
    prep:
      - copy: {{content: "prep\\n", dest: /etc/prep.txt}}
      - command: {{argv: [sh, -c, '{block}', sh, "{{{{ planner_root }}}}", "{{{{ block }}}}", prep, "{sleep}"]}}
    workloads:
      - command: {{argv: [sh, -c, '{block}', sh, "{{{{ planner_root }}}}", "{{{{ block }}}}", workload, "{sleep}"]}}
    collect:
      - command: {{argv: [sh, -c, '{block}', sh, "{{{{ planner_root }}}}", "{{{{ block }}}}", collect, "{sleep}"]}}
{report}"""

# $1 sandbox root, $2 the phase that should block, $3 this step's phase, $4 a sleep length unique to the test
BLOCK = 'if [ "$2" = "$3" ]; then echo started > "$1/$3.started"; sleep "$4"; fi; echo done'


def unique_sleep() -> str:
    return f"{random.randint(500, 900)}.{random.randint(10**5, 10**6 - 1)}"


def processes_with(text: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if text in line and "ps -eo" not in line]


def wait_for(predicate: Callable[[], Any], what: str, proc: subprocess.Popen[str] | None = None,
             timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the controller exited ({proc.returncode}) before {what}: {proc.stdout.read()}"
                                 if proc.stdout else f"the controller exited before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)  # poll interval; the deadline above bounds the wait


def run_dirs(runs: Path) -> list[Path]:
    return sorted(p for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []


def meta_of(run: Path) -> dict[str, Any]:
    try:
        return json.loads((run / "meta.json").read_text())
    except (OSError, ValueError):
        return {}


def start_apply(plan: Path, inv: Path, runs: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "planner", "apply", str(plan), "-i", str(inv),
                             "--runs-dir", str(runs), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def kill_when_blocked(plan: Path, inv: Path, runs: Path, marker: Path, sleep: str) -> Path:
    """Start an apply, SIGKILL its controller once ``marker`` exists and ``sleep`` runs; returns the run folder."""
    proc = start_apply(plan, inv, runs, "--no-report")
    try:
        wait_for(lambda: marker.exists() and processes_with(sleep), "the workload to block", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    [run] = run_dirs(runs)
    return run


def finish(proc: subprocess.Popen[str], timeout: float = 60) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out


PHASES = ["facts", "prep", "workload", "collect", "report"]


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.timeout(90)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
@pytest.mark.parametrize("phase", PHASES)
def test_interrupt_each_phase(tmp_path: Path, make_lab: Callable[..., Any], phase: str,
                              sig: signal.Signals) -> None:
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    sleep = unique_sleep()
    if phase == "facts":  # sourced by the facts script: the host takes "forever" to say what it is
        (root / "etc/os-release").write_text(f'echo started > "$root/facts.started"; sleep {sleep}\n'
                                             'PRETTY_NAME="slow"\n')
    report = ""
    if phase == "report":
        (tmp_path / "templates").mkdir()
        # the sandbox refuses range(10**12) at once (MAX_RANGE), so the render must be slow within its bounds:
        # 100 000 searches of a megabyte run into MAX_SECONDS (5 s), the window the interrupt lands in
        (tmp_path / "templates/slow.md.j2").write_text(
            "{% set s = 'a' * 1000000 %}{% for i in range(100000) %}{% if 'b' in s %}{% endif %}{% endfor %}"
            "never\n")
        report = "report: {template: slow.md.j2}\n"
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(block=BLOCK, sleep=sleep, report=report))
    lab.write_inventory(inv)
    extra = ["-e", f"block={phase}"] + ([] if phase == "report" else ["--no-report"])
    started = time.monotonic()
    proc = start_apply(plan, inv, runs, *extra)
    try:
        if phase == "report":
            wait_for(lambda: run_dirs(runs) and meta_of(run_dirs(runs)[0]).get("status") == "complete",
                     "the run to end and the report to start", proc)
            assert not (root / "etc/prep.txt").exists()
        else:
            wait_for(lambda: (root / f"{phase}.started").exists(), f"the {phase} phase to block", proc)
            assert processes_with(sleep), "the blocking command is not running"
            if phase != "facts":
                assert (root / "etc/prep.txt").exists()
        proc.send_signal(sig)
        out = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    elapsed = time.monotonic() - started
    assert proc.returncode == 99, out
    assert not processes_with(sleep), f"remote processes outlived the interrupt: {processes_with(sleep)}"
    assert not (root / "etc/prep.txt").exists(), "prep was not restored"
    [run] = run_dirs(runs)
    meta = meta_of(run)
    assert meta["status"] == "interrupted" and meta["exit_code"] == 99, meta
    assert meta["interrupted_phase"] == phase, meta
    assert meta["ended"]
    results = json.loads((run / "results.json").read_text())
    assert isinstance(results, list)
    console = (run / "console.log").read_text()
    assert "interrupted" in console
    if phase not in ("facts", "report"):
        blocked = [r for r in results if r["status"] == "interrupted"]
        assert blocked and all(r["host"] == lab.hosts[0].name for r in blocked), results
    if phase == "report":
        assert not (run / "report.md").exists()
        assert any(r["step"].endswith("collect[0]") and r["status"] == "changed" for r in results)
    # the lock is released: a new run may take the host at once
    assert not list(root.glob("tmp/planner.lock*"))
    assert elapsed < 45, f"took {elapsed:.1f}s"


def test_signals_during_clean_up_are_held_off() -> None:
    """A second signal during the clean-up after an interrupt only warns; a third abandons it. At the end of
    a normal run, a signal is held until the record is final, then raised (so the report is interrupted)."""
    import os

    from planner.engine.console import Console
    from planner.engine.interrupts import deferred_interrupts

    console = Console()
    with deferred_interrupts(console, interrupted=True):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0)  # a bytecode boundary: the handler runs here
    assert any("finishing the restore" in line for line in console.transcript)
    with pytest.raises(KeyboardInterrupt), deferred_interrupts(console, interrupted=True):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0)
    with pytest.raises(KeyboardInterrupt), deferred_interrupts(console, interrupted=False):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0)
        reached = True
    assert reached
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
