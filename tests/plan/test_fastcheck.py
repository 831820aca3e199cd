"""planner.plan.fastcheck against jsonschema: wherever it answers, it answers as draft 2020-12 does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.plan import schema as plan_schema
from planner.plan.fastcheck import check

ROOT = Path(__file__).resolve().parents[2]
RAW = plan_schema.plan_schema()
DEFS = RAW["$defs"]


def _jsonschema_says(ref: str | None, value: Any) -> bool:
    s = RAW if ref is None else {"$ref": f"#/$defs/{ref}", "$defs": DEFS}
    return jsonschema.Draft202012Validator(s).is_valid(value)


def _plans() -> list[Path]:
    return sorted(p for pattern in ("plans/**/*.yaml", "examples/**/*.yaml", "benchmarks/**/*.yaml", "tests/**/*.yaml")
                  for p in ROOT.glob(pattern) if "plays:" in p.read_text(errors="replace"))


@pytest.mark.parametrize("path", _plans(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_repository_plans_and_their_steps(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    assert check(RAW, doc, DEFS) in (None, _jsonschema_says(None, doc))
    for play in doc.get("plays") or []:
        for section in plan_schema.SECTIONS:
            for item in (play.get(section) or []) if isinstance(play, dict) else []:
                for kind, args in (item.items() if isinstance(item, dict) else []):
                    if kind in DEFS:
                        assert check({"$ref": f"#/$defs/{kind}"}, args, DEFS) in (None, _jsonschema_says(kind, args))


def test_the_fanout_plan_is_decided_here() -> None:
    doc = yaml.safe_load((ROOT / "benchmarks" / "fanout" / "plan.yaml").read_text())
    assert check(RAW, doc, DEFS) is True


_KEYS = sorted({k for d in DEFS.values() if isinstance(d, dict) for k in d.get("properties", {})})
_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-5, 70000), st.floats(allow_nan=False),
                    st.sampled_from(["", "none", "/dev/sdb", "0644", "64M", "{{ x }}", "a b", "prep", "x" * 40]))
_VALUE = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(_KEYS) | st.text(max_size=3), inner, max_size=5), max_leaves=12)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from(sorted(DEFS)), value=_VALUE)
def test_random_values_against_every_definition(kind: str, value: Any) -> None:
    assert check({"$ref": f"#/$defs/{kind}"}, value, DEFS) in (None, _jsonschema_says(kind, value))


@pytest.mark.parametrize("value", [1, True, 1.0, [1, True], ["a", "a"], {"a": 1}])
def test_booleans_are_not_numbers(value: Any) -> None:
    for s in ({"enum": [1]}, {"type": "integer"}, {"uniqueItems": True}, {"type": "number", "minimum": 1}):
        got = check(s, value, {})
        assert got in (None, jsonschema.Draft202012Validator(s).is_valid(value)), (s, value)


def test_unknown_keywords_leave_it_to_jsonschema() -> None:
    assert check({"patternProperties": {"^a": False}, "additionalProperties": False}, {"a": 1}, {}) is None
    assert check({"format": "email"}, "x", {}) is None
    assert check({"$ref": "http://example.com/s"}, 1, {}) is None
