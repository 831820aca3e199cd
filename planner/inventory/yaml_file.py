"""Ansible YAML inventories (`all: {hosts, vars, children}`) and group_vars/host_vars files, with line numbers.

The document is composed into YAML nodes first so every group, host and variable keeps its file:line:col;
leaf values are then built with PyYAML's SafeConstructor, i.e. YAML 1.1 typing as Ansible's loader does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from planner.errors import InputError, Location, Problem
from planner.host import UnsafeText
from planner.inputs import check_alias_growth, read_input
from planner.inventory.constructed import PLUGIN_NAMES, read_constructed
from planner.inventory.data import VAULT_HINT, InventoryGraph, expand_host_range, split_host_port
from planner.inventory.vault import (
    NO_KEYS,
    VaultCipher,
    VaultError,
    VaultKeys,
    decrypt,
    is_vaulted,
    mark_secret,
)

_SECTIONS = ("vars", "children", "hosts")
# libyaml's parser when PyYAML was built with it: the same nodes and marks, composed in C. The pure-Python one
# was the largest per-host cost of loading a big inventory (~5 ms of controller CPU a host, profiled).
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def where(file: str, node: yaml.Node) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


def _composed(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:  # said in PyYAML's words and at its marks: the error path is not the per-host cost
        return yaml.compose(text, Loader=yaml.SafeLoader)


def compose(text: str, file: str) -> tuple[yaml.Node | None, list[Problem]]:
    """Parse YAML into nodes; a syntax error becomes a Problem at the place PyYAML points to."""
    try:
        root = _composed(text)
        growth = check_alias_growth(root, file)  # before any value is built: a billion laughs stops here
        if growth:
            return None, growth
        if root is not None:
            value_of(root)  # every later value_of() on a part of it succeeds: typing errors surface here
        return root, []
    except RecursionError:
        return None, [Problem(Location(file, 1, 1), "", "YAML nested too deeply", "flatten the document")]
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:  # `!!int x`, `!!bool maybe`
        return None, [Problem(Location(file, 1, 1), "", f"a value does not fit its !! tag: {exc}",
                              "remove the explicit !!tag or fix the value")]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file, 1, 1)
        what = ": ".join(part for part in (exc.context, exc.problem) if part)
        return None, [Problem(at, "", f"YAML syntax error: {what}", "fix the YAML at this place "
                              "(indentation, a missing ':' or an unclosed quote or bracket)")]
    except yaml.YAMLError as exc:
        return None, [Problem(Location(file, 1, 1), "", f"YAML error: {exc}", "fix the YAML syntax")]


class _Constructor(yaml.constructor.SafeConstructor):
    """SafeConstructor that reads Ansible's local tags: `!unsafe` as UnsafeText, `!vault` as a VaultCipher,
    any other `!tag` as its plain value."""


def _plain_tagged(loader: yaml.constructor.SafeConstructor, _suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    assert isinstance(node, yaml.MappingNode)  # PyYAML makes nothing else
    return loader.construct_mapping(node, deep=True)


def _vault_tagged(loader: Any, node: yaml.Node) -> VaultCipher:  # a _Constructor; the stubs want a Loader
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(None, None, "!vault must tag a string (the output of "
                                                "ansible-vault encrypt_string)", node.start_mark)
    return VaultCipher(str(loader.construct_scalar(node)))


def _unsafe_tagged(loader: Any, node: yaml.Node) -> Any:  # a _Constructor; the stubs want a Loader
    return unsafe(_plain_tagged(loader, "unsafe", node))


def unsafe(value: Any) -> Any:
    """Every string in the value an UnsafeText, as Ansible's `!unsafe` marks a whole list or mapping."""
    if isinstance(value, str):
        return UnsafeText(value)
    if isinstance(value, dict):
        return {k: unsafe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unsafe(v) for v in value]
    return value


_Constructor.add_multi_constructor("!", _plain_tagged)
_Constructor.add_constructor("!unsafe", _unsafe_tagged)
_Constructor.add_constructor("!vault", _vault_tagged)  # decrypted by the graph, which holds the passwords


_STR = "tag:yaml.org,2002:str"


def value_of(node: yaml.Node) -> Any:
    if node.tag == _STR and isinstance(node, yaml.ScalarNode):
        return node.value  # what SafeConstructor gives a plain string, without a constructor a value (200 hosts: 3,000)
    return _Constructor().construct_document(node)


def is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def items(node: yaml.Node) -> list[tuple[Any, yaml.Node, yaml.Node]]:
    """(key, key node, value node) of a mapping node (callers have checked it is one)."""
    return [(value_of(k), k, v) for k, v in node.value]


