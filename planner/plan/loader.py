"""Loading a plan file into the typed model, and checking it against an inventory before any run.

``load_plan`` reports every problem of the file at once (YAML syntax, schema, sweeps, duplicate
play names, missing inventory file, claims about plays that do not exist, template syntax);
``check_plan`` adds what needs the inventory: host patterns, undefined variables per host, and
arguments that are wrong only once rendered.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import jinja2
import jinja2.meta

from planner.errors import InputError, Location, Problem, StepError
from planner.host import Host
from planner.plan.model import SCHEMA_VERSION, Claim, Plan, Play, ReportSpec, Section, StepSpec
from planner.plan.schema import (
    Locator,
    did_you_mean,
    is_template,
    parse_step,
    validate_document,
    validate_step_args,
)
from planner.plan.source import Document, NodePath, format_path, load_yaml
from planner.plan.sweeps import zip_problems
from planner.plan.templating import (
    environment,
    eval_when,
    is_password_name,
    refused,
    render,
    template_errors,
    undefined_name,
    variables_for,
)

# A step kind's own check of its rendered arguments; raises StepError naming the refused value.
ArgsCheck = Callable[[Mapping[str, Any], Path, Mapping[str, Any]], None]  # rendered args, plan dir, host vars
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([smh]?)$")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
DEFAULT_TOLERANCE_PCT = 10.0


class InventoryLike(Protocol):
    def select(self, pattern: str) -> list[Host]: ...


def load_plan(path: Path, inventory_must_exist: bool = True) -> Plan:
    """Load, validate and type a plan; InputError (exit code 5) lists every problem found.

    ``inventory_must_exist=False`` is for a run record's copy of a plan: its relative ``inventory:`` points
    beside the original plan file, not into the run folder, and a report needs no inventory."""
    plan, problems = load_plan_partly(path, inventory_must_exist)
    if problems:
        raise InputError(problems)
    assert plan is not None
    return plan


def load_plan_partly(path: Path, inventory_must_exist: bool = True) -> tuple[Plan | None, list[Problem]]:
    """The plan's problems, and the plan made of its steps that have none (None when too little is left).

    For reporting every problem of a plan in one pass: the inventory-dependent checks (undefined variables,
    host patterns) still run on what could be built, so fixing the schema errors does not reveal a second
    list. Never run a plan that had problems."""
    doc = load_yaml(path)
    problems = validate_document(doc)
    build = _Build(doc, path)
    build.inventory_must_exist = inventory_must_exist
    plan, more = build.plan()
    problems = list(dict.fromkeys(problems + more))
    if plan is None and problems:
        build.lenient = True
        plan, _ = build.plan()
    return plan, problems


def steps_with_problems(problems: list[Problem]) -> frozenset[str]:
    """The step paths (``plays[0].workloads[1]``) some of these problems are about."""
    return frozenset(m.group(1) for p in problems
                     if (m := re.match(r"^(plays\[\d+\]\.(?:prep|workloads|collect)\[\d+\])", p.path or "")))


_TEMPLATE_SPAN = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


def split_command(cmd: str) -> list[str]:
    """Split a ``command: {cmd: ...}`` line into words BEFORE rendering, each {{ }} kept inside its word:
    a variable's value is then always one argument, whatever spaces, quotes or ';' it holds."""
    spans: list[str] = []

    def hide(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    words = shlex.split(_TEMPLATE_SPAN.sub(hide, cmd))
    return [re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], w) for w in words]


