"""Loading a plan file into the typed model, and checking it against an inventory before any run.

``load_plan`` reports every problem of the file at once (YAML syntax, schema, sweeps, duplicate
play names, missing inventory file, claims about plays that do not exist, template syntax);
``check_plan`` adds what needs the inventory: host patterns, undefined variables per host, and
arguments that are wrong only once rendered.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from planner.errors import InputError, Problem
from planner.plan.check import ArgsCheck, InventoryLike, check_plan
from planner.plan.model import Claim, Plan, Play, ReportSpec, Section, StepSpec
from planner.plan.schema import (
    Locator,
    did_you_mean,
    is_template,
    parse_step,
    validate_document,
)
from planner.plan.source import Document, NodePath, VaultTagged, format_path, load_yaml, parse_path
from planner.plan.sweeps import zip_problems
from planner.plan.templating import (
    is_password_name,
    template_errors,
    when_syntax_error,
)

_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([smh]?)$")
DEFAULT_TOLERANCE_PCT = 10.0


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


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    m = _DURATION.match(str(value))
    assert m, "validated by the schema"
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def _sync_options(value: Any) -> dict[str, Any]:
    """``sync_start: true`` or ``sync_start: {tolerance_ms: 10, rerun_late: true}`` (the schema checks types)."""
    if not isinstance(value, dict):
        return {"sync_start": bool(value)}
    return {"sync_start": bool(value.get("enabled", True)),
            "sync_tolerance_ms": float(value.get("tolerance_ms", 10.0)),
            "sync_rerun_late": bool(value.get("rerun_late", True))}


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
                name=str(data.get("plan") if self.lenient else data["plan"]), source=self.path,
                description=str(data.get("description", "")),
                inventory=inventory, vars=dict(data.get("vars") or {}),
                plays=tuple(p for p in plays if p is not None),
                report=ReportSpec(**report) if isinstance(report, dict) and not self.lenient else None,
                allow_destroy=tuple(data.get("allow_destroy") or ()), reproduces=tuple(claims))
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
                    and not is_template(value) and not isinstance(value, VaultTagged):  # vaulted: not in clear
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
                        vars=dict(raw.get("vars") or {}), **_sync_options(raw.get("sync_start", False)),
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
            if (error := when_syntax_error(expr)) is not None:
                self.problem((*path, "when"), f"bad when expression: {error}", "fix the expression")
        # the schema says what a bad zip is (a list of two or more names); the build only reads a good one
        given = opts.get("zip")
        zip_names = tuple(given) if isinstance(given, list) and all(isinstance(n, str) for n in given) else ()
        for name, message, hint in zip_problems(kind, parsed.args, zip_names):
            key = (*path, "zip") if "zip" in (item if isinstance(item, dict) else {}) else (*path, kind, "zip")
            self.problem(key if not name or name not in parsed.args else (*path, kind, name), message, hint)
        if opts.get("timeout") is not None:
            self._check_timeout(path, opts["timeout"])
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
                location=self.doc.location(path), play=_place(path)[0], index=_place(path)[1])
        except (TypeError, ValueError, AssertionError, OverflowError):
            if not self.lenient:
                return None
            # only for checking its variables: the options' problems are reported by the schema already
            return StepSpec(kind=kind, section=section, args=args, path=format_path(path), name=kind,
                            zip=tuple(z for z in zip_names if isinstance(z, str)), location=self.doc.location(path),
                            play=_place(path)[0], index=_place(path)[1])

    def _check_timeout(self, path: NodePath, value: Any) -> None:
        # the series module (where the duration bound lives) loads only for a step that sets a timeout
        from planner.timeseries import MAX_DURATION_S, seconds

        if not (seconds(value) or 0) <= MAX_DURATION_S:
            self.problem((*path, "timeout"), f"timeout {str(value)[:40]!r} is longer than "
                         f"{MAX_DURATION_S / 86400:g} days", "give seconds, or a duration such as 90s, 30m, 2h")


def _place(path: NodePath) -> tuple[int | None, int | None]:
    """A step's play and index from the node path the loader walks, ("plays", 1, "workloads", 0)."""
    play, index = (path[1], path[3]) if len(path) == 4 else (None, None)
    return (play if isinstance(play, int) else None), (index if isinstance(index, int) else None)


# check_plan and parse_path have their own homes (plan/check.py, plan/source.py); importable from here as before.
__all__ = ["ArgsCheck", "InventoryLike", "check_plan", "load_plan", "load_plan_partly", "parse_path",
           "split_command", "steps_with_problems"]
