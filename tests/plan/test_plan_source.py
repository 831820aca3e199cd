"""YAML loading: the YAML 1.1 traps stay strings, locations are 1-based, duplicates are errors."""

from __future__ import annotations

import pytest

from planner.errors import InputError, Location
from planner.plan.source import format_path, load_yaml_text


@pytest.mark.parametrize(("text", "expected"), [
    ("off", "off"), ("on", "on"), ("yes", "yes"), ("no", "no"), ("y", "y"), ("n", "n"), ("Off", "Off"),
    ("64M", "64M"), ("1g", "1g"), ("0755", "0755"), ("010", "010"), ("1_000", "1_000"), ("1:30", "1:30"),
    ("2012-05-08", "2012-05-08"), ("0-5", "0-5"),
    ("true", True), ("False", False), ("300", 300), ("-3", -3), ("0", 0), ("1.5", 1.5), ("1e3", 1000.0),
    ("0x1f", 31), ("0o17", 15), ("~", None), ("null", None), ("", None), ("'off'", "off"),
])
def test_scalars_resolve_like_yaml_1_2_core(text: str, expected: object) -> None:
    value = load_yaml_text(f"v: {text}\n", "t.yaml").data["v"]
    assert value == expected and type(value) is type(expected)


def test_flashback_off_is_the_string_off() -> None:
    doc = load_yaml_text("prep:\n  - flashback: off\n  - init_ora: {db_recycle_cache_size: 64M}\n", "p.yaml")
    assert doc.data == {"prep": [{"flashback": "off"}, {"init_ora": {"db_recycle_cache_size": "64M"}}]}


def test_locations_of_values_keys_and_missing_nodes() -> None:
    doc = load_yaml_text("a:\n  b: [1, {c: x}]\n", "f.yaml")
    assert doc.location(("a", "b", 1, "c")) == Location("f.yaml", 2, 14)
    assert doc.key_location(("a", "b", 1, "c")) == Location("f.yaml", 2, 11)
    assert doc.location(("a", "b", 1, "missing")) == Location("f.yaml", 2, 10)  # the parent mapping
    assert doc.location(()) == Location("f.yaml", 1, 1)


def test_duplicate_keys_report_both_places() -> None:
    with pytest.raises(InputError) as exc:
        load_yaml_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    assert str(exc.value) == "d.yaml:3:1: duplicate key 'a' — it is already set at line 1, column 1; keep one"


def test_merge_keys_and_aliases() -> None:
    doc = load_yaml_text("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n", "m.yaml")
    assert doc.data["c"] == {"y": 3, "x": 1}


def test_unknown_tag_is_a_located_error() -> None:
    with pytest.raises(InputError) as exc:
        load_yaml_text("a: !!python/object:os.system x\n", "u.yaml")
    assert str(exc.value).startswith("u.yaml:1:4: YAML syntax error: could not determine a constructor")


def test_format_path() -> None:
    assert format_path(("plays", 1, "workloads", 0, "slob", "readers")) == "plays[1].workloads[0].slob.readers"
    assert format_path(()) == ""
