"""Issue 39: passwords written inside connect strings and scripts (``system/pw@db``, ``rman/pw@rcat``,
``sqlplus user/pw``, ``IDENTIFIED BY``) and in variables named ``dbpwd`` or ``tde_keystore_pin`` reached
commands.jsonl, results.json, plan.resolved.yaml, meta.json and the inventory copy in clear, since only the
values of variables known to be secret were masked. A login's password is now masked by its shape."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from planner.engine.runrecord import RunRecord
from planner.redaction import MASK, is_secret_name, mask_logins, secret_values
from planner.transport.connection import CommandResult

LOGINS = ["sqlplus system/Manager1@db", "rman target sys/Change0n catalog rman/Rc4t-pw@rcat",
          "sqlplus -s scott/Tiger9x", "CONNECT hr/Hr-pw-77@//h:1521/pdb", "ALTER USER x IDENTIFIED BY \"Q u0te\"",
          'admin "system/Ad-min-9@PDB1"', "soe/\"Sw'ng-pw\"@//db/soe"]
PASSWORDS = ["Manager1", "Change0n", "Rc4t-pw", "Tiger9x", "Hr-pw-77", "Q u0te", "Ad-min-9", "Sw'ng-pw"]


@pytest.mark.parametrize("text", LOGINS)
def test_a_login_password_is_masked_by_its_shape(text: str) -> None:
    out = mask_logins(text)
    assert MASK in out and not any(p in out for p in PASSWORDS), out


@pytest.mark.parametrize("text", ["sqlplus -s / as sysdba", "/u01/app/oracle/x@y", "I/O at 8k @ 4 threads",
                                  "runs/20261207T010000Z-p/meta.json", "https://h/x@y"])
def test_what_is_not_a_login_is_left_alone(text: str) -> None:
    assert mask_logins(text) == text


def test_names_dbpwd_and_tde_keystore_pin_say_secret() -> None:
    assert is_secret_name("dbpwd") and is_secret_name("tde_keystore_pin") and is_secret_name("wallet_pin")
    assert secret_values([{"dbpwd": "Db-pw-123", "tde_keystore_pin": "Pin-4567"}]) == ("Db-pw-123", "Pin-4567")


def test_the_record_holds_no_login_password_even_without_known_secrets(tmp_path: Path) -> None:
    rec = RunRecord(tmp_path, "p")  # no secrets known: the passwords are literals in the plan
    for text in LOGINS:
        rec.log_command("h1", "plays[0].workloads[0]", CommandResult(text, 0, f"ran {text}", "", 0.1, stdin=text))
    rec.write("results.json", [{"msg": t} for t in LOGINS])
    rec.write_text("plan.resolved.yaml", "\n".join(LOGINS))
    rec.write_meta(argv=LOGINS)
    rec.close()
    for name in ("commands.jsonl", "results.json", "plan.resolved.yaml", "meta.json"):
        text = (rec.path / name).read_text()
        assert not any(p in text or json.dumps(p)[1:-1] in text for p in PASSWORDS), name


def test_a_secret_holding_a_quote_is_masked_as_the_shell_quotes_it(tmp_path: Path) -> None:
    """Issue 40 Medium (Swingbench): a password holding `'` appeared shell-quoted, so unmasked, in commands.jsonl."""
    secret = "it's-Sw1ng-pw"
    rec = RunRecord(tmp_path, "p", secrets=(secret,))
    line = shlex.join(["charbench", "-u", "soe", "-p", secret, "-cs", "//db/soe"])
    rec.log_command("h1", "plays[0].workloads[0]", CommandResult(line, 0, "", "", 0.1))
    rec.close()
    text = (rec.path / "commands.jsonl").read_text()
    assert "Sw1ng" not in text and f"-p {MASK} -cs" in json.loads(text)["command"]
