"""SSH password login as Ansible users write it: ``ansible_password`` (a Vault value here) reaches a real loopback
sshd that lets this one account in by password only, and a wrong password is an unreachable host in words.

The account is a lab account (planner.rehearsal.labuser): sshd checks its password in the /etc/shadow of its own
mount namespace. Never useradd/chpasswd: they replace /etc/passwd and /etc/shadow by rename, and Linux then
detaches every other lab's bind mount of them, so a rehearsal running beside this test lost its login mid-run
("sudo: you do not exist in the passwd database", tests/FAULTS.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.host import Host
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.transport.ssh.target import login_password, merge_target

VAULT = Path(__file__).parents[2] / "data" / "inventory" / "vault"
SECRET = "Inline-db-s3cret"  # what the inline !vault value of tests/data/inventory/vault/hosts.yml decrypts to
WRONG = "Not-the-pa55word"

PLAN = """\
plan: password_login
plays:
  - name: login
    hosts: all
    workloads:
      - command:
          argv: [sh, -c, 'echo "reached as $(id -un)"']
"""


def test_the_last_of_ansibles_password_variables_wins() -> None:
    """Ansible's config manager reads ansible_password, ansible_ssh_pass, ansible_ssh_password in turn."""
    def host(**v: object) -> Host:
        return Host("h", "127.0.0.1", vars=v)

    assert login_password(host()) is None
    assert login_password(host(ansible_ssh_pass="b")) == "b"
    assert login_password(host(ansible_password="a", ansible_ssh_pass="b")) == "b"
    assert login_password(host(ansible_password="a", ansible_ssh_password="c", ansible_ssh_pass="b")) == "c"
    assert login_password(host(ansible_password=1234)) == "1234"
    target = merge_target(host(ansible_password="Zq-s3cret-99"), {})
    assert target.password == "Zq-s3cret-99" and "Zq-s3cret-99" not in repr(target)


def _unavailable() -> str | None:
    if os.geteuid() != 0:
        return "a password login needs a lab account: mount namespaces need root"
    return sshd_available() or LabUser().unavailable()


@dataclass(frozen=True)
class PasswordLab:
    lab: Lab
    login: str


@pytest.fixture(scope="module")
def pw_lab() -> Iterator[PasswordLab]:
    reason = _unavailable()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"password login lab unavailable in CI: {reason}")
        pytest.skip(reason)
    login = f"plannerpw{os.getpid()}"
    root = Path(tempfile.mkdtemp(prefix="planner-pw-lab-"))  # pytest's folders are root's alone (0700)
    root.chmod(0o755)
    user = LabUser(name=login, sudo_password=SECRET)  # the account's password, in the lab's own shadow only
    try:
        lab = build_lab(root / "lab", 1, user=user, password_logins=[login])
        uid, gid = user.ids(login)
        for p in [lab.sandbox("lab01"), *lab.sandbox("lab01").rglob("*")]:
            os.chown(p, uid, gid)  # the host's "/" is the login's to write
        with lab:
            yield PasswordLab(lab, login)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _inventory(pl: PasswordLab, tmp: Path, password_line: str) -> Path:
    h = pl.lab.host("lab01")
    inv = tmp / "hosts.yml"
    inv.write_text(f"""all:
  hosts:
    lab01:
      ansible_host: {h.address}
      ansible_port: {h.port}
      ansible_user: {pl.login}
      planner_root: {pl.lab.sandbox("lab01")}
      planner_known_hosts: {pl.lab.known_hosts}
      {password_line}""")
    return inv


def _vaulted_password() -> str:
    """ansible_password as the inline !vault value ansible-vault wrote (tests/data/inventory/vault/hosts.yml)."""
    inline = (VAULT / "hosts.yml").read_text().split("      db_password: ", 1)[1].split("  children:", 1)[0]
    return "ansible_password: " + inline


def _apply(tmp: Path, inv: Path, *extra: str) -> int:
    plan = tmp / "plan.yaml"
    plan.write_text(PLAN)
    return main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp / "runs"), "-v", *extra])


@pytest.mark.ssh
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_plan_logs_in_with_the_vaulted_password_and_no_file_of_the_run_holds_it(
        pw_lab: PasswordLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = _inventory(pw_lab, tmp_path, _vaulted_password())
    code = _apply(tmp_path, inv, "--vault-password-file", str(VAULT / "default.pass"))
    out, err = capsys.readouterr()
    assert code == 0, out + err + pw_lab.lab.log("lab01")  # sshd takes this login by password only
    runs = tmp_path / "runs"
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    assert f"reached as {pw_lab.login}" in (run / "commands.jsonl").read_text()
    assert (runs / "planner.sqlite").exists()
    assert [str(p) for p in runs.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()] == []
    assert SECRET not in out + err


@pytest.mark.ssh
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_wrong_password_is_an_unreachable_host_in_words(
        pw_lab: PasswordLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = _inventory(pw_lab, tmp_path, f"ansible_ssh_pass: {WRONG}\n")
    code = _apply(tmp_path, inv)
    out, err = capsys.readouterr()
    assert code == 4, out + err
    assert "lab01" in out + err and "password authentication failed" in out + err
    assert "unreachable=1" in out
    assert "Traceback" not in out + err and WRONG not in out + err
    runs = tmp_path / "runs"
    assert [str(p) for p in runs.rglob("*") if p.is_file() and WRONG.encode() in p.read_bytes()] == []


@pytest.mark.ssh
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_with_no_key_agent_or_password_the_host_is_unreachable_saying_so(
        pw_lab: PasswordLab, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/id_* keys to look for
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    inv = _inventory(pw_lab, tmp_path, "\n")
    code = _apply(tmp_path, inv)
    out, err = capsys.readouterr()
    assert code == 4, out + err
    assert "lab01" in out and "nothing to log in with: no key file, ssh-agent key or password" in out
    assert "is an SSH server listening there?" not in out + err and "Traceback" not in out + err
