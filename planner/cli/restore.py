"""``planner restore RUN``: the command line's side of it. The run record stores no secrets, so a host whose
sudo asks for a password gets it here, as ``apply`` does: from the inventory (``-i``, opened with the vault
flags) or asked once (``-K``, Ansible's --ask-become-pass). Only the become password is read from the
inventory; how to reach each host still comes from the run's own meta.json."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType

from planner.cli.hostvars import render_inventory
from planner.errors import InputError, Problem
from planner.inventory.graph import Inventory, load_inventory
from planner.results.runfolder import read_meta
from planner.status import ExitCode
from planner.transport.become import PASSWORD_VARS, BecomePassword, become_password

BECOME_PROMPT = "BECOME password: "  # ansible-playbook -K's words
NO_PASSWORD_HINT = ("this host's sudo asks for a password, which the run record does not keep: give it with "
                    "-i INVENTORY (and the vault flags apply used) or -K")


def ask_become_password(ask: Callable[[str], str] | None = None) -> BecomePassword:
    """-K: asked once, for every host whose inventory gives none (as ansible-playbook does)."""
    import getpass  # here: only -K asks (getpass and termios cost every apply's start-up)

    return BecomePassword(PASSWORD_VARS[0], (ask or getpass.getpass)(BECOME_PROMPT))


def ask_become(args: argparse.Namespace) -> BecomePassword | None:
    """apply's -K (or --resume's): asked once, before anything is loaded; None without it."""
    return ask_become_password() if getattr(args, "ask_become_pass", False) else None


def with_become_password(inventory: Inventory, secret: BecomePassword | None) -> Inventory:
    """apply -K: the asked password for each host whose inventory gives none (a host's own var wins, as in
    Ansible). Its variable name is a secret's, so the run record redacts the value like any inventory one."""
    if secret is None:
        return inventory
    hosts = {n: h if become_password(h) is not None else replace(h, vars=MappingProxyType({
        **h.vars, secret.var: secret.value})) for n, h in inventory.hosts.items()}
    return replace(inventory, hosts=MappingProxyType(hosts))


def become_passwords(args: argparse.Namespace,
                     ask: Callable[[str], str] | None = None) -> dict[str, BecomePassword]:
    """Each run host's become password: the inventory's first, else -K's; {} without -i and -K (sudo -n)."""
    names = list(read_meta(args.run).hosts)
    found = _from_inventory(args, names) if args.inventory else {}
    if args.ask_become_pass:
        asked = ask_become_password(ask)
        found = {n: found.get(n, asked) for n in names}
    return found


def _from_inventory(args: argparse.Namespace, names: list[str]) -> dict[str, BecomePassword]:
    inventory, problems = render_inventory(load_inventory(args.inventory, args.vault), {}, {})
    where = ", ".join(str(p) for p in args.inventory)
    problems += [Problem(None, f"inventory {where}", f"run {args.run.name} was made on host {n}, which this "
                         "inventory does not have", "give the inventory the run was made with (-i, repeatable)")
                 for n in names if n not in inventory.hosts]
    if problems:
        raise InputError(problems)
    out = {}
    for n in names:
        secret = become_password(inventory.hosts[n])
        if secret is not None:
            out[n] = secret
    return out


def restore_command(args: argparse.Namespace, passwords: Mapping[str, BecomePassword]) -> ExitCode:
    from planner.engine.console import Console
    from planner.engine.restore import restore_run

    return restore_run(args.run, Console(), forks=args.forks, accept_new_host_keys=args.accept_new_host_keys,
                       known_hosts=args.known_hosts, ssh_config=args.ssh_config, become_passwords=passwords,
                       no_password_hint=NO_PASSWORD_HINT)
