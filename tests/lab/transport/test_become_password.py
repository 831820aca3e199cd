"""ansible_become_password (and its aliases): sudo -S with a fixed prompt, the password on stdin only.

Over the real sshd lab with a non-root login whose sudo asks for a password (LabUser.sudo_password, no
NOPASSWD, every command asking): a vaulted password lets apply become root, a wrong one fails that host
clearly and at once, and the value lands in no file of the run folder nor on the console.
"""

from __future__ import annotations

import binascii
import hmac
import io
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from prep_helpers import newest_run

from planner.cli.main import main
from planner.errors import StepError
from planner.host import Host
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.rehearsal.sandbox import add_devices
from planner.steps.base import StepContext
from planner.steps.prep_os import parse_scheduler
from planner.transport.become import PROMPT, PromptAnswer, become_password
from planner.transport.connection import command_line
from planner.transport.ssh.client import SSHConnection

SUDO_PASSWORD = "Sud0-lab-pa55word"
VAULT_PASSWORD = "vault-opens-it"


def host(**v: object) -> Host:
    return Host("db1", "127.0.0.1", vars=v)


def test_the_last_alias_set_wins_and_no_password_keeps_sudo_n() -> None:
    assert become_password(host()) is None
    assert become_password(host(ansible_sudo_pass="a")).value == "a"  # type: ignore[union-attr]
    got = become_password(host(ansible_become_password="a", ansible_become_pass="zq9"))
    assert got is not None and (got.var, got.value) == ("ansible_become_pass", "zq9")
    assert "zq9" not in repr(got)
    assert command_line(["id"], become=True) == "sudo -n -H -u root -- sh -c id"
    line = command_line(["id"], become=True, ask_password=True)
    assert line.startswith(f"sudo -S -p '{PROMPT}' -H -u root --") and " -n " not in line


def test_what_check_mode_shows_is_what_runs() -> None:
    ctx = StepContext(host=host(ansible_become_password="s3cret"), conn=None, vars={},  # type: ignore[arg-type]
                      step_path="plays[0].prep[0]", plan_dir=Path("."), artifacts=Path("."), run_dir=Path("."),
                      log=lambda *_: None, become=True)
    shown = ctx.command_text(["id"])
    assert shown.startswith("sudo -S -p ") and "s3cret" not in shown


def test_a_second_prompt_is_a_refusal_naming_the_variable_not_the_value() -> None:
    answer = PromptAnswer("db1", become_password(host(ansible_become_password="s3cret")))  # type: ignore[arg-type]
    before, rest, reply = answer.feed(b"lecture\n" + PROMPT.encode())
    assert (before, rest, reply) == (b"lecture\n", b"", b"s3cret\n")
    with pytest.raises(StepError, match="incorrect sudo password.*ansible_become_password") as e:
        answer.feed(b"Sorry, try again.\n" + PROMPT.encode())
    assert "s3cret" not in str(e.value) + str(e.value.hint)


class FakeChannel:
    def __init__(self) -> None:
        self.sent = b""

    def sendall(self, data: bytes) -> None:
        self.sent += data


def test_sudo_lecture_before_the_prompt_is_passed_on_and_the_marker_still_found() -> None:
    """sudo's lecture (lecture=once, the first time on a real host) comes on stderr before the prompt; planner's
    marker must still be found after it, or a timeout could not kill the command's process group."""
    from planner.transport.ssh.channel import PGID_MARK, _Head

    chan, err = FakeChannel(), io.BytesIO()
    head = _Head(chan, "db1", become_password(host(ansible_become_password="s3cret")))
    lecture = b"\nWe trust you have received the usual lecture from the local System\nAdministrator.\n\n"
    assert not head.feed(lecture + PROMPT.encode()[:7], err)
    assert not head.feed(PROMPT.encode()[7:], err)
    assert chan.sent == b"s3cret\n"
    assert head.feed(b"\n" + PGID_MARK + b"4242\nthe command's stderr", err)
    assert head.group.pgid == 4242 and err.getvalue() == lecture + b"\nthe command's stderr"


# -- the real sshd lab, a login whose sudo asks for its password -----------------------------------------------


@pytest.fixture
def sudo_lab() -> Iterator[Lab]:
    reason = sshd_available() or LabUser.unavailable() or (None if shutil.which("openssl") else "no openssl")
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    top = Path(tempfile.mkdtemp(prefix="planner-sudo-lab-"))  # not under pytest's 0700 tmp: the user must reach it
    top.chmod(0o755)
    try:
        with build_lab(top / "lab", 1, user=LabUser("planner-sudo", sudo_password=SUDO_PASSWORD)) as lab:
            yield lab
    finally:
        shutil.rmtree(top, ignore_errors=True)


def with_password(lab: Lab, value: str | None) -> Host:
    h = lab.hosts[0]
    return replace(h, vars={**h.vars, "ansible_become_password": value} if value else dict(h.vars))


