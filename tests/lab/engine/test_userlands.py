"""Host userlands older than this machine's (issue 41; docs/userlands.md): a lab host whose sshd runs in a
private mount namespace where a program is covered by its older distribution's behaviour
(planner.rehearsal.labworld): RHEL/OL 5 and 6 have no realpath (coreutils < 8.15), RHEL/OL 5-7 a setsid
without -w (util-linux < 2.24)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.rehearsal.labworld import Userland
from planner.transport.ssh.client import SSHConnection

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

OLD = (Userland.NO_REALPATH, Userland.SETSID_NO_WAIT)


@pytest.fixture
def old_host(make_lab) -> tuple[SSHConnection, Path]:  # type: ignore[no-untyped-def]
    lab = make_lab(1, userland=OLD)
    conn = SSHConnection(lab.hosts[0])
    conn.connect()
    yield conn, lab.sandbox(lab.hosts[0].name)
    conn.close()


def test_the_lab_host_really_lacks_them(old_host: tuple[SSHConnection, Path]) -> None:
    conn, _ = old_host
    assert conn.run(["sh", "-c", "realpath / 2>&1; echo $?"]).stdout.endswith("127\n")
    r = conn.run(["sh", "-c", "setsid -w true 2>&1; echo $?"])
    assert "invalid option" in r.stdout and r.stdout.endswith("1\n"), r.stdout


def test_commands_keep_their_exit_status_and_process_group(old_host: tuple[SSHConnection, Path]) -> None:
    """Every command is wrapped in a process group of its own: without setsid -w it still waits for the
    command, keeps its exit status and its output, and runs in a group whose leader is the command's shell."""
    conn, _ = old_host
    r = conn.run(["sh", "-c", 'echo out; echo err >&2; ps -o pgid= -p $$; exit 7'])
    assert (r.exit_code, r.stderr) == (7, "err\n"), (r.exit_code, r.stderr)
    lines = r.stdout.split()
    assert lines[0] == "out" and lines[1].isdigit()
    assert conn.run(["sh", "-c", "cat"], stdin=b"fed").stdout == "fed"
    r = conn.run(["sleep", "30"], timeout=1.0)
    assert r.timed_out and r.exit_code == 124


def test_fetch_resolves_symlinks_without_realpath(make_lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """It said "[Errno 2] No such file or directory" for every file on a host without realpath."""
    lab = make_lab(1, userland=(Userland.NO_REALPATH,))
    conn = SSHConnection(lab.hosts[0])
    sandbox = lab.sandbox(lab.hosts[0].name)
    data = sandbox / "data"
    data.mkdir()
    (data / "awr.txt").write_text("report\n")
    os.symlink("data", sandbox / "link")  # a folder reached through a symlink
    os.symlink("awr.txt", data / "latest")  # a file that is itself a (relative) symlink
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(tmp_path / "outside.txt", data / "escape")
    conn.get(str(sandbox / "link/latest"), tmp_path / "got.txt")
    assert (tmp_path / "got.txt").read_text() == "report\n"
    with pytest.raises(StepError, match="No such file"):
        conn.get(str(sandbox / "link/missing"), tmp_path / "none.txt")
    with pytest.raises(StepError, match="outside"):
        conn.get(str(data / "escape"), tmp_path / "esc.txt")
    conn.close()


@pytest.mark.parametrize("shell", ["/bin/csh", "/bin/tcsh", "/bin/ksh"])
def test_a_csh_or_ksh_login_runs_the_warm_batch_and_fetches(make_lab, tmp_path: Path, shell: str) -> None:  # type: ignore[no-untyped-def]
    """sshd hands every command line to the login shell. csh and tcsh refused a newline inside quotes ("Unmatched
    '.") and expanded `!` even there: every warm host's batch exec (a multi-line script) failed."""
    if not Path(shell).exists():
        pytest.skip(f"{shell} is not installed (apt-get install csh tcsh ksh: .ci/run does)")
    from planner.engine import batch

    lab = make_lab(1, login_shell=shell)
    conn = SSHConnection(lab.hosts[0])
    try:
        conn.connect()
        said = conn.run(["sh", "-c", 'ps -o comm= -p "$PPID"; [ ! -e /nonexistent ] && echo ok']).stdout.split()
        assert said == [Path(shell).name, "ok"], said  # the login shell ran the line
        r = conn.run(batch.argv(["echo hi", "printf '%s|' 'a\\b' '!x'"]))
        reply = batch.parse(r.stdout)
        assert [f.stdout for f in reply.runs] == [b"hi\n", b"a\\b|!x|"], (r.exit_code, r.stderr)
        (lab.sandbox(lab.hosts[0].name) / "f.txt").write_text("x\n")
        conn.get(str(lab.sandbox(lab.hosts[0].name) / "f.txt"), tmp_path / "f.txt")
        assert (tmp_path / "f.txt").read_text() == "x\n"
    finally:
        conn.close()


MISSING_PLAN = """\
plan: missing_programs
plays:
  - name: p
    hosts: all
    workloads:
      - command: {argv: [sh, -c, 'echo ran > "$1"', sh, "MARK"]}
"""


@pytest.mark.parametrize(("hidden", "said"), [
    ((Userland.NO_BASE64,), ["base64 (planner needs it for small fetches and the framing of commands' error "
                             "output; install the package coreutils on RHEL/OL/SLES, coreutils on Debian/Ubuntu)"]),
    ((Userland.NO_SHA256SUM,), ["sha256sum (planner needs it for the checksum of every upload and fetch"]),
    ((Userland.NO_MKTEMP,), ["mktemp (planner needs it for the private temporary folder of each round trip"]),
    ((Userland.NO_SETSID,),  # every command is started by it: nothing runs, not even the facts
     ["setsid (planner needs it for each command's own process group",
      "util-linux (RHEL/OL 6: util-linux-ng) on RHEL/OL/SLES, util-linux on Debian/Ubuntu"]),
])
def test_a_host_lacking_a_program_planner_runs_is_refused_naming_it_and_its_package(
        make_lab, tmp_path: Path, hidden: tuple[Userland, ...], said: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Without base64 every command's output came back empty and the step "passed"; without setsid or sha256sum
    each command or fetch failed with whatever broke first. Now the host takes no step, and the run says which
    program is missing and the package that brings it."""
    import subprocess
    import sys

    lab = make_lab(1, userland=hidden)
    mark = lab.sandbox(lab.hosts[0].name) / "ran.txt"
    plan, inv = tmp_path / "plan.yaml", tmp_path / "inv.yml"
    plan.write_text(MISSING_PLAN.replace("MARK", str(mark)))
    lab.write_inventory(inv)
    r = subprocess.run([sys.executable, "-m", "planner", "apply", str(plan), "-i", str(inv), "--runs-dir",
                        str(tmp_path / "runs"), "--no-report"], capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "Traceback" not in out, out
    for words in said:
        assert words in out, out
    assert not mark.exists(), "a step ran on a host planner refused"
    assert not list(lab.sandbox(lab.hosts[0].name).glob("**/planner.lock*")), "the refused host's lock was kept"
