"""Jinja2 in inventory variables that planner itself reads, rendered as Ansible renders them.

Ansible templates every host variable when it is used, so ``ansible_host: "127.0.0.{{ lastoctet }}"`` connects
to 127.0.0.7 and ``planner_workdir: /x/work_{{ inventory_hostname }}`` is one folder per host. Step arguments
already see rendered values (planner.plan.templating.variables_for resolves references); what the engine
and the transport read straight from Host (the address, port, user, key, planner_root, planner_workdir,
planner_lock...) is rendered here once, with the same variables a step would see, before any host is
touched. An undefined variable there is bad input (exit 5), named with the host and the variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jinja2

from planner.errors import Problem
from planner.host import Host, sealed_in
from planner.inventory.data import VAULT_HINT
from planner.inventory.graph import Inventory, make_host
from planner.plan.templating import any_template, magic_vars, render, resolve_variables, undefined_name

# the variables planner reads from Host itself; the rest stay lazily rendered per step, as before
RENDERED_PREFIXES = ("ansible_", "planner_")
# connection variables the plan's vars: and -e set over the inventory's, as ansible-playbook's precedence has play
# vars and extra vars above inventory vars (Ansible docs, "Understanding variable precedence")
CONNECTION_VARIABLES = ("ansible_user", "ansible_port", "ansible_ssh_private_key_file", "ansible_private_key_file",
                        "ansible_become_user", "planner_workdir")


def _overridden(host: Host, plan_vars: Mapping[str, Any], extra_vars: Mapping[str, Any]) -> Host:
    # the plan's vars: set the connection variables; -e wins over the inventory for every variable planner reads
    # itself, as Ansible's extra vars do (-e planner_keepalive_s=2 reaches the transport)
    given = {k: plan_vars[k] for k in CONNECTION_VARIABLES if k in plan_vars}
    given.update({k: v for k, v in extra_vars.items() if k.startswith(RENDERED_PREFIXES)})
    if all(k in host.vars and host.vars[k] == v for k, v in given.items()):
        return host
    return replace(host, vars=MappingProxyType({**host.vars, **given}))


def render_host(host: Host, plan_vars: Mapping[str, Any], extra_vars: Mapping[str, Any],
                base: Path) -> tuple[Host, list[Problem]]:
    sealed = [(k, s) for k, v in host.vars.items() if k.startswith(RENDERED_PREFIXES) and (s := sealed_in(v))]
    if sealed:  # planner reads these itself: a vault no password opens is used here, so refused
        return host, [Problem(None, f"inventory host {host.name}", f"{k}: {s.reason}", VAULT_HINT) for k, s in sealed]
    given = host
    host = _overridden(host, plan_vars, extra_vars)
    keys = [k for k, v in host.vars.items() if k.startswith(RENDERED_PREFIXES) and any_template(v)]
    if not keys:
        if host is given:
            return host, []
        made = make_host(host.name, host.groups, host.vars, base)
        if "ansible_port" in host.vars and made.port is None:
            return given, [Problem(None, f"inventory host {host.name}", f"ansible_port {host.vars['ansible_port']!r} "
                                   "is not a port number", "give a whole number between 1 and 65535")]
        return made, []
    context = resolve_variables({**plan_vars, **host.vars, **extra_vars, **magic_vars(host)})
    variables = dict(host.vars)
    problems: list[Problem] = []
    for key in keys:
        try:
            variables[key] = render(variables[key], context)
        except jinja2.UndefinedError as exc:
            name = undefined_name(exc)
            why = f"undefined variable '{name}'" if name else str(exc.message)
            problems.append(Problem(None, f"inventory host {host.name}", f"{key}: {why}",
                                    "define it in the inventory (host or group vars), the plan's vars:, or -e"))
        except jinja2.TemplateError as exc:
            problems.append(Problem(None, f"inventory host {host.name}", f"{key}: template error: {exc}",
                                    "fix the {{ }} expression"))
    if problems:
        return host, problems
    try:
        return make_host(host.name, host.groups, variables, base), []
    except (ValueError, TypeError) as exc:  # e.g. a port that renders to text
        return host, [Problem(None, f"inventory host {host.name}", f"rendered connection variables: {exc}",
                              "make the variable render to a valid value")]


def render_inventory(inventory: Inventory, plan_vars: Mapping[str, Any],
                     extra_vars: Mapping[str, Any]) -> tuple[Inventory, list[Problem]]:
    """The inventory with each host's planner/connection variables rendered; every problem at once."""
    base = inventory.source if inventory.source.is_dir() else inventory.source.parent
    hosts: dict[str, Host] = {}
    problems: list[Problem] = []
    for name, host in inventory.hosts.items():  # after --limit: only the hosts a run works on
        problems += [p for p in inventory.unusable.get(name, ()) if p not in problems]  # a group's: once
        hosts[name], more = render_host(host, plan_vars, extra_vars, base)
        problems += more
    if not problems and all(hosts[n] is inventory.hosts[n] for n in hosts):
        return inventory, []
    return replace(inventory, hosts=MappingProxyType(hosts)), problems
