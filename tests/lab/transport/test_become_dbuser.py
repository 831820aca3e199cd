"""The database user beside the login user: commands as ``oracle_user`` through sudo, over the real sshd lab.

The lab logs in as an admin account (``planner-adm``) that runs database commands as another account
(``planner-ora``, bash, with a .bash_profile) through sudo, as many labs do, with and without a become password.
sudo -i joined planner's multi-line wrapper into one escaped ``-c`` string (newlines became line continuations,
``$`` was expanded by the login shell: sudo's src/parse_args.c), and the login profile ran before planner's
marker, so a profile printing planner's prompt was handed the sudo password (issues 39, 40 High 2).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from planner.db.access import open_database
from planner.db.config import DbConfig
from planner.host import Host
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.rehearsal.standins import install_standins, standin_vars
from planner.steps.base import StepContext
from planner.steps.wl_common import fresh_dir
from planner.transport import remote_procs
from planner.transport.become import PROMPT, fresh_prompt
from planner.transport.connection import command_line
from planner.transport.ssh.client import SSHConnection

PW = "adm-Sud0-pa55"
ADMIN, ORA = "planner-adm", "planner-ora"
# The profile of a hostile (or merely chatty) oracle account: it prints planner's fixed prompt, keeps whatever
# it is given on stdin, talks on stdout and sets what an oracle profile sets.
PROFILE = f"""printf '%s' '{PROMPT}' >&2
IFS= read -r got && printf '%s\\n' "$got" >> "$HOME/captured"
echo "profile noise on stdout"
export PROFILE_SAYS=from-profile ORACLE_SID=from-profile
"""


def test_the_prompt_is_new_for_each_command_and_no_line_uses_sudo_i() -> None:
    a, b = fresh_prompt(), fresh_prompt()
    assert a != b and a != PROMPT and "%" not in a.replace("%p", "") and "'" not in a
    line = command_line(["sqlplus", "-S"], become=True, become_user="oracle", login=True)
    assert " -i " not in line and line.startswith("sudo -n -H -u oracle -- sh -c ")


@pytest.fixture(params=[None, PW], ids=["nopasswd", "with-password"])
def dbuser_lab(request: pytest.FixtureRequest) -> Iterator[tuple[Lab, Host]]:
    reason = sshd_available() or LabUser.unavailable() or (None if shutil.which("openssl") else "no openssl")
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    password = request.param
    # sudoers: the last matching rule wins, so NOPASSWD to the database account comes after ALL with a password
    rules = (f"{ADMIN} ALL=(ALL) NOPASSWD: ALL\n" if password is None else
             f"Defaults:{ADMIN} lecture=never, timestamp_timeout=0\n{ADMIN} ALL=(ALL) ALL\n"
             f"{ADMIN} ALL=({ORA}) NOPASSWD: ALL\n")
    top = Path(tempfile.mkdtemp(prefix="planner-dbuser-lab-"))  # not under pytest's 0700 tmp
    top.chmod(0o755)
    user = LabUser(ADMIN, others=(ORA,), sudo_password=password, rules=rules, shell="/bin/bash")
    try:
        with build_lab(top / "lab", 1, user=user) as lab:
            home = top / "lab" / "home" / ORA
            (home / ".bash_profile").write_text(PROFILE)
            h = lab.hosts[0]
            yield lab, replace(h, vars={**h.vars, **({"ansible_become_password": password} if password else {})})
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.ssh
def test_commands_as_the_db_user_keep_newlines_dollars_and_their_own_environment(
        dbuser_lab: tuple[Lab, Host]) -> None:
    """Before: sh: Syntax error: "}" unexpected (sudo -i made the newlines line continuations)."""
    _lab, host = dbuser_lab
    script = 'x=1\nif [ "$x" = 1 ]; then {\n  echo "one $x $0"\n}; fi\nid -un'
    with SSHConnection(host) as conn:
        assert conn.run(["id", "-un"]).stdout.strip() == ADMIN
        r = conn.run(["sh", "-c", script, "zero"], become=True, become_user=ORA, login=True, timeout=30)
        assert r.ok and r.stdout == f"one 1 zero\n{ORA}\n", r  # the profile's own stdout is not the command's
        r = conn.run(["sh", "-c", 'echo "$PROFILE_SAYS $ORACLE_SID"; pwd'], become=True, become_user=ORA,
                     login=True, env={"ORACLE_SID": "from-inventory"}, timeout=30)
        assert r.ok and r.stdout.splitlines()[0] == "from-profile from-inventory", r  # env wins over the profile
        assert r.stdout.splitlines()[1].endswith(f"/home/{ORA}")  # at home, as a login is
        r = conn.run(["id", "-u"], become=True, timeout=30)  # root, through the password when sudo asks for it
        assert r.ok and r.stdout.strip() == "0", r


@pytest.mark.slow
@pytest.mark.ssh
def test_the_sudo_password_goes_only_to_sudo_never_to_the_db_users_profile(dbuser_lab: tuple[Lab, Host]) -> None:
    """Before: the .bash_profile printed planner's fixed prompt before the marker and read the password."""
    lab, host = dbuser_lab
    with SSHConnection(host) as conn:
        r = conn.run(["cat"], become=True, become_user=ORA, login=True, stdin=b"select 1 from dual;\n", timeout=30)
        assert r.ok and r.stdout == "select 1 from dual;\n", r  # the command, not the profile, got its stdin
        point = f"{lab.root}/home/{ADMIN}/work/run/host/step/point000"  # under the login user's own folder
        ctx = StepContext(host=host, conn=conn, vars={}, step_path="plays[0].workloads[0]", plan_dir=Path("."),
                          artifacts=Path("."), run_dir=Path("."), log=lambda *_: None, become=True, become_user=ORA)
        fresh_dir(ctx, point)  # the login user's folder, which the become user may write into
        ctx.sh('mkdir -p "$1/sub" && echo out > "$1/sub/tool.out" && id -un > "$1/who"', point)
        assert conn.run(["sh", "-c", 'mkdir "$1/ostats" && cat "$1/who" "$1/sub/tool.out"', "sh", point]).stdout \
            == f"{ORA}\nout\n"  # the OS samplers (the login user) write there too, and read the tool's files
        fresh_dir(ctx, point)  # again: what the become user left (its own sub-folder) is removed through become
        assert conn.run(["ls", "-A", point]).stdout == ""
    captured = lab.root / "home" / ORA / "captured"
    got = captured.read_text() if captured.exists() else ""
    assert PW not in got and "select" not in got


