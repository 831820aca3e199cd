"""What `ansible-inventory` prints, from a loaded Inventory: --list (JSON or --yaml, --export), --host, --graph.

Each view follows ansible-core 2.19's InventoryCLI (json_inventory, yaml_inventory, _graph_group,
_get_host_variables): groups in declaration order from `all`, a group listed once, empty keys and empty groups
left out; a host's variables are its merged ones plus `-e`, or with --export only its own (group variables
then sit under their group). Tests compare the output with ansible-inventory's (tests/data/ansible/).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import yaml

from planner.host import SealedVault, UnsafeText
from planner.inventory.graph import Inventory
from planner.inventory.vault import VaultText

Vars = Mapping[str, Any]


def host_variables(inv: Inventory, host: str, extra_vars: Vars | None = None, export: bool = False) -> dict[str, Any]:
    """ansible-inventory's _get_host_variables: the merged variables and -e, or (--export) the host's own."""
    if export:
        return dict(inv.host_own.get(host, {}))
    return {**inv.hosts[host].vars, **(extra_vars or {})}


def group_variables(inv: Inventory, group: str) -> dict[str, Any]:
    return dict(inv.group_vars.get(group, {}))


def ansible_list(inv: Inventory, extra_vars: Vars | None = None, export: bool = False) -> dict[str, Any]:
    """The structure `ansible-inventory --list` prints (json.dumps(..., sort_keys=True, indent=4))."""
    result: dict[str, Any] = {}
    seen: set[str] = set()

    def visit(group: str) -> None:
        entry: dict[str, Any] = {}
        if group != "all":
            entry["hosts"] = [h for h in inv.members.get(group, ()) if h in inv.hosts]
        entry["children"] = list(inv.children.get(group, ()))
        result[group] = entry
        for child in inv.children.get(group, ()):
            if child not in seen:
                visit(child)
                seen.add(child)
        if export:
            entry["vars"] = _jsonable(group_variables(inv, group))
        for key in ("hosts", "children", "vars"):
            if key in entry and not entry[key]:
                del entry[key]
        if not entry:
            del result[group]

    visit("all")
    hostvars = {}
    for name in inv.hosts:
        variables = host_variables(inv, name, extra_vars, export)
        if variables:
            hostvars[name] = _jsonable(variables)
    result["_meta"] = {"hostvars": hostvars, "profile": "inventory_legacy"}
    return result


def yaml_list(inv: Inventory, extra_vars: Vars | None = None, export: bool = False) -> dict[str, Any]:
    """The structure `ansible-inventory --list --yaml` prints: nested groups, a host's variables at its first
    appearance only."""
    seen_hosts: set[str] = set()
    seen_groups: set[str] = set()

    def visit(group: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"children": {}, "hosts": {}}
        for child in inv.children.get(group, ()):
            if child in seen_groups:
                entry["children"][child] = {}
            else:
                entry["children"].update(visit(child))
                seen_groups.add(child)
        if group != "all":
            for host in inv.members.get(group, ()):
                if host in inv.hosts:
                    first = host not in seen_hosts
                    seen_hosts.add(host)
                    entry["hosts"][host] = host_variables(inv, host, extra_vars, export) if first else {}
        if export and group_variables(inv, group):
            entry["vars"] = group_variables(inv, group)
        entry = {k: v for k, v in entry.items() if v}
        return {group: entry} if entry else {}

    return visit("all")


def ansible_graph(inv: Inventory, group: str = "all", show_vars: bool = False,
                  extra_vars: Vars | None = None) -> str:
    """The tree `ansible-inventory --graph [GROUP] [--vars]` prints, without the final newline."""
    lines: list[str] = []

    def name(text: str, depth: int) -> str:
        return "  |" * depth + "--" + text if depth else text

    def shown(variables: Vars, depth: int) -> None:
        lines.extend(name(f"{{{k} = {_python_str(v)}}}", depth) for k, v in sorted(variables.items()))

    def visit(g: str, depth: int) -> None:
        lines.append(name(f"@{g}:", depth))
        for child in inv.children.get(g, ()):
            visit(child, depth + 1)
        if g != "all":
            for host in (h for h in inv.members.get(g, ()) if h in inv.hosts):
                lines.append(name(host, depth + 1))
                if show_vars:
                    shown(host_variables(inv, host, extra_vars), depth + 2)
        if show_vars:
            shown(group_variables(inv, g), depth + 1)

    visit(group, 0)
    return "\n".join(lines)


def dump_json(value: Any) -> str:
    return json.dumps(_jsonable(value), indent=4, sort_keys=True)


def dump_yaml(value: Any) -> str:
    """yaml.dump as ansible-inventory calls it (block style, unicode kept, keys sorted); a vaulted value as its
    `!vault |` ciphertext, an unsafe one as plain text, as ansible-core's AnsibleDumper writes them."""
    return yaml.dump(value, Dumper=_Dumper, default_flow_style=False, allow_unicode=True)


class _Dumper(yaml.SafeDumper):
    pass


def _vault_node(dumper: yaml.SafeDumper, value: VaultText | SealedVault) -> yaml.Node:
    return dumper.represent_scalar("!vault", value.ciphertext, style="|")


def _text_node(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    return dumper.represent_str(str(value))


_Dumper.add_representer(VaultText, _vault_node)
_Dumper.add_representer(SealedVault, _vault_node)
_Dumper.add_representer(UnsafeText, _text_node)
_Dumper.add_multi_representer(str, _text_node)  # SecretText and other str subclasses: their text


def _python_str(value: Any) -> str:
    """str() of the value as Python prints it in --graph --vars (`None`, `['a', 1]`); plain text for strings."""
    if isinstance(value, VaultText | SealedVault):
        return value.ciphertext
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return str({k: _plain(v) for k, v in value.items()})
    if isinstance(value, list):
        return str([_plain(v) for v in value])
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    """YAML dates and timestamps print as ISO strings, as Ansible's JSON encoder prints them; an inline vault
    value as its ciphertext and an unsafe one (`!unsafe`, INI `b'...'`) tagged, as ansible-inventory shows them."""
    if isinstance(value, VaultText | SealedVault):
        return {"__ansible_vault": value.ciphertext}
    if isinstance(value, UnsafeText):
        return {"__ansible_unsafe": str(value)}
    if isinstance(value, Mapping):  # keys as JSON writes them, so sort_keys never compares 0 with 'a'
        return {_json_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value.isoformat() if isinstance(value, date | datetime) else value


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool | int | float) or key is None:
        return json.dumps(key)
    return key.isoformat() if isinstance(key, date | datetime) else str(key)
