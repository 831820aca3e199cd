"""``become`` under the default sudoers distributions ship (issue 41; the table and sources: docs/become.md).

Each policy is mounted over /etc/sudoers in the lab's private mount namespace (planner.rehearsal.labuser), the
lab's own rule in /etc/sudoers.d as an admin's would be. RHEL/OL 5, 6 before 6.8 and 7 before 7.3 ship
``Defaults requiretty``: sudo refuses to run without a terminal, and planner, which runs without one, says so and
names the sudoers line to add. SLES ships ``Defaults targetpw`` with ``ALL ALL=(ALL) ALL``: sudo asks for the
target's (root's) password, and a refused password says whose sudo asked for.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.transport.become import PROMPT, PromptAnswer, become_password, fresh_prompt
from planner.transport.ssh.client import SSHConnection

LOGIN = "planner-dist"
LOGIN_PW, ROOT_PW = "login-Pa55-word", "root-Pa55-word"
# The Defaults lines each distribution's /etc/sudoers ships (docs/become.md names the files); the rule a lab
# admin adds goes to /etc/sudoers.d, which every one of these includes.
_RHEL_COMMON = ("Defaults   !visiblepw\nDefaults    always_set_home\nDefaults    env_reset\n"
                "Defaults    env_keep =  \"COLORS DISPLAY HOSTNAME HISTSIZE INPUTRC KDEDIR LS_COLORS\"\n"
                "Defaults    secure_path = /sbin:/bin:/usr/sbin:/usr/bin\nroot\tALL=(ALL) \tALL\n"
                "#includedir /etc/sudoers.d\n")
RHEL_OLD = "Defaults    requiretty\n" + _RHEL_COMMON  # RHEL/OL 5, 6.0-6.7, 7.0-7.2
RHEL_NEW = _RHEL_COMMON + "%wheel\tALL=(ALL)\tALL\n"  # RHEL/OL 6.8+, 7.3+, 8, 9
SLES = ("Defaults always_set_home\nDefaults secure_path=\"/usr/sbin:/usr/bin:/sbin:/bin\"\nDefaults env_reset\n"
        "Defaults env_keep = \"LANG LC_ADDRESS LC_CTYPE LC_COLLATE LC_IDENTIFICATION LC_MEASUREMENT LC_MESSAGES "
        "LC_MONETARY LC_NAME LC_NUMERIC LC_PAPER LC_TELEPHONE LC_TIME LC_ALL LANGUAGE LINGUAS XDG_SESSION_COOKIE\"\n"
        "Defaults !insults\nDefaults targetpw   # ask for the password of the target user i.e. root\n"
        "ALL\tALL=(ALL) ALL   # WARNING! Only use this together with 'Defaults targetpw'!\n"
        "root ALL=(ALL) ALL\n#includedir /etc/sudoers.d\n")
# sudo's timestamps live outside the namespace (/run/sudo): every command asks, nothing is left on this machine
NO_CACHE = f"Defaults:{LOGIN} lecture=never, timestamp_timeout=0\n"


def test_a_prompt_naming_the_user_is_matched_whatever_name_sudo_puts_there() -> None:
    secret = become_password(Host("db1", "127.0.0.1", vars={"ansible_become_password": "s3cret"}))
    assert secret is not None
    prompt = fresh_prompt()
    answer = PromptAnswer("db1", secret, prompt.encode())
    shown = prompt.replace("%p", "root").encode()
    assert answer.feed(b"lecture\n" + shown[:-3]) == (b"", b"lecture\n" + shown[:-3], b"")  # not all there yet
    assert answer.feed(b"lecture\n" + shown) == (b"lecture\n", b"", b"s3cret\n") and answer.asked == "root"
    with pytest.raises(StepError, match=r"sudo asked for the password of root") as e:
        answer.feed(b"Sorry, try again.\n" + shown)
    assert "targetpw" in str(e.value.hint) and "s3cret" not in str(e.value) + str(e.value.hint)
    assert PROMPT.encode() not in shown  # a profile printing the fixed text is never taken for it


@pytest.fixture
def sudoers_lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    reason = sshd_available() or LabUser.unavailable() or (None if shutil.which("openssl") else "no openssl")
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    top = Path(tempfile.mkdtemp(prefix="planner-sudoers-lab-"))  # not under pytest's 0700 tmp
    top.chmod(0o755)
    try:
        with build_lab(top / "lab", 1, user=request.param) as lab:
            yield lab
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _host(lab: Lab, password: str | None) -> Host:
    h = lab.hosts[0]
    return replace(h, vars={**h.vars, **({"ansible_become_password": password} if password else {})})


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.parametrize("sudoers_lab", [LabUser(LOGIN, sudoers=RHEL_OLD)], indirect=True, ids=["rhel5-7.2"])
def test_requiretty_is_refused_naming_the_sudoers_line(sudoers_lab: Lab) -> None:
    """Before: the step failed with sudo's one line, "sorry, you must have a tty to run sudo", and no way out."""
    with SSHConnection(_host(sudoers_lab, None)) as conn:
        with pytest.raises(StepError, match="requires a terminal.*requiretty") as e:
            conn.run(["id", "-u"], become=True, timeout=30)
        assert f"Defaults:{LOGIN} !requiretty" in str(e.value.hint)
        assert conn.run(["id", "-un"]).stdout.strip() == LOGIN  # without become, nothing changes


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.parametrize("sudoers_lab", [
    LabUser(LOGIN, sudoers=RHEL_OLD, rules=f"Defaults:{LOGIN} !requiretty\n{LOGIN} ALL=(ALL) NOPASSWD: ALL\n"),
    LabUser(LOGIN, sudoers=RHEL_NEW, sudo_password=LOGIN_PW, rules=NO_CACHE + f"{LOGIN} ALL=(ALL) ALL\n"),
], indirect=True, ids=["rhel5-7.2-with-the-line", "rhel6.8-9-password"])
def test_red_hat_policies_become_root_with_their_environment(sudoers_lab: Lab) -> None:
    with SSHConnection(_host(sudoers_lab, LOGIN_PW)) as conn:
        r = conn.run(["sh", "-c", 'id -u; echo "$PATH"; echo "$HOME"'], become=True, timeout=30)
        assert r.ok, r
        uid, path, home = r.stdout.splitlines()
        assert uid == "0" and path == "/sbin:/bin:/usr/sbin:/usr/bin" and home == str(Path("~root").expanduser())


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.parametrize("sudoers_lab", [LabUser(LOGIN, sudoers=SLES, sudo_password=LOGIN_PW, rules=NO_CACHE,
                                                 root_password=ROOT_PW)], indirect=True, ids=["sles"])
def test_targetpw_asks_roots_password_and_a_refusal_says_whose(sudoers_lab: Lab) -> None:
    """Before: "incorrect sudo password" alone, though the login user's own password was right."""
    with SSHConnection(_host(sudoers_lab, LOGIN_PW)) as conn:
        with pytest.raises(StepError, match="sudo asked for the password of root") as e:
            conn.run(["id", "-u"], become=True, timeout=60)
        assert "targetpw" in str(e.value.hint) and LOGIN_PW not in str(e.value) + str(e.value.hint)
    with SSHConnection(_host(sudoers_lab, ROOT_PW)) as conn:
        r = conn.run(["id", "-u"], become=True, timeout=30)
        assert r.ok and r.stdout.strip() == "0", r
