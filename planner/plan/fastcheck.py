"""The plan schema's common case without jsonschema: an exact check of the JSON Schema keywords plan.schema.json uses.

Every apply validated its plan through jsonschema, whose import alone is ~0.1 s of start-up (0.3 s on a loaded
machine), mostly to learn that the plan is valid. ``check`` answers True or False exactly as draft 2020-12 would,
or None when the schema or the value holds something it does not know (a keyword, a remote ``$ref``, a YAML date);
the caller then asks jsonschema, which also words the errors. So only a True skips jsonschema, and it is exact.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_IGNORED = frozenset({"description", "title", "$comment", "$schema", "$id", "$defs", "default", "examples"})


class _Unknown(Exception):
    """Something this check does not decide: jsonschema must."""


def check(schema: Any, instance: Any, defs: Mapping[str, Any]) -> bool | None:
    """Whether ``instance`` satisfies ``schema`` (``$ref`` only to ``#/$defs/NAME`` in ``defs``); None: unknown."""
    try:
        return _valid(schema, instance, defs)
    except (_Unknown, RecursionError, TypeError, re.error):
        return None


@cache
def _pattern(p: str) -> re.Pattern[str]:
    return re.compile(p)


def _is_type(t: str, x: Any) -> bool:
    if not isinstance(x, (*_SCALARS, dict, list)):
        raise _Unknown(type(x).__name__)
    if t == "integer":
        return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())
    if t == "number":
        return isinstance(x, int | float) and not isinstance(x, bool)
    kinds = {"string": str, "object": dict, "array": list, "boolean": bool, "null": type(None)}
    if t not in kinds:
        raise _Unknown(t)
    return isinstance(x, kinds[t])


def _equal(a: Any, b: Any) -> bool:
    """jsonschema's equality for scalars: a boolean equals only a boolean (True is not 1)."""
    if not isinstance(a, _SCALARS) or not isinstance(b, _SCALARS):
        raise _Unknown("compound enum")
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _valid(schema: Any, x: Any, defs: Mapping[str, Any]) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise _Unknown("schema")
    for k in schema:  # first: a keyword not known here may change what a known one means (patternProperties)
        if k not in _KNOWN and k not in _IGNORED and not k.startswith("x-"):
            raise _Unknown(k)
    return all(_keyword(k, v, schema, x, defs) for k, v in schema.items())


def _keyword(k: str, v: Any, schema: dict[str, Any], x: Any, defs: Mapping[str, Any]) -> bool:  # noqa: C901, PLR0911, PLR0912 - one branch per keyword
    if k in _IGNORED or k.startswith("x-"):
        return True
    if k == "type":
        return any(_is_type(t, x) for t in (v if isinstance(v, list) else [v]))
    if k == "$ref":
        if not isinstance(v, str) or not v.startswith("#/$defs/") or v[8:] not in defs:
            raise _Unknown(str(v))
        return _valid(defs[v[8:]], x, defs)
    if k in ("oneOf", "anyOf", "allOf", "not"):
        hits = [_valid(s, x, defs) for s in v] if k != "not" else [_valid(v, x, defs)]
        return {"oneOf": hits.count(True) == 1, "anyOf": any(hits), "allOf": all(hits), "not": not hits[0]}[k]
    if k == "enum":
        return any(_equal(x, e) for e in v)
    if isinstance(x, dict):
        return _object(k, v, schema, x, defs)
    if isinstance(x, list):
        return _array(k, v, x, defs)
    if isinstance(x, str):
        return _string(k, v, x)
    if _number(x):
        return _numeric(k, v, x)
    return _known_elsewhere(k)


def _object(k: str, v: Any, schema: dict[str, Any], x: dict[Any, Any], defs: Mapping[str, Any]) -> bool:
    if k == "properties":
        return all(_valid(s, x[p], defs) for p, s in v.items() if p in x)
    if k == "additionalProperties":
        props = schema.get("properties", {})
        return all(_valid(v, x[p], defs) for p in x if p not in props)
    if k == "required":
        return all(p in x for p in v)
    if k == "propertyNames":
        return all(_valid(v, p, defs) for p in x)
    if k == "minProperties":
        return len(x) >= v
    if k == "maxProperties":
        return len(x) <= v
    return _known_elsewhere(k)


def _array(k: str, v: Any, x: list[Any], defs: Mapping[str, Any]) -> bool:
    if k == "items":
        return all(_valid(v, i, defs) for i in x)
    if k == "minItems":
        return len(x) >= v
    if k == "maxItems":
        return len(x) <= v
    if k == "uniqueItems":
        return not v or not any(_equal(a, b) for n, a in enumerate(x) for b in x[n + 1:])
    return _known_elsewhere(k)


def _string(k: str, v: Any, x: str) -> bool:
    if k == "pattern":
        return _pattern(v).search(x) is not None
    if k == "minLength":
        return len(x) >= v
    if k == "maxLength":
        return len(x) <= v
    return _known_elsewhere(k)


def _numeric(k: str, v: Any, x: float) -> bool:
    if k == "minimum":
        return not x < v
    if k == "maximum":
        return not x > v
    if k == "exclusiveMinimum":
        return not x <= v
    if k == "exclusiveMaximum":
        return not x >= v
    return _known_elsewhere(k)


# Keywords that apply to one instance type only: another type passes them. Any other keyword is unknown here.
_TYPED = frozenset({"properties", "additionalProperties", "required", "propertyNames", "minProperties",
                    "maxProperties", "items", "minItems", "maxItems", "uniqueItems", "pattern", "minLength",
                    "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})

_KNOWN = _TYPED | {"type", "$ref", "oneOf", "anyOf", "allOf", "not", "enum"}


def _known_elsewhere(k: str) -> bool:
    if k in _TYPED:
        return True
    raise _Unknown(k)
