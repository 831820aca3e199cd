"""A plan reaches a loopback lab host (real sshd) with passwords from Ansible Vault, and no decrypted value lands
in the run record, the report, the results store or the console.

The vaulted values are the ones ansible-core's ansible-vault wrote (tests/data/inventory/vault): an inline
``!vault`` value and a whole vaulted file with vault id ``prod``, both in the lab's group_vars/all/.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow, pytest.mark.timeout(300)]

VAULT = Path(__file__).parents[2] / "data" / "inventory" / "vault"
INLINE_SECRET = "Inline-db-s3cret"
FILE_SECRET = "Asm-vaulted-s3cret"

PLAN = ("""\
plan: vaulted_login
plays:
  - name: login
    hosts: all
    workloads:
      - command:
          argv: [sh, -c, 'test "$(printf %s "$1" | sha256sum | cut -d" " -f1)" = "$3" && """
          """echo "db login with $1, asm $2"',
                 sh, "{{ db_password }}", "{{ asm_admin }}", "HASH"]
""")


def lab_with_vault(lab: Lab, tmp: Path) -> Path:
    inv = tmp / "inv"
    lab.write_inventory(inv / "hosts.yml")
    inline = (VAULT / "hosts.yml").read_text().split("      db_password: ", 1)[1].split("  children:", 1)[0]
    (inv / "group_vars" / "all").mkdir(parents=True)
    (inv / "group_vars" / "all" / "inline.yml").write_text("db_password: " + inline.replace(" " * 16, "  "))
    shutil.copy(VAULT / "group_vars" / "all.yml", inv / "group_vars" / "all" / "vaulted.yml")
    return inv


def _forms(secret: str) -> list[bytes]:
    return sorted({secret.encode(), json.dumps(secret)[1:-1].encode()})


def test_a_plan_uses_vaulted_passwords_and_no_record_or_store_holds_them(
        lab: Lab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = lab_with_vault(lab, tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.replace("HASH", hashlib.sha256(INLINE_SECRET.encode()).hexdigest()))
    runs = tmp_path / "runs"
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "-v",
                 "--vault-password-file", str(VAULT / "default.pass"), "--vault-id", f"prod@{VAULT / 'prod.pass'}"])
    out, err = capsys.readouterr()
    assert code == 0, out + err  # the host ran the step only with the right plaintext: its sha256 matched
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    assert "db login with ********, asm ********" in (run / "commands.jsonl").read_text()
    assert (runs / "planner.sqlite").exists()
    leaks = [f"{p.relative_to(runs)}: {form!r}" for p in runs.rglob("*") if p.is_file()
             for secret in (INLINE_SECRET, FILE_SECRET) for form in _forms(secret) if form in p.read_bytes()]
    assert leaks == []
    assert INLINE_SECRET not in out + err and FILE_SECRET not in out + err


def test_without_the_vault_password_nothing_is_run(lab: Lab, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    inv = lab_with_vault(lab, tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.replace("HASH", "0"))
    assert main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs")]) == 5
    err = capsys.readouterr().err
    assert "encrypted with Ansible Vault (vault id 'prod') and no vault password was given" in err
    assert not (tmp_path / "runs").exists() or not any(p.is_dir() for p in (tmp_path / "runs").iterdir())
