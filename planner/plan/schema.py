"""The versioned plan JSON Schema (package data) and validation that speaks plain English.

``schemas/plan.schema.json`` (Draft 2020-12, ``$id`` .../plan/1/...) describes a whole plan for
editors; each step type has its own sub-schema under ``$defs`` named for the type, marked with
``x-section`` (prep, workloads, collect or any). It is generated (planner.plan.kind_schema.compose): the
frame is written by hand in ``schemas/plan.frame.json``, each kind's arguments on its class (planner/steps). Our
own keywords, ignored by validators:
``x-sweep: true`` marks a workload parameter that may be given as a list to sweep it, ``x-hint``
is the hint printed with an error at that node.

Step kinds from plugins (planner.steps.load_plugins, docs/plugins.md) are composed in: the steps layer hands
each kind's sub-schema to ``add_step_kinds``, and everything here (``planner schema``, validation, sweeps)
reads the composed schema. The plan layer never imports step code.

Validation reports every problem at once. Steps are not validated through the editor schema's
``oneOf`` (whose errors are noise): the step's kind key picks its sub-schema, and errors inside it
are reported. Template strings (``"{{ run_time }}"``) are accepted anywhere in step arguments here;
the rendered values are validated again per host by ``planner.plan.check.check_plan``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from planner.errors import Location, Problem
from planner.plan import fastcheck
from planner.plan.kind_schema import HOLDERS, SCHEMAS, add_kinds, kind_def
from planner.plan.model import Section
from planner.plan.source import Document, NodePath, format_path

if TYPE_CHECKING:  # jsonschema (~0.1 s to import) loads when a plan is first validated, not for every verb
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SECTIONS = tuple(s.value for s in Section)


@lru_cache(maxsize=1)
def _builtin() -> dict[str, Any]:
    text = (SCHEMAS / "plan.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


_ADDED: dict[str, dict[str, Any]] = {}  # step kinds added by plugins: kind -> its sub-schema (with x-section)


def add_step_kinds(defs: Mapping[str, Mapping[str, Any]]) -> None:
    """Compose more step kinds into the plan schema: kind -> the JSON schema of its arguments, with
    ``x-section`` (prep, workloads, collect or any). A built-in kind cannot be replaced (ValueError)."""
    for kind, d in defs.items():
        if kind in _builtin()["$defs"]:
            raise ValueError(f"step kind '{kind}' is planner's own: a plugin cannot replace it")
        section = d.get("x-section")
        if section not in (*HOLDERS, "any"):
            raise ValueError(f"step kind '{kind}': x-section must be prep, workloads, collect or any")
        _ADDED[kind] = kind_def(_builtin(), str(section), {k: v for k, v in d.items() if k != "x-section"})
    _raw.cache_clear()
    _validator.cache_clear()


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    """The built-in schema with the added kinds in ``$defs`` and in each section's list of step types."""
    if not _ADDED:
        return _builtin()
    return add_kinds(copy.deepcopy(_builtin()), copy.deepcopy(_ADDED))


def plan_schema() -> dict[str, Any]:
    """The plan JSON Schema, plugin kinds included (a copy: callers may print or modify it)."""
    return copy.deepcopy(_raw())


