"""The schema builder: a step kind's ``args_schema`` checked (a JSON Schema 2020-12 object that refers only
inside itself) and composed with the hand-written frame (schemas/plan.frame.json) into the plan schema.

Every kind, planner's own and a plugin's, carries its arguments' schema on its class; the options all steps or
all workloads share (name, when, repeat, warmup, zip...) are written once in the frame and added here. The
built-in kinds' composition is shipped as schemas/plan.schema.json (for editors, and read without importing
the steps layer); a test checks that it is what the classes say."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

_META = "https://json-schema.org/draft/2020-12/schema"
# the shipped schema files, read from the package on disk (importlib.resources would import zipfile and its
# readers at every apply's start-up for a package never installed zipped)
SCHEMAS = Path(__file__).parent / "schemas"


def sweepable(item: Mapping[str, Any], hint: str) -> dict[str, Any]:
    """A workload argument given as one value or as a list of them to sweep (``x-sweep``, planner.plan.sweeps)."""
    return {"x-sweep": True, "oneOf": [dict(item), {"type": "array", "items": dict(item), "minItems": 1}],
            "x-hint": hint}


def sampled_around_points(description: str) -> dict[str, Any]:
    """The arguments of a collect kind taken around each workload point: an optional sampling interval."""
    return {"description": description, "type": ["object", "null"],
            "properties": {"interval": {"type": "integer", "description": "seconds between samples",
                                        "x-hint": "give whole seconds, 1 or more", "minimum": 1}},
            "additionalProperties": False}


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


# The sections' step holders in the plan schema, and the options every step of that section takes beside its kind.
HOLDERS = {"prep": ("PrepStep", "StepOptions"), "workloads": ("WorkloadStep", "WorkloadOptions"),
           "collect": ("CollectStep", "StepOptions")}
GENERATED = ("Generated from plan.frame.json and each step kind's args_schema by planner.plan.kind_schema.compose "
             "(python -m planner.steps.schema_export); do not edit.")


def frame() -> dict[str, Any]:
    """The hand-written part of the plan schema: the plan, plays, reports, claims and the step options."""
    text = (SCHEMAS / "plan.frame.json").read_text(encoding="utf-8")
    return json.loads(text)


def _options(defs: Mapping[str, Any], name: str) -> dict[str, Any]:
    own = defs[name]["properties"]
    return own if name == "StepOptions" else {**defs["StepOptions"]["properties"], **own}


def _with_options(schema: dict[str, Any]) -> dict[str, Any]:
    """The frame with each holder's and WorkloadOptions' step options filled in: written once, in StepOptions."""
    defs = schema["$defs"]
    defs["WorkloadOptions"]["properties"] = _options(defs, "WorkloadOptions")
    for holder, options in HOLDERS.values():
        node = defs[holder]
        obj = next((b for b in node.get("oneOf", []) if b.get("type") == "object"), node)
        obj["properties"] = {**_options(defs, options), **obj["properties"]}
    return schema


def kind_def(schema: Mapping[str, Any], section: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """A kind's sub-schema: its arguments' schema marked with its section; a workload's arguments also take the
    shared workload options (repeat, warmup, zip, destructive), which no kind repeats in its own schema."""
    out = {"x-section": section, **copy.deepcopy(dict(args))}
    defs = schema["$defs"]
    if section == "workloads" and isinstance(out.get("properties"), dict):
        shared = {k: v for k, v in defs["WorkloadOptions"]["properties"].items()
                  if k not in defs["StepOptions"]["properties"]}
        out["properties"] = {**out["properties"], **copy.deepcopy(shared)}
    return out


def add_kinds(schema: dict[str, Any], kinds: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Compose step kinds (kind -> its sub-schema from ``kind_def``) into ``schema``: into ``$defs`` and into
    each section's holder that may hold it (modifies and returns ``schema``)."""
    defs = schema["$defs"]
    for kind, d in kinds.items():
        defs[kind] = d
        for section, (holder, _) in HOLDERS.items():
            if d["x-section"] not in (section, "any"):
                continue
            node = defs[holder]
            branches = node.get("oneOf", []) if "properties" not in node else []
            obj = next((b for b in branches if b.get("type") == "object"), node)
            obj["properties"][kind] = {"$ref": f"#/$defs/{kind}"}
            obj.setdefault("oneOf", []).append({"required": [kind]})
            for b in branches:  # a bare kind name (collect: [iostat]) is listed in an enum
                if "enum" in b:
                    b["enum"].append(kind)
    return schema


def compose(kinds: Mapping[str, tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """The whole plan schema from the frame and the kinds (kind -> (section, its arguments' schema)), in order."""
    schema = _with_options(frame())
    schema["$comment"] = GENERATED
    return add_kinds(schema, {k: kind_def(schema, section, args) for k, (section, args) in kinds.items()})
