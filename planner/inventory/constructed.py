"""ansible-core's `constructed` inventory plugin: `compose`, `groups` and `keyed_groups` over the hosts read so far.

A source `plugin: constructed` (or `ansible.builtin.constructed`) is read in its place among the `-i` sources,
as Ansible reads it: for each host already known, with the host's inventory variables (its groups' by depth,
then its own; the group_vars/ host_vars/ of the sources read before it only with `use_vars_plugins`) and its
magic variables, `compose` sets variables from expressions, `groups` adds the host to each group whose condition holds,
and `keyed_groups` to a group named after a value (`prefix` `separator` value, sanitised). Expressions run in
planner's one sandboxed, bounded Jinja2 environment (planner.safejinja): Jinja's own filters and tests, not
Ansible's. As in Ansible, an expression that fails skips that entry unless `strict: true`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from planner.errors import Location
from planner.host import UnsafeText
from planner.inventory.data import InventoryGraph

if TYPE_CHECKING:
    from planner.safejinja import NativeSandboxEnvironment

PLUGIN_NAMES = ("constructed", "ansible.builtin.constructed")
_OPTIONS = frozenset({"plugin", "strict", "compose", "groups", "keyed_groups", "leading_separator",
                      "use_vars_plugins", "use_extra_vars", "cache", "cache_plugin", "cache_timeout",
                      "cache_connection", "cache_prefix"})
_INVALID = re.compile(r"^[\d\W]|[^\w]")  # ansible-core's INVALID_VARIABLE_NAMES


@cache
def _env() -> NativeSandboxEnvironment:
    """Made at the first constructed source: an inventory without one never loads Jinja2 (start-up time)."""
    import jinja2

    from planner.safejinja import NativeSandboxEnvironment
    return NativeSandboxEnvironment(undefined=jinja2.StrictUndefined)


class _Failed(Exception):
    """An expression that could not be evaluated (undefined variable, template error): skipped unless strict."""


def read_constructed(graph: InventoryGraph, config: Mapping[str, Any], file: str) -> None:
    at = Location(file, 1, 1)
    unknown = sorted(str(k) for k in config if k not in _OPTIONS)
    if unknown:
        graph.problem(at, f"unknown option(s) of the constructed plugin: {', '.join(unknown)}",
                      "use compose, groups, keyed_groups, strict or leading_separator")
        return
    strict = bool(config.get("strict", False))
    files = graph.file_vars() if config.get("use_vars_plugins") else {}
    for host in list(graph.hosts):
        try:
            _construct(graph, host, config, strict, files)
        except _Failed as exc:
            graph.problem(at, f"constructed (strict): host {host}: {exc}",
                          "fix the expression, or drop strict: true to skip what fails")
            return


def _construct(graph: InventoryGraph, host: str, config: Mapping[str, Any], strict: bool,
               files: Mapping[tuple[str, str], Mapping[str, Any]]) -> None:
    variables = _host_vars(graph, host, files)
    for name, expr in dict(config.get("compose") or {}).items():  # each from the same variables, as Ansible
        ok, value = _try(expr, variables, strict, f"could not set {name}")
        if ok:  # a computed text is never templated again: ansible-core 2.19 lists it as unsafe
            graph.set_host_var(host, str(name), _untrusted(value), None)
    variables = _host_vars(graph, host, files)
    for name, condition in dict(config.get("groups") or {}).items():
        ok, value = _try(condition, variables, strict, f"could not add the host to group {name}")
        if ok and value:
            _join(graph, host, _sanitised(str(name)))
    for keyed in list(config.get("keyed_groups") or []):
        _keyed(graph, host, keyed, variables, strict, config.get("leading_separator", True))


def _keyed(graph: InventoryGraph, host: str, keyed: Any, variables: dict[str, Any], strict: bool,
           leading: Any) -> None:
    """ansible-core's _add_host_to_keyed_groups, option for option."""
    if not isinstance(keyed, Mapping):
        raise _Failed(f"invalid keyed group entry, it must be a mapping: {keyed!r}")
    ok, key = _try(keyed.get("key"), variables, strict, f"could not generate a group from {keyed.get('key')!r}")
    if not ok:
        return
    default = keyed.get("default_value")
    trailing = keyed.get("trailing_separator")
    if trailing is not None and default is not None:
        raise _Failed("default_value and trailing_separator are mutually exclusive for keyed groups")
    use_default = key in (None, "") and default is not None
    if not (key or use_default):
        return
    sep = str(keyed.get("separator", "_"))
    prefix = str(keyed.get("prefix", ""))
    lead = "" if prefix == "" and leading is False else sep  # a mapping's name=value keeps its separator
    for bare in _bare_names(key, use_default, default, trailing, sep):
        group = _sanitised(f"{prefix}{lead}{bare}")
        _join(graph, host, group)
        if keyed.get("parent_group"):
            parent = _sanitised(str(keyed["parent_group"]))
            graph.add_group(parent, None)
            graph.add_child(parent, group, None)