def _no_retrieval(uri: str) -> Any:
    """The validators' registry retrieves nothing: jsonschema would otherwise fetch a remote ``$ref`` over HTTP."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


@cache
def _validator(ref: str | None = None) -> Draft202012Validator:
    from jsonschema import Draft202012Validator
    from referencing import Registry

    raw = _raw()
    return Draft202012Validator(raw if ref is None else {"$ref": f"#/$defs/{ref}", "$defs": raw["$defs"]},
                                registry=Registry(retrieve=_no_retrieval))  # type: ignore[call-arg]


def _defs() -> dict[str, Any]:
    return _raw()["$defs"]


def step_kinds(section: Section | str | None = None) -> tuple[str, ...]:
    """Step types allowed in ``section`` (generic ones included), or all of them."""
    want = section.value if isinstance(section, Section) else section
    return tuple(k for k, d in _defs().items()
                 if "x-section" in d and (want is None or d["x-section"] in (want, "any")))


def step_section(kind: str) -> str:
    """``prep``, ``workloads``, ``collect`` or ``any`` (generic steps)."""
    return str(_defs()[kind]["x-section"])


def step_properties(kind: str) -> tuple[str, ...]:
    return tuple(_defs()[kind].get("properties", {}))


def sweepable_params(kind: str) -> frozenset[str]:
    """Arguments of ``kind`` that may be given as a list to sweep them (``x-sweep`` in the schema)."""
    props = _defs().get(kind, {}).get("properties", {})
    return frozenset(k for k, v in props.items() if v.get("x-sweep"))


STEP_OPTIONS: frozenset[str] = frozenset(_builtin()["$defs"]["StepOptions"]["properties"])
WORKLOAD_OPTIONS: frozenset[str] = frozenset(_builtin()["$defs"]["WorkloadOptions"]["properties"]) - STEP_OPTIONS


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"did you mean 'readers'?"`` for a close choice, else ``""``."""
    import difflib  # here: only a misspelt word is matched (difflib and heapq at every start-up otherwise)

    close = difflib.get_close_matches(str(word), sorted(set(choices)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


_TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
               "object": "a mapping", "array": "a list", "null": "empty"}
_TYPE_HINTS = {"integer": "give a whole number", "number": "give a number", "boolean": "write true or false",
               "string": "give text (quote it if it looks like a number)", "object": "give key: value pairs",
               "array": "give a list", "null": "leave it empty"}


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return str(value)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", dict: "object", list: "array", type(None): "null"}.get(type(value), "string")


def _matches_type(value: Any, schema: Mapping[str, Any]) -> bool:
    types = schema.get("type")
    if types is None:
        return True
    types = [types] if isinstance(types, str) else types
    t = _json_type(value)
    return t in types or (t == "integer" and "number" in types)


def _words(types: Any) -> str:
    types = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPE_WORDS.get(t, t) for t in types)


@dataclass(frozen=True, slots=True)
class Locator:
    """Maps document paths to locations; without a document, everything is at ``fallback``."""

    doc: Document | None
    fallback: Location | None = None

    def value(self, path: NodePath) -> Location | None:
        return self.doc.location(path) if self.doc else self.fallback

    def key(self, path: NodePath) -> Location | None:
        return self.doc.key_location(path) if self.doc else self.fallback


def explain(err: ValidationError, where: Locator, prefix: NodePath = (), *, templates_ok: bool = False,
            hint: str = "") -> list[Problem]:
    """Turn one jsonschema error (and, for oneOf/anyOf, the branch that fits) into Problems."""
    inst, schema, kw = err.instance, err.schema, err.validator
    if templates_ok and is_template(inst):
        return []
    path = prefix + tuple(err.absolute_path)
    hint = (schema.get("x-hint") if isinstance(schema, dict) else None) or hint
    at, name = where.value(path), format_path(path)

    def one(message: str, default_hint: str = "", loc: Location | None = at) -> list[Problem]:
        return [Problem(loc, name, message, hint or default_hint)]

    if kw == "additionalProperties" and isinstance(inst, dict):
        known = list(schema.get("properties", {}))
        out = []
        for key in inst:
            if key in known:
                continue
            h = did_you_mean(key, known) or (f"known keys: {', '.join(known)}" if known else "remove it")
            out.append(Problem(where.key((*path, key)), name, f"unknown key '{key}'", h))
        return out
    if kw == "required" and isinstance(inst, dict):
        return [Problem(at, name, f"missing required key '{key}'", f"add '{key}:'")
                for key in err.validator_value if key not in inst]
    if kw in ("oneOf", "anyOf"):
        return _explain_choice(err, where, prefix, templates_ok, hint)
    if len(err.relative_schema_path) >= 2 and err.relative_schema_path[-2] == "propertyNames":
        return one(f"'{inst}' is not a valid name", "", where.key((*path, inst)))
    if kw == "type":
        return one(f"{_show(inst)} is not {_words(err.validator_value)}",
                   " or ".join(_TYPE_HINTS.get(t, "") for t in ([err.validator_value]
                               if isinstance(err.validator_value, str) else err.validator_value)))
    if kw == "enum":
        choices = [str(c) for c in err.validator_value]
        return one(f"{_show(inst)} is not one of {', '.join(choices)}",
                   did_you_mean(str(inst), choices) or f"choose one of {', '.join(choices)}")
    if kw == "pattern":
        return one(f"{_show(inst)} does not have the expected form", f"it must match {err.validator_value}")
    if kw in ("minimum", "exclusiveMinimum"):
        bound = ">=" if kw == "minimum" else ">"
        return one(f"{_show(inst)} is too small", f"give a number {bound} {err.validator_value}")
    if kw in ("minItems", "minProperties", "minLength"):
        empty = not inst
        return one("is empty" if empty else f"needs at least {err.validator_value} items",
                   f"give at least {err.validator_value}")
    if kw == "maxProperties":
        return one(f"give only {err.validator_value} of {', '.join(schema.get('properties', {}))}",
                   f"remove all but {err.validator_value}")
    if kw == "uniqueItems":
        return one("has duplicate items", "list each item once")
    if kw == "not" and isinstance(err.validator_value, dict) and "required" in err.validator_value:
        return one(f"has both {' and '.join(err.validator_value['required'])}", "give only one of them")
    return one(err.message)


