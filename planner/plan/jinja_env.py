"""The plan's Jinja2 half: the sandboxed native environment and every function that parses or renders a template.

planner.plan.templating is the module the rest of planner calls; it imports this one only at the first value
that holds a template (``{{`` or ``{%``) or a ``when:`` expression, so a plan and inventory without one never
load Jinja2 (~50 ms of an apply's start-up). What the functions do is documented in templating.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

import jinja2
from jinja2 import meta
from jinja2.nativetypes import NativeTemplate

from planner.errors import InputError, Problem
from planner.host import UnsafeText, sealed_in
from planner.safejinja import NativeSandboxEnvironment, SecurityError, template_errors_only

_NATIVE = (bool, int, float, list, dict, type(None))


def _native_concat(values: Iterable[Any]) -> Any:
    """Jinja's native_concat, except that a rendered text which reads as a quoted Python string stays as
    written: ``"' ; x ; '"`` must not lose its quotes (a user's value is never re-parsed into another
    string), and a literal too deep to evaluate stays text instead of crashing."""
    parts = list(values)
    if not parts:
        return None
    if len(parts) == 1 and not isinstance(parts[0], str):
        return parts[0]
    raw = "".join(str(v) for v in parts)
    try:
        value = ast.literal_eval(ast.parse(raw, mode="eval"))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return raw
    return value if isinstance(value, _NATIVE) else raw


class _Environment(NativeSandboxEnvironment):
    concat = staticmethod(_native_concat)


class _Template(NativeTemplate):
    environment_class = _Environment  # NativeTemplate.render calls environment_class.concat


_Environment.template_class = _Template


def environment() -> NativeSandboxEnvironment:
    """The one (sandboxed) Jinja2 environment for variables, step arguments and ``when`` expressions."""
    return _Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


_ENV = environment()


def _parse(text: str) -> jinja2.nodes.Template:
    try:
        return _ENV.parse(text)
    except (RecursionError, MemoryError):  # `{{ ((((...` thousands deep: the parser recurses per level
        raise jinja2.TemplateSyntaxError("template nested too deeply", 1) from None


def _has_template(value: Any) -> bool:  # templating.has_template (that module imports this one)
    return isinstance(value, str) and not isinstance(value, UnsafeText) and ("{{" in value or "{%" in value)


def _any_template(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(_any_template(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_any_template(v) for v in value)
    return _has_template(value)


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        if not _has_template(value):
            return value
        with template_errors_only():
            result = _ENV.from_string(value).render(variables)
            if isinstance(result, jinja2.Undefined):
                str(result)  # a bare reference to a lazily-failed variable: raise its UndefinedError
        return result
    if isinstance(value, Mapping):
        return {k: render(v, variables) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render(v, variables) for v in value]
    return value


def template_errors(value: Any) -> list[str]:
    if isinstance(value, str):
        if not _has_template(value):
            return []
        try:
            _parse(value)
        except jinja2.TemplateSyntaxError as exc:
            return [f"template syntax error: {exc.message}"]
        return []
    if isinstance(value, Mapping):
        return [e for v in value.values() for e in template_errors(v)]
    if isinstance(value, list | tuple):
        return [e for v in value for e in template_errors(v)]
    return []


def _referenced(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(meta.find_undeclared_variables(_parse(value))) if _has_template(value) else set()
    if isinstance(value, Mapping):
        return {n for v in value.values() for n in _referenced(v)}
    if isinstance(value, list | tuple):
        return {n for v in value for n in _referenced(v)}
    return set()


def resolve_variables(merged: Mapping[str, Any]) -> dict[str, Any]:
    # a value with any template is rendered, even one naming no variable (`"{{ 1/0 }}"`, `"{{ 2 * 3 }}"`)
    done: dict[str, Any] = {k: v for k, v in merged.items() if not _any_template(v)}
    for key, value in done.items():  # a vault no password opens: refused only where it is used, as in Ansible
        if (sealed := sealed_in(value)) is not None:
            done[key] = jinja2.StrictUndefined(hint=f"variable '{key}': {sealed.reason}")
    active: set[str] = set()

    def resolve(name: str) -> Any:
        if name in done:
            return done[name]
        if name in active:  # a cycle: the outer resolve() replaces this with its own failure
            done[name] = jinja2.StrictUndefined(hint=f"variable '{name}' refers to itself")
            return done[name]
        active.add(name)
        value = merged[name]
        try:
            for dep in _referenced(value):
                if dep in merged:
                    resolve(dep)
            done[name] = render(value, done)
        except jinja2.UndefinedError as exc:
            done[name] = jinja2.StrictUndefined(hint=str(exc.message))
        except SecurityError as exc:
            why = str(exc.message).rstrip(".")
            done[name] = Refused(hint=f"variable '{name}' is refused by the template sandbox: {why}")
        except jinja2.TemplateError as exc:
            done[name] = jinja2.StrictUndefined(hint=f"variable '{name}': {exc}")
        active.discard(name)
        return done[name]

    for key in merged:
        resolve(key)
    return done


class Refused(jinja2.StrictUndefined):
    """A variable whose template the sandbox refused (it reached for Python internals): reported at plan
    check even when no step uses it, since such a value is an attack, not a typo."""

    __slots__ = ()


def refused(variables: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v._undefined_hint) for k, v in variables.items() if isinstance(v, Refused)}


def when_syntax_error(expr: str) -> str | None:
    """The syntax error of a ``when:`` expression (without its ``{{ }}``), or None."""
    try:
        _ENV.compile_expression(expr)
    except jinja2.TemplateSyntaxError as exc:
        return str(exc.message)
    return None


def when_names(expr: str) -> set[str] | None:
    """The variables a ``when:`` expression (without its ``{{ }}``) reads; None for one that does not parse."""
    try:
        return set(meta.find_undeclared_variables(_ENV.parse("{{ " + expr + " }}")))
    except jinja2.TemplateSyntaxError:
        return None


def eval_when(expr: str, text: str, variables: Mapping[str, Any]) -> Any:
    """The value of a ``when:`` expression ``text`` (``expr`` as written, for the problem)."""
    try:
        with template_errors_only():
            result = _ENV.compile_expression(text, undefined_to_none=False)(**variables)
            if isinstance(result, jinja2.Undefined):
                str(result)
    except jinja2.UndefinedError as exc:
        raise InputError([Problem(None, "when", f"'{expr}': {exc.message}",
                                  "define it in vars:, the inventory, or -e NAME=VALUE")]) from None
    except jinja2.TemplateError as exc:
        raise InputError([Problem(None, "when", f"'{expr}': {exc}", "fix the expression")]) from None
    return result


