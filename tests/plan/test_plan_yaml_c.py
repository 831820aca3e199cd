"""Plan YAML composed by libyaml (issue 47: a 20 KB resolved plan took 60 ms of pure-Python parsing): every
value, key and place the same as PyYAML's pure-Python parser gives, and every refused document refused in
PyYAML's words at its place (libyaml only reads what both accept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.plan import source
from planner.plan.source import Document, load_yaml_text

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for d in ("plans", "benchmarks", "tests/data", "docs", "inventory") if (ROOT / d).is_dir()
               for p in (ROOT / d).rglob("*.y*ml"))

TRICKY = [
    "a: ÿ€𝄞 text\nb: 'tab\there'\nc: \"é\\u00e9\"\n",
    "base: &b {x: 1, y: [2, 3]}\nuse:\n  <<: *b\n  y: off\n",
    "\ufeffplan: x\r\nplays:\r\n  - name: é\r\n    hosts: all\r\n",
    "s: |\n  line one\n    indented\n\n  last\nf: >-\n  folded\n  text\n",
    "n: [0x1F, 0o17, 010, 1_000, 1:30, 2012-05-08, .inf, -.5e3, ~, Null, TRUE, yes, off]\n",
    "v: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nk: !!str 12\n",
    "? complex\n: value\n\"quoted key\": [a, {b: c}]\n",
    "",
    "# only a comment\n",
]

BAD = [
    "a: [1, 2}\n", "a:\n\t- b\n", "a: 1\na: 2\n", "x: !!int nope\n", "a: @x\n", "a: b: c\n", "a: \"open\n",
    "a: &x [*x]\n", "k: \x00\n", "k: \ud800\n", "- a\nb: c\n", "{a: 1\n", "a: *nowhere\n", "[[[[\n",
    "a:\n  - b\n - c\n", "key: `tick`\n", "? [a]\n: b\n", "%YAML 1.3\n---\na: 1\n",
]


def _python(text: str) -> Document | list[str]:
    try:
        return source._document(None, "f.yaml", text)
    except InputError as e:
        return [str(p) for p in e.problems]


def _either(text: str) -> Document | list[str]:
    try:
        return load_yaml_text(text, "f.yaml")
    except InputError as e:
        return [str(p) for p in e.problems]


def test_libyaml_is_in_use() -> None:
    assert source._CPlanLoader.__mro__[1].__name__ == "CSafeLoader"  # PyYAML built with libyaml (the wheels are)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_yaml_same_values_and_places(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    assert _either(text) == _python(text)


@pytest.mark.parametrize("text", TRICKY + BAD)
def test_tricky_and_refused_documents_same(text: str) -> None:
    assert _either(text) == _python(text)
