"""A host as the inventory describes it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Host var planner_workdir: planner's own folder on the host (run folders, plan-stable step folders).
DEFAULT_WORKDIR = "/tmp/planner"


@dataclass(frozen=True, slots=True)
class Host:
    """An inventory host as planner reaches it: the ``ansible_*`` connection variables, read once."""

    name: str  # inventory name
    address: str  # ansible_host, else the name
    port: int | None = None  # ansible_port; None lets ~/.ssh/config (or 22) decide
    user: str | None = None  # ansible_user
    key_file: Path | None = None  # ansible_ssh_private_key_file
    connection: str = "ssh"  # ansible_connection: ssh | local
    become: bool = False  # ansible_become
    become_user: str = "root"  # ansible_become_user (does not imply become, as in Ansible)
    groups: tuple[str, ...] = ()
    vars: Mapping[str, Any] = field(default_factory=dict)  # merged all < groups < host_vars


class UnsafeText(str):
    """A variable value Ansible never templates: YAML `!unsafe`, an INI `b'...'` literal. planner's templating
    leaves it as written (a password `p{%ss{{w0rd` is a password), and `planner inventory --list` prints it
    as ansible-inventory does, `{"__ansible_unsafe": "..."}`."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class SealedVault:
    """An inline `!vault` value no given password opens. As in Ansible, it is decrypted only when used: unused,
    it is listed as its ciphertext; used (a template names it, or planner reads it as a connection variable),
    it refuses the run with ``reason``."""

    ciphertext: str
    reason: str


def sealed_in(value: Any) -> SealedVault | None:
    """The first SealedVault inside a variable's value (mappings and lists searched), if any."""
    if isinstance(value, SealedVault):
        return value
    if isinstance(value, Mapping):
        return next(filter(None, (sealed_in(v) for v in value.values())), None)
    if isinstance(value, list | tuple):
        return next(filter(None, (sealed_in(v) for v in value)), None)
    return None