@pytest.mark.slow
@pytest.mark.ssh
def test_the_admin_login_reaches_the_database_as_oracle_user(dbuser_lab: tuple[Lab, Host]) -> None:
    """Before: every sqlplus as oracle_user through the run's tracked connection failed (sudo -i made its multi-line
    wrapper one escaped line: ``Syntax error``), and the account's profile output came back as query rows."""
    lab, host = dbuser_lab
    root = lab.root / "db-host"  # the stand-in instance, owned by the database account as Oracle's files are
    install_standins(root)
    uid, gid = LabUser(ADMIN, others=(ORA,)).ids(ORA)
    for p in (root, *root.rglob("*")):
        os.chown(p, uid, gid)
    host = replace(host, vars={**host.vars, **standin_vars(root), "oracle_user": ORA})
    with SSHConnection(host) as conn:
        workdir = f"{lab.root}/home/{ADMIN}/planner/run/{host.name}"  # as a run's: commands record their groups
        remote_procs.prepare(conn, workdir)
        ctx = StepContext(host=host, conn=remote_procs.TrackedConnection(conn, workdir), vars=host.vars,
                          step_path="plays[0].prep[0]", plan_dir=Path("."), artifacts=Path("."), run_dir=Path("."),
                          log=lambda *_: None)
        db = open_database(ctx, DbConfig.from_vars(ctx.vars))
        assert db.query("select status from v$instance") == [("OPEN",)]