def _explain_choice(err: ValidationError, where: Locator, prefix: NodePath, templates_ok: bool,
                    hint: str) -> list[Problem]:
    inst, branches = err.instance, err.validator_value
    path = prefix + tuple(err.absolute_path)
    at, name = where.value(path), format_path(path)
    if all(set(b) == {"required"} for b in branches) and isinstance(inst, dict):
        keys = [k for b in branches for k in b["required"]]
        given = [k for k in keys if k in inst]
        if not given:
            return [Problem(at, name, f"needs one of {', '.join(keys)}", hint or f"add one of {', '.join(keys)}")]
        return [Problem(at, name, f"give only one of {', '.join(given)}", hint or "remove the others")]
    for index, branch in enumerate(branches):
        if not _matches_type(inst, branch):
            continue
        subs = [e for e in (err.context or []) if e.relative_schema_path and e.relative_schema_path[0] == index]
        if subs:
            return [p for e in subs for p in explain(e, where, prefix, templates_ok=templates_ok, hint=hint)]
    types: list[str] = []
    for b in branches:
        if b.get("type") == "array" and b.get("items") in branches:
            continue  # a sweep's list form: "is not an integer" reads better than "... or a list"
        t = b.get("type", "string" if "enum" in b else "")
        types += [t] if isinstance(t, str) else t
    types = [t for i, t in enumerate(types) if t and t not in types[:i]]
    return [Problem(at, name, f"{_show(inst)} is not {_words(types)}" if types else err.message,
                    hint or "check the value")]


def _valid_here(ref: str | None, instance: Any) -> bool:
    """The usual valid plan, shown valid without importing jsonschema (planner.plan.fastcheck)."""
    raw = _raw()
    return fastcheck.check(raw if ref is None else {"$ref": f"#/$defs/{ref}"}, instance, raw["$defs"]) is True


