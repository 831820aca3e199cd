"""Ansible inventories as they are: INI or YAML files, group_vars/ and host_vars/ beside them, patterns.

`load_inventory` builds a frozen `Inventory`; planner.inventory.views prints it as `ansible-inventory` does.
Variable precedence is ansible-core's default (VARIABLE_PRECEDENCE): `all` from the inventory file <
other groups from the inventory file (by depth, ansible_group_priority, name) < group_vars/all <
group_vars/<group> (same order) < the host's own inventory variables < host_vars/<host>.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from planner.errors import InputError, Location, Problem
from planner.host import Host
from planner.inputs import read_input
from planner.inventory.data import (
    CONNECTIONS,
    LOCALHOST_NAMES,
    TRANSFORM_MODES,
    VAULT_HINT,
    InventoryGraph,
    check_special_var,
    split_host_port,
    to_bool,
    to_port,
)
from planner.inventory.patterns import evaluate
from planner.inventory.vault import NO_KEYS, VaultError, VaultKeys, decrypt, is_vaulted
from planner.inventory.yaml_file import compose, is_null, read_vars_file, read_yaml
from planner.redaction import SecretText

YAML_SUFFIXES = (".yml", ".yaml", ".json")
VARS_SUFFIXES = ("", ".yml", ".yaml", ".json")


@dataclass(frozen=True, slots=True)
class Inventory:
    """The resolved inventory: its hosts, and each group's hosts, children and direct members."""

    hosts: Mapping[str, Host]  # in inventory order
    groups: Mapping[str, tuple[str, ...]]  # group -> its hosts and its descendants' hosts
    children: Mapping[str, tuple[str, ...]]  # group -> direct child groups, in declaration order
    source: Path
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # group -> direct hosts
    limited_out: frozenset[str] = frozenset()  # hosts a --limit removed; patterns still know them
    files: tuple[Path, ...] = ()  # every file read: sources, group_vars/, host_vars/ (for --resume's check)
    sources: tuple[Path, ...] = ()  # the -i files/folders as given (the run record snapshots them)
    warnings: tuple[str, ...] = ()  # what ansible-inventory warns about for the same files, in its words
    group_vars: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # a group's own (--export)
    host_own: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # a host's own, groups left out
    unusable: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict)  # refused if a run selects the host

    def select(self, pattern: str, *, allow_empty: bool = False, lenient: bool = False) -> list[Host]:
        """Hosts an Ansible pattern selects; InputError (one Problem, no location) if it selects none.
        ``lenient``: a term naming nothing selects nothing (ansible-inventory), not a problem."""
        known = self.limited_out | frozenset(LOCALHOST_NAMES)
        names, problems = evaluate(pattern, self.groups, list(self.hosts), known, lenient)
        if not names and not problems:
            term = pattern.strip()
            if term in LOCALHOST_NAMES:  # Ansible's implicit localhost
                return [local_inventory().hosts["localhost"]]
            if not allow_empty and not self.limited_out:  # under --limit a play may select none: skipped
                problems = [Problem(None, "", f"pattern '{pattern}' matches no host",
                                    "known groups: " + ", ".join(sorted(self.groups)))]
        if problems:
            raise InputError(problems)
        return [self.hosts[n] for n in names]

    def limit(self, pattern: str, *, allow_empty: bool = False, lenient: bool = False) -> Inventory:
        """The inventory --limit leaves: only the selected hosts, every group kept (maybe empty). A term
        `@file` is the file's lines, as ansible's `--limit @site.retry`."""
        keep = {h.name for h in self.select(limit_pattern(pattern), allow_empty=allow_empty, lenient=lenient)}
        return Inventory(
            hosts=MappingProxyType({n: h for n, h in self.hosts.items() if n in keep}),
            groups=MappingProxyType({g: tuple(h for h in hs if h in keep) for g, hs in self.groups.items()}),
            children=self.children,
            source=self.source,
            members=MappingProxyType({g: tuple(h for h in hs if h in keep) for g, hs in self.members.items()}),
            limited_out=self.limited_out | (set(self.hosts) - keep),
            files=self.files,
            sources=self.sources,
            warnings=self.warnings,
            group_vars=self.group_vars,
            host_own=self.host_own,
            unusable=self.unusable,
        )


