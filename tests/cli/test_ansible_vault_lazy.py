"""Issue 46: an inline vault value no given password opens is refused only where it is used, as ansible-core
decrypts lazily (its own roles/test_vault_embedded_ids/vars/main.yml holds values nothing references).

The sealed value is ansible-core's `vault_encrypted_example2_hello` (vault id example2, whose password is not
given here); the opened one is tests/data/inventory/vault's db_password (default.pass)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main

DATA = Path(__file__).parents[1] / "data"
DEFAULT = str(DATA / "inventory" / "vault" / "default.pass")
SEALED = (DATA / "ansible" / "embedded_ids_example2.vault").read_text()
OPENED = (DATA / "inventory" / "vault" / "hosts.yml").read_text().split("db_password: !vault |\n")[1]
OPENED = OPENED.split("  children")[0]


def _vault(text: str, indent: int) -> str:
    return "!vault |\n" + textwrap.indent(textwrap.dedent(text).strip() + "\n", " " * indent)


def _lab(tmp_path: Path, *, become_sealed: bool = False, use: str = "{{ db_password }}") -> list[str]:
    extra = f"      ansible_become_password: {_vault(SEALED, 8)}" if become_sealed else ""
    (tmp_path / "hosts.yml").write_text(
        f"all:\n  hosts:\n    db1:\n      ansible_host: 127.0.0.1\n      db_password: {_vault(OPENED, 8)}"
        f"      hello: {_vault(SEALED, 8)}{extra}")
    (tmp_path / "plan.yaml").write_text(
        f"plan: p\nplays:\n  - name: p\n    hosts: all\n    workloads:\n"
        f"      - command: {{argv: ['echo', '{use}']}}\n")
    return ["-i", str(tmp_path / "hosts.yml"), "--vault-password-file", DEFAULT]


def test_list_shows_an_unopened_value_as_ansible_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _lab(tmp_path)
    assert main(["inventory", "--list", *args]) == 0
    hello = json.loads(capsys.readouterr().out)["_meta"]["hostvars"]["db1"]["hello"]
    assert hello == {"__ansible_vault": SEALED}


def test_an_unused_unopened_value_does_not_refuse_the_plan(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "plan.yaml"), *_lab(tmp_path)]) == 0, capsys.readouterr().err


def test_a_used_unopened_value_refuses_the_plan_naming_it(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "plan.yaml"), *_lab(tmp_path, use="{{ hello }}")]) == 5
    err = capsys.readouterr().err
    assert "hello" in err and "cannot decrypt this !vault value" in err and "vault id 'example2'" in err, err


def test_an_unopened_connection_variable_is_used_so_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "plan.yaml"), *_lab(tmp_path, become_sealed=True)]) == 5
    err = capsys.readouterr().err
    assert "inventory host db1" in err and "ansible_become_password" in err and "example2" in err, err