def _validate(ref: str | None, instance: Any, where: Locator, prefix: NodePath, templates_ok: bool) -> list[Problem]:
    if _valid_here(ref, instance):
        return []
    errors = sorted(_validator(ref).iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    return [p for e in errors for p in explain(e, where, prefix, templates_ok=templates_ok)]


def validate_step_args(kind: str, args: Any, where: Locator, prefix: NodePath, *,
                       templates_ok: bool = False) -> list[Problem]:
    """Check one step's arguments against its sub-schema; paths start at ``prefix`` (``...slob``)."""
    return _validate(kind, args, where, prefix, templates_ok)


@dataclass(frozen=True, slots=True)
class ParsedStep:
    """A step item split into its kind, its arguments and its options (sugar moved out of the args)."""

    kind: str
    args: dict[str, Any]
    options: dict[str, Any]


def parse_step(section: str, item: Any, where: Locator, path: NodePath,
               partial: bool = False) -> tuple[ParsedStep | None, list[Problem]]:
    """Split and validate a step item ``{kind: args, name:, tags:, ...}`` (or a bare kind name)."""
    name = format_path(path)
    allowed = STEP_OPTIONS | (WORKLOAD_OPTIONS if section == Section.WORKLOADS.value else frozenset())
    if section == Section.PREP.value:
        allowed = allowed | {"destructive"}  # asm_diskgroup may drop on restore what this run created
    kinds = step_kinds(section)
    if isinstance(item, str):
        item = {item: None}
    if not isinstance(item, dict):
        return None, [Problem(where.value(path), name, f"a step must be a mapping, not {_show(item)}",
                              f"write '- {kinds[0]}: {{...}}'")]
    candidates = [k for k in item if k not in allowed]
    known = [k for k in candidates if k in _defs() and "x-section" in _defs()[k]]
    unknown = [str(k) for k in candidates if k not in known]
    problems: list[Problem] = []
    if len(known) > 1:
        problems.append(Problem(where.key((*path, known[1])), name,
                                f"one step has two step types '{known[0]}' and '{known[1]}'",
                                "start a new list item ('- ') for each step"))
    if not known:
        if not unknown:
            return None, [Problem(where.value(path), name, "a step needs a step type",
                                  f"{section} steps are: {', '.join(kinds)}")]
        return None, [Problem(where.key((*path, u)), name, f"unknown step type '{u}'",
                              did_you_mean(u, [*kinds, *allowed]) or f"{section} steps are: {', '.join(kinds)}")
                      for u in unknown]
    kind = known[0]
    for u in unknown:
        h = did_you_mean(u, allowed) or (f"'{u}' is an argument of {kind}: put it inside {kind}: {{...}}"
                                         if u in step_properties(kind)
                                         else f"step options are: {', '.join(sorted(allowed))}")
        problems.append(Problem(where.key((*path, u)), name, f"unknown key '{u}'", h))
    home = step_section(kind)
    if home not in (section, "any"):
        problems.append(Problem(where.key((*path, kind)), name, f"'{kind}' is a {home} step, not a {section} step",
                                f"move it under {home}:"))
        return None, problems
    options = {k: v for k, v in item.items() if k in allowed}
    problems += _validate("WorkloadOptions" if section == "workloads" else "StepOptions", options, where, path, False)
    args = item[kind]
    problems += validate_step_args(kind, {} if args is None else args, where, (*path, kind), templates_ok=True)
    if args is None:
        args = {}
    elif isinstance(args, str) and kind == "flashback":
        args = {"state": args}
    if not isinstance(args, dict):
        if not problems:  # e.g. `slob: "{{ x }}"`: a template passes the schema but cannot be the mapping
            problems.append(Problem(where.value((*path, kind)), f"{name}.{kind}",
                                    f"the arguments of {kind} must be a mapping, not {_show(args)}",
                                    f"write {kind}: {{name: value, ...}}; a variable may fill one argument, "
                                    "not the whole mapping"))
        return None, problems
    args = dict(args)
    if section == Section.WORKLOADS.value:
        for key in WORKLOAD_OPTIONS & set(args):
            value = args.pop(key)
            if key in options:
                problems.append(Problem(where.key((*path, kind, key)), f"{name}.{kind}", f"'{key}' is given twice",
                                        f"keep either '{key}:' beside {kind}: or inside it"))
            elif is_template(value):
                problems.append(Problem(where.value((*path, kind, key)), f"{name}.{kind}.{key}",
                                        f"'{key}' cannot use a variable", "write the value itself"))
            options[key] = value
    # partial: the step even with problems, for checking its variables in the same pass (loader.load_plan_partly)
    return (None if problems and not partial else ParsedStep(kind, args, options)), problems


def _inside_step(path: tuple[Any, ...]) -> bool:
    return len(path) >= 4 and path[0] == "plays" and path[2] in SECTIONS


def validate_document(doc: Document) -> list[Problem]:
    """All schema problems of a loaded plan, each with file:line:col, message and hint."""
    where = Locator(doc)
    data = doc.data
    if not isinstance(data, dict):
        what = "is empty" if data is None else f"must be a mapping, not {_show(data)}"
        return [Problem(doc.location(()), "", f"the plan {what}", "start with 'plan: NAME' and 'plays:'")]
    problems: list[Problem] = []
    errors = [] if _valid_here(None, data) else _validator().iter_errors(data)
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        if not _inside_step(tuple(err.absolute_path)):
            problems += explain(err, where)
    plays = data.get("plays")
    for i, play in enumerate(plays if isinstance(plays, list) else []):
        if not isinstance(play, dict):
            continue
        for section in SECTIONS:
            items = play.get(section)
            for j, item in enumerate(items if isinstance(items, list) else []):
                problems += parse_step(section, item, where, ("plays", i, section, j))[1]
    return problems
