"""Vaulted and script inventories against the real thing: files vaulted by ansible-core's own ``ansible-vault``
(``encrypt`` and ``encrypt_string``, 1.1 and 1.2 with a vault id), then ``ansible-inventory --list`` and
``planner inventory --list`` with the same flags must print the same JSON.

ansible-core runs from its own venv (never a planner dependency), made once in a cache folder
($PLANNER_ANSIBLE_VENV, default ~/.cache/planner-tests/ansible-core). Skipped only where it cannot be
installed, and never in CI (CI=true fails instead).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

DB_SECRET = "Inline-db-s3cret-%7"
ASM_SECRET = "Asm-file-s3cret!"


def _venv_dir() -> Path:
    return Path(os.environ.get("PLANNER_ANSIBLE_VENV") or Path.home() / ".cache" / "planner-tests" / "ansible-core")


def _install(venv: Path) -> str | None:
    """Create the venv with ansible-core; why not, when it cannot be."""
    for argv in ([sys.executable, "-m", "venv", str(venv)],
                 [str(venv / "bin" / "pip"), "install", "-q", "ansible-core>=2.15"]):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{argv[0]}: {exc}"
        if done.returncode != 0:
            return done.stderr.strip()[-500:]
    return None


@pytest.fixture(scope="module")
def ansible() -> Path:
    """The bin/ folder of a venv holding ansible-core (made under a lock: parallel test runs share it)."""
    venv = _venv_dir()
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        why = None if (venv / "bin" / "ansible-inventory").exists() else _install(venv)
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"ansible-core could not be installed in CI: {why}")
        pytest.skip(f"ansible-core cannot be installed here: {why}")
    return venv / "bin"


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ANSIBLE_VAULT_PASSWORD_FILE"}
    return {**env, "ANSIBLE_CONFIG": str(tmp / "none.cfg"), "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_LOCAL_TEMP": str(tmp / "ansible-tmp")}


def _tool(ansible: Path, tmp: Path, name: str, *args: str,
          stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(ansible / name), *args], input=stdin, capture_output=True, text=True, cwd=tmp,
                          env=_env(tmp), timeout=300)
    assert done.returncode == 0, f"{name} {args}: {done.stderr}"
    return done


def _planner_list(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[object, str]:
    capsys.readouterr()
    code = main(["inventory", "--list", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def vaulted_inventory(ansible: Path, tmp: Path) -> tuple[Path, list[str]]:
    """An inventory as a DBA team keeps one: an inline 1.2 value, a vaulted group_vars file (1.1) and a
    vaulted host_vars file (1.2, another id); returns it and the vault flags that open it."""
    (tmp / "default.pass").write_text("Tr0ub4dor&3\n")
    (tmp / "prod.pass").write_text("correct horse battery staple\n")
    inv = tmp / "inv"
    (inv / "group_vars").mkdir(parents=True)
    (inv / "host_vars").mkdir()
    inline = _tool(ansible, tmp, "ansible-vault", "encrypt_string", "--vault-id", f"prod@{tmp / 'prod.pass'}",
                   DB_SECRET, "--name", "db_password").stdout
    (inv / "hosts.yml").write_text("all:\n  children:\n    dbs:\n      hosts:\n        db1:\n          ansible_host: "
                                   "127.0.0.1\n" + textwrap.indent(inline, " " * 10) + "        db2:\n")
    (inv / "group_vars" / "dbs.yml").write_text(f"asm_admin: '{ASM_SECRET}'\nsga_gb: 24\nlisteners: [A, B]\n")
    (inv / "host_vars" / "db2.yml").write_text("ansible_port: 2222\nwallet: {phrase: w4llet-phrase}\n")
    _tool(ansible, tmp, "ansible-vault", "encrypt", "--vault-password-file", str(tmp / "default.pass"),
          str(inv / "group_vars" / "dbs.yml"))
    _tool(ansible, tmp, "ansible-vault", "encrypt", "--vault-id", f"prod@{tmp / 'prod.pass'}",
          str(inv / "host_vars" / "db2.yml"))
    assert (inv / "host_vars" / "db2.yml").read_text().startswith("$ANSIBLE_VAULT;1.2;AES256;prod\n")
    return inv, ["--vault-password-file", str(tmp / "default.pass"), "--vault-id", f"prod@{tmp / 'prod.pass'}"]


def test_a_vaulted_inventory_lists_as_ansible_inventory_lists_it(ansible: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    inv, flags = vaulted_inventory(ansible, tmp_path)
    expected = json.loads(_tool(ansible, tmp_path, "ansible-inventory", "-i", str(inv), "--list", *flags).stdout)
    ours, _ = _planner_list(capsys, "-i", str(inv), *flags)
    assert ours == expected
    db1 = expected["_meta"]["hostvars"]["db1"]
    assert db1["asm_admin"] == ASM_SECRET and "__ansible_vault" in db1["db_password"]  # what both agree on


SCRIPT_WITH_META = """\
    #!/bin/sh
    cat <<'EOF'
    {"oracle": {"hosts": ["db1", "db2"], "vars": {"oracle_sid": "ORCL", "sga": [1, 2]}, "children": ["dg"]},
     "dg": ["db3"], "all": {"vars": {"ansible_user": "oracle"}},
     "_meta": {"hostvars": {"db1": {"ansible_host": "10.0.0.1", "ansible_port": 1522}, "db3": {"role": "dg"}}}}
    EOF
    """
SCRIPT_WITHOUT_META = """\
    #!/bin/sh
    case "$1" in
      --list) echo '{"web-tier": {"hosts": ["w1", "w2"], "vars": {"tier": 1}}, "ungrouped": ["lone"]}' ;;
      --host) [ "$2" = w1 ] && echo '{"ansible_host": "127.0.0.2"}' ;;
    esac
    exit 0
    """


@pytest.mark.parametrize("script", [SCRIPT_WITH_META, SCRIPT_WITHOUT_META], ids=["meta", "host-calls"])
def test_a_script_inventory_lists_identically(ansible: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              script: str) -> None:
    path = tmp_path / "inventory.sh"
    path.write_text(textwrap.dedent(script))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    expected = json.loads(_tool(ansible, tmp_path, "ansible-inventory", "-i", str(path), "--list").stdout)
    ours, _ = _planner_list(capsys, "-i", str(path))
    assert ours == expected


def test_the_group_name_warning_is_ansible_inventorys(ansible: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[web-servers]\nw1\n")
    theirs = _tool(ansible, tmp_path, "ansible-inventory", "-i", str(tmp_path / "hosts.ini"), "--list").stderr
    _, ours = _planner_list(capsys, "-i", str(tmp_path / "hosts.ini"))
    assert ours.strip() and ours.strip() in theirs.splitlines()
