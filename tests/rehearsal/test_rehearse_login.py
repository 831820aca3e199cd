"""The rehearsal logs in as the lab does: the inventory's ansible_user (non-root), becoming root through real
sudo, so a root-only step without ``become`` fails in the rehearsal as it would on the lab. Where this machine
cannot make that user (no sudo, no mount namespace, no sshd), it says become was not exercised."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import sshd_available
from planner.rehearsal.labuser import LabUser, closed_to_others

ROOT = Path(__file__).resolve().parents[2]
PLAN = """plan: sched_only
inventory: ../inventory/lab.yaml
plays:
  - name: Violin scheduler
    hosts: violin
    prep:
      - io_scheduler: {devices: "/dev/mapper/violin_lun[1-2]", scheduler: noop}
        BECOME
    workloads:
      - command: {argv: [/bin/true]}
"""


def _plan(tmp_path: Path, become: bool) -> Path:
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    plan = tmp_path / "plans" / "sched.yaml"
    plan.parent.mkdir()
    plan.write_text(PLAN.replace("BECOME", "become: true" if become else ""))
    return plan


def _lab_user_reason() -> str | None:
    import planner

    closed = closed_to_others(Path(planner.__file__))
    return sshd_available() or LabUser.unavailable() or (f"{closed} is closed to other users" if closed else None)


def _meta(tmp_path: Path) -> dict[str, object]:
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    return dict(json.loads((run / "meta.json").read_text()))


@pytest.mark.slow
@pytest.mark.parametrize("become", [False, True])
def test_a_root_only_step_needs_become_in_the_rehearsal_as_on_the_lab(
        become: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    reason = _lab_user_reason()
    if reason:
        pytest.skip(f"no non-root lab login here: {reason}")
    monkeypatch.chdir(tmp_path)
    code = main(["apply", "--rehearse", str(_plan(tmp_path, become)), "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert "logged in as oracle (the inventory's ansible_user), become through real sudo" in out
    if become:
        assert code == 0, out[-3000:]
    else:
        assert code == 2, out[-3000:]
        assert "Permission denied" in out and "only root may write queue/scheduler" in out
    notes = _meta(tmp_path)["rehearsal_notes"]
    assert isinstance(notes, list) and "logged in as oracle" in notes[0]
    hosts = _meta(tmp_path)["hosts"]
    assert isinstance(hosts, dict) and hosts["oel57"]["user"] == "oracle"


@pytest.mark.slow
def test_as_root_without_sudo_become_runs_directly_and_the_report_says_it_was_not_exercised(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    if os.geteuid() != 0:
        pytest.skip("the container case is root's")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")
    monkeypatch.setenv("PATH", str(tmp_path / "no-sudo"))  # no sudo (nor anything else) on the commands' PATH
    (tmp_path / "no-sudo").mkdir()
    for tool in ("sh", "cat", "printf", "setsid", "date", "mkdir", "rm", "ls", "sed", "grep", "awk", "env",
                 "realpath", "wc", "base64", "sha256sum", "tr", "head", "tail", "sleep", "mv", "cp", "touch",
                 "stat", "readlink", "uname", "id", "nproc", "kill", "true", "test", "dirname", "basename", "find",
                 "python3", "cut", "sort", "tee", "chmod", "ln", "ps", "hostname", "mktemp"):
        found = shutil.which(tool, path="/usr/local/bin:/usr/bin:/bin")
        if found:
            (tmp_path / "no-sudo" / tool).symlink_to(found)
    assert shutil.which("sudo", path=str(tmp_path / "no-sudo")) is None
    code = main(["apply", "--rehearse", str(_plan(tmp_path, True)), "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "sudo: not found" not in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    report = (run / "report.md").read_text()
    assert "become was not exercised" in report


def _as_nobody_reason() -> str | None:
    import os
    import sysconfig

    if os.geteuid() != 0 or shutil.which("setpriv") is None or not Path("/usr/bin/python3").exists():
        return "needs root, setpriv and a system python3 to act as a normal user"
    import subprocess

    version = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, check=False).stdout.strip()
    if version != str(tuple(__import__("sys").version_info[:2])):
        return f"the system python3 is {version}, not this interpreter's version"
    closed = [closed_to_others(Path(p)) for p in (ROOT / "planner", Path(sysconfig.get_paths()["purelib"]))]
    return f"{next(c for c in closed if c)} is closed to other users" if any(closed) else None


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_normal_user_without_usable_sudo_rehearses_and_the_report_says_become_was_not_exercised(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """README case 2, a normal user: `sudo -n` asks for a password (here: nobody, who has no sudo rule), so the
    rehearsal runs become steps as that user, on the sandbox it owns, and says become was not exercised."""
    import tempfile

    reason = _as_nobody_reason()
    if reason:
        pytest.skip(reason)
    tmp_path = Path(tempfile.mkdtemp(prefix="planner-normal-user-"))  # pytest's folders are root's alone (0700)
    try:
        _rehearse_as_nobody(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _rehearse_as_nobody(tmp_path: Path) -> None:
    import os
    import subprocess
    import sysconfig

    plan = _plan(tmp_path, True)
    os.chmod(tmp_path, 0o777)
    for p in tmp_path.rglob("*"):
        p.chmod(0o777 if p.is_dir() else 0o666)
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PLANNER_REHEARSE_TRANSPORT": "local",
           "PYTHONPATH": f"{ROOT}:{sysconfig.get_paths()['purelib']}"}
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-m",
                        "planner", "apply", "--rehearse", str(plan), "--runs-dir", str(tmp_path / "runs")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "sudo: a password is required" not in p.stdout and "become was not exercised" in p.stdout
    report = (next(d for d in (tmp_path / "runs").iterdir() if d.is_dir()) / "report.md").read_text()
    assert "ran as nobody on this machine: become was not exercised" in report


@pytest.mark.slow
def test_a_plan_behind_a_folder_the_user_may_not_search_is_refused_in_words(tmp_path: Path) -> None:
    """pytest's tmp folders are root's (0700): for nobody, the plan cannot even be looked at."""
    import subprocess
    import sysconfig

    reason = _as_nobody_reason()
    if reason:
        pytest.skip(reason)
    plan = _plan(tmp_path, True)
    env = {"HOME": "/tmp", "PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{sysconfig.get_paths()['purelib']}"}
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-m",
                        "planner", "validate", str(plan)], cwd="/tmp", env=env, capture_output=True, text=True,
                       timeout=120, check=False)
    assert p.returncode == 5, p.stderr[-2000:]
    assert "Traceback" not in p.stderr and "cannot read the plan file (Permission denied)" in p.stderr