def limit_pattern(pattern: str) -> str:
    """The pattern with each `@file` term replaced by the file's non-empty lines (ansible-core's subset())."""
    terms: list[str] = []
    for term in pattern.split(","):
        if term.startswith("@"):
            text = read_input(Path(term[1:]).expanduser(), "--limit file")
            terms.extend(line.strip() for line in text.splitlines() if line.strip())
        else:
            terms.append(term)
    return ",".join(terms)


# Ansible's INVENTORY_IGNORE_EXTS (REJECT_EXTS + .orig, .cfg, .retry): files in an inventory directory
# that are not inventory sources; group_vars/ and host_vars/ there are the directory's own variables.
IGNORED_SUFFIXES = (".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst", ".orig", ".cfg", ".retry")
VARS_DIRS = ("group_vars", "host_vars")


def is_host_list(source: Path | str) -> bool:
    """ansible-core's host_list plugin: `-i host1,host2,` names hosts when no such path exists."""
    return "," in str(source) and not os.path.exists(source)


def load_inventory(path: Path | str | Sequence[Path | str], vault: VaultKeys = NO_KEYS,
                   vars_dirs: Sequence[Path] = ()) -> Inventory:
    """Read INI, YAML or script inventories and the group_vars/ host_vars/ beside them; InputError lists all
    problems.

    ``path`` may be one source or several (``-i a -i b``: merged in order, as ansible-playbook does), and a
    source may be a directory: every inventory file in it (recursively, sorted by name), with the
    directory's own group_vars/ and host_vars/. An executable file is an inventory script, as in Ansible.
    ``vault`` holds the passwords that open vaulted files and inline ``!vault`` values. A source with a comma
    that is no path is a host list (`-i db1,db2:2222,`). ``vars_dirs`` are read for group_vars/ host_vars/
    after the sources' own, as Ansible reads the playbook's folder (the cwd for ansible-inventory)."""
    paths = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    transform = os.environ.get("ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS", "never").strip().lower()
    graph = InventoryGraph(vault, transform if transform in TRANSFORM_MODES else "never")
    read: list[Path] = []
    bases: list[Path] = []
    problems: list[Problem] = []
    for source in paths:
        if is_host_list(source):
            _read_host_list(graph, str(source))
            continue
        files = _source_files(source, graph.warnings) if source.is_dir() else [source]
        if source.is_dir() and not files:
            problems.append(Problem(None, "", f"inventory directory {source} holds no inventory file",
                                    "put an INI or YAML inventory in it, or give a file with -i"))
        bases.append(source if source.is_dir() else source.parent)
        graph.file_vars = _files_reader(graph, list(bases))  # constructed's use_vars_plugins: the sources so far
        for f in files:
            if f.is_file() and os.access(f, os.X_OK):
                from planner.inventory.script import read_script  # here: few inventories are programs

                read_script(graph, f)
                read.append(f)
                continue
            text = _read_text(f, problems, vault)
            if text is not None:
                graph.secret_source = isinstance(text, SecretText)  # a vaulted inventory file
                _read_source(graph, text, str(f), f.suffix.lower())
                read.append(f)
    if problems:
        raise InputError(problems)
    graph.reconcile()
    file_vars: dict[tuple[str, str], dict[str, Any]] = {}
    for base in dict.fromkeys(p.resolve() for p in [*bases, *vars_dirs]):  # later folders win
        for key, variables in _vars_files(graph, base, read).items():
            file_vars[key] = {**file_vars.get(key, {}), **variables}
    if graph.refused():  # dict.fromkeys: a file read twice (constructed's use_vars_plugins) is told once
        raise InputError(list(dict.fromkeys(graph.problems)))
    return replace(_freeze(graph, file_vars, paths[0], tuple(read)), sources=tuple(paths),
                   warnings=tuple(graph.warnings))


def _read_host_list(graph: InventoryGraph, text: str) -> None:
    for item in (h.strip() for h in text.split(",")):
        if item:
            name, port = split_host_port(item)
            graph.add_host(name, "ungrouped", port, None)


