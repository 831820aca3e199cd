"""The batch script's own cost on the host: how many programs one warm host's exec starts (lock, facts, one
read, release). Every program is a fork+exec on a lab host that is also running the workload."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from planner.engine import batch, hostlock, probes
from planner.host import Host
from planner.rehearsal.sandbox import add_devices
from planner.steps.base import READ_TEXT, Probe
from planner.steps.blockdev import RESOLVE
from planner.transport import facts as facts_mod
from planner.transport.connection import LocalConnection, command_line
from planner.transport.facts import Facts

# Every program the script (facts and lock helpers included) may start; PATH holds only counting wrappers of
# these, so a new program outside the list makes the exec fail instead of going uncounted.
PROGRAMS = ("sh", "date", "cat", "base64", "mktemp", "rm", "rmdir", "mkdir", "chmod", "ls", "awk", "uname",
            "grep", "readlink", "realpath", "wc", "sha256sum", "setsid")
# A first touch (the work folder's base is made too): sh, mktemp + rm (the temp dir, removed with the lock and the
# work folder), mkdir x4 (lock, base x2, process-group dir with its mode), awk (facts), rmdir (release). It was 26:
# a date before and after every frame, base64 of "acquired", grep of holder.json, a separate rm of the
# process-group dir that the work folder's removal covers; then 18: a chmod of the new process-group dir, uname
# (Linux has its fields in /proc/sys/kernel), a second ls of the base the lock had just checked, an rm of the temp
# dir of its own; then 14: the reads' clock (date x2, now /proc/uptime), base64 of the facts and of the read (raw
# frames: planner's own line formats pass unencoded; a user's command is still encoded), the work folder's own rm;
# then 10 (the limit kept one above, as before): base64 of the read's "hi" (every frame passes as printed, ended
# by the exec's random boundary).
MAX_PROGRAMS = 9
# One warm host of benchmarks/fanout/plan.yaml (issue 47: at most 15; as the 31 before, sshd's login shell and the
# process-group wrapper setsid not counted): the batch's sh,
# mktemp, ls (the base checked), mkdir x2 (lock, process-group dir), awk + uname (facts; this kernel has no
# /proc/sys/kernel/arch), io_scheduler's read of 4 plain devices (no program), the template's cat,
# `uname -a`, the fetch's wc + sha256sum + base64 (the file's exact bytes), rm + rmdir (release). It was 31: a date
# per read, readlink per device, realpath x2 (fetch), base64 of every frame, a second sh (the batch's own shell);
# then 15: base64 of the template's text and of `uname -a`'s output (every frame now passes as printed, ended by the
# exec's random boundary: batch.py's docstring).
MAX_WARM_HOST = 12


def _wrappers(tmp_path: Path) -> tuple[Path, Path]:
    bin_dir, log = tmp_path / "bin", tmp_path / "exec.log"
    bin_dir.mkdir()
    for name in PROGRAMS:
        real = shutil.which(name)
        assert real, f"{name} not installed"
        w = bin_dir / name
        w.write_text(f"#!/bin/sh\necho {name} >>'{log}'\nexec {real} \"$@\"\n")
        w.chmod(0o755)
    return bin_dir, log


@pytest.mark.slow
@pytest.mark.parametrize("boundary", [True, False], ids=["boundary", "no-uuid-file"])
def test_one_warm_host_starts_few_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, boundary: bool) -> None:
    """Lock, facts, a read with output on both streams, release; without /proc/sys/kernel/random/uuid the same
    answers in base64 frames and a temp dir of their own."""
    bin_dir, log = _wrappers(tmp_path)
    root = tmp_path / "host"
    (root / "tmp").mkdir(parents=True)
    base = root / "tmp" / "planner"
    work = f"{base}/run1/h"
    lock = hostlock.lock_args(f"{root}/tmp/planner.lock.h", "run1", "2026-01-01T00:00:00Z", f"{work}/procs")
    if not boundary:
        monkeypatch.setattr(batch, "SCRIPT", batch.SCRIPT.replace(batch.UUID_FILE, "/nonexistent"))
    monkeypatch.setenv("PATH", str(bin_dir))
    r = LocalConnection(Host("h", "localhost")).run(
        batch.argv(["echo hi; echo oops >&2"], lock=lock, facts_root=str(root), release=True, run_id="run1"))
    reply = batch.parse(r.stdout)
    assert reply.lock == "acquired\n" and reply.facts is not None and b"hostname=" in reply.facts.stdout, r.stderr
    assert [(f.stdout, f.stderr) for f in reply.runs] == [(b"hi\n", b"oops\n")] and reply.released, r.stderr
    assert not os.path.exists(f"{root}/tmp/planner.lock.h") and not os.path.exists(work)
    started = Counter(log.read_text().split())
    if boundary:
        assert sum(started.values()) <= MAX_PROGRAMS, f"the batch script starts {sorted(started.items())}"
        # base64 only for the read's stderr, which waits in the lock folder (the login user's alone: mkdir -m
        # 0700), not in a mktemp dir
        assert started["base64"] == 1 and "mktemp" not in started, sorted(started.items())


@pytest.mark.slow
def test_a_lock_kept_for_the_plays_changes_holds_the_reads_stderr_for_the_login_user_alone(tmp_path: Path) -> None:
    """No mktemp: the lock folder this exec makes holds a read's stderr while it runs, so it is made 0700."""
    root = tmp_path / "host"
    (root / "tmp").mkdir(parents=True)
    lock = f"{root}/tmp/planner.lock.h"
    args = hostlock.lock_args(lock, "run1", "2026-01-01T00:00:00Z", f"{root}/tmp/planner/run1/h/procs")
    r = LocalConnection(Host("h", "localhost")).run(batch.argv(["echo secret >&2"], lock=args, run_id="run1"))
    assert batch.parse(r.stdout).runs[0].stderr == b"secret\n", r.stderr
    assert os.stat(lock).st_mode & 0o777 == 0o700, "another user could read a read's stderr in the lock folder"


