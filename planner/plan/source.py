"""YAML loading that keeps file:line:col for every node, with the YAML 1.1 traps disarmed.

PyYAML implements YAML 1.1, where ``off``/``no``/``y`` are booleans, ``010`` is octal, ``1_000`` is
a thousand, ``1:30`` is sexagesimal 90 and ``2012-05-08`` is a date. In a benchmark plan each of
those silently changes a value (``flashback: off`` would become ``False``), so our loader resolves
only YAML 1.2 core-schema scalars: ``true``/``false`` (any case spelling of the 1.2 core schema),
``null``/``~``/empty, decimal integers without leading zeros, ``0x``/``0o`` integers, and floats
written with a dot or an exponent. Everything else stays a string exactly as written.

The document is composed to nodes first (``yaml.compose`` style), so every value, and every mapping
key, has a location; duplicate keys are errors naming both places.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from planner.errors import InputError, Location, Problem
from planner.inputs import check_alias_growth, read_input

PathKey = str | int
NodePath = tuple[PathKey, ...]

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), minus nothing.
_RESOLVERS: list[tuple[str, str, str]] = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+|0o[0-7]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    (_MERGE, r"^(?:<<)$", "<"),
]


class PlanLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalar resolution (see the module docstring)."""

    yaml_implicit_resolvers: dict[str | None, list[tuple[str, re.Pattern[str]]]] = {}

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        if text.startswith("0o"):
            return int(text[2:], 8)
        return int(text, 0) if text.startswith("0x") else int(text)


class VaultTagged(str):
    """A ``!vault`` value as the plan (or ``-e @file``) wrote it: the ciphertext, and where it was. The CLI
    decrypts it with the vault passwords, as Ansible does for play vars and extra vars (planner.cli.apply);
    the plan layer holds no keys."""

    line: int
    column: int


def _vault_tagged(loader: yaml.SafeLoader, node: Node) -> VaultTagged:
    if not isinstance(node, ScalarNode):
        raise yaml.constructor.ConstructorError(None, None, "!vault must tag a string (the output of "
                                                "ansible-vault encrypt_string)", node.start_mark)
    out = VaultTagged(str(loader.construct_scalar(node)))
    out.line, out.column = node.start_mark.line + 1, node.start_mark.column + 1
    return out


PlanLoader.add_constructor("!vault", _vault_tagged)


