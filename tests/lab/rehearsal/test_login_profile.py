"""A login profile that prints, exports NLS or sets a trap (issue 41): planner's sqlplus runs as oracle_user through
``sudo -i``, whose login shell reads the user's ~/.profile; whatever it echoes, and a trap's output when that shell
exits, share sqlplus's stdout. planner frames sqlplus's own output (planner.db.access.framed) and pins NLS."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.db.access import config_for, framed, open_database
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.rehearsal.standins import install_standins, standin_vars
from planner.steps.base import StepContext
from planner.transport.ssh.client import SSHConnection

ORACLE = "plorcl"  # the lab's Oracle software owner: a login of its own, as oracle on a real host
PROFILE = """echo "Welcome to $(hostname): authorised use only"
NLS_LANG=GERMAN_GERMANY.WE8ISO8859P1; export NLS_LANG
NLS_NUMERIC_CHARACTERS=',.'; export NLS_NUMERIC_CHARACTERS
trap 'echo "Goodbye from the login profile"' EXIT
"""


def test_framing_keeps_what_sqlplus_printed_between_the_markers() -> None:
    out = "Welcome\nb\n1234.5\nORA-00942: x\ne\nGoodbye\n"
    assert framed(out, "b", "e") == "1234.5\nORA-00942: x\n"
    assert framed("Welcome\nb\nORA-01034: down\nGoodbye\n", "b", "e") == "ORA-01034: down\nGoodbye\n"  # stopped
    assert framed("ERROR:\nORA-01031: insufficient privileges\n", "b", "e").startswith("ERROR:")  # never began


@pytest.fixture
def oracle_lab() -> Iterator[Lab]:
    reason = sshd_available() or LabUser.unavailable()
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    top = Path(tempfile.mkdtemp(prefix="planner-profile-lab-"))  # not under pytest's 0700 tmp: the users reach it
    top.chmod(0o755)
    try:
        with build_lab(top / "lab", 1, user=LabUser(others=(ORACLE,))) as lab:
            yield lab
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.ssh
def test_a_chatty_login_profile_with_german_nls_and_a_trap_does_not_reach_planners_rows(oracle_lab: Lab) -> None:
    home = oracle_lab.root / "home" / ORACLE
    (home / ".profile").write_text(PROFILE)
    os.chown(home / ".profile", home.stat().st_uid, home.stat().st_gid)
    host = oracle_lab.hosts[0]
    sandbox = oracle_lab.sandbox(host.name)
    install_standins(sandbox)
    for path in [sandbox / "var/lib/planner-standin", *(sandbox / "var/lib/planner-standin").iterdir()]:
        path.chmod(0o777 if path.is_dir() else 0o666)  # the stand-in database is the Oracle owner's to write
    host.vars.update({**standin_vars(sandbox), "oracle_user": ORACLE})
    run = oracle_lab.root / "run"
    run.mkdir(exist_ok=True)
    with SSHConnection(host) as conn:
        ctx = StepContext(host=host, conn=conn, vars=dict(host.vars), step_path="plays[0].prep[0]", plan_dir=run,
                          artifacts=run, run_dir=run, log=lambda *_: None, become=True)
        db = open_database(ctx, config_for(ctx))
        assert db.query("select 1234.5 from dual") == [("1234.5",)]
        assert db.query("select status from v$instance") == [("OPEN",)]
