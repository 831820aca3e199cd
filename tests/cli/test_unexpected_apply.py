"""An apply that meets an exception nobody foresaw, or a Python without one of planner's dependencies, through
the real command line in a process of its own, on a local host with real prep.

- A bug on the controller mid-apply (after the prep and a workload point ran): the hosts get what an interrupt
  gives them (prep restored, lock released, the record closed: recap, status ``error``, exit code 250), then
  the error is said as ansible-core says one (lib/ansible/cli/__init__.py, ``cli_executor``), no traceback.
- rich hidden from the Python running planner (its sys.path does not hold it; nothing uninstalled), stdout a
  terminal as the lead's was: refused before any host is touched, naming the package and its install command
  (exit 5, as ansible-core at start), where the live line's import once died mid-run with a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Tiger-Sc0tt-42"
PLAN = """\
plan: bug_mid_run
plays:
  - name: prep and measure
    hosts: lab
    prep:
      - copy: {content: "noop\\n", dest: /etc/scheduler.txt}
    workloads:
      - command: {argv: [sh, -c, 'echo measured > "$0/result.txt"', "{{ planner_root }}"]}
"""
# A controller-side function that raises once the point has run: the workload loop's progress bookkeeping
BUGGY = """\
import sys
from planner.engine.progress import Progress

def done(self, step, taken_s):
    raise RuntimeError("the bug, after the point ran (db_password was SECRET)")

Progress.done = done
from planner.cli.main import main
sys.exit(main())
""".replace("SECRET", SECRET)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "host" / "etc").mkdir(parents=True)
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        alpha ansible_connection=local planner_root={tmp_path}/host db_password={SECRET}
        """))
    return tmp_path


def _apply(project: Path) -> list[str]:
    return ["apply", str(project / "plan.yaml"), "-i", str(project / "hosts.ini"), "--runs-dir",
            str(project / "runs"), "--no-report"]


def test_a_bug_mid_apply_restores_prep_releases_the_lock_and_closes_the_record(project: Path) -> None:
    """Was: the exception left runner.run past its clean-up: prep stayed applied, meta.json said "running" with
    no recap, and Python printed the traceback (exit 1)."""
    host = project / "host"
    r = subprocess.run([sys.executable, "-c", BUGGY, *_apply(project)], capture_output=True, text=True,
                       timeout=120, cwd=project)
    said = r.stdout + r.stderr
    assert r.returncode == 250, said
    assert r.stderr.splitlines() == [
        "ERROR! Unexpected Exception, this is probably a bug: RuntimeError: the bug, after the point ran "
        "(db_password was ********)", "to see the full traceback, use -vvv"]
    assert "Traceback" not in said and SECRET not in said
    assert "[WARNING]: internal error during workload (RuntimeError: " in r.stdout and "PLAY RECAP" in r.stdout
    assert (host / "result.txt").read_text() == "measured\n"  # the point ran before the bug
    assert not (host / "etc" / "scheduler.txt").exists()  # its prep is put back
    assert not list((host / "tmp").glob("planner.lock.*"))  # its lock is released
    (run,) = (p for p in (project / "runs").iterdir() if p.is_dir())
    meta = json.loads((run / "meta.json").read_text())
    assert (meta["status"], meta["exit_code"]) == ("error", 250) and meta["ended"]
    assert json.loads((run / "recap.json").read_text())["alpha"]["changed"] >= 1
    assert all(e["reverted"] for e in json.loads((run / "restore.json").read_text()))
    assert f"run record: {run}" in r.stdout


def _hiding(view: Path, hidden: set[str]) -> Path:
    """A folder holding every installed package this Python sees but ``hidden``: symlinks into site-packages."""
    view.mkdir()
    for place in (Path(p) for p in sys.path if p.endswith(("site-packages", "dist-packages"))):
        if not place.is_dir():
            continue
        for entry in place.iterdir():
            if entry.name.split(".")[0] not in hidden and not (view / entry.name).exists():
                (view / entry.name).symlink_to(entry)
    return view


