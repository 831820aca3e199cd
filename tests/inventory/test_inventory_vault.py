"""Ansible Vault in inventories, vault passwords, inventory scripts, --syntax-check and the group-name warning.

The vaulted files under data/inventory/vault were written by ansible-core 2.19's own ``ansible-vault``
(``encrypt_string`` for the inline value, ``encrypt --vault-id prod@prod.pass`` for group_vars/all.yml);
tests/test_inventory_vault_ansible.py compares against a live ansible-inventory as well.
"""

from __future__ import annotations

import json
import stat
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.inventory.graph import load_inventory
from planner.inventory.script import run_script
from planner.inventory.vault import VaultError, VaultKeys, VaultPassword, VaultText, decrypt
from planner.inventory.vault_ids import VaultOptions, vault_keys
from planner.inventory.views import ansible_list
from planner.redaction import MASK, SecretText, redact_value, secret_values

VAULT = Path(__file__).parents[1] / "data" / "inventory" / "vault"
DEFAULT = str(VAULT / "default.pass")
PROD = f"prod@{VAULT / 'prod.pass'}"
INLINE_SECRET = "Inline-db-s3cret"
FILE_SECRET = "Asm-vaulted-s3cret"


def keys(*files: str, ids: tuple[str, ...] = ()) -> VaultKeys:
    return vault_keys(VaultOptions(tuple(files), ids), lambda _: pytest.fail("no prompt expected"), environ={})