@pytest.mark.slow
@pytest.mark.ssh
def test_sudo_takes_the_password_and_the_command_still_gets_its_stdin(sudo_lab: Lab) -> None:
    """Before: become was sudo -n only, so this host's sudo refused every command ("a password is required")."""
    with SSHConnection(with_password(sudo_lab, None)) as conn:
        r = conn.run(["id", "-u"], become=True, timeout=30)
        assert r.exit_code != 0 and "password is required" in r.stderr
    with SSHConnection(with_password(sudo_lab, SUDO_PASSWORD)) as conn:
        assert conn.run(["id", "-un"]).stdout.strip() == "planner-sudo"
        r = conn.run(["id", "-u"], become=True, timeout=30)
        assert r.ok and r.stdout.strip() == "0", r
        r = conn.run(["cat"], become=True, stdin=b"the command's own input\n", timeout=30)
        assert r.ok and r.stdout == "the command's own input\n" and SUDO_PASSWORD not in r.stdout + r.stderr
        assert "-S -p" in r.command and SUDO_PASSWORD not in r.command
        r = conn.run(["sh", "-c", "cat /proc/$$/environ | tr '\\0' '\\n'; ps -eo args"], become=True, timeout=30)
        assert r.ok and SUDO_PASSWORD not in r.stdout  # not in the command's environment, nor any argv


@pytest.mark.slow
@pytest.mark.ssh
def test_a_wrong_password_fails_at_once_naming_the_variable(sudo_lab: Lab) -> None:
    with SSHConnection(with_password(sudo_lab, "not-the-password")) as conn:
        started = time.monotonic()
        with pytest.raises(StepError, match="incorrect sudo password.*ansible_become_password") as e:
            conn.run(["id", "-u"], become=True, timeout=60)
        assert time.monotonic() - started < 30  # refused on sudo's second prompt, not the command's timeout
        assert "not-the-password" not in str(e.value) + str(e.value.hint)
        assert conn.run(["true"]).ok  # the connection is still good for the next command


def vault_encrypt(plain: str, password: str) -> str:
    """ansible-vault encrypt_string's format (1.1, AES256): the test writes what a DBA's inventory holds."""
    salt = os.urandom(32)
    derived = PBKDF2HMAC(algorithm=hashes.SHA256(), length=80, salt=salt, iterations=10000).derive(password.encode())
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plain.encode()) + padder.finalize()
    enc = Cipher(algorithms.AES(derived[:32]), modes.CTR(derived[64:])).encryptor()
    data = enc.update(padded) + enc.finalize()
    mac = hmac.new(derived[32:64], data, "sha256").hexdigest()
    body = binascii.hexlify(b"\n".join([binascii.hexlify(salt), mac.encode(), binascii.hexlify(data)])).decode()
    return "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(body[i:i + 80] for i in range(0, len(body), 80))


PLAN = """\
plan: sudo-password
description: become root through a sudo that asks for its password
plays:
  - name: prep
    hosts: all
    prep:
      - command: {argv: [id, -u]}
        become: true
      - io_scheduler: {devices: /dev/mapper/violin_lun1, scheduler: none}
        become: true
    workloads:
      - command: {argv: ['true']}
"""


def apply_with(lab: Lab, password: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, Path, str]:
    inv = lab.root / "inv" / "hosts.yml"
    add_devices(lab.sandbox(lab.hosts[0].name), ["/dev/mapper/violin_lun1"])  # root-only sysfs; /tmp 1777
    lab.write_inventory(inv)
    vaulted = vault_encrypt(password, VAULT_PASSWORD).replace("\n", "\n  ")
    (inv.parent / "group_vars").mkdir(exist_ok=True)
    (inv.parent / "group_vars" / "all.yml").write_text(f"ansible_become_password: !vault |\n  {vaulted}\n")
    (lab.root / "vault.pass").write_text(VAULT_PASSWORD + "\n")
    plan, runs = lab.root / "plan.yaml", lab.root / "runs"
    plan.write_text(PLAN)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs),
                 "--vault-password-file", str(lab.root / "vault.pass")])
    out, err = capsys.readouterr()
    assert runs.is_dir(), out + err
    return code, newest_run(runs), out + err


def leaks(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.slow
@pytest.mark.ssh
def test_apply_with_a_vaulted_become_password(sudo_lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    code, run, console = apply_with(sudo_lab, SUDO_PASSWORD, capsys)
    results = {r["title"]: (r["status"], r["msg"]) for r in json.loads((run / "results.json").read_text())}
    assert code == 0, (results, console)
    assert results["restore io_scheduler"][0] == "changed"  # the restore became root too
    sched = sudo_lab.sandbox(sudo_lab.hosts[0].name) / "sys/block/dm-0/queue/scheduler"
    assert parse_scheduler(sched.read_text())[0] == "mq-deadline"
    assert not leaks(run, SUDO_PASSWORD) and SUDO_PASSWORD not in console
    assert not leaks(sudo_lab.sandbox(sudo_lab.hosts[0].name), SUDO_PASSWORD)  # nor on the host
    code, run, console = apply_with(sudo_lab, "a-wrong-one", capsys)
    assert code == 2, console  # FAILED, as Ansible's "Incorrect sudo password"
    assert "incorrect sudo password" in console and "ansible_become_password" in console
    assert "a-wrong-one" not in console and not leaks(run, "a-wrong-one")
