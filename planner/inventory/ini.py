"""Ansible INI inventories: `[group]`, `[group:vars]`, `[group:children]`, ungrouped hosts, inline k=v.

Follows ansible-core's ini plugin: lines are stripped, `#`/`;` start comments, host lines are split with
shlex (so quotes group and `#` ends the line), values — inline and in `[group:vars]` — are typed with
ast.literal_eval, `[g:vars]` and `[g:children]` may name groups declared further down.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from planner.errors import Location
from planner.inventory.data import InventoryGraph, expand_host_range, ini_value, split_host_port

_SECTION = re.compile(r"^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:[#;].*)?$")
_GROUP_NAME = re.compile(r"^([^:\]\s]+)\s*(?:#.*)?$")


@dataclass
class _Pending:
    """A group named by [g:vars] or [g:children] before a [g] or [g:children] section declares it."""

    location: Location
    kind: str  # "vars" | "children"
    parents: list[str] = field(default_factory=list)


def read_ini(graph: InventoryGraph, text: str, file: str) -> None:
    group, state = "ungrouped", "hosts"
    pending: dict[str, _Pending] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        at = Location(file, number, len(raw) - len(raw.lstrip()) + 1)
        m = _SECTION.match(line)
        if m:
            group, state = m.group(1), m.group(2) or "hosts"
            if state not in ("hosts", "children", "vars"):
                graph.problem(at, f"section [{group}:{state}] has unknown type '{state}'",
                              "a section is [group], [group:vars] or [group:children]")
                state = "skip"
                continue
            if graph.canon(group) not in graph.groups:
                if state == "vars" and group not in pending:
                    pending[group] = _Pending(at, "vars")
                graph.add_group(group, at)
            if group in pending and state != "vars":
                _declare(graph, group, pending)
            continue
        if line.startswith("[") and line.endswith("]"):
            graph.problem(at, f"invalid section header {line}",
                          "write [name], [name:vars] or [name:children] with no spaces inside the brackets")
            state = "skip"
            continue
        if state == "hosts":
            _host_line(graph, line, raw, group, at)
        elif state == "vars":
            if "=" not in line:
                graph.problem(at, f"expected key=value in [{group}:vars], got '{line}'",
                              "write one variable per line as name=value")
                continue
            key, value = (part.strip() for part in line.split("=", 1))
            graph.set_group_var(group, key, ini_value(value), at)
        elif state == "children":
            m = _GROUP_NAME.match(line)
            if not m:
                graph.problem(at, f"expected a group name in [{group}:children], got '{line}'",
                              "list one child group name per line")
            elif graph.canon(m.group(1)) in graph.groups:
                graph.add_child(group, m.group(1), at)
            else:  # Ansible links it when its own section turns up, which fixes the children's order
                pending.setdefault(m.group(1), _Pending(at, "children")).parents.append(group)
    for name, p in pending.items():
        if p.kind == "vars":
            graph.problem(p.location, f"section [{name}:vars] is for undefined group '{name}'",
                          f"declare the group with a [{name}] or [{name}:children] section, or fix the name")
        else:
            graph.problem(p.location, f"section [{p.parents[-1]}:children] includes undefined group '{name}'",
                          f"declare it with a [{name}] section (it may be empty) or fix the name")


def _declare(graph: InventoryGraph, group: str, pending: dict[str, _Pending]) -> None:
    entry = pending.pop(group)
    for parent in entry.parents:
        graph.add_child(parent, group, entry.location)
        if parent in pending and pending[parent].kind == "children":
            _declare(graph, parent, pending)


def _host_line(graph: InventoryGraph, line: str, raw: str, group: str, at: Location) -> None:
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError as exc:
        graph.problem(at, f"cannot split host line: {exc}", "close the quote, or escape it with a backslash")
        return
    if not tokens:
        return
    pattern, port = split_host_port(tokens[0])
    if tokens[0].endswith(":") and port is None:
        graph.problem(at, f"host '{tokens[0]}' ends in ':'", "put a port number after the colon or remove it")
        return
    if pattern.strip() == "---":
        graph.problem(at, "host '---' looks like the start of a YAML document",
                      "name a YAML inventory *.yml or *.yaml so it is read as YAML")
        return
    try:
        names = expand_host_range(pattern)
    except ValueError as exc:
        graph.problem(at, f"bad host range '{pattern}': {exc}",
                      "write ranges as [01:08], [1:8:2] or [a:f]")
        return
    variables: list[tuple[str, object, Location]] = []
    for token in tokens[1:]:
        column = raw.find(token.split("=", 1)[0]) + 1 or at.column
        where = Location(at.file, at.line, column)
        if "=" not in token:
            graph.problem(where, f"expected key=value host variable, got '{token}'",
                          "write host variables as name=value; quote values that contain spaces")
            continue
        key, text = token.split("=", 1)
        variables.append((key, ini_value(text), where))
    for name in names:
        graph.add_host(name, group, port, at)
        for key, value, where in variables:
            graph.set_host_var(name, key, value, where)
