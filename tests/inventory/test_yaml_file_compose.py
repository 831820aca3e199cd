"""Issue 47: a YAML inventory was composed by PyYAML's pure-Python scanner and parser, the largest per-host cost of
loading a big inventory (~5 ms of controller CPU a host, profiled at 30 hosts). libyaml composes it now, to
the same nodes at the same places; a document it refuses is composed again in Python, so errors read as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planner.errors import InputError
from planner.inventory.graph import load_inventory
from planner.inventory.yaml_file import compose

TEXT = """all:
  vars: {ansible_user: oracle, "clé": "été", n: 1}
  hosts:
    hôte-é1: {ansible_host: 127.0.0.1, x: [1, 2, &a {k: v}], y: *a}
    "ü2":
      note: |
        ümlaut line
        two
      z: !unsafe "{{ x }}"
  children:
    db: {hosts: {hôte-é1: null}}
"""


def _places(node: yaml.Node) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        value = n.value if isinstance(n, yaml.ScalarNode) else None
        out.append((type(n).__name__, n.tag, value, n.start_mark.line, n.start_mark.column, n.end_mark.line,
                    n.end_mark.column))
        if isinstance(n, yaml.MappingNode):
            stack += [part for pair in reversed(n.value) for part in reversed(pair)]
        elif isinstance(n, yaml.SequenceNode):
            stack += reversed(n.value)
    return out


def test_the_nodes_and_their_places_are_pythons() -> None:
    root, problems = compose(TEXT, "hosts.yml")
    assert problems == [] and root is not None
    assert _places(root) == _places(yaml.compose(TEXT, Loader=yaml.SafeLoader))


def test_a_big_inventory_is_not_scanned_in_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: 3 005 pure-Python token fetches for these 200 hosts."""
    fetched = [0]
    real = yaml.scanner.Scanner.fetch_more_tokens

    def counted(self: yaml.scanner.Scanner) -> None:
        fetched[0] += 1
        real(self)

    monkeypatch.setattr(yaml.scanner.Scanner, "fetch_more_tokens", counted)
    path = tmp_path / "hosts.yml"
    path.write_text("all:\n  hosts:\n" + "".join(
        f"    lab{i:03d}: {{ansible_host: 127.0.0.1, ansible_port: {2200 + i}, ansible_user: oracle}}\n"
        for i in range(200)))
    inv = load_inventory(path)
    assert len(inv.hosts) == 200 and inv.hosts["lab007"].port == 2207
    assert fetched[0] == 0


def test_a_syntax_error_reads_as_pythons(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yml"
    path.write_text("all:\n  hosts:\n    a: {x: 1\n")
    with pytest.raises(InputError) as e:
        load_inventory(path)
    assert "expected ',' or '}', but got '<stream end>'" in str(e.value.problems[0].message)


def test_plain_strings_read_as_the_constructor_reads_them() -> None:
    """Issue 47, stop 53: a plain string's value is taken from its node, not through a constructor made for it;
    every node of a document (tags, explicit !!str, !unsafe, numbers, nulls) reads as SafeConstructor reads it."""
    from planner.inventory.yaml_file import _Constructor, value_of

    text = TEXT + "  vars2: {a: !!str 12, b: '010', c: 010, d: off, e: ~, f: 1.5, g: !unsafe plain, h: \"q\"}\n"
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    stack: list[yaml.Node] = [root]
    seen = 0
    while stack:
        node = stack.pop()
        got = value_of(node)
        assert got == _Constructor().construct_document(node) and type(got) is type(
            _Constructor().construct_document(node)), node
        seen += 1
        if isinstance(node, yaml.MappingNode):
            stack += [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    assert seen > 40
