"""Ansible host patterns: `all`, `*`, names, globs, `~regex`, `a:b`/`a,b`, `a:&b`, `a:!b`, `group[0:2]`.

Evaluated in Ansible's order (InventoryManager._evaluate_patterns): the plain terms first, left to right,
then every `&` term, then every `!` term, whatever order they were written in.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence

from planner.errors import Problem

_SUBSCRIPT = re.compile(r"^(.+)\[(?:(-?[0-9]+)|([0-9]+)([:-])([0-9]*))\]$")
_COLON_TERMS = re.compile(r"(?:[^\s:\[\]]|\[[^\]]*\])+")
_PLAIN_HOST = re.compile(r"^(?:\[[^\]]+\]|[^:\[\]]+)(?::[0-9]+)?$")


def split_pattern(pattern: str) -> list[str]:
    """'a,b' and 'a:b:&c' -> terms; a colon inside [x:y] or an IPv6 address is not a separator."""
    if "," in pattern:
        terms = pattern.split(",")
    elif _is_single_address(pattern):
        terms = [pattern]
    else:
        terms = _COLON_TERMS.findall(pattern)
    return [t.strip() for t in terms if t.strip()]


def _is_single_address(pattern: str) -> bool:
    # Ansible keeps a pattern whole when parse_address() accepts it: a name, an IPv6 address, host:port
    if ":" not in pattern:
        return True
    if re.fullmatch(r"[0-9a-fA-F:]+(?:%\w+)?", pattern) and pattern.count(":") >= 2:
        return True
    return bool(re.fullmatch(r"\[[^\]]+\]:[0-9]+", pattern))


def order_terms(terms: Sequence[str]) -> list[str]:
    plain = [t for t in terms if t[0] not in "&!"]
    return (plain or ["all"]) + [t for t in terms if t[0] == "&"] + [t for t in terms if t[0] == "!"]


def _compile(expr: str) -> re.Pattern[str]:
    return re.compile(expr[1:] if expr.startswith("~") else fnmatch.translate(expr))


def _subscript(expr: str) -> tuple[str, tuple[int, int | None] | None]:
    if expr.startswith("~"):
        return expr, None
    m = _SUBSCRIPT.match(expr)
    if not m:
        return expr, None
    base, index, start, _sep, end = m.groups()
    if index is not None:
        return base, (int(index), None)
    return base, (int(start), int(end) if end else -1)


def match_term(term: str, groups: Mapping[str, Sequence[str]], hosts: Sequence[str]) -> tuple[list[str], bool]:
    """Hosts one term names (without its &/! prefix), and whether it named any group or host at all."""
    expr, sub = _subscript(term)
    try:
        rx = _compile(expr)
    except re.error as exc:
        raise ValueError(f"'{expr}' is not a valid regular expression: {exc}") from exc
    matched_groups = [g for g in groups if rx.match(g)]
    result = [h for g in matched_groups for h in groups[g]]
    if not matched_groups or expr.startswith("~") or any(c in expr for c in ".?*["):
        result.extend(h for h in hosts if rx.match(h))
    result = list(dict.fromkeys(result))
    known = bool(matched_groups) or bool(result)
    if sub and result:
        start, end = sub
        try:
            result = [result[start]] if end is None else result[start:(len(result) - 1 if end == -1 else end) + 1]
        except IndexError as exc:
            raise ValueError(f"subscript [{start}] is out of range for {len(result)} hosts") from exc
    return result, known


def evaluate(pattern: str, groups: Mapping[str, Sequence[str]], hosts: Sequence[str],
             known_hosts: frozenset[str] = frozenset(), lenient: bool = False) -> tuple[list[str], list[Problem]]:
    """Host names a pattern selects, in inventory order of first match, and problems for dead terms.

    A term that names no group and no host is a problem (Ansible only warns): a typo in `!cell03`
    would otherwise run a benchmark on the very host meant to be left out. ``lenient`` (what only shows an
    inventory, `planner inventory --limit`) takes it as no host, as Ansible does.
    """
    selected: list[str] = []
    problems: list[Problem] = []
    for term in order_terms(split_pattern(pattern)):
        bare = term[1:] if term[0] in "&!" else term
        if not bare:
            problems.append(Problem(None, "", f"pattern '{pattern}' has an empty '{term}' term",
                                    "write a group or host name after & or !"))
            continue
        if bare in hosts:
            that, known = [bare], True
        else:
            try:
                that, known = match_term(bare, groups, hosts)
            except ValueError as exc:
                problems.append(Problem(None, "", f"pattern '{pattern}': {exc}", "fix the term"))
                continue
            known = known or bare in known_hosts
        if not known and lenient:
            that = []
        elif not known:
            problems.append(Problem(None, "", f"pattern '{pattern}': '{bare}' matches no group or host",
                                    "known groups: " + ", ".join(sorted(groups))))
            continue
        if term[0] == "!":
            drop = set(that)
            selected = [h for h in selected if h not in drop]
        elif term[0] == "&":
            keep = set(that)
            selected = [h for h in selected if h in keep]
        else:
            selected.extend(h for h in that if h not in selected)
    return selected, problems
