"""Issue 46: ANSIBLE_VAULT_IDENTITY_LIST and ANSIBLE_VAULT_ID_MATCH as ansible-core 2.19 reads them (checked
with ansible-inventory 2.19.14 on the same files: the match case is refused, "Decryption failed")."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main

VAULT = Path(__file__).parents[1] / "data" / "inventory" / "vault"


@pytest.fixture(autouse=True)
def _no_vault_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_VAULT_ID_MATCH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(VAULT)


def test_the_identity_list_gives_default_vault_ids(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANSIBLE_VAULT_IDENTITY_LIST", "prod@prod.pass, default.pass")
    assert main(["inventory", "-i", "hosts.yml", "--list"]) == 0, capsys.readouterr().err


def test_id_match_tries_only_the_vaults_own_id(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    args = ["inventory", "-i", "hosts.yml", "--list", "--vault-id", "other@prod.pass", "--vault-id", "default.pass"]
    assert main(args) == 0  # without it every password is tried
    capsys.readouterr()
    monkeypatch.setenv("ANSIBLE_VAULT_ID_MATCH", "yes")
    assert main(args) == 5
    assert "ANSIBLE_VAULT_ID_MATCH is set and no password was given for this vault's id (vault id 'prod')" in \
        capsys.readouterr().err
    assert main(["inventory", "-i", "hosts.yml", "--list", "--vault-id", "prod@prod.pass"]) == 0