def _read_text(path: Path, problems: list[Problem], vault: VaultKeys) -> str | None:
    if not path.exists():
        problems.append(Problem(None, "", f"inventory {path} does not exist",
                                "give the path of an INI or YAML inventory with -i"))
        return None
    try:
        text = read_input(path, "inventory")  # a regular file of bounded size: -i /dev/zero or a FIFO is refused
    except InputError as exc:
        problems.extend(exc.problems)
        return None
    if not is_vaulted(text):
        return text
    try:
        return SecretText(decrypt(text, vault))
    except VaultError as exc:
        problems.append(Problem(Location(str(path), 1, 1), "", f"cannot read this inventory: {exc}", VAULT_HINT))
        return None


def _source_files(folder: Path, warnings: list[str]) -> list[Path]:
    """The inventory files of a directory source, as ansible-core's InventoryManager walks it; an empty
    sub-folder is warned about in its words (no plugin parses it)."""
    out: list[Path] = []
    for p in sorted(folder.iterdir(), key=lambda q: q.name):
        if p.name.startswith(".") or p.name.endswith(IGNORED_SUFFIXES):
            continue
        if p.is_dir():
            if p.name not in VARS_DIRS:
                inner = _source_files(p, warnings)
                if not inner and f"Unable to parse {p} as an inventory source" not in warnings:
                    warnings.append(f"Unable to parse {p} as an inventory source")
                out.extend(inner)
        elif p.is_file():
            out.append(p)
    return out


def _read_source(graph: InventoryGraph, text: str, file: str, suffix: str) -> None:
    if suffix in YAML_SUFFIXES or not suffix:
        root, problems = compose(text, file)
        # as Ansible: a file without a suffix is YAML when it parses to a mapping, INI otherwise
        if suffix or (not problems and isinstance(root, yaml.MappingNode)):
            graph.problems.extend(problems)
            if root is not None and not is_null(root):  # an empty one is an empty inventory, as in Ansible
                read_yaml(graph, root, file)
            return
    from planner.inventory.ini import read_ini  # here: a YAML inventory's run need not load the INI reader

    read_ini(graph, text, file)


def _files_reader(graph: InventoryGraph, bases: list[Path]) -> Callable[[], dict[tuple[str, str], dict[str, Any]]]:
    def read() -> dict[tuple[str, str], dict[str, Any]]:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for base in dict.fromkeys(p.resolve() for p in bases):
            for key, variables in _vars_files(graph, base, []).items():
                found[key] = {**found.get(key, {}), **variables}
        return found

    return read


