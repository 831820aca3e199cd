"""Where vault passwords come from, as ansible-playbook takes them: ``--vault-password-file FILE``,
``--vault-id [LABEL@]FILE|prompt``, ``--ask-vault-pass``, ``$ANSIBLE_VAULT_PASSWORD_FILE``,
``$ANSIBLE_VAULT_IDENTITY_LIST`` (default vault ids) and ``$ANSIBLE_VAULT_ID_MATCH``.

A password file is read and stripped; an executable one is run (bounded, as inventory scripts are) and its
output is the password, with ``--vault-id LABEL`` passed to a ``*-client`` script as Ansible passes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.errors import InputError, Problem
from planner.inputs import read_input
from planner.inventory.data import to_bool
from planner.inventory.script import run_script
from planner.inventory.vault import DEFAULT_ID, VaultKeys, VaultPassword

ENV_FILE = "ANSIBLE_VAULT_PASSWORD_FILE"
ENV_IDS = "ANSIBLE_VAULT_IDENTITY_LIST"  # default --vault-id values, comma separated, before the command line's
ENV_MATCH = "ANSIBLE_VAULT_ID_MATCH"  # true: a vault is tried only with the password of its own vault id
_MAX_PASSWORD_BYTES = 64 << 10


@dataclass(frozen=True, slots=True)
class VaultOptions:
    """The vault flags of one command line."""

    password_files: tuple[str, ...] = ()
    vault_ids: tuple[str, ...] = ()
    ask: bool = False


def vault_keys(options: VaultOptions, prompt: Callable[[str], str],
               environ: Mapping[str, str] = os.environ) -> VaultKeys:
    """Every password the options name, read once; InputError (exit 5) lists every one that cannot be read."""
    wanted: list[tuple[str, str]] = [(DEFAULT_ID, f) for f in options.password_files]
    if environ.get(ENV_FILE):
        wanted.append((DEFAULT_ID, environ[ENV_FILE]))
    from_env = [v.strip() for v in environ.get(ENV_IDS, "").split(",") if v.strip()]
    for vault_id in [*from_env, *options.vault_ids]:
        label, sep, source = vault_id.rpartition("@")
        wanted.append((label if sep and label else DEFAULT_ID, source))
    if options.ask:
        wanted.insert(0, (DEFAULT_ID, "prompt"))
    passwords: list[VaultPassword] = []
    problems: list[Problem] = []
    for label, source in dict.fromkeys(wanted):
        try:
            passwords.append(_password(label, source, prompt))
        except ValueError as exc:
            problems.append(Problem(None, "", str(exc), "check the --vault-password-file / --vault-id given "
                                    f"(or ${ENV_FILE})"))
    if problems:
        raise InputError(problems)
    return VaultKeys(tuple(passwords), id_match=bool(to_bool(environ.get(ENV_MATCH, "false"))))


def _password(label: str, source: str, prompt: Callable[[str], str]) -> VaultPassword:
    if source == "prompt":
        shown = "Vault password: " if label == DEFAULT_ID else f"Vault password ({label}): "
        return _checked(VaultPassword(label, prompt(shown).encode(), "prompt"))
    path = Path(source).expanduser()
    if not path.is_file():
        raise ValueError(f"the vault password file {source} was not found")
    if os.access(path, os.X_OK):
        return _checked(VaultPassword(label, _from_script(path, label), source))
    text = read_input(path, "vault password file")
    return _checked(VaultPassword(label, text.strip().encode(), source))


def _from_script(path: Path, label: str) -> bytes:
    args: Sequence[str] = ["--vault-id", label] if path.stem.endswith("-client") else []
    run = run_script(path, list(args), max_bytes=_MAX_PASSWORD_BYTES)
    if run.failure:
        said = f": {run.stderr.strip()}" if run.stderr.strip() else ""
        raise ValueError(f"the vault password script {path} {run.failure}{said}")
    return run.stdout.strip("\r\n").encode()


def _checked(password: VaultPassword) -> VaultPassword:
    if not password.password:
        raise ValueError(f"an empty vault password was given ({password.source})")
    return password
