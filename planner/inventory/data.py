"""The mutable inventory graph the INI and YAML readers fill in, with Ansible's own rules.

It mirrors ansible-core's InventoryData/Group/Host closely enough that `planner inventory --list` prints
what `ansible-inventory --list` prints: insertion order of groups, hosts and children, the implicit
`all`/`ungrouped` groups, group depth for variable precedence, and `host:port` setting `ansible_port`
only when the host is first seen.
"""

from __future__ import annotations

import ast
import re
import string
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.errors import Location, Problem
from planner.host import SealedVault, UnsafeText
from planner.inventory.vault import (
    NO_KEYS,
    VaultCipher,
    VaultError,
    VaultKeys,
    VaultText,
    decrypt,
    mark_secret,
)

LOCALHOST_NAMES = ("127.0.0.1", "localhost", "::1")
CONNECTIONS = {"ssh": "ssh", "paramiko": "ssh", "smart": "ssh", "local": "local"}
_TRUE = frozenset({"y", "yes", "on", "1", "true", "t"})
_FALSE = frozenset({"n", "no", "off", "0", "false", "f"})
_BRACKETED_HOSTPORT = re.compile(r"^\[(.+)\]:([0-9]+)$")
_HOSTPORT = re.compile(r"^((?:[^:\[\]]|\[[^\]]*\])+):([0-9]+)$")
# ansible-core's INVALID_VARIABLE_NAMES: a group name must be a valid variable name to be used in templates
_INVALID_GROUP_CHARS = re.compile(r"^[\d\W]|[^\w]")
GROUP_NAME_WARNING = "Invalid characters were found in group names but not replaced, use -vvvv to see details"
# ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS -> ansible-core's warning (never is the default; ignore and silently: none)
_GROUP_WARNINGS = {"never": GROUP_NAME_WARNING, "always": "Invalid characters were found in group names and "
                   "automatically replaced, use -vvvv to see details"}
TRANSFORM_MODES = ("never", "always", "ignore", "silently")
# ansible-core 2.19's ansible.vars.reserved.get_reserved_names(): play, role, block and task keywords and
# the template globals; a variable so named is warned about
RESERVED_NAMES = frozenset((
    "action", "always", "any_errors_fatal", "args", "async", "async_val", "become", "become_exe", "become_flags",
    "become_method", "become_user", "block", "changed_when", "check_mode", "collections", "connection", "cycler",
    "debugger", "delay", "delegate_facts", "delegate_to", "dict", "diff", "environment", "fact_path", "failed_when",
    "force_handlers", "gather_facts", "gather_timeout", "handlers", "hosts", "ignore_errors", "ignore_unreachable",
    "joiner", "lipsum", "local_action", "lookup", "loop", "loop_control", "loop_with", "max_fail_percentage",
    "module_defaults", "name", "namespace", "no_log", "notify", "now", "omit", "order", "poll", "port",
    "post_tasks", "pre_tasks", "q", "query", "range", "register", "remote_user", "rescue", "retries", "roles",
    "run_once", "serial", "strategy", "tags", "tasks", "throttle", "timeout", "undef", "until", "vars",
    "vars_files", "vars_prompt", "when", "with_"))
_JINJA_KEYWORDS = frozenset(("False", "None", "True", "false", "none", "not", "true"))  # not variable names
VAULT_HINT = ("give the vault password with --vault-password-file FILE, --vault-id [LABEL@]FILE, --ask-vault-pass "
              "or ANSIBLE_VAULT_PASSWORD_FILE")


@dataclass
class GroupNode:
    """A group as the readers declare it, before the graph is resolved."""

    name: str
    location: Location | None
    hosts: list[str] = field(default_factory=list)  # direct members, in the order first added
    children: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    vars: dict[str, Any] = field(default_factory=dict)
    priority: int = 1
    depth: int = 0


@dataclass
class HostNode:
    """A host as the readers declare it, with its own variables."""

    name: str
    location: Location | None
    vars: dict[str, Any] = field(default_factory=dict)