def _facts_of(script: str) -> Facts:
    return facts_mod.parse(LocalConnection(Host("h", "localhost")).run(["sh", "-c", script, "sh", ""]).stdout)


@pytest.mark.slow
def test_facts_give_what_uname_gives_with_and_without_proc_files() -> None:
    u = os.uname()
    want = (u.nodename, u.release, u.sysname, u.machine)
    for script in (facts_mod.script(), facts_mod.script().replace("k=/proc/sys/kernel", "k=/nonexistent")):
        f = _facts_of(script)
        assert (f.hostname, f.kernel, f.os, f.arch) == want


@pytest.mark.slow
def test_the_device_resolution_reads_sysfs_with_builtins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """io_scheduler's read of 4 devices (batched in every warm exec): builtins only (a readlink per symlink)."""
    bin_dir, log = _wrappers(tmp_path)
    root = tmp_path / "host"
    add_devices(root, ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"])
    monkeypatch.setenv("PATH", str(bin_dir))
    r = LocalConnection(Host("h", "localhost")).run(["sh", "-c", RESOLVE, "sh", str(root), "/dev/sdb", "/dev/sdc",
                                                     "/dev/sdd", "/dev/sde"])
    assert r.exit_code == 0, r.stderr
    assert "S\tsdb\t[mq-deadline] kyber bfq none" in r.stdout
    started = Counter(log.read_text().split())
    assert started == Counter({"sh": 1}), sorted(started.items())  # no link among them: not one program


@pytest.mark.slow
def test_planner_own_scripts_run_in_a_subshell_and_are_logged_as_sent_alone(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A batched read of planner's own fixed script starts no shell of its own; a user's command still does."""
    bin_dir, log = _wrappers(tmp_path)
    f = tmp_path / "file.txt"
    f.write_text("one\ntwo\n")
    own = Probe(("sh", "-c", READ_TEXT, "sh", str(f)), ok=frozenset({0, 3}), own=True)
    user = Probe(("sh", "-c", 'echo "$1"; trap', "sh", "x"))  # a user's script: a fresh shell, no traps set
    monkeypatch.setenv("PATH", str(bin_dir))
    got, _ = probes.run_batch(LocalConnection(Host("h", "localhost")), [own, user])
    by_cmd = {r.command: r for r in got.values()}
    assert by_cmd[command_line(own.argv)].stdout == "one\ntwo\n"
    assert by_cmd[command_line(user.argv)].stdout == "x\n"
    assert Counter(log.read_text().split()) == Counter({"sh": 2, "cat": 1, "mktemp": 1, "rm": 1})


@pytest.mark.slow
def test_one_warm_host_of_the_fanout_plan_starts_at_most_15_programs(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole exec of a warm host of benchmarks/fanout/plan.yaml, as sent over SSH (the process-group wrapper
    included): lock, facts, io_scheduler's read of 4 devices, the template's read, `uname -a`, a fetch, release."""
    from planner.engine.probes import _run_line
    from planner.steps.prep_os import RESOLVE as DEVICES
    from planner.transport.ssh import scripts

    bin_dir, log = _wrappers(tmp_path)
    root = tmp_path / "host"
    add_devices(root, ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"])
    (root / "tmp" / "init_bench.ora").write_text("cpu_count=16\n")
    (root / "tmp" / "result.txt").write_text("result\n")
    hv = {"planner_root": str(root)}
    reads = [Probe(("sh", "-c", DEVICES, "sh", str(root), "/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"), own=True,
                   plain=True),
             Probe(("sh", "-c", READ_TEXT, "sh", f"{root}/tmp/init_bench.ora"), own=True),
             Probe(("uname", "-a")), Probe((f"{root}/tmp/result.txt",), fetch=True)]
    lines = [_run_line(p, hv) for p in reads]
    monkeypatch.setenv("PATH", str(bin_dir))
    for run in ("run1", "run2"):  # the first makes the work folder's base: the second is the warm one
        log.write_text("")
        lock = hostlock.lock_args(f"{root}/tmp/planner.lock.h", run, "2026-01-01T00:00:00Z",
                                  f"{root}/tmp/planner/{run}/h/procs")
        line = scripts.in_process_group(batch.argv(lines, lock=lock, facts_root=str(root), release=True,
                                                   run_id=run), become=False, become_user="root", login=False,
                                        env=None, cwd=None, mark="M")
        r = LocalConnection(Host("h", "localhost")).run(["/bin/sh", "-c", line])  # sshd's login shell: not counted
        reply = batch.parse(r.stdout)
        assert reply.lock == "acquired\n" and reply.released and reply.facts is not None, r.stderr
        devices, template, uname, fetch = (f.stdout for f in reply.runs)
        assert b"S\tsdb\t[mq-deadline] kyber bfq none\n" in devices and template == b"cpu_count=16\n"
        assert uname.startswith(b"Linux ") and scripts.inline_reply(fetch.decode()) is not None
    started = Counter(log.read_text().split())
    assert started["setsid"] == 1  # every command's process-group wrapper: not counted in the 31 before either
    assert sum(started.values()) - 1 <= MAX_WARM_HOST, f"a warm host starts {sorted(started.items())}"
    assert started["base64"] == 1, "only the fetch's base64 (a file's exact bytes): every frame passes as printed"
    assert not {"date", "readlink", "realpath"} & set(started), sorted(started.items())