def _bare_names(key: Any, use_default: bool, default: Any, trailing: Any, sep: str) -> list[str]:
    if use_default:
        return [str(default)]
    if isinstance(key, str):
        return [key]
    if isinstance(key, list):
        return [str(default) if n in (None, "") and default is not None else _text(n) for n in key]
    if isinstance(key, Mapping):
        names = []
        for name, value in key.items():
            if value in (None, "") and default is not None:
                names.append(f"{name}{sep}{default}")
            elif value in (None, "") and trailing is False:
                names.append(str(name))
            else:
                names.append(f"{name}{sep}{_text(value)}")
        return names
    raise _Failed(f"invalid group name format, expected a string, a list or a mapping, got {type(key).__name__}")


def _untrusted(value: Any) -> Any:
    if isinstance(value, str):
        return UnsafeText(value)
    if isinstance(value, Mapping):
        return {k: _untrusted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_untrusted(v) for v in value]
    return value


def _text(value: Any) -> str:
    return "None" if value is None else str(value)


def _join(graph: InventoryGraph, host: str, group: str) -> None:
    graph.add_group(group, None)
    graph.add_host(host, group, None, None)


def _sanitised(name: str) -> str:
    """to_safe_group_name(force=True, silent=True): every character not valid in a variable name becomes '_'."""
    return _INVALID.sub("_", name)


def _try(expr: Any, variables: dict[str, Any], strict: bool, what: str) -> tuple[bool, Any]:
    try:
        return True, _evaluate(expr, variables)
    except _Failed as exc:
        if strict:
            raise _Failed(f"{what}: {exc}") from None
        return False, None


def _evaluate(expr: Any, variables: Mapping[str, Any]) -> Any:
    if not isinstance(expr, str):
        return expr  # a literal (true, 3): what Ansible's templating gives back for it
    import jinja2  # here, not at the top: only a constructed source's expression needs Jinja2

    from planner.safejinja import template_errors_only
    try:
        with template_errors_only():
            return _env().compile_expression(expr, undefined_to_none=False)(**variables)
    except jinja2.TemplateError as exc:
        raise _Failed(str(exc)) from None


def _host_vars(graph: InventoryGraph, host: str, files: Mapping[tuple[str, str], Mapping[str, Any]]) -> dict[str, Any]:
    """The host's inventory variables as ansible-core's get_all_host_vars gives them (with use_vars_plugins, the
    group_vars/ host_vars/ of the sources read so far on top), and its magic variables."""
    graph.prepare()
    groups = [g for g in graph.host_groups(host) if g != "all"]
    merged: dict[str, Any] = dict(graph.groups["all"].vars)
    for g in groups:
        merged.update(graph.groups[g].vars)
    merged.update(graph.hosts[host].vars)
    for key in [("group_vars", "all"), *(("group_vars", g) for g in groups), ("host_vars", host)]:
        merged.update(files.get(key, {}))
    merged.update({"inventory_hostname": host, "inventory_hostname_short": host.split(".")[0],
                   "group_names": sorted(groups)})
    return merged
