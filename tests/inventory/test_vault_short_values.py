"""Issue 40 High 3 and the structure rule: a vaulted vars file holding ordinary short values ("2", "lab") masked
every 2 of the record, its run id and times included, and report/show/restore then refused the run.

A vaulted or declared value too short or common to mask is said once, by name, and not masked; the record's
own structure (run id, ISO times, JSON keys) is never masked, whatever secret happens to be part of it."""

from __future__ import annotations

import binascii
import hmac
import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from planner.cli.apply import load, secrets_of
from planner.engine.runrecord import RunRecord
from planner.inventory.vault import _keys
from planner.inventory.vault_ids import VaultOptions, vault_keys
from planner.redaction import MASK, SecretText, redact_text, secret_values, unmasked_names

VAULTED = {"sessions": SecretText("2"), "site": SecretText("lab"), "port": SecretText("1521"),
           "wallet": SecretText("Real-s3cret-value")}


def test_short_vaulted_values_are_not_masked_and_are_named() -> None:
    assert secret_values([VAULTED]) == ("Real-s3cret-value",)
    assert unmasked_names([VAULTED]) == ["sessions", "site", "port"]
    # a secret by its name keeps today's rule (4 characters or more)
    assert secret_values([{"db_password": SecretText("1521")}]) == ("1521",)
    assert unmasked_names([{"db_password": SecretText("1521")}]) == []


def test_the_record_keeps_its_run_id_times_and_keys(tmp_path: Path) -> None:
    secrets = (*secret_values([VAULTED]), "2026", "status")  # as if both were real, long-enough secrets
    rec = RunRecord(tmp_path, "p", secrets=secrets)
    rec.write_meta(run_id=rec.id, started="2026-12-07T01:24:43.123456Z", status="running",
                   note="2 lab 1521 Real-s3cret-value 2026 status")
    meta = json.loads((rec.path / "meta.json").read_text())
    assert meta["run_id"] == rec.id and rec.path.name == rec.id
    assert meta["started"] == "2026-12-07T01:24:43.123456Z" and meta["status"] == "running"
    assert meta["note"] == f"2 lab 1521 {MASK} {MASK} {MASK}"
    assert redact_text(f"run {rec.id} at 2026-12-07T01:24:43Z: 2026", secrets) == f"run {rec.id} at " \
                                                                                 f"2026-12-07T01:24:43Z: {MASK}"


def vault(plaintext: str, password: bytes) -> str:
    """ansible-vault's 1.1 envelope (the format planner.inventory.vault opens), made here for the test."""
    salt = os.urandom(32)
    aes_key, mac_key, counter = _keys(password, salt)
    padder = padding.PKCS7(algorithms.AES.block_size).padder()
    padded = padder.update(plaintext.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(aes_key), modes.CTR(counter)).encryptor()
    data = encryptor.update(padded) + encryptor.finalize()
    mac = hmac.new(mac_key, data, "sha256").digest()
    body = binascii.hexlify(b"\n".join(binascii.hexlify(x) for x in (salt, mac, data))).decode()
    return "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(body[i:i + 80] for i in range(0, len(body), 80)) + "\n"


def test_a_short_vaulted_value_is_said_once_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("plan: p\nplays:\n  - name: p\n    hosts: all\n    workloads:\n"
                    "      - command: {argv: [echo, '{{ sessions }}']}\n")
    (tmp_path / "inv/group_vars").mkdir(parents=True)
    (tmp_path / "inv/hosts.yml").write_text("all:\n  hosts:\n    h1: {ansible_connection: local}\n")
    (tmp_path / "inv/group_vars/all.yml").write_text(vault("sessions: '2'\nsite: lab\nwallet: Real-s3cret\n",
                                                             b"pw"))
    (tmp_path / "pass").write_text("pw\n")
    keys = vault_keys(VaultOptions((str(tmp_path / "pass"),), ()), lambda _: pytest.fail("no prompt"), environ={})
    loaded = load(plan, [tmp_path / "inv"], [], vault=keys)
    err = capsys.readouterr().err
    assert err.count("too short or common to mask") == 1 and "sessions, site" in err and "'2'" not in err
    assert secrets_of(loaded.plan, loaded.inventory, loaded.extra_vars) == ("Real-s3cret",)