def parse_path(text: str) -> NodePath:
    """``plays[1].workloads[0]`` -> ``("plays", 1, "workloads", 0)`` (inverse of format_path)."""
    return tuple(int(i) if i else name for name, i in _PATH_PART.findall(text))


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    m = _DURATION.match(str(value))
    assert m, "validated by the schema"
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def _strings(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    return frozenset([value] if isinstance(value, str) else [str(v) for v in value])


class _Build:
    """Builds the Plan from validated data and collects the problems the schema cannot see."""

    def __init__(self, doc: Document, path: Path) -> None:
        self.doc, self.path, self.where = doc, path, Locator(doc)
        self.problems: list[Problem] = []
        self.lenient = False  # build what is sound and drop the rest (load_plan_partly's second pass)
        self.inventory_must_exist = True

    def problem(self, path: NodePath, message: str, hint: str, key: bool = False) -> None:
        loc = self.doc.key_location(path) if key else self.doc.location(path)
        self.problems.append(Problem(loc, format_path(path), message, hint))

    def plan(self) -> tuple[Plan | None, list[Problem]]:
        data = self.doc.data
        if not isinstance(data, dict):
            return None, self.problems
        plays_value = data.get("plays")
        raw_plays: list[Any] = plays_value if isinstance(plays_value, list) else []
        plays = [self.play(p, i) for i, p in enumerate(raw_plays) if isinstance(p, dict)]
        self.check_play_names(raw_plays)
        inventory = self.inventory(data.get("inventory"))
        claims = self.claims(data.get("reproduces"), [p.get("name") for p in raw_plays if isinstance(p, dict)])
        report = data.get("report")
        self.report_output(report)
        self.clear_passwords(data.get("vars"), ("vars",))
        for i, p in enumerate(raw_plays):
            if isinstance(p, dict):
                self.clear_passwords(p.get("vars"), ("plays", i, "vars"))
        if not self.lenient and (self.problems or any(p is None for p in plays)):
            return None, self.problems
        try:
            plan = Plan(
                name=str(data.get("plan") if self.lenient else data["plan"]), source=self.path, description=str(data.get("description", "")),
                inventory=inventory, vars=dict(data.get("vars") or {}),
                plays=tuple(p for p in plays if p is not None),
                report=ReportSpec(**report) if isinstance(report, dict) and not self.lenient else None,
                allow_destroy=tuple(data.get("allow_destroy") or ()), reproduces=tuple(claims),
                schema_version=int(data.get("version", SCHEMA_VERSION)), document=data)
        except (KeyError, TypeError, ValueError, OverflowError):
            return None, self.problems  # only reachable with schema problems, already reported
        return plan, self.problems

    def inventory(self, value: Any) -> Path | None:
        if not isinstance(value, str) or not value:
            return None
        resolved = self.path.parent / Path(value).expanduser()
        if self.inventory_must_exist and not is_template(value) and not (resolved.is_file() or resolved.is_dir()):
            self.problem(("inventory",), f"inventory file '{value}' not found (looked for {resolved})",
                         "fix the path (it is relative to the plan file), create the file, or pass -i FILE")
        return resolved

    def clear_passwords(self, variables: Any, path: NodePath) -> None:
        """A password written in a plan is in every copy of it (each run folder keeps plan.yaml): refused,
        pointing at the ways that keep it out (a template such as "{{ admin_password }}" fed by -e is fine)."""
        if not isinstance(variables, dict):
            return
        for name, value in variables.items():
            if isinstance(name, str) and is_password_name(name) and value not in (None, "") \
                    and not is_template(value):
                self.problem((*path, name), f"variable '{name}' holds a password in clear in the plan",
                             f"put it in an environment variable or a file and name that ({name}_env: VAR or "
                             f"{name}_file: PATH), or pass it with -e {name}=... (redacted from the record)",
                             key=True)

    def report_output(self, report: Any) -> None:
        """``report: output:`` writes a file when the plan runs: only below the plan's own folder (a received
        plan must not overwrite ~/.bashrc); a report elsewhere is asked for with `planner report RUN -o`."""
        output = report.get("output") if isinstance(report, dict) else None
        if not isinstance(output, str) or not output or "\x00" in output:
            return
        base = self.path.resolve().parent
        try:
            target = (base / Path(output).expanduser()).resolve()
        except (OSError, RuntimeError, ValueError):
            target = base
        if not target.is_relative_to(base) or target == base:
            self.problem(("report", "output"), f"report output '{output}' leads outside the plan's folder ({base})",
                         "write it below the plan's folder, or render it there yourself: planner report RUN -o PATH")

    def check_play_names(self, plays: list[Any]) -> None:
        seen: dict[str, int] = {}
        for i, play in enumerate(plays):
            name = play.get("name") if isinstance(play, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                first = self.doc.location(("plays", seen[name], "name"))
                self.problem(("plays", i, "name"), f"duplicate play name '{name}'",
                             f"play names must be unique; it is already used at line {first.line}")
            else:
                seen[name] = i

    def claims(self, value: Any, play_names: list[Any]) -> list[Claim]:
        out = []
        names = list(dict.fromkeys(n for n in play_names if isinstance(n, str)))
        for k, claim in enumerate(value if isinstance(value, list) else []):
            if not isinstance(claim, dict):
                continue
            play = claim.get("play")
            if isinstance(play, str) and play not in names:
                self.problem(("reproduces", k, "play"), f"claim names play '{play}', which is not in this plan",
                             did_you_mean(play, names) or f"plays are: {', '.join(repr(n) for n in names)}")
            try:
                out.append(Claim(source=str(claim["source"]), play=str(play), metric=str(claim["metric"]),
                                 expected=float(claim["expected"]),
                                 tolerance_pct=float(claim.get("tolerance_pct", DEFAULT_TOLERANCE_PCT)),
                                 location=self.doc.location(("reproduces", k))))
            except (KeyError, TypeError, ValueError, OverflowError):
                continue  # reported by the schema
        return out

    def play(self, raw: dict[str, Any], i: int) -> Play | None:
        steps: dict[Section, list[StepSpec]] = {s: [] for s in Section}
        ok = True
        for section in Section:
            items = raw.get(section.value)
            for j, item in enumerate(items if isinstance(items, list) else []):
                spec = self.step(section, item, ("plays", i, section.value, j))
                ok = ok and spec is not None
                if spec is not None:
                    steps[section].append(spec)
        if (not ok and not self.lenient) or not isinstance(raw.get("name"), str) \
                or not isinstance(raw.get("hosts"), str):
            return None
        try:
            return Play(name=raw["name"], hosts=raw["hosts"], prep=tuple(steps[Section.PREP]),
                        workloads=tuple(steps[Section.WORKLOADS]), collect=tuple(steps[Section.COLLECT]),
                        vars=dict(raw.get("vars") or {}), sync_start=bool(raw.get("sync_start", False)),
                        keep_prep=bool(raw.get("keep_prep", False)),
                        rated={str(k): float(v) for k, v in (raw.get("rated") or {}).items()},
                        tags=_strings(raw.get("tags")), location=self.doc.location(("plays", i)))
        except (TypeError, ValueError, AttributeError, OverflowError):
            return None  # reported by the schema

    def step(self, section: Section, item: Any, path: NodePath) -> StepSpec | None:
        parsed, _ = parse_step(section.value, item, self.where, path, partial=self.lenient)  # validate_document
        if parsed is None:
            return None
        opts, kind = parsed.options, parsed.kind
        for message in template_errors(parsed.args):
            self.problem((*path, kind), message, "fix the {{ }} expression")
        when = opts.get("when")
        if isinstance(when, str):
            expr = when.strip().removeprefix("{{").removesuffix("}}")
            try:
                environment().compile_expression(expr)
            except jinja2.TemplateSyntaxError as exc:
                self.problem((*path, "when"), f"bad when expression: {exc.message}", "fix the expression")
        zip_names = tuple(opts.get("zip") or ())
        for name, message, hint in zip_problems(kind, parsed.args, zip_names):
            key = (*path, "zip") if "zip" in (item if isinstance(item, dict) else {}) else (*path, kind, "zip")
            self.problem(key if not name or name not in parsed.args else (*path, kind, name), message, hint)
        args = parsed.args
        if kind == "command" and isinstance(args.get("cmd"), str) and is_template(args["cmd"]):
            try:
                args = {**{k: v for k, v in args.items() if k != "cmd"}, "argv": split_command(args["cmd"])}
            except ValueError as exc:
                self.problem((*path, kind, "cmd"), f"cannot split cmd: {exc}",
                             "close the quote, or give the program and its arguments as argv: [...]")
        try:
            return StepSpec(
                kind=kind, section=section, args=args, path=format_path(path),
                name=str(opts.get("name") or kind), tags=_strings(opts.get("tags")),
                when=None if when is None else str(when), ignore_errors=bool(opts.get("ignore_errors", False)),
                timeout_s=_timeout(opts.get("timeout")), become=opts.get("become"),
                become_user=opts.get("become_user"), repeat=int(opts.get("repeat", 1)),
                warmup=int(opts.get("warmup", 0)), zip=zip_names, destructive=bool(opts.get("destructive", False)),
                location=self.doc.location(path))
        except (TypeError, ValueError, AssertionError, OverflowError):
            if not self.lenient:
                return None
            # only for checking its variables: the options' problems are reported by the schema already
            return StepSpec(kind=kind, section=section, args=args, path=format_path(path), name=kind,
                            zip=tuple(z for z in zip_names if isinstance(z, str)), location=self.doc.location(path))


def check_plan(plan: Plan, inventory: InventoryLike, extra_vars: Mapping[str, Any], *,
               kinds: Mapping[str, ArgsCheck], variables_only: frozenset[str] = frozenset()) -> list[Problem]:
    """Problems that need the inventory: host patterns, undefined variables, rendered argument types.

    ``kinds`` maps each step kind to its own check of rendered arguments (planner.steps.ARG_CHECKS): the
    plan layer knows the language, the step kinds know what a host would refuse. ``variables_only``: step
    paths whose schema problems are already reported; only their undefined variables are added."""
    try:
        doc: Document | None = load_yaml(plan.source)
    except InputError:
        doc = None  # the file changed since load_plan: fall back to the steps' own locations
    found: dict[tuple[Location | None, str, str, str], list[str]] = {}
    problems: list[Problem] = []
    for i, play in enumerate(plan.plays):
        try:
            hosts = inventory.select(play.hosts)
        except InputError as exc:
            loc = doc.location(("plays", i, "hosts")) if doc else play.location
            problems += [Problem(loc, f"plays[{i}].hosts", p.message, p.hint) for p in exc.problems]
            continue
        for host in hosts:
            variables = variables_for(plan, play, host, extra_vars)
            for p in _refused_vars(refused(variables), plan, i, extra_vars, doc, inventory):
                found.setdefault((p.location, p.path, p.message, p.hint), []).append(host.name)
            for spec in play.steps:
                for p in _check_step(spec, variables, doc, plan.source.parent, kinds,
                                     spec.path in variables_only):
                    found.setdefault((p.location, p.path, p.message, p.hint), []).append(host.name)
    for (loc, path, message, hint), names in found.items():
        who = f"host {names[0]}" if len(names) == 1 else f"hosts {', '.join(names)}"
        problems.append(Problem(loc, path, f"{message} for {who}", hint))
    return problems


_SANDBOX_HINT = "use the sandbox-safe Jinja subset: no attributes starting with '_', no Python internals"


def _refused_vars(names: Mapping[str, str], plan: Plan, play_index: int, extra_vars: Mapping[str, Any],
                  doc: Document | None, inventory: InventoryLike) -> list[Problem]:
    """Variables whose templates the sandbox refused, reported where they were written (used or not)."""
    out: list[Problem] = []
    play = plan.plays[play_index]
    for name, why in names.items():
        if name in extra_vars:
            out.append(Problem(None, "-e", f"{name}: {why}", _SANDBOX_HINT))
        elif name in play.vars or name in plan.vars:
            path: NodePath = ("plays", play_index, "vars", name) if name in play.vars else ("vars", name)
            loc = doc.location(path) if doc else play.location
            out.append(Problem(loc, format_path(path), why, _SANDBOX_HINT))
        else:
            source = getattr(inventory, "source", None)
            out.append(Problem(Location(str(source), 1, 1) if source else None, "",
                               f"inventory {why}", _SANDBOX_HINT))
    return out


def _check_when(spec: StepSpec, variables: Mapping[str, Any], where: Locator,
                step_path: NodePath) -> list[Problem]:
    """A ``when:`` that can be evaluated before the run (it names only known variables) is: ``1/0`` or
    ``n + 1`` with a string ``n`` is refused here, not in the middle of a run."""
    if not isinstance(spec.when, str):
        return []
    expr = spec.when.strip()
    expr = expr[2:-2] if expr.startswith("{{") and expr.endswith("}}") else expr
    try:
        names = jinja2.meta.find_undeclared_variables(environment().parse("{{ " + expr + " }}"))
    except jinja2.TemplateSyntaxError:
        return []  # reported by load_plan
    if not names <= set(variables) or "planner_facts" in names:
        return []  # runtime values: checked when the step runs
    try:
        eval_when(spec.when, variables)
    except InputError as exc:
        loc = where.value((*step_path[:-1], "when"))
        return [Problem(loc, format_path((*step_path[:-1], "when")), p.message, p.hint) for p in exc.problems]
    return []


def _check_step(spec: StepSpec, variables: Mapping[str, Any], doc: Document | None,
                plan_dir: Path, kinds: Mapping[str, ArgsCheck], variables_only: bool = False) -> list[Problem]:
    step_path = (*parse_path(spec.path), spec.kind)
    where = Locator(doc, spec.location)
    rendered: dict[str, Any] = {}
    problems: list[Problem] = _check_when(spec, variables, where, step_path)
    for key, value in spec.args.items():
        loc = where.value((*step_path, key))
        try:
            rendered[key] = render(value, variables)
        except jinja2.UndefinedError as exc:
            name = undefined_name(exc)
            message = f"undefined variable '{name}'" if name else str(exc.message)
            problems.append(Problem(loc, format_path((*step_path, key)), message,
                                    "define it in vars:, the inventory, or -e NAME=VALUE"))
        except jinja2.TemplateError as exc:
            problems.append(Problem(loc, format_path((*step_path, key)), f"template error: {exc}",
                                    "fix the {{ }} expression"))
    if problems:
        return problems
    if variables_only:  # its schema problems are reported: add what the step kind itself would refuse
        try:
            return _refused_args(kinds.get(spec.kind), rendered, where, step_path, plan_dir, variables)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError):
            return []  # arguments too malformed for the kind's check; the schema problems say why
    problems += validate_step_args(spec.kind, rendered, where, step_path)
    if not problems:
        problems += _refused_args(kinds.get(spec.kind), rendered, where, step_path, plan_dir, variables)
    for name, message, hint in zip_problems(spec.kind, rendered, spec.zip):
        problems.append(Problem(where.value((*step_path, name) if name else step_path),
                                format_path(step_path), message, hint))
    return problems


def _refused_args(check: ArgsCheck | None, rendered: dict[str, Any], where: Locator, step_path: NodePath,
                  plan_dir: Path, variables: Mapping[str, Any]) -> list[Problem]:
    """The step type's own checks of its rendered arguments (device names, paths, SQL values, files beside
    the plan): a value that would be refused on the host is refused here, before any host is touched."""
    if check is None:
        return []
    try:
        check(rendered, plan_dir, variables)
    except StepError as exc:
        return [Problem(where.value(step_path), format_path(step_path), exc.message, exc.hint or "")]
    return []