class InventoryGraph:
    """Groups and hosts as a reader declares them; problems are collected, never raised."""

    def __init__(self, vault: VaultKeys = NO_KEYS, transform: str = "never") -> None:
        self.transform = transform  # ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS
        # group_vars/ host_vars/ of the sources read so far, (kind, name) -> variables (the constructed plugin's
        # use_vars_plugins); set by the loader, which knows the sources' folders
        self.file_vars: Callable[[], dict[tuple[str, str], dict[str, Any]]] = dict
        self.groups: dict[str, GroupNode] = {}
        self.hosts: dict[str, HostNode] = {}
        self.problems: list[Problem] = []
        # a connection variable planner cannot use, by owner ("group"|"host", name): a problem only for the
        # hosts a run selects, as Ansible judges only the hosts it works on (a winrm host outside -l is fine)
        self.deferred: dict[tuple[str, str], list[Problem]] = {}
        self.vault = vault
        self.warnings: list[str] = []  # printed as ansible-inventory prints them, each once
        self.secret_source = False  # set while a vaulted inventory file is read: its values are secrets
        self.add_group("all", None)
        self.add_group("ungrouped", None)
        self.add_child("all", "ungrouped", None)

    def problem(self, location: Location | None, message: str, hint: str) -> None:
        self.problems.append(Problem(location, "", message, hint))

    def refused(self) -> bool:
        """Whether a problem other than a deferred connection variable refuses the whole inventory."""
        deferred = {id(p) for problems in self.deferred.values() for p in problems}
        return any(id(p) not in deferred for p in self.problems)

    def canon(self, name: str) -> str:
        """The group name as stored: with ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS always/silently, every character
        not valid in a variable name becomes '_' (ansible-core's to_safe_group_name)."""
        if self.transform in ("always", "silently") and _INVALID_GROUP_CHARS.search(name):
            return _INVALID_GROUP_CHARS.sub("_", name)
        return name

    def warn(self, text: str, location: Location | None = None) -> None:
        """A warning as ansible-inventory gives it, its origin on the next line; each once."""
        line = f"{text}\nOrigin: {location}" if location else text
        if line not in self.warnings:
            self.warnings.append(line)

    def check_name(self, key: str, location: Location | None, inline: bool) -> None:
        """ansible-core's warnings about a variable's name: invalid (deprecated, for inventory-file variables:
        Host/Group.set_variable) and reserved (any variable a host gets: warn_if_reserved)."""
        if inline and not (key.isidentifier() and key.isascii() and key not in _JINJA_KEYWORDS):
            self.warn(f"Accepting inventory variable with invalid name {key!r}. This feature will be removed from "
                      "ansible-core version 2.23.", location)
        if key in RESERVED_NAMES:
            self.warn(f"Found variable using reserved name {key!r}.", location)

    def add_group(self, name: str, location: Location | None) -> None:
        stored = self.canon(name)
        if stored not in self.groups:
            self.groups[stored] = GroupNode(stored, location)
            warning = _GROUP_WARNINGS.get(self.transform) if _INVALID_GROUP_CHARS.search(name) else None
            if warning and warning not in self.warnings:
                self.warnings.append(warning)

    def opened(self, value: Any, location: Location | None) -> Any:
        """The value with every inline `!vault` decrypted (a VaultText); one no password opens stays sealed
        (a SealedVault naming where it is), refused only where it is used, as Ansible decrypts lazily."""
        if isinstance(value, VaultCipher):
            try:
                return VaultText(decrypt(value.ciphertext, self.vault), value.ciphertext)
            except VaultError as exc:
                where = f"{location}: " if location else ""
                return SealedVault(value.ciphertext, f"{where}cannot decrypt this !vault value: {exc}")
        if isinstance(value, dict):
            return {k: self.opened(v, location) for k, v in value.items()}
        if isinstance(value, list):
            return [self.opened(v, location) for v in value]
        return value

    def _value(self, value: Any, location: Location | None) -> Any:
        value = self.opened(value, location)
        return mark_secret(value) if self.secret_source else value

    def add_host(self, name: str, group: str | None, port: int | None, location: Location | None) -> None:
        if name not in self.hosts:
            self.hosts[name] = HostNode(name, location)
            if port is not None:  # as Ansible: a port in `host:port` counts only where the host first appears
                self.hosts[name].vars["ansible_port"] = port
        if group is not None and name not in self.groups[self.canon(group)].hosts:
            self.groups[self.canon(group)].hosts.append(name)

    def ancestors(self, group: str) -> set[str]:
        seen: set[str] = set()
        todo = list(self.groups[group].parents)
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo.extend(self.groups[g].parents)
        return seen

    def add_child(self, parent: str, child: str, location: Location | None) -> None:
        parent, child = self.canon(parent), self.canon(child)
        p, c = self.groups[parent], self.groups[child]
        if parent == child or child in self.ancestors(parent):
            self.problem(location, f"adding group '{child}' as a child of '{parent}' creates a loop",
                         "a group cannot contain itself, directly or through its children; remove one of the links")
            return
        if child not in p.children:
            p.children.append(child)
        if parent not in c.parents:
            c.parents.append(parent)

    def set_group_var(self, group: str, key: str, value: Any, location: Location | None) -> None:
        group = self.canon(group)
        self.check_name(key, location, inline=True)
        value = self._value(value, location)
        if key == "ansible_group_priority":
            try:
                self.groups[group].priority = int(value)
            except (TypeError, ValueError):
                self.problem(location, f"ansible_group_priority {value!r} is not an integer",
                             "give a whole number such as 10; higher wins among groups of the same depth")
            return
        if check_special_var(self, key, value, location, ("group", group)):
            self.groups[group].vars[key] = value

    def set_host_var(self, host: str, key: str, value: Any, location: Location | None) -> None:
        self.check_name(key, location, inline=True)
        value = self._value(value, location)
        if check_special_var(self, key, value, location, ("host", host)):
            self.hosts[host].vars[key] = value

    def reconcile(self) -> None:
        """Ansible's reconcile_inventory: parentless groups join `all`, lone hosts join `ungrouped`."""
        for name in list(self.groups):
            if name != "all" and not self.groups[name].parents:
                self.add_child("all", name, None)
        ungrouped = self.groups["ungrouped"]
        for host in self.hosts:
            direct = {g.name for g in self.groups.values() if host in g.hosts}
            if "ungrouped" in direct:
                if direct - {"all", "ungrouped"}:
                    ungrouped.hosts.remove(host)
            elif direct <= {"all"}:
                ungrouped.hosts.append(host)
        for name, node in self.groups.items():
            if name in self.hosts:
                self.problem(self.hosts[name].location or node.location,
                             f"'{name}' is both a host and a group",
                             "rename the group or the host; patterns and variables would be ambiguous")
        self._set_depths()

    def prepare(self) -> None:
        """Group depths for variable precedence, for a reader (constructed) that needs them mid-way."""
        self._set_depths()

    def _set_depths(self) -> None:
        # depth = longest path from `all`, which is what Ansible's incremental updates converge to
        def depth(name: str, trail: frozenset[str]) -> int:
            parents = [p for p in self.groups[name].parents if p not in trail]
            return 1 + max((depth(p, trail | {p}) for p in parents), default=-1)

        for name, node in self.groups.items():
            node.depth = depth(name, frozenset({name}))

    def flat_hosts(self, group: str) -> list[str]:
        """Hosts of a group and of all its descendants, the group's own first, then level by level."""
        order, seen_groups, level = [group], {group}, [group]
        while level:
            nxt = [c for g in level for c in self.groups[g].children if c not in seen_groups]
            nxt = list(dict.fromkeys(nxt))
            seen_groups.update(nxt)
            order.extend(nxt)
            level = nxt
        return list(dict.fromkeys(h for g in order for h in self.groups[g].hosts))

    def host_groups(self, host: str) -> list[str]:
        direct = [g for g, node in self.groups.items() if host in node.hosts]
        every = set(direct)
        for g in direct:
            every |= self.ancestors(g)
        return sorted(every, key=lambda g: (self.groups[g].depth, self.groups[g].priority, g))


