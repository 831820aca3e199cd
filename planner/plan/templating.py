"""Variables and Jinja2 rendering of step arguments.

Rendering uses the sandboxed native environment of planner.safejinja with ``StrictUndefined``: a string that is
one expression keeps its native type (``"{{ run_time }}"`` with ``run_time: 300`` renders to the
integer 300, a list stays a list), and an undefined variable is an error, never an empty string.
Strings without ``{{`` or ``{%`` are returned unchanged; mapping keys are not rendered.

Variable precedence, lowest first (later sources override earlier ones):

1. plan ``vars:`` (the plan's defaults)
2. inventory group vars: ``all``, then parent groups, then child groups
3. inventory host vars (``host_vars/`` and inline host variables)
4. play ``vars:``
5. extra vars from the command line, ``-e NAME=VALUE`` / ``-e '{"json": 1}'`` / ``-e @file.yaml``
   (later ``-e`` options override earlier ones)
6. magic variables, which cannot be overridden: ``inventory_hostname``, ``inventory_hostname_short``,
   ``group_names`` (the host's groups, sorted, without ``all``), ``play_name``, ``plan_name``

Sources 2 and 3 arrive already merged in ``Host.vars`` (planner.inventory.graph). A variable may refer to
other variables (``kit: "{{ base }}/SLOB"``); references are resolved lazily, so an unused variable
that refers to an undefined one is not an error, while using it is.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2 import meta
from jinja2.nativetypes import NativeTemplate

from planner.errors import InputError, Problem
from planner.host import UnsafeText, sealed_in
from planner.plan.source import load_yaml, load_yaml_text
from planner.safejinja import NativeSandboxEnvironment, SecurityError, template_errors_only

if TYPE_CHECKING:
    from planner.host import Host
    from planner.plan.model import Plan, Play

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_UNDEFINED = re.compile(r"'([^']+)' is undefined")


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


_SECRET_POINTER = re.compile(r"_(?:env|file)$", re.I)


def is_password_name(name: str) -> bool:
    """Narrower than is_secret_name: what a plan's vars: may not hold in clear (``sys_password``)."""
    return bool(re.search(r"passw(?:or)?d|(?:^|_)pw$", name, re.I)) and not _SECRET_POINTER.search(name)


def has_template(value: Any) -> bool:
    """Whether a string holds a template; an UnsafeText (Ansible's `!unsafe`) never does."""
    return isinstance(value, str) and not isinstance(value, UnsafeText) and ("{{" in value or "{%" in value)


def undefined_name(exc: jinja2.UndefinedError) -> str | None:
    """The variable an UndefinedError is about, when Jinja names it."""
    m = _UNDEFINED.search(str(exc.message or ""))
    return m.group(1) if m else None


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    """Render every template string inside ``value`` (dicts and lists recursively).

    Raises jinja2.UndefinedError for an undefined variable and jinja2.TemplateError for other
    template errors; the caller knows the location and turns them into Problems.
    """
    if isinstance(value, str):
        if not has_template(value):
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
    """Syntax errors of the template strings inside ``value`` (checked when a plan is loaded)."""
    if isinstance(value, str):
        if not has_template(value):
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
        return set(meta.find_undeclared_variables(_parse(value))) if has_template(value) else set()
    if isinstance(value, Mapping):
        return {n for v in value.values() for n in _referenced(v)}
    if isinstance(value, list | tuple):
        return {n for v in value for n in _referenced(v)}
    return set()


def resolve_variables(merged: Mapping[str, Any]) -> dict[str, Any]:
    """Render variables that refer to other variables, in dependency order.

    A variable that cannot be resolved (undefined reference, cycle, syntax error) becomes a
    StrictUndefined carrying the reason, so only a step that uses it fails.
    """
    # a value with any template is rendered, even one naming no variable (`"{{ 1/0 }}"`, `"{{ 2 * 3 }}"`)
    done: dict[str, Any] = {k: v for k, v in merged.items() if not any_template(v)}
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
    """name -> why, for the variables the sandbox refused (see Refused)."""
    return {k: str(v._undefined_hint) for k, v in variables.items() if isinstance(v, Refused)}


