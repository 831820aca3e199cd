"""Secrets under any documented name, or declared with ``planner_secrets``, never reach the record, the store
or an error (issue 24 row 9); the mechanism's one home is planner.redaction (docs/secrets.md)."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

import pytest
from test_safety_secrets import _leaks

from planner.cli.main import main
from planner.redaction import MASK, is_secret_name, mask_url, secret_values

SECRETS = {"asm_pwd": "Asm-pwd-4711", "tde_wallet_pwd": "Tde-wallet-4712", "api_key": "Api-key-4713",
           "db_passphrase": "Pass-phrase-4714", "vault_token": "Vault-token-4715"}


@pytest.mark.parametrize("name", [*SECRETS, "sys_password", "ansible_ssh_pass", "ansible_become_pass", "dbPassword",
                                  "AWS_SECRET_ACCESS_KEY", "db_credentials", "ssh_key", "root_pw", "my_secret",
                                  "apikey", "github-token", "ansible_password"])
def test_every_documented_secret_name_is_one(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["readers", "keep_prep", "workload", "sys_password_env", "sys_password_file",
                                  "ansible_ssh_private_key_file", "wallet_path", "keyspace", "monkey",
                                  "passes", "planner_secrets", "bypass_cache", "ansible_host_key_checking", "key_size",
                                  "pass_count"])
def test_ordinary_names_and_pointers_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_declared_names_are_secrets_at_any_length_guessed_ones_from_four_characters() -> None:
    scopes = [{"planner_secrets": ["wallet_phrase"], "readers": 16}, {"wallet_phrase": "ab", "api_key": "xyz",
                                                                      "token": {"a": ["Long-enough"]}}]
    assert secret_values(scopes) == ("ab", "Long-enough")
    assert secret_values([{"ssh_key": "false", "api_key": "None", "vault_token": "true"}]) == ()


PLAN = """\
plan: names
vars:
  planner_secrets: [plan_side]
plays:
  - name: p
    hosts: lab
    workloads:
      - command: {argv: [sh, -c, 'echo "$1 $2 $3 $4 $5 $6 $7"', sh, "{{ asm_pwd }}", "{{ tde_wallet_pwd }}",
                         "{{ api_key }}", "{{ db_passphrase }}", "{{ vault_token }}", "{{ wallet_phrase }}",
                         "{{ plan_side }}"]}
"""


@pytest.mark.slow
def test_secret_names_and_declared_ones_are_redacted_in_record_and_store(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "host"
    root.mkdir()
    inv_vars = " ".join(f"{k}={v}" for k, v in SECRETS.items() if k != "vault_token")
    (tmp_path / "hosts.ini").write_text(
        f"[lab]\nalpha ansible_connection=local planner_root={root} {inv_vars} wallet_phrase=Wph-4716\n"
        "[lab:vars]\nplanner_secrets=['wallet_phrase']\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-v",
                 "--runs-dir", str(tmp_path / "runs"), "-e", f"vault_token={SECRETS['vault_token']}",
                 "-e", "plan_side=Ps-4717"])
    console = capsys.readouterr().out
    assert code == 0, console
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert f"{MASK} " * 6 + MASK in (run / "commands.jsonl").read_text()  # the command ran, its output masked
    store = tmp_path / "runs" / "planner.sqlite"
    assert store.is_file()
    with sqlite3.connect(store) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        rows = "\n".join(str(r) for t in tables for r in db.execute(f"select * from {t}"))
    for secret in [*SECRETS.values(), "Wph-4716", "Ps-4717"]:
        assert _leaks(run, console, secret) == [], secret
        assert secret not in rows and secret.encode() not in store.read_bytes()
        inventory_copy = "\n".join(p.read_text() for p in (run / "inventory").rglob("*") if p.is_file())
        assert secret not in inventory_copy


def test_a_secret_is_never_echoed_in_a_validate_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local db_passphrase=Echo-me-not-4718\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: echo
        plays:
          - name: p
            hosts: lab
            workloads:
              - fio: {target: /tmp/f, rw: "{{ db_passphrase }}", bs: 8k, size: 1m, runtime: 1}
        """))
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5 and "fio would refuse rw=" in err, err
    assert "Echo-me-not-4718" not in err and MASK in err


@pytest.mark.parametrize("url", ["sqlite://scott:Tiger-4719@/tmp/x.sqlite", "sqlite:///tmp/x.sqlite?password=Tiger-4719",
                                 "postgresql://scott:Tiger-4719@127.0.0.1:bad/db",
                                 "nosuch://scott:Tiger-4719@127.0.0.1/db"])
def test_a_store_url_with_a_password_is_masked_in_its_error(url: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["runs", "--store", url, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 5, err
    assert "Tiger-4719" not in err and "store URL" in err


def test_mask_url() -> None:
    assert mask_url("postgresql://u:pw-1@h/db?sslmode=require&api_token=t-2") == \
        f"postgresql://u:{MASK}@h/db?sslmode=require&api_token={MASK}"
