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

from planner.errors import Problem
from planner.host import Host, sealed_in
from planner.inventory.data import VAULT_HINT
from planner.inventory.graph import Inventory, make_host
from planner.plan.model import Plan
from planner.plan.templating import any_template, magic_vars, render, resolve_variables, undefined_name

# the variables planner reads from Host itself; the rest stay lazily rendered per step, as before
RENDERED_PREFIXES = ("ansible_", "planner_")
# connection variables a play's vars: and -e set over the inventory's, as ansible-playbook's precedence has play
# vars (12th of 22) above every inventory variable (3rd-10th) and extra vars (22nd) above all (Ansible docs, "Using
# variables: Understanding variable precedence"); the plan's vars: (planner's, not Ansible's) only fill them in
CONNECTION_VARIABLES = ("ansible_user", "ansible_port", "ansible_ssh_private_key_file", "ansible_private_key_file",
                        "ansible_become_user", "planner_workdir")


def _overridden(host: Host, plan_vars: Mapping[str, Any], extra_vars: Mapping[str, Any],
                play_vars: Mapping[str, Any]) -> Host:
    # the plan's vars: are defaults below the inventory's (README, Variables), a play's vars: above them; -e wins
    # for every variable planner reads itself, as Ansible's extra vars do (-e planner_keepalive_s=2 reaches SSH)
    given = {k: plan_vars[k] for k in CONNECTION_VARIABLES if k in plan_vars and k not in host.vars}
    given.update({k: play_vars[k] for k in CONNECTION_VARIABLES if k in play_vars})
    given.update({k: v for k, v in extra_vars.items() if k.startswith(RENDERED_PREFIXES)})
    if all(k in host.vars and host.vars[k] == v for k, v in given.items()):
        return host
    return replace(host, vars=MappingProxyType({**host.vars, **given}))


def render_host(host: Host, plan_vars: Mapping[str, Any], extra_vars: Mapping[str, Any],
                base: Path, play_vars: Mapping[str, Any] | None = None) -> tuple[Host, list[Problem]]:
    sealed = [(k, s) for k, v in host.vars.items() if k.startswith(RENDERED_PREFIXES) and (s := sealed_in(v))]
    if sealed:  # planner reads these itself: a vault no password opens is used here, so refused
        return host, [Problem(None, f"inventory host {host.name}", f"{k}: {s.reason}", VAULT_HINT) for k, s in sealed]
    given = host
    host = _overridden(host, plan_vars, extra_vars, play_vars or {})
    keys = [k for k, v in host.vars.items() if k.startswith(RENDERED_PREFIXES) and any_template(v)]
    if not keys:
        if host is given:
            return host, []
        made = make_host(host.name, host.groups, host.vars, base)
        if "ansible_port" in host.vars and made.port is None:
            return given, [Problem(None, f"inventory host {host.name}", f"ansible_port {host.vars['ansible_port']!r} "
                                   "is not a port number", "give a whole number between 1 and 65535")]
        return made, []
    import jinja2  # here, not at the top: only a variable holding a template needs Jinja2 (start-up)

    context = resolve_variables({**plan_vars, **host.vars, **(play_vars or {}), **extra_vars, **magic_vars(host)})
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


_IDENTITY = ("ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file", "ansible_become_user",
             "planner_workdir")


def _identity(host: Host) -> tuple[Any, ...]:
    """What one run keeps per host, whichever play reaches it (its connection, lock and work folder), in the
    order of _IDENTITY."""
    return host.address, host.port, host.user, host.key_file, host.become_user, host.vars.get("planner_workdir")


def per_play_hosts(plan: Plan, selected: Mapping[str, list[Host]], extra_vars: Mapping[str, Any],
                   base: Path) -> tuple[dict[str, list[Host]], list[Problem]]:
    """Each play's hosts with the play's own ``vars:`` over the plan's for the connection variables (-e still
    wins). A run keeps one connection, lock and work folder per host, so two plays that would reach one host
    differently are refused, named, rather than one of them silently logging in as the other's user."""
    out: dict[str, list[Host]] = {}
    problems: list[Problem] = []
    for play in plan.plays:
        hosts = selected.get(play.name, [])
        if not any(k in play.vars for k in CONNECTION_VARIABLES):
            out[play.name] = hosts
            continue
        out[play.name] = []
        for host in hosts:
            made, more = render_host(host, plan.vars, extra_vars, base, play.vars)
            out[play.name].append(made)
            problems += [replace(p, location=play.location, path=f"play '{play.name}' vars") for p in more]
    return out, problems + _reached_differently(plan, out)


def _reached_differently(plan: Plan, hosts: Mapping[str, list[Host]]) -> list[Problem]:
    first: dict[str, tuple[str, Host]] = {}
    problems: list[Problem] = []
    for play in plan.plays:
        for host in hosts.get(play.name, []):
            seen = first.setdefault(host.name, (play.name, host))
            if _identity(seen[1]) != _identity(host):
                keys = [k for k, a, b in zip(_IDENTITY, _identity(seen[1]), _identity(host), strict=True) if a != b]
                problems.append(Problem(play.location, f"play '{play.name}' vars", f"host {host.name} is reached "
                                        f"with another {', '.join(keys)} than in play '{seen[0]}': one run keeps "
                                        "one connection, lock and work folder per host",
                                        "set the variable in the inventory, the plan's vars: or -e, or run the "
                                        "plays as separate runs (--tags or --limit)"))
    return problems