def read_yaml(graph: InventoryGraph, root: yaml.Node, file: str) -> None:
    if not isinstance(root, yaml.MappingNode):
        graph.problem(where(file, root), "a YAML inventory must be a mapping of group names",
                      "start with 'all:' and put hosts:, vars: and children: under it")
        return
    config = value_of(root)
    if "plugin" in config:
        if config["plugin"] in PLUGIN_NAMES:
            read_constructed(graph, config, file)
        else:
            graph.problem(where(file, root), f"inventory plugin {config['plugin']!r} is not supported",
                          "planner reads INI, YAML and script inventories and the constructed plugin")
        return
    for name, key_node, value in items(root):
        _group(graph, name, key_node, value, file)


def _group(graph: InventoryGraph, name: Any, key_node: yaml.Node, node: yaml.Node, file: str) -> str | None:
    at = where(file, key_node)
    if not isinstance(name, str) or not name:
        graph.problem(at, f"group name {name!r} is not a string", "quote the group name")
        return None
    if not (isinstance(node, yaml.MappingNode) or is_null(node)):
        graph.problem(where(file, node), f"group '{name}' must be a mapping with hosts:, vars: or children:",
                      "indent the group's hosts:, vars: and children: under its name")
        return None
    graph.add_group(name, at)
    if is_null(node):
        return name
    for key, knode, section in items(node):
        if key not in _SECTIONS:
            graph.problem(where(file, knode), f"unexpected key '{key}' in group '{name}'",
                          "only hosts, vars and children may appear in a group; put variables under vars:")
            continue
        if is_null(section):
            continue
        if isinstance(section, yaml.ScalarNode) and isinstance(value_of(section), str):
            # Ansible accepts `hosts: name` for a single host or child
            section = yaml.MappingNode("tag:yaml.org,2002:map", [(section, yaml.ScalarNode(
                "tag:yaml.org,2002:null", "", section.start_mark, section.end_mark))],
                section.start_mark, section.end_mark)
        if not isinstance(section, yaml.MappingNode):
            graph.problem(where(file, section), f"'{key}' of group '{name}' must be a mapping",
                          f"write {key} as 'name:' entries, one per line, not as a list")
            continue
        for item, inode, inner in items(section):
            if key == "vars":
                graph.set_group_var(name, str(item), value_of(inner), where(file, inode))
            elif key == "children":
                child = _group(graph, item, inode, inner, file)
                if child is not None:
                    graph.add_child(name, child, where(file, inode))
            else:
                _hosts(graph, name, item, inode, inner, file)
    return name


def _hosts(graph: InventoryGraph, group: str, pattern: Any, knode: yaml.Node, node: yaml.Node, file: str) -> None:
    at = where(file, knode)
    if not isinstance(pattern, str):
        graph.problem(at, f"host name {pattern!r} must be a string", "enclose numbers in quotation marks")
        return
    if not (isinstance(node, yaml.MappingNode) or is_null(node)):
        graph.problem(where(file, node), f"host '{pattern}' must have a mapping of variables or nothing",
                      "write 'name:' alone, or indent 'var: value' lines under the host")
        return
    base, port = split_host_port(pattern)
    try:
        names = expand_host_range(base)
    except ValueError as exc:
        graph.problem(at, f"bad host range '{base}': {exc}", "write ranges as [01:08], [1:8:2] or [a:f]")
        return
    variables = [] if is_null(node) else items(node)
    for host in names:
        graph.add_host(host, group, port, at)
        for key, vnode, value in variables:
            graph.set_host_var(host, str(key), value_of(value), where(file, vnode))


def read_vars_file(path: Path, file: str, vault: VaultKeys = NO_KEYS
                   ) -> tuple[list[tuple[str, Any, Location]], list[Problem]]:
    """A group_vars/host_vars file: a YAML or JSON mapping, maybe a whole-file vault; empty files count as no
    variables. Every string of a vaulted file is a secret (mark_secret)."""
    try:
        text = read_input(path, "variables file")
    except InputError as exc:
        return [], [Problem(p.location or Location(file, 1, 1), "", p.message, p.hint) for p in exc.problems]
    vaulted = is_vaulted(text)
    if vaulted:
        try:
            text = decrypt(text, vault)
        except VaultError as exc:
            return [], [Problem(Location(file, 1, 1), "", f"cannot read this variables file: {exc}", VAULT_HINT)]
    root, problems = compose(text, file)
    if problems or root is None or is_null(root):
        return [], problems
    if not isinstance(root, yaml.MappingNode):
        return [], [Problem(where(file, root), "", "a variables file must be a mapping of name: value",
                            "write one 'name: value' per line")]
    found = [(str(k), value_of(v), where(file, kn)) for k, kn, v in items(root)]
    return ([(k, mark_secret(v), at) for k, v, at in found] if vaulted else found), []
