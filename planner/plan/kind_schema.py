"""The check of a plugin step kind's ``args_schema`` before it is composed into the plan schema
(planner.plan.schema.add_step_kinds): a JSON Schema 2020-12 object that refers only inside itself."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

_META = "https://json-schema.org/draft/2020-12/schema"


def _refs(node: Any, depth: int = 0) -> Iterable[tuple[str, Any]]:
    if depth > 64:
        yield ("depth", None)
        return
    if isinstance(node, Mapping):
        for k, v in node.items():
            if k in ("$ref", "$dynamicRef", "$id", "$schema", "$anchor", "$dynamicAnchor"):
                yield (k, v)
            yield from _refs(v, depth + 1)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v, depth + 1)


def schema_problem(schema: Any) -> str | None:
    """What is wrong with a plugin's ``args_schema``, or None: a JSON Schema 2020-12 object that refers only
    inside itself (planner never fetches a schema from anywhere)."""
    if schema is None:
        return None
    if not isinstance(schema, Mapping):
        return f"args_schema must be a JSON Schema object (a dict), not {type(schema).__name__}"
    try:
        json.dumps(schema)
    except (TypeError, ValueError, RecursionError) as e:
        return f"args_schema is not JSON data: {e}"
    for key, value in _refs(schema):
        if key == "depth":
            return "args_schema is nested over 64 levels deep"
        if key in ("$ref", "$dynamicRef") and not (isinstance(value, str) and value.startswith("#")):
            return f"args_schema refers to {value!r}: only references inside it (#/...) are allowed"
        if key == "$schema" and value != _META:
            return f"args_schema's $schema is {value!r}: planner checks arguments with JSON Schema 2020-12 ({_META})"
        if key in ("$id", "$anchor", "$dynamicAnchor"):
            return f"args_schema sets {key}: a step's schema is composed into the plan schema, give it no {key}"
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "its top level"
        return f"args_schema is not a valid JSON Schema (2020-12) at {where}: {e.message}"
    return None
