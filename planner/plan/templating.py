"""Variables and Jinja2 rendering of step arguments.

Rendering uses the sandboxed native environment of planner.safejinja (in planner.plan.jinja_env, imported
at the first template: a plan without one never loads Jinja2) with ``StrictUndefined``: a string that is
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

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from planner.errors import InputError, Problem
from planner.host import UnsafeText, sealed_in
from planner.plan.source import load_yaml, load_yaml_text

if TYPE_CHECKING:
    import jinja2

    from planner.host import Host
    from planner.plan.model import Plan, Play
    from planner.safejinja import NativeSandboxEnvironment

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_UNDEFINED = re.compile(r"'([^']+)' is undefined")
_JINJA = "planner.plan.jinja_env"


def _jinja() -> ModuleType:
    """Jinja2 and the plan's environment (planner.plan.jinja_env), imported at the first template: a plan and
    inventory without one never load them (~50 ms of an apply's start-up)."""
    from planner.plan import jinja_env
    return jinja_env


def environment() -> NativeSandboxEnvironment:
    """The one (sandboxed) Jinja2 environment for variables, step arguments and ``when`` expressions."""
    env: NativeSandboxEnvironment = _jinja().environment()
    return env


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


def _copied(value: Any) -> Any:
    """What render gives a value without a template: mappings as dicts and sequences as lists, as rendered."""
    if isinstance(value, Mapping):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copied(v) for v in value]
    return value


def untemplated(value: Any) -> Any:
    """What ``render`` gives a value the caller knows holds no template (a copy), without looking again."""
    return _copied(value)


def render(value: Any, variables: Mapping[str, Any]) -> Any:
    """Render every template string inside ``value`` (dicts and lists recursively).

    Raises jinja2.UndefinedError for an undefined variable and jinja2.TemplateError for other
    template errors; the caller knows the location and turns them into Problems. A value without a
    template is returned (copied) without Jinja2.
    """
    return _jinja().render(value, variables) if any_template(value) else _copied(value)


def template_errors(value: Any) -> list[str]:
    """Syntax errors of the template strings inside ``value`` (checked when a plan is loaded)."""
    return _jinja().template_errors(value) if any_template(value) else []


def resolve_variables(merged: Mapping[str, Any]) -> dict[str, Any]:
    """Render variables that refer to other variables, in dependency order.

    A variable that cannot be resolved (undefined reference, cycle, syntax error) becomes a
    StrictUndefined carrying the reason, so only a step that uses it fails. Without a template or a
    sealed vault value among them, they are returned as they are, without Jinja2.
    """
    if not any(any_template(v) or sealed_in(v) is not None for v in merged.values()):
        return dict(merged)
    resolved: dict[str, Any] = _jinja().resolve_variables(merged)
    return resolved


def refused(variables: Mapping[str, Any]) -> dict[str, str]:
    """name -> why, for the variables the template sandbox refused (planner.plan.jinja_env.Refused): a
    reference to Python internals, reported at plan check even when no step uses it."""
    if _JINJA not in sys.modules:  # no template was ever rendered, so none was refused
        return {}
    names: dict[str, str] = _jinja().refused(variables)
    return names


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


def when_syntax_error(expr: str) -> str | None:
    """The syntax error of a ``when:`` expression (without its ``{{ }}``), or None."""
    error: str | None = _jinja().when_syntax_error(expr)
    return error


def when_names(expr: str) -> set[str] | None:
    """The variables a ``when:`` expression (without its ``{{ }}``) reads; None for one that does not parse."""
    names: set[str] | None = _jinja().when_names(expr)
    return names


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
    result = _jinja().eval_when(expr, text, variables)
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