def _vars_files(graph: InventoryGraph, base: Path, read: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """group_vars/<name> and host_vars/<name>: the first of <name>, .yml, .yaml, .json, or a directory."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, names in (("group_vars", list(graph.groups)), ("host_vars", list(graph.hosts))):
        folder = base / kind
        if not folder.is_dir():
            continue
        for name in names:
            merged: dict[str, Any] = {}
            for f in _candidates(folder, name):
                read.append(f)
                variables, problems = read_vars_file(f, str(f), graph.vault)
                graph.problems.extend(problems)
                for key, raw, at in variables:
                    graph.check_name(key, at, inline=False)
                    value = graph.opened(raw, at)
                    if check_special_var(graph, key, value, at, (kind[:-5], name)):
                        merged[key] = value
            if merged:
                found[(kind, name)] = merged
    return found


def _candidates(folder: Path, name: str) -> list[Path]:
    for suffix in VARS_SUFFIXES:
        p = folder / f"{name}{suffix}"
        if p.is_dir():
            return _dir_files(p)
        if p.exists():  # a FIFO or a device too: read_vars_file refuses it by name instead of hanging
            return [p]
    return []


def _dir_files(folder: Path) -> list[Path]:
    out: list[Path] = []
    for p in sorted(folder.iterdir(), key=lambda q: q.name):
        if p.name.startswith(".") or p.name.endswith("~"):
            continue
        if p.is_dir() and not p.suffix:
            out.extend(_dir_files(p))
        elif p.is_file() and p.suffix in VARS_SUFFIXES:
            out.append(p)
    return out


def _merged_vars(graph: InventoryGraph, files: Mapping[tuple[str, str], dict[str, Any]],
                 host: str) -> dict[str, Any]:
    groups = [g for g in graph.host_groups(host) if g != "all"]
    merged: dict[str, Any] = dict(graph.groups["all"].vars)
    for g in groups:
        merged.update(graph.groups[g].vars)
    merged.update(files.get(("group_vars", "all"), {}))
    for g in groups:
        merged.update(files.get(("group_vars", g), {}))
    merged.update(graph.hosts[host].vars)
    merged.update(files.get(("host_vars", host), {}))
    return merged


def make_host(name: str, groups: tuple[str, ...], variables: Mapping[str, Any], base: Path) -> Host:
    """Map the ansible_* connection variables onto Host; values were validated when they were read."""
    key = variables.get("ansible_ssh_private_key_file") or variables.get("ansible_private_key_file")
    key_file = None
    if key:
        key_file = Path(str(key)).expanduser()
        if not key_file.is_absolute():
            key_file = base / key_file
    return Host(
        name=name,
        address=str(variables.get("ansible_host") or variables.get("ansible_ssh_host") or name),
        port=to_port(variables["ansible_port"]) if "ansible_port" in variables else None,
        user=str(variables["ansible_user"]) if variables.get("ansible_user") is not None else None,
        key_file=key_file,
        connection=CONNECTIONS.get(str(variables.get("ansible_connection", "ssh")), "ssh"),
        become=bool(to_bool(variables.get("ansible_become", False))),
        become_user=str(variables.get("ansible_become_user") or "root"),
        groups=groups,
        vars=MappingProxyType(dict(variables)),
    )


def _freeze(graph: InventoryGraph, files: Mapping[tuple[str, str], dict[str, Any]], path: Path,
            read: tuple[Path, ...]) -> Inventory:
    hosts = {}
    for name in graph.hosts:
        variables = _merged_vars(graph, files, name)
        hosts[name] = make_host(name, tuple(graph.host_groups(name)), variables, path.parent)
    return Inventory(
        hosts=MappingProxyType(hosts),
        groups=MappingProxyType({g: tuple(graph.flat_hosts(g)) for g in graph.groups}),
        children=MappingProxyType({g: tuple(n.children) for g, n in graph.groups.items()}),
        source=path,
        members=MappingProxyType({g: tuple(n.hosts) for g, n in graph.groups.items()}),
        files=read,
        group_vars=MappingProxyType({g: MappingProxyType(_group_own(graph, files, g)) for g in graph.groups}),
        host_own=MappingProxyType({h: MappingProxyType({**graph.hosts[h].vars, **files.get(("host_vars", h), {})})
                                   for h in graph.hosts}),
        unusable=MappingProxyType({h: _unusable_for(graph, h) for h in graph.hosts}),
    )


def _unusable_for(graph: InventoryGraph, host: str) -> tuple[Problem, ...]:
    owners = [("group", g) for g in graph.host_groups(host)] + [("host", host)]
    return tuple(p for o in owners for p in graph.deferred.get(o, ()))


def _group_own(graph: InventoryGraph, files: Mapping[tuple[str, str], dict[str, Any]], group: str) -> dict[str, Any]:
    own = {**graph.groups[group].vars, **files.get(("group_vars", group), {})}
    if graph.groups[group].priority != 1:  # ansible-inventory --export shows it among the group's vars
        own["ansible_group_priority"] = graph.groups[group].priority
    return own


def local_inventory() -> Inventory:
    """The implicit inventory when no -i is given: `localhost`, connected locally."""
    host = Host(name="localhost", address="127.0.0.1", connection="local", groups=("all", "ungrouped"),
                vars=MappingProxyType({"ansible_connection": "local"}))
    return Inventory(
        hosts=MappingProxyType({"localhost": host}),
        groups=MappingProxyType({"all": ("localhost",), "ungrouped": ("localhost",)}),
        children=MappingProxyType({"all": ("ungrouped",), "ungrouped": ()}),
        source=Path("localhost,"),
        members=MappingProxyType({"all": (), "ungrouped": ("localhost",)}),
    )
