"""``planner restore RUN -i INVENTORY`` / ``-K``: a host whose sudo asks for a password can be restored.

The run record keeps no secrets, so before this a restore fell back to ``sudo -n`` and such a host could not
be put back. Over the real sshd lab (test_become_password's login whose sudo asks every time): a run whose
prep was left in place is restored with the vaulted password read from the inventory; without it the restore
fails at once naming -i and -K; an inventory lacking a run host is bad input with nothing touched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prep_helpers import newest_run
from test_become_password import PLAN, SUDO_PASSWORD, VAULT_PASSWORD, leaks, sudo_lab, vault_encrypt

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.rehearsal.sandbox import add_devices
from planner.steps.prep_os import parse_scheduler

__all__ = ["sudo_lab"]  # the fixture, shared


def scheduler(lab: Lab) -> str:
    return parse_scheduler((lab.sandbox(lab.hosts[0].name) / "sys/block/dm-0/queue/scheduler").read_text())[0]


def kept_prep_run(lab: Lab) -> tuple[Path, Path, Path]:
    """A run with a become prep step through the password-asking sudo, left to restore (--keep-prep)."""
    inv = lab.root / "inv" / "hosts.yml"
    add_devices(lab.sandbox(lab.hosts[0].name), ["/dev/mapper/violin_lun1"])
    lab.write_inventory(inv)
    vaulted = vault_encrypt(SUDO_PASSWORD, VAULT_PASSWORD).replace("\n", "\n  ")
    (inv.parent / "group_vars").mkdir(exist_ok=True)
    (inv.parent / "group_vars" / "all.yml").write_text(f"ansible_become_password: !vault |\n  {vaulted}\n")
    vault_file = lab.root / "vault.pass"
    vault_file.write_text(VAULT_PASSWORD + "\n")
    plan, runs = lab.root / "plan.yaml", lab.root / "runs"
    plan.write_text(PLAN)
    assert main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", "--keep-prep",
                 "--vault-password-file", str(vault_file)]) == 0
    assert scheduler(lab) == "none"  # prepped, and left so
    return newest_run(runs), inv, vault_file


@pytest.mark.slow
@pytest.mark.ssh
def test_restore_takes_the_become_password_from_the_vaulted_inventory(
        sudo_lab: Lab, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    run, inv, vault_file = kept_prep_run(sudo_lab)
    capsys.readouterr()
    # before: sudo -n, "a password is required", and no word of how to give it
    assert main(["restore", str(run)]) == 2
    out = "".join(capsys.readouterr())
    assert "password is required" in out and "-i INVENTORY" in out and "-K" in out, out
    assert scheduler(sudo_lab) == "none"

    other = sudo_lab.root / "other.yml"  # beside no group_vars/
    other.write_text("all:\n  hosts:\n    elsewhere:\n")
    assert main(["restore", str(run), "-i", str(other)]) == 5  # a run host it lacks: nothing touched
    out = "".join(capsys.readouterr())
    assert f"made on host {sudo_lab.hosts[0].name}" in out and "-i" in out, out
    assert scheduler(sudo_lab) == "none"

    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or "not-the-password")
    assert main(["restore", str(run), "-K"]) == 2  # -K's value is what sudo was given: refused
    out = "".join(capsys.readouterr())
    assert asked == ["BECOME password: "] and "incorrect sudo password" in out and "not-the-password" not in out
    assert scheduler(sudo_lab) == "none"

    assert main(["restore", str(run), "-i", str(inv), "--vault-password-file", str(vault_file)]) == 0
    out = "".join(capsys.readouterr())
    assert scheduler(sudo_lab) == "mq-deadline", out
    assert SUDO_PASSWORD not in out and not leaks(run, SUDO_PASSWORD)
    assert not leaks(sudo_lab.sandbox(sudo_lab.hosts[0].name), SUDO_PASSWORD)


@pytest.mark.slow
@pytest.mark.ssh
def test_apply_ask_become_pass_asks_once_and_keeps_it_out_of_the_record(
        sudo_lab: Lab, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: apply had no -K; an inventory without the password could only fail under sudo -n."""
    inv = sudo_lab.root / "inv" / "hosts.yml"
    add_devices(sudo_lab.sandbox(sudo_lab.hosts[0].name), ["/dev/mapper/violin_lun1"])
    sudo_lab.write_inventory(inv)
    plan, runs = sudo_lab.root / "plan.yaml", sudo_lab.root / "runs"
    plan.write_text(PLAN)
    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or SUDO_PASSWORD)
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report", "-K"])
    out = "".join(capsys.readouterr())
    assert code == 0 and asked == ["BECOME password: "], out
    run = newest_run(runs)
    results = {r["title"]: r["status"] for r in json.loads((run / "results.json").read_text())}
    assert results["restore io_scheduler"] == "changed" and scheduler(sudo_lab) == "mq-deadline", results
    assert SUDO_PASSWORD not in out and not leaks(run, SUDO_PASSWORD)