class _CPlanLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PlanLoader's resolution and constructors over libyaml's parser (when PyYAML was built with it): the same
    nodes and marks, composed in C. A document libyaml refuses is read again by PlanLoader, whose words and
    places the problems keep."""

    yaml_implicit_resolvers: dict[str | None, list[tuple[str, re.Pattern[str]]]] = {}
    construct_yaml_int = PlanLoader.construct_yaml_int


_CPlanLoader.add_constructor("!vault", _vault_tagged)

for _tag, _regexp, _first in _RESOLVERS:
    for _loader in (PlanLoader, _CPlanLoader):
        _loader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first) + ([""] if _first == "~nN" else []))
_CPlanLoader.add_constructor("tag:yaml.org,2002:int", _CPlanLoader.construct_yaml_int)
PlanLoader.add_constructor("tag:yaml.org,2002:int", PlanLoader.construct_yaml_int)


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(text: str) -> NodePath:
    """``plays[1].workloads[0]`` -> ``("plays", 1, "workloads", 0)`` (inverse of format_path)."""
    return tuple(int(i) if i else name for name, i in _PATH_PART.findall(text))


def format_path(path: NodePath) -> str:
    """``("plays", 1, "workloads", 0)`` -> ``plays[1].workloads[0]``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded YAML file: plain Python data plus where each node was written."""

    file: str
    data: Any
    _values: Mapping[NodePath, Location] = field(default_factory=dict, repr=False)
    _keys: Mapping[NodePath, Location] = field(default_factory=dict, repr=False)

    def location(self, path: tuple[PathKey, ...] | list[PathKey]) -> Location:
        """Where the value at ``path`` starts; for a missing node, its nearest existing parent."""
        path = tuple(path)
        while path not in self._values and path:
            path = path[:-1]
        return self._values.get(path, Location(self.file, 1, 1))

    def key_location(self, path: tuple[PathKey, ...] | list[PathKey]) -> Location:
        """Where the key of the mapping entry at ``path`` is written (the value's place for list items)."""
        path = tuple(path)
        return self._keys.get(path) or self.location(path)

    def paths(self) -> Iterator[NodePath]:
        return iter(self._values)


def _loc(file: str, node: Node) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Builder:
    """Turns a composed node tree into plain data, recording locations and duplicate keys."""

    def __init__(self, loader: PlanLoader, file: str) -> None:
        self.loader = loader
        self.file = file
        self.values: dict[NodePath, Location] = {}
        self.keys: dict[NodePath, Location] = {}
        self.problems: list[Problem] = []
        self._active: set[int] = set()  # node ids being built: guards recursive aliases

    def build(self, node: Node, path: NodePath) -> Any:
        self.values.setdefault(path, _loc(self.file, node))
        if id(node) in self._active:
            self.problems.append(Problem(_loc(self.file, node), format_path(path),
                                         "an alias refers to a node that contains it", "remove the recursion"))
            return None
        if isinstance(node, ScalarNode):
            return self._scalar(node, path)
        self._active.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            assert isinstance(node, MappingNode)
            return self._mapping(node, path)
        finally:
            self._active.discard(id(node))

    def _scalar(self, node: ScalarNode, path: NodePath) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
            # an explicit tag the text does not fit (`!!int x`, `!!bool maybe`): keep the text, report it
            tag = str(node.tag).rsplit(":", 1)[-1]
            self.problems.append(Problem(_loc(self.file, node), format_path(path),
                                         f"'{node.value}' is not a valid !!{tag}",
                                         f"remove the !!{tag} tag or fix the value"))
            return str(node.value)

    def _key(self, node: Node, path: NodePath) -> PathKey | None:
        if not isinstance(node, ScalarNode):
            self.problems.append(Problem(_loc(self.file, node), format_path(path),
                                         "a mapping key must be a plain value", "write the key as a word"))
            return None
        key = self._scalar(node, path)
        if isinstance(key, bool) or key is None or isinstance(key, float):
            return str(node.value)  # `true:`/`null:`/`1.5:` as keys: keep the text, JSON keys are strings
        return key if isinstance(key, int | str) else str(node.value)

    def _mapping(self, node: MappingNode, path: NodePath) -> dict[PathKey, Any]:
        out: dict[PathKey, Any] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merges.extend(value_node.value if isinstance(value_node, SequenceNode) else [value_node])
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            child = (*path, key)
            if key in out:
                first = self.keys[child]
                self.problems.append(Problem(
                    _loc(self.file, key_node), format_path(path), f"duplicate key '{key}'",
                    f"it is already set at line {first.line}, column {first.column}; keep one"))
                continue
            self.keys[child] = _loc(self.file, key_node)
            out[key] = self.build(value_node, child)
        for merged in merges:  # `<<: *defaults`: explicit keys win, as in YAML 1.1
            if not isinstance(merged, MappingNode):
                self.problems.append(Problem(_loc(self.file, merged), format_path(path),
                                             "'<<' must merge a mapping", "merge an anchored mapping"))
                continue
            for key, value in self._mapping(merged, path).items():
                out.setdefault(key, value)
        return out


def load_yaml_text(text: str, filename: str) -> Document:
    """Parse YAML text; raise InputError (with file:line:col) for syntax errors and duplicate keys."""
    if _CPlanLoader is not PlanLoader:
        try:  # the usual, valid document in C (a 20 KB resolved plan: 60 ms of pure-Python parsing)
            return _document(_CPlanLoader(text), filename, text)
        except (yaml.YAMLError, InputError, UnicodeError):  # a lone surrogate: libyaml cannot take it
            pass  # said below in PlanLoader's words, at its places
    return _document(None, filename, text)


def _document(loader: Any, filename: str, text: str) -> Document:
    try:
        loader = loader or PlanLoader(text)
    except yaml.reader.ReaderError as exc:  # a NUL or other unprintable character: found before any parsing
        raise InputError([_reader_problem(exc, filename, text)]) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(filename, None, {(): Location(filename, 1, 1)})
        growth = check_alias_growth(node, filename)
        if growth:
            raise InputError(growth)
        builder = _Builder(loader, filename)
        data = builder.build(node, ())
    except yaml.MarkedYAMLError as exc:
        raise InputError([_syntax_problem(exc, filename, text)]) from None
    except RecursionError:
        raise InputError([Problem(Location(filename, 1, 1), "", "YAML nested too deeply",
                                  "flatten the document: plans and variables need a few levels")]) from None
    finally:
        loader.dispose()
    if builder.problems:
        raise InputError(builder.problems)
    return Document(filename, data, builder.values, builder.keys)


def load_yaml(path: Path) -> Document:
    """Load a YAML file; the file name in locations is ``path`` as given (relative stays relative)."""
    return load_yaml_text(read_input(path), str(path))  # a regular file of bounded size (planner.inputs)


def _reader_problem(exc: yaml.reader.ReaderError, filename: str, text: str) -> Problem:
    """PyYAML refuses control characters (NUL...) before parsing; point at the first one."""
    before = text[: exc.position]
    line = before.count("\n") + 1
    column = exc.position - (before.rfind("\n") + 1) + 1
    char = f"{exc.character:#06x}" if isinstance(exc.character, int) else repr(exc.character)
    return Problem(Location(filename, line, column), "", f"character {char} is not allowed in YAML",
                   "remove the control character (a NUL byte or similar) from the file")


def _syntax_problem(exc: yaml.MarkedYAMLError, filename: str, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    loc = Location(filename, mark.line + 1, mark.column + 1) if mark else None
    problem = exc.problem or "invalid YAML"
    message = f"YAML syntax error: {problem}"
    if exc.context and exc.context_mark and exc.problem_mark and exc.context_mark.line != exc.problem_mark.line:
        message += f" ({exc.context} at line {exc.context_mark.line + 1})"
    hint = "check the indentation and quoting just before this point"
    lines = text.splitlines()
    offending = lines[mark.line] if mark and mark.line < len(lines) else ""
    if "\t" in problem or "\t" in offending[: (mark.column + 1) if mark else 0]:
        hint = "YAML does not allow tabs for indentation: indent with spaces"
    elif "found character '@'" in problem or "'`'" in problem:
        hint = "quote values that start with @ or `"
    elif "mapping values are not allowed" in problem:
        hint = "put a space after ':' in 'key: value', or quote a value that contains ': '"
    return Problem(loc, "", message, hint)
