"""The DB host's world-writable /tmp is an attack surface: a local user who is not root must never make planner
(logged in as root over the real loopback sshd) kill a process of theirs choosing, break a lock onto one, or
change a folder they could not. The attacker here is a real other user of this machine (nobody, uid 65534),
writing with its own rights into a folder that behaves like /tmp (mode 1777)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_fault_interrupts import kill_when_blocked, processes_with, unique_sleep
from test_fault_resume import planner

NOBODY = 65534

PLAN = """\
plan: tmp_attack
plays:
  - name: p
    hosts: all
    workloads:
      - command: {{argv: [sh, -c, '[ -e "$1" ] || {{ : >"$1"; sleep "$2"; }}', sh, "{marker}", "{sleep}"]}}
"""

pytestmark = [pytest.mark.ssh, pytest.mark.timeout(120), pytest.mark.slow]


def as_attacker(*argv: str) -> None:
    """Run a command as the other local user (its own uid and gid, no groups)."""
    def drop() -> None:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    subprocess.run(argv, check=True, preexec_fn=drop, capture_output=True, timeout=30)


@pytest.fixture
def host_tmp() -> Iterator[Path]:
    """A folder like the host's /tmp: world-writable and sticky."""
    if os.geteuid() != 0:
        pytest.skip("the attacker is another local user: needs root to become it")
    tmp = Path(tempfile.mkdtemp(prefix="planner-host-tmp-", dir="/tmp"))
    tmp.chmod(0o1777)
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def victim() -> Iterator[subprocess.Popen[bytes]]:
    """A root process in a group of its own, not planner's: what the attacker wants killed."""
    proc = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


def _project(tmp_path: Path, host_tmp: Path, make_lab: Callable[..., Any]) -> tuple[str, Path, Path, Path, str]:
    lab = make_lab(1)
    host = lab.hosts[0].name
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(marker=host_tmp / "blocked", sleep=sleep))
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    hv = data["all"]["hosts"][host]
    hv.pop("planner_root")  # the host's real paths: the folder below stands in for its /tmp
    hv.update(planner_workdir=str(host_tmp / "planner"), planner_lock=str(host_tmp / f"planner.lock.{host}"))
    inv.write_text(yaml.safe_dump(data))
    return host, plan, inv, runs, sleep


def _start_time(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]


def test_a_planted_process_record_never_makes_restore_kill_another_process(
        tmp_path: Path, host_tmp: Path, make_lab: Callable[..., Any], victim: subprocess.Popen[bytes]) -> None:
    host, plan, inv, runs, sleep = _project(tmp_path, host_tmp, make_lab)
    run = kill_when_blocked(plan, inv, runs, host_tmp / "blocked", sleep)
    workdir = json.loads((run / "meta.json").read_text())["remote"][host]["workdir"]
    planted = Path(workdir) / ".running" / str(victim.pid)
    as_attacker("sh", "-c", 'echo "$1" > "$2"', "sh", _start_time(victim.pid), str(planted))
    done = planner("restore", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert victim.poll() is None, "restore killed a process the run never started"
    assert f"left process group {victim.pid} alone" in done.stdout, done.stdout
    assert not processes_with(sleep), "the run's own leftover is still stopped"


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


@pytest.mark.parametrize("flag", [(), ("--break-stale-lock",)])
def test_a_squatted_lock_is_refused_never_broken(flag: tuple[str, ...], tmp_path: Path, host_tmp: Path,
                                                 make_lab: Callable[..., Any],
                                                 victim: subprocess.Popen[bytes]) -> None:
    host, plan, inv, runs, sleep = _project(tmp_path, host_tmp, make_lab)
    lock = host_tmp / f"planner.lock.{host}"
    holder = {"run_id": "20200101T000000Z-x", "controller": platform.node(), "pid": _dead_pid(),
              "since": "2020-01-01T00:00:00Z"}  # looks stale: a controller of this machine that is gone
    as_attacker("sh", "-c", 'mkdir "$1" && printf "%s\\n" "$2" > "$1/holder.json"', "sh", str(lock),
                json.dumps(holder))
    done = planner("apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", *flag)
    assert done.returncode == 2, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert f"the host lock {lock} was not made by planner as the login user" in out and "never broken" in out, out
    assert (lock / "holder.json").exists() and lock.stat().st_uid == NOBODY
    assert not (host_tmp / "blocked").exists(), "nothing ran on a host planner could not lock"
    assert victim.poll() is None


@pytest.mark.parametrize("how", ["made by another user", "a symlink to root's folder"])
def test_a_workdir_base_another_user_made_is_refused(how: str, tmp_path: Path, host_tmp: Path,
                                                     make_lab: Callable[..., Any]) -> None:
    host, plan, inv, runs, _sleep = _project(tmp_path, host_tmp, make_lab)
    roots = tmp_path / "root-owned"  # a folder of root's, 0755, that the attacker wants world-writable
    roots.mkdir(mode=0o755)
    roots.chmod(0o755)
    base = host_tmp / "planner"
    if how == "made by another user":
        as_attacker("mkdir", "-m", "0777", str(base))
        now = dt.datetime.now(dt.UTC)
        for s in range(60):  # the run ids of the next minute, each with its .running planted as a symlink
            stamp = (now + dt.timedelta(seconds=s)).strftime("%Y%m%dT%H%M%SZ")
            as_attacker("sh", "-c", 'mkdir -p "$1" && ln -s "$2" "$1/.running"', "sh",
                        str(base / f"{stamp}-tmp_attack" / host), str(roots))
    else:
        as_attacker("ln", "-s", str(roots), str(base))
    done = planner("apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 2, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert f"planner's folder {base} is not safe to use" in out, out
    assert stat.S_IMODE(roots.stat().st_mode) == 0o755 and not any(roots.iterdir())
    assert not (host_tmp / "blocked").exists()
    assert not (host_tmp / f"planner.lock.{host}").exists(), "the lock is not taken for an unsafe folder"