def check_special_var(graph: InventoryGraph, key: str, value: Any, location: Location | None,
                      owner: tuple[str, str]) -> bool:
    """Validate the connection variables planner maps onto Host; False when unusable, with a problem kept for
    the hosts of ``owner`` (reported only if a run selects one). A sealed vault value is refused where a host
    uses it (planner.cli.hostvars), not here."""
    why = None if isinstance(value, SealedVault) else _unusable(key, value)
    if why is None:
        return True
    problem = Problem(location, "", *why)
    graph.deferred.setdefault(owner, []).append(problem)
    graph.problems.append(problem)  # told with the others, in file order, when the inventory is refused anyway
    return False


def _unusable(key: str, value: Any) -> tuple[str, str] | None:
    if key == "ansible_port" and to_port(value) is None:
        return (f"ansible_port {value!r} is not a port number",
                "give a whole number between 1 and 65535, e.g. ansible_port=2222")
    if key == "ansible_connection" and str(value) not in CONNECTIONS:
        return f"ansible_connection {value!r} is not supported", "use ssh (also written paramiko or smart) or local"
    if key == "ansible_become" and to_bool(value) is None:
        return f"ansible_become {value!r} is not a boolean", "use true/false (yes/no, 1/0 are accepted too)"
    return None


def to_port(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        port = value
    elif isinstance(value, str) and value.strip().isdigit():
        port = int(value)
    else:
        return None
    return port if 0 < port < 65536 else None


def to_bool(value: Any) -> bool | None:
    """Ansible's boolean(): True/False, 1/0 and the yes/no/on/off/true/false words, any case."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def ini_value(text: str) -> Any:
    """Type an INI value as ansible-core's ini plugin does: ast.literal_eval, else the string itself."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if value is ...:
        return "..."
    if isinstance(value, complex):
        return str(value)
    if isinstance(value, bytes):  # ansible-core tags only str literals trusted-as-template: b'...' is unsafe
        return UnsafeText(value.decode("utf-8", "surrogateescape"))
    return value


def split_host_port(text: str) -> tuple[str, int | None]:
    """`host:2222` or `[::1]:2222` -> (host, port); anything else is all host."""
    for pattern in (_BRACKETED_HOSTPORT, _HOSTPORT):
        m = pattern.match(text)
        if m:
            return m.group(1), int(m.group(2))
    return text, None


def expand_host_range(pattern: str) -> list[str]:
    """`db[01:08:2].lab` -> db01.lab, db03.lab, ...; raises ValueError with Ansible's message."""
    if "[" not in pattern:
        return [pattern]
    if "]" not in pattern:
        raise ValueError("host range has '[' without a closing ']'")
    head, rest = pattern.split("[", 1)
    nrange, tail = rest.split("]", 1)
    bounds = nrange.split(":")
    if len(bounds) not in (2, 3):
        raise ValueError("host range must be begin:end or begin:end:step")
    beg, end = bounds[0] or "0", bounds[1]
    step_text = bounds[2] if len(bounds) == 3 else "1"
    if not end:
        raise ValueError("host range must specify end value")
    if not step_text.isdigit() or int(step_text) == 0:
        raise ValueError(f"host range step '{step_text}' must be a positive whole number")
    step = int(step_text)
    width = len(beg) if beg[0] == "0" and len(beg) > 1 else 0
    if width and width != len(end):
        raise ValueError("host range must specify equal-length begin and end formats")
    letters = string.ascii_letters
    if beg in letters and end in letters and len(beg) == len(end) == 1:
        if letters.index(beg) > letters.index(end):
            raise ValueError("host range must have begin <= end")
        seq = list(letters[letters.index(beg):letters.index(end) + 1:step])
    elif beg.isdigit() and end.isdigit():
        seq = [str(i).zfill(width) for i in range(int(beg), int(end) + 1, step)]
    else:
        raise ValueError(f"host range [{nrange}] must be numbers like [01:08] or single letters like [a:f]")
    names: list[str] = []
    for item in seq:
        names.extend(expand_host_range(f"{head}{item}{tail}"))
    return names
