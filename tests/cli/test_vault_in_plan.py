"""Issue 40 L13: `!vault` in a plan's `vars:` (or a play's) and in `-e @file` was refused as a YAML syntax error
with no word of Vault. Ansible decrypts both: so does planner, and each value is a secret like an inventory's."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_vault_short_values import vault

from planner.cli.apply import load, secrets_of
from planner.cli.main import main
from planner.inventory.vault_ids import VaultOptions, vault_keys
from planner.redaction import SecretText


def inline(secret: str, indent: int = 4) -> str:
    return "!vault |\n" + textwrap.indent(vault(secret, b"pw"), " " * indent)


def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"plan: p\nvars:\n  db_password: {inline('Plan-s3cret-pw')}plays:\n  - name: p\n"
                    f"    hosts: all\n    vars:\n      wallet: {inline('Play-s3cret-pw', 8)}    workloads:\n"
                    "      - command: {argv: [echo, '{{ db_password }}{{ wallet }}{{ extra }}']}\n")
    (tmp_path / "e.yml").write_text(f"extra: {inline('Extra-s3cret-pw', 2)}")
    (tmp_path / "inv.yml").write_text("all:\n  hosts:\n    h1: {ansible_connection: local}\n")
    (tmp_path / "pass").write_text("pw\n")
    return plan, tmp_path / "inv.yml", tmp_path / "pass"


def test_vault_in_plan_vars_and_extra_vars_is_decrypted_as_a_secret(tmp_path: Path) -> None:
    plan, inv, password = project(tmp_path)
    keys = vault_keys(VaultOptions((str(password),), ()), lambda _: pytest.fail("no prompt"), environ={})
    loaded = load(plan, [inv], [f"@{tmp_path / 'e.yml'}"], vault=keys)
    values = (loaded.plan.vars["db_password"], loaded.plan.plays[0].vars["wallet"], loaded.extra_vars["extra"])
    assert values == ("Plan-s3cret-pw", "Play-s3cret-pw", "Extra-s3cret-pw")
    assert all(isinstance(v, SecretText) for v in values)
    assert set(values) <= set(secrets_of(loaded.plan, loaded.inventory, loaded.extra_vars))


def test_without_the_vault_password_each_value_is_named_with_vaults_flags(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    plan, inv, password = project(tmp_path)
    assert main(["validate", str(plan), "-i", str(inv), "-e", f"@{tmp_path / 'e.yml'}"]) == 5
    err = capsys.readouterr().err
    assert err.count("cannot decrypt this !vault value") == 3 and "--vault-password-file" in err
    assert f"{plan}:3:16:" in err
    assert main(["validate", str(plan), "-i", str(inv), "-e", f"@{tmp_path / 'e.yml'}",
                 "--vault-password-file", str(password)]) == 0