def any_template(value: Any) -> bool:
    """A template anywhere in the value (mappings and lists searched)."""
    if isinstance(value, Mapping):
        return any(any_template(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(any_template(v) for v in value)
    return has_template(value)


def magic_vars(host: Host) -> dict[str, Any]:
    """Ansible's per-host magic variables (they override everything)."""
    return {"inventory_hostname": host.name, "inventory_hostname_short": host.name.split(".")[0],
            "group_names": sorted(g for g in host.groups if g != "all")}


def variables_for(plan: Plan, play: Play, host: Host, extra_vars: Mapping[str, Any]) -> dict[str, Any]:
    """The variables a step on ``host`` in ``play`` sees (precedence: see the module docstring)."""
    merged: dict[str, Any] = {}
    for source in (plan.vars, host.vars, play.vars, extra_vars):
        merged.update(source)
    merged.update({**magic_vars(host), "play_name": play.name, "plan_name": plan.name})
    return resolve_variables(merged)


def eval_when(expr: str | bool, variables: Mapping[str, Any]) -> bool:
    """Evaluate a ``when:`` expression (with or without ``{{ }}``) to a bool.

    Strings that come out of the expression are read the way YAML users mean them:
    '', 'false', 'no', 'off', '0' are false. Raises InputError for undefined variables or bad syntax.
    """
    if isinstance(expr, bool):
        return expr
    text = expr.strip()
    if text.startswith("{{") and text.endswith("}}"):
        text = text[2:-2].strip()
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
    if isinstance(result, str):
        return result.strip().lower() not in ("", "false", "no", "off", "0", "none")
    return bool(result)


def parse_extra_vars(items: list[str], base_dir: Path) -> dict[str, Any]:
    """Merge ``-e`` options in order: ``k=v [k2=v2 ...]``, a JSON/YAML mapping, or ``@file.yaml``.

    ``k=v`` values are strings (as in Ansible); rendering turns ``"300"`` into 300 where a template
    uses it alone. ``@file`` paths are relative to ``base_dir``.
    """
    out: dict[str, Any] = {}
    problems: list[Problem] = []
    for item in items:
        text = item.strip()
        if text.startswith("@"):
            path = Path(text[1:]).expanduser()
            path = path if path.is_absolute() else base_dir / path
            try:
                data = load_yaml(path).data
            except InputError as exc:
                problems += [Problem(p.location, "-e", p.message, p.hint) for p in exc.problems]
                continue
            where = str(path)
        elif text.startswith(("{", "[")):
            try:
                data = json.loads(text)
            except RecursionError:
                problems.append(Problem(None, "-e", "the JSON is nested too deeply", "flatten the variables"))
                continue
            except json.JSONDecodeError:
                try:
                    data = load_yaml_text(text, "-e").data
                except InputError as exc:
                    problems.append(Problem(None, "-e", f"'{item}' is not valid JSON or YAML: "
                                            f"{exc.problems[0].message}", "check the quoting and braces"))
                    continue
            where = f"'{item}'"
        else:
            data, where = _key_values(item, problems), f"'{item}'"
            if data is None:
                continue
        if not isinstance(data, dict):
            problems.append(Problem(None, "-e", f"{where} must be a mapping of variables",
                                    "give NAME=VALUE, a JSON object, or @file.yaml holding a mapping"))
            continue
        bad = [k for k in data if not (isinstance(k, str) and _NAME.match(k))]
        if bad:
            problems.append(Problem(None, "-e", f"{where}: '{bad[0]}' is not a valid variable name",
                                    "use letters, digits and _, not starting with a digit"))
            continue
        out.update(data)
    if problems:
        raise InputError(problems)
    return out


def _key_values(item: str, problems: list[Problem]) -> dict[str, Any] | None:
    try:
        words = split_kv(item)
    except ValueError as exc:
        problems.append(Problem(None, "-e", f"'{item}': {exc}", "check the quotes and the {{ }} / {% %} blocks"))
        return None
    out: dict[str, Any] = {}
    for word in words or [item]:
        name, sep, value = word.partition("=")
        if not sep or not name:
            problems.append(Problem(None, "-e", f"'{word}' is not NAME=VALUE",
                                    "give -e NAME=VALUE, -e '{\"NAME\": VALUE}' or -e @file.yaml"))
            return None
        out[name] = _unquote(value)
    return out


_OPEN = {"{{": "}}", "{%": "%}", "{#": "#}"}


def split_kv(text: str) -> list[str]:
    """``k=v k2=v2`` split at whitespace as Ansible's ``-e`` does (ansible.parsing.splitter.split_args): never
    inside quotes or a Jinja block, so ``v={{ x }}`` and ``c="a b"`` stay one word each. Quotes are kept
    here and taken off the value by ``_unquote``; an unclosed quote or block is a ValueError."""
    words: list[str] = []
    word: list[str] = []
    quote, blocks, i = "", list[str](), 0
    while i < len(text):
        c, two = text[i], text[i:i + 2]
        if quote:
            if c == "\\" and i + 1 < len(text):
                word.append(text[i:i + 2])
                i += 2
                continue
            quote = "" if c == quote else quote
        elif two in _OPEN:
            blocks.append(_OPEN[two])
            word.append(two)
            i += 2
            continue
        elif blocks and two == blocks[-1]:
            blocks.pop()
            word.append(two)
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c.isspace() and not blocks:
            if word:
                words.append("".join(word))
                word = []
            i += 1
            continue
        word.append(c)
        i += 1
    if quote:
        raise ValueError(f"no closing quotation ({quote})")
    if blocks:
        raise ValueError(f"an unclosed Jinja block (no {blocks[-1]})")
    return [*words, "".join(word)] if word else words


def _unquote(value: str) -> str:
    """A value wrapped in one pair of matching quotes loses them (Ansible's ``unquote``); ``a="b c"`` too."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