def inventory_list(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object], str]:
    code = main(["inventory", "--list", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


def executable(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# -- vault ---------------------------------------------------------------------------------------------------

def test_inline_and_file_vaults_open_with_their_passwords() -> None:
    host = load_inventory(VAULT / "hosts.yml", keys(DEFAULT, ids=(PROD,))).hosts["db1"]
    assert host.vars["db_password"] == INLINE_SECRET and isinstance(host.vars["db_password"], VaultText)
    assert host.vars["asm_admin"] == FILE_SECRET and isinstance(host.vars["asm_admin"], SecretText)
    assert host.vars["sga_gb"] == 24 and host.vars["listeners"] == ["LISTENER", "LISTENER_DG"]


def test_listing_shows_inline_ciphertext_and_decrypted_files_as_ansible_inventory() -> None:
    listed = ansible_list(load_inventory(VAULT / "hosts.yml", keys(DEFAULT, ids=(PROD,))))
    db1 = listed["_meta"]["hostvars"]["db1"]
    assert db1["db_password"]["__ansible_vault"].startswith("$ANSIBLE_VAULT;1.1;AES256\n")
    assert db1["asm_admin"] == FILE_SECRET  # ansible-inventory prints a vaulted file's values decrypted
    assert INLINE_SECRET not in json.dumps(listed)


def test_without_a_password_exit_5_names_vault_the_file_and_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    """Before: 'a variables file must be a mapping' for group_vars/all.yml, with no word of Vault."""
    code, _, err = inventory_list(capsys, "-i", str(VAULT / "hosts.yml"))
    assert code == 5
    assert f"{VAULT / 'group_vars' / 'all.yml'}:1:1: cannot read this variables file: it is encrypted with Ansible " \
           "Vault (vault id 'prod') and no vault password was given" in err
    # the inline value is not refused by itself: Ansible decrypts it only when used (tests/test_ansible_vault_lazy.py)
    assert f"{VAULT / 'hosts.yml'}:6:7: cannot decrypt this !vault value" not in err
    assert "--vault-password-file FILE" in err and "--ask-vault-pass" in err
    assert "must be a mapping" not in err and "Traceback" not in err


def test_a_wrong_password_is_exit_5_and_says_which_were_tried(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.pass"
    wrong.write_text("not-it\n")
    code, _, err = inventory_list(capsys, "-i", str(VAULT / "hosts.yml"), "--vault-password-file", str(wrong))
    assert code == 5 and f"no vault password given opens this Ansible Vault (vault id 'prod') (tried: {wrong})" in err


@pytest.mark.slow
def test_every_password_source_as_ansible_takes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    script = executable(tmp_path / "prod-client", """\
        #!/bin/sh
        [ "$1 $2" = "--vault-id prod" ] || { echo "asked for $*" >&2; exit 3; }
        echo Pr0d-vault-pass
        """)
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", DEFAULT)
    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda text: asked.append(text) or "Tr0ub4dor-default")
    code, listed, err = inventory_list(capsys, "-i", str(VAULT / "hosts.yml"), "--vault-id", f"prod@{script}", "-J")
    assert code == 0, err
    assert asked == ["Vault password: "]
    assert listed["_meta"]["hostvars"]["db1"]["asm_admin"] == FILE_SECRET  # type: ignore[index]


@pytest.mark.slow
def test_a_missing_or_failing_password_source_is_exit_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    failing = executable(tmp_path / "pw.sh", "#!/bin/sh\necho 'keyring locked' >&2\nexit 2\n")
    code, _, err = inventory_list(capsys, "-i", str(VAULT / "hosts.yml"), "--vault-password-file",
                                  str(tmp_path / "absent"), "--vault-id", f"x@{failing}")
    assert code == 5
    assert f"the vault password file {tmp_path / 'absent'} was not found" in err
    assert "exited with code 2: keyring locked" in err


def test_vault_1_2_label_is_tried_first_then_every_password() -> None:
    text = (VAULT / "group_vars" / "all.yml").read_text()
    right = VaultPassword("other-label", b"Pr0d-vault-pass", "x")
    assert FILE_SECRET in decrypt(text, VaultKeys((VaultPassword("prod", b"bad", "y"), right)))
    with pytest.raises(VaultError, match="no vault password given opens"):
        decrypt(text, VaultKeys((VaultPassword("prod", b"bad", "y"),)))


def test_a_damaged_vault_is_a_problem_not_a_traceback() -> None:
    text = (VAULT / "group_vars" / "all.yml").read_text()
    with pytest.raises(VaultError, match="hex payload"):
        decrypt(text[:60] + "zz" + text[62:], keys(DEFAULT))
    with pytest.raises(VaultError, match="cipher 'AES'"):
        decrypt("$ANSIBLE_VAULT;1.1;AES\n00\n", keys(DEFAULT))


def test_decrypted_values_are_secrets_whatever_their_name() -> None:
    host = load_inventory(VAULT / "hosts.yml", keys(DEFAULT, ids=(PROD,))).hosts["db1"]
    secrets = secret_values([dict(host.vars)])
    assert INLINE_SECRET in secrets and FILE_SECRET in secrets  # asm_admin is no secret by its name
    shown = redact_value({"log": f"connect asm {FILE_SECRET} db {INLINE_SECRET}"}, secrets)
    assert shown == {"log": f"connect asm {MASK} db {MASK}"}
    assert repr(host.vars["asm_admin"]) == repr(MASK)  # an error quoting it with !r quotes the mask


def test_a_vaulted_group_vars_file_beside_an_ini_inventory(tmp_path: Path) -> None:
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "hosts.ini").write_text("db1\n")
    text = (VAULT / "group_vars" / "all.yml").read_text()
    (tmp_path / "group_vars" / "all.yml").write_text(text)
    inv = load_inventory(tmp_path / "hosts.ini", keys(ids=(PROD,)))
    assert inv.hosts["db1"].vars["asm_admin"] == FILE_SECRET


# -- scripts ------------------------------------------------------------------------------------------------

LISTING = {
    "oracle": {"hosts": ["db1", "db2"], "vars": {"oracle_sid": "ORCL"}, "children": ["standby"]},
    "standby": ["db3"],
    "web": {"hosts": ["w1"], "vars": {"ansible_port": 2222}},
    "_meta": {"hostvars": {"db1": {"ansible_host": "10.0.0.1"}, "db3": {"role": "dg"}}},
}


@pytest.mark.slow
def test_a_script_inventory_is_run_with_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: an executable -i file was read as INI ("expected key=value host variable")."""
    script = executable(tmp_path / "inventory.py", f"""\
        #!/bin/sh
        [ "$1" = --list ] || exit 9
        echo '{json.dumps(LISTING)}'
        """)
    code, listed, err = inventory_list(capsys, "-i", str(script))
    assert code == 0, err
    assert listed["oracle"] == {"hosts": ["db1", "db2"], "children": ["standby"]}
    assert listed["web"] == {"hosts": ["w1"]}
    hostvars = listed["_meta"]["hostvars"]  # type: ignore[index]
    assert hostvars["db1"] == {"ansible_host": "10.0.0.1", "oracle_sid": "ORCL"}
    assert hostvars["w1"] == {"ansible_port": 2222} and hostvars["db3"]["role"] == "dg"


@pytest.mark.slow
def test_without_meta_each_host_is_asked_with_host(tmp_path: Path) -> None:
    script = executable(tmp_path / "inv.sh", """\
        #!/bin/sh
        case "$1" in
          --list) echo '{"dbs": {"hosts": ["db1", "db2"]}}' ;;
          --host) [ "$2" = db1 ] && echo "{\\"ansible_port\\": 1521}" ;;
        esac
        exit 0
        """)
    inv = load_inventory(script)
    assert inv.hosts["db1"].port == 1521 and "ansible_port" not in inv.hosts["db2"].vars


@pytest.mark.slow
def test_a_failing_script_is_exit_5_with_its_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = executable(tmp_path / "cmdb.sh", "#!/bin/sh\necho 'CMDB token expired' >&2\nexit 1\n")
    code, _, err = inventory_list(capsys, "-i", str(script))
    assert code == 5
    assert f"{script}:1:1: inventory script: 'cmdb.sh --list' exited with code 1; it said: CMDB token expired" in err


@pytest.mark.slow
def test_a_script_printing_no_json_is_exit_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = executable(tmp_path / "inv.sh", "#!/bin/sh\necho '[web]'\n")
    code, _, err = inventory_list(capsys, "-i", str(script))
    assert code == 5 and "'inv.sh --list' did not print JSON" in err


@pytest.mark.slow
def test_a_script_run_is_bounded_in_time_and_output(tmp_path: Path) -> None:
    hung = executable(tmp_path / "hung.sh", "#!/bin/sh\nexec sleep 600\n")
    assert run_script(hung, ["--list"], timeout=0.3).failure == "did not finish within 0.3 s"
    chatty = executable(tmp_path / "chatty.sh", "#!/bin/sh\nexec yes\n")
    run = run_script(chatty, ["--list"], max_bytes=1 << 20)
    assert run.failure == "printed more than 1 MiB" and len(run.stdout) <= 1 << 20


# -- syntax check and warnings ------------------------------------------------------------------------------

def test_apply_syntax_check_is_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("db1 ansible_connection=local\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text("plan: p\nplays:\n  - name: p\n    hosts: all\n    workloads:\n"
                    "      - command: {argv: [\"true\"]}\n")
    assert main(["apply", "--syntax-check", str(plan), "-i", str(tmp_path / "hosts.ini")]) == 0
    assert f"{plan}: ok" in capsys.readouterr().out
    plan.write_text("plan: p\nplays:\n  - name: p\n    hosts: nowhere\n")
    assert main(["apply", "--syntax-check", str(plan), "-i", str(tmp_path / "hosts.ini")]) == 5
    assert not (tmp_path / "runs").exists()


def test_invalid_group_names_warn_in_ansible_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[web-servers]\nw1\n[1st]\nw2\n[ok_group]\nw3\n")
    code, _, err = inventory_list(capsys, "-i", str(tmp_path / "hosts.ini"))
    assert code == 0
    assert err == ("[WARNING]: Invalid characters were found in group names but not replaced, use -vvvv to see "
                   "details\n")
    (tmp_path / "hosts.ini").write_text("[ok_group]\nw3\n")
    assert inventory_list(capsys, "-i", str(tmp_path / "hosts.ini"))[2] == ""


def test_a_vaulted_inventory_file_is_read_and_its_values_are_secrets(tmp_path: Path) -> None:
    source = tmp_path / "hosts.ini"
    source.write_text((VAULT / "hosts.ini.vault").read_text())
    host = load_inventory(source, keys(DEFAULT)).hosts["db7"]
    assert host.port == 2222 and host.vars["asm_pass_word"] == "Ini-vaulted-s3cret"
    assert "Ini-vaulted-s3cret" in secret_values([dict(host.vars)])


def test_decrypted_values_survive_copy_and_pickle_as_what_they_are() -> None:
    import copy
    import pickle

    value = load_inventory(VAULT / "hosts.yml", keys(DEFAULT, ids=(PROD,))).hosts["db1"].vars["db_password"]
    for again in (copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert isinstance(again, VaultText) and again == INLINE_SECRET and again.ciphertext == value.ciphertext


@pytest.mark.slow
def test_a_script_may_answer_vaulted_values_as_ansible_inventory_prints_them(tmp_path: Path) -> None:
    ciphertext = (VAULT / "hosts.yml").read_text().split("db_password: !vault |\n", 1)[1].split("  children:")[0]
    ciphertext = "\n".join(line.strip() for line in ciphertext.splitlines()) + "\n"
    listing = {"dbs": {"hosts": ["db1"]}, "_meta": {"hostvars": {"db1": {
        "db_password": {"__ansible_vault": ciphertext}}}}}
    (tmp_path / "listing.json").write_text(json.dumps(listing))
    script = executable(tmp_path / "inv.sh", f"#!/bin/sh\ncat '{tmp_path / 'listing.json'}'\n")
    inv = load_inventory(script, keys(DEFAULT))
    assert inv.hosts["db1"].vars["db_password"] == INLINE_SECRET
    assert ansible_list(inv)["_meta"]["hostvars"]["db1"]["db_password"] == {"__ansible_vault": ciphertext}


@pytest.mark.slow
def test_a_script_named_without_a_folder_is_the_one_here_not_one_on_path(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: `-i inv.sh` ran `inv.sh` looked up on PATH ("No such file or directory")."""
    executable(tmp_path / "inv.sh", "#!/bin/sh\necho '{\"dbs\": [\"db1\"]}'\n")
    monkeypatch.chdir(tmp_path)
    assert list(load_inventory(Path("inv.sh")).hosts) == ["db1"]