def _on_a_terminal(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    """argv run with its stdout a terminal (a pty), as a user's: (exit code, stdout, stderr)."""
    leader, follower = os.openpty()
    err = cwd / "stderr.txt"
    with err.open("w") as stderr:
        proc = subprocess.Popen(argv, stdout=follower, stderr=stderr, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    os.close(follower)
    out = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every copy of the terminal's other end is closed, the process is gone
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return proc.wait(timeout=120), out.decode(errors="replace"), err.read_text()


def test_a_python_without_rich_is_told_before_any_host_is_touched(project: Path) -> None:
    """Was (stdout a terminal): the apply ran its prep, then the live line's ``from rich.console import ...``
    died with a traceback, the prep left applied."""
    view = _hiding(project / "site", {"rich"})
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{view}", "TERM": "xterm"}
    code, out, err = _on_a_terminal([sys.executable, "-S", "-m", "planner", *_apply(project)], env, project)
    assert code == 5, out + err
    assert err.splitlines() == [
        f"ERROR! planner needs the Python package rich (rich>=13.0), which {sys.executable} cannot import (No module"
        f" named 'rich') — install it into that Python: {sys.executable} -m pip install 'rich>=13.0' (or run "
        "planner from the virtual environment it was installed in)", "planner: 1 problem found; nothing was run"]
    assert "Traceback" not in out + err
    assert not (project / "runs").exists() and not (project / "host" / "etc" / "scheduler.txt").exists()


def test_a_run_stopped_by_a_bug_is_shown_as_such_and_resumed(project: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Its hosts are back and its record final, so `planner restore` finds nothing left and `--resume` goes on
    (its measured point not run again)."""
    from planner.cli.main import main

    r = subprocess.run([sys.executable, "-c", BUGGY, *_apply(project)], capture_output=True, text=True,
                       timeout=120, cwd=project)
    assert r.returncode == 250, r.stdout + r.stderr
    (run,) = (p for p in (project / "runs").iterdir() if p.is_dir())
    assert main(["show", str(run), "--runs-dir", str(project / "runs")]) == 0
    assert "error (exit code 250)" in capsys.readouterr().out
    assert main(["restore", str(run), "--runs-dir", str(project / "runs")]) == 0
    assert main(["apply", "--resume", str(run), "--no-report"]) == 0
    assert "done before the resume" in capsys.readouterr().out
    assert json.loads((run / "meta.json").read_text())["status"] == "complete"


# A bug in the first host's worker after its point ran: the other host's point ran too, at the same time
BUGGY_WORKER = """\
import sys
from planner.engine.workload import PointRun

ran = PointRun.on
def on(self, hs, sync):
    result = ran(self, hs, sync)
    if hs.host.name == "alpha":
        raise RuntimeError("a bug in alpha's worker")
    return result

PointRun.on = on
from planner.cli.main import main
sys.exit(main())
"""


def test_a_bug_in_one_hosts_worker_keeps_the_other_hosts_results(project: Path) -> None:
    """Was: the bug ended the step's fan-out and the results of the hosts after it were dropped (their points
    had run: their artifacts were on disk, their rows not in results.json)."""
    (project / "beta" / "etc").mkdir(parents=True)
    with (project / "hosts.ini").open("a") as inv:
        inv.write(f"beta ansible_connection=local planner_root={project}/beta\n")
    r = subprocess.run([sys.executable, "-c", BUGGY_WORKER, *_apply(project)], capture_output=True, text=True,
                       timeout=120, cwd=project)
    assert r.returncode == 250, r.stdout + r.stderr
    assert "a bug in alpha's worker" in r.stderr and "Traceback" not in r.stdout + r.stderr
    (run,) = (p for p in (project / "runs").iterdir() if p.is_dir())
    points = [(x["host"], x["status"]) for x in json.loads((run / "results.json").read_text())
              if x.get("point") is not None]
    assert points == [("beta", "changed")]
    assert not (project / "beta" / "etc" / "scheduler.txt").exists()


# A bug in a helper thread of the run (its end's imports, started once the hosts are connected): joined before the
# run goes on, so the test does not race it
BUGGY_THREAD = """\
import sys
from planner.cli import early_imports

def _import(name):
    raise RuntimeError("a bug in the early imports (db_password was SECRET)")

started = early_imports.start
def start(names, kind_findings):
    thread = started(names, kind_findings)
    thread.join()
    return thread

early_imports._import, early_imports.start = _import, start
from planner.cli.main import main
sys.exit(main())
""".replace("SECRET", SECRET)


def test_a_bug_in_a_helper_thread_makes_the_run_an_error(project: Path) -> None:
    """Was: the thread's bug was said, then the run went on to "complete", exit 0, as if nothing had happened."""
    r = subprocess.run([sys.executable, "-c", BUGGY_THREAD, *_apply(project)], capture_output=True, text=True,
                       timeout=120, cwd=project)
    assert r.returncode == 250, r.stdout + r.stderr
    bug = "RuntimeError: a bug in the early imports (db_password was ********)"
    assert r.stderr.splitlines() == [
        f"ERROR! Unexpected Exception in thread planner-early-imports, this is probably a bug: {bug}",
        "to see the full traceback, use -vvv"]
    assert (f"[WARNING]: thread planner-early-imports ({bug}) ended on an internal error (said above): the run "
            "ends as error (exit code 250)") in r.stdout
    assert "Traceback" not in r.stdout + r.stderr and SECRET not in r.stdout + r.stderr
    (run,) = (p for p in (project / "runs").iterdir() if p.is_dir())
    meta = json.loads((run / "meta.json").read_text())
    assert (meta["status"], meta["exit_code"]) == ("error", 250)
    assert (project / "host" / "result.txt").read_text() == "measured\n"
    assert not (project / "host" / "etc" / "scheduler.txt").exists()
