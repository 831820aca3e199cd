"""Checking a loaded plan against an inventory before any run: host patterns, undefined variables per
host, ``when:`` expressions that can be evaluated early, and arguments that are wrong only once rendered
(each step kind's own check, injected as ``kinds``)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from planner import kindspec
from planner.errors import InputError, Location, Problem, StepError
from planner.host import Host
from planner.plan.model import Claim, Plan, Play, StepSpec
from planner.plan.schema import Locator, did_you_mean, sweepable_params, validate_step_args
from planner.plan.source import Document, NodePath, format_path, load_yaml, parse_path
from planner.plan.sweeps import expand, zip_problems
from planner.plan.templating import (
    any_template,
    eval_when,
    refused,
    render,
    undefined_name,
    untemplated,
    variables_for,
    when_names,
)
from planner.variables import LOAD_GENERATOR_HOST

# A step kind's own check of its rendered arguments; raises StepError naming the refused value.
ArgsCheck = Callable[[Mapping[str, Any], Path, Mapping[str, Any]], None]  # rendered args, plan dir, host vars
DeviceWrites = Callable[[Mapping[str, Any]], bool]  # rendered args -> writes to block devices


class InventoryLike(Protocol):
    def select(self, pattern: str) -> list[Host]: ...


@dataclass(frozen=True, slots=True)
class Names:
    """What the step kinds know that the plan check asks about (handed in: the plan layer cannot import them)."""

    metrics: frozenset[str] = frozenset()  # metric names a reproduces: claim may use (planner.steps.metric_names)
    writes_devices: Mapping[str, DeviceWrites] = field(default_factory=dict)  # kind -> StepType.writes_devices
    # kind -> the metric names its steps give their play (planner.steps.produced_metrics): a claim on a metric of a
    # kind its play does not run is refused, with the play's own metrics
    by_kind: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # (kind, plan arguments) -> Workload.series_labels (planner.steps.series_labels): a claim must name the labels
    # that tell its metric's several series apart
    splits: Callable[[str, Mapping[str, Any]], Mapping[str, Any]] | None = None


def check_plan(plan: Plan, inventory: InventoryLike, extra_vars: Mapping[str, Any], *,
               kinds: Mapping[str, ArgsCheck], variables_only: frozenset[str] = frozenset(),
               known: Names | None = None, unlimited: InventoryLike | None = None) -> list[Problem]:
    """Problems that need the inventory: host patterns, undefined variables, rendered argument types.

    ``kinds`` maps each step kind to its own check of rendered arguments (planner.steps.ARG_CHECKS): the
    plan layer knows the language, the step kinds know what a host would refuse. ``variables_only``: step
    paths whose schema problems are already reported; only their undefined variables are added. ``known``:
    claim metrics and device writes are checked against it (every problem at once, each at its line).
    ``unlimited``: the inventory before --limit, where a load_generator_host is found (no play selects it)."""
    try:
        doc: Document | None = load_yaml(plan.source)
    except InputError:
        doc = None  # the file changed since load_plan: fall back to the steps' own locations
    found: dict[tuple[Location | None, str, str, str], list[str]] = {}
    memo = _Memo()  # hosts rendering a step alike share its per-argument checks
    problems: list[Problem] = _claim_problems(plan, known, doc) if known and known.metrics else []
    writes = known.writes_devices if known else {}
    for i, play in enumerate(plan.plays):
        try:
            hosts = inventory.select(play.hosts)
        except InputError as exc:
            loc = doc.location(("plays", i, "hosts")) if doc else play.location
            problems += [Problem(loc, f"plays[{i}].hosts", p.message, p.hint) for p in exc.problems]
            continue
        clients: dict[str, list[str]] = {}  # load_generator_host -> the play's database hosts naming it
        for host in hosts:
            variables = variables_for(plan, play, host, extra_vars)
            if (client := _client_of(play.steps, variables, host)) is not None:
                clients.setdefault(client, []).append(host.name)
            for p in _refused_vars(refused(variables), plan, i, extra_vars, doc, inventory):
                found.setdefault((p.location, p.path, p.message, p.hint), []).append(host.name)
            for spec in play.steps:
                for p in [*_check_step(spec, variables, doc, plan.source.parent, kinds,
                                       spec.path in variables_only, writes.get(spec.kind), memo),
                          *_host_vars(spec, variables, host, unlimited or inventory, doc)]:
                    found.setdefault((p.location, p.path, p.message, p.hint), []).append(host.name)
        problems += _shared_clients(clients, {h.name for h in hosts}, i, play, doc)
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


def _host_vars(spec: StepSpec, variables: Mapping[str, Any], host: Host, inventory: InventoryLike,
               doc: Document | None) -> list[Problem]:
    """Where a step's load generator runs (``load_generator_host``, read for a kind whose Oltp names one): a host
    of the inventory, and for now the database host itself. Reported at the step, which is what reads it (the
    variable may come from the inventory, a play's vars: or -e)."""
    kind = kindspec.spec(spec.kind)  # this kind's spec only, not every kind's
    oltp = kind.oltp if kind is not None else None
    var = LOAD_GENERATOR_HOST
    value = str(variables.get(var.name) or "").strip()
    if oltp is None or not oltp.generator or not value or value == host.name:
        return []
    loc = Locator(doc, spec.location).value((*parse_path(spec.path), spec.kind))
    if not _holds(inventory, value):
        return [Problem(loc, spec.path, f"{var.name} {value!r} names no host of the inventory",
                        f"name one of the inventory's hosts, or remove {var.name}")]
    why = kindspec.load(oltp.client_host)(spec.args) if oltp.client_host else \
        f"running {oltp.generator} on another host than the database's is not built yet"
    if not why:
        return []
    # not ignored: the generator would run on the database host while the inventory says otherwise
    return [Problem(loc, spec.path, f"{var.name} {value!r}: {why} (docs/load-generator-host.md)",
                    f"remove {var.name}: {oltp.generator} then runs on the database host, and the report says so")]


def _client_of(steps: Sequence[StepSpec], variables: Mapping[str, Any], host: Host) -> str | None:
    """The client host a play host names for a step of its whose kind names a load generator (None: none)."""
    value = str(variables.get(LOAD_GENERATOR_HOST.name) or "").strip()
    if not value or value == host.name:
        return None
    # only the kinds the play names: reading every kind's spec costs an apply its start-up
    wanted = any((spec := kindspec.spec(s.kind)) is not None and spec.oltp is not None and spec.oltp.generator
                 for s in steps)
    return value if wanted else None


def _shared_clients(clients: Mapping[str, list[str]], play_hosts: set[str], index: int, play: Play,
                    doc: Document | None) -> list[Problem]:
    """A client host runs one database host's generator and no steps of its own (planner.engine.runner refuses
    both at run time too): one named by two database hosts would share its CPU between their users unknowingly,
    one that is a host of the play would run the play's steps while it drives the load."""
    loc = doc.location(("plays", index, "hosts")) if doc else play.location
    var = LOAD_GENERATOR_HOST.name
    out = []
    for client, dbs in clients.items():
        if len(dbs) > 1:
            out.append(Problem(loc, f"plays[{index}].hosts", f"{var} {client!r} is named by hosts {', '.join(dbs)}: "
                               "their load generators would share its CPU", "name one client host per database host"))
        if client in play_hosts:
            out.append(Problem(loc, f"plays[{index}].hosts", f"{var} {client!r} of host {', '.join(dbs)} is a host "
                               "of the play itself: it would run the play's steps while it drives the load",
                               "name a host the play does not select"))
    return out


def _holds(inventory: InventoryLike, name: str) -> bool:
    try:
        return any(h.name == name for h in inventory.select(name))
    except InputError:
        return False


def _check_when(spec: StepSpec, variables: Mapping[str, Any], where: Locator,
                step_path: NodePath) -> list[Problem]:
    """A ``when:`` that can be evaluated before the run (it does not read ``planner_facts``) is: an undefined
    variable, ``1/0`` or ``n + 1`` with a string ``n`` is refused here, not in the middle of a run."""
    if not isinstance(spec.when, str):
        return []
    expr = spec.when.strip()
    expr = expr[2:-2] if expr.startswith("{{") and expr.endswith("}}") else expr
    names = when_names(expr)
    if names is None:
        return []  # reported by load_plan
    if "planner_facts" in names:
        return []  # runtime values: checked when the step runs
    # Every other name is known now: an undefined one (not guarded by `is defined` or `default`) is refused
    # here, before any host is locked, not when the step's turn comes.
    try:
        eval_when(spec.when, variables)
    except InputError as exc:
        loc = where.value((*step_path[:-1], "when"))
        return [Problem(loc, format_path((*step_path[:-1], "when")), p.message, p.hint) for p in exc.problems]
    return []


def _claim_problems(plan: Plan, known: Names, doc: Document | None) -> list[Problem]:
    """A claim on a metric no run can measure, or none of its play's steps produces, or that names several series,
    would only read "inconclusive" hours later: refused now, with the names that would match."""
    from planner.metrics import OUTPUT_NAMED_FAMILIES  # the metrics model only for a plan that claims

    out = []
    for k, claim in enumerate(plan.reproduces):
        name = claim.metric.split("{", 1)[0]  # a key with labels names its metric first
        loc = doc.location(("reproduces", k, "metric")) if doc else claim.location
        if not (name in known.metrics or name.split(".", 1)[0] in OUTPUT_NAMED_FAMILIES and "." in name):
            out.append(Problem(loc, f"reproduces[{k}].metric", f"claim metric '{claim.metric}' is not one planner "
                               "measures", did_you_mean(name, sorted(known.metrics)) or "`planner parse --format "
                               "json FILE` lists the metric names of a tool's output"))
        elif problem := _claim_in_play(plan, claim, known.by_kind) or _claim_split(plan, claim, known.splits):
            out.append(Problem(loc, f"reproduces[{k}].metric", *problem))
    return out


def _claim_in_play(plan: Plan, claim: Claim, by_kind: Mapping[str, frozenset[str]]) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when the metric is one some kind produces but no step of the claim's play
    is of such a kind. A metric no kind declares (an OS sampler's, a family named by the output) is let be."""
    name = claim.metric.split("{", 1)[0]
    makers = sorted(kind for kind, names in by_kind.items() if name in names)
    play = next((p for p in plan.plays if p.name == claim.play), None)
    if not makers or play is None:
        return None
    kinds = {s.kind for s in play.steps}
    if kinds & set(makers):
        return None
    mine = sorted({m for kind in kinds for m in by_kind.get(kind, ())})
    hint = did_you_mean(name, mine) or (f"its steps produce: {', '.join(mine[:12])}{' …' if len(mine) > 12 else ''}"
                                        if mine else "its steps produce no metric a claim can name")
    return (f"claim metric '{claim.metric}': no step of play '{claim.play}' produces it (a {' or '.join(makers)} "
            f"step does)", f"name a metric of the play's own steps; {hint}")


def _claim_split(plan: Plan, claim: Claim,
                 splits: Callable[[str, Mapping[str, Any]], Mapping[str, Any]] | None) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when a step of the claim's play gives the metric as several series told
    apart by labels (fio's latencies, one per statistic; a mixed rw's figures, one per direction) and the claim
    does not name them."""
    name, _, given = claim.metric.partition("{")
    play = next((p for p in plan.plays if p.name == claim.play), None)
    if play is None or splits is None:
        return None
    for spec in play.workloads:
        labels = splits(spec.kind, dict(spec.args)).get(name, ())
        missing = [(label, values) for label, values in labels if f"{label}=" not in given]
        if missing:
            form = name + "{" + ",".join(f"{label}={values[0]}" for label, values in missing) + "}"
            per = "; ".join(f"one per {label}: {', '.join(values)}" for label, values in missing)
            return (f"claim metric '{claim.metric}' matches several series of {spec.kind} step {spec.path} "
                    f"({per})", f"name one with its labels, e.g. {form}")
    return None


def _destructive(spec: StepSpec, rendered: Mapping[str, Any], writes: DeviceWrites | None,
                 where: Locator, step_path: NodePath) -> list[Problem]:
    """A device write the plan spells out needs ``destructive: true``, said now rather than mid-run."""
    try:
        if writes is None or spec.destructive or not writes(rendered):
            return []
    except (TypeError, ValueError):
        return []  # arguments the schema already refuses
    return [Problem(where.value(step_path), format_path(step_path),
                    f"{spec.kind} writes to block devices and the step is not marked destructive",
                    "add 'destructive: true' to the step if destroying the data on these devices is intended")]


def _render_arg(rendered: dict[str, Any], key: str, value: Any, variables: Mapping[str, Any],
                loc: Location | None, path: str) -> list[Problem]:
    """Render one argument holding a template into ``rendered``; what is wrong with it as problems."""
    import jinja2  # here, not at the top: only an argument holding a template needs Jinja2

    try:
        rendered[key] = render(value, variables)
    except jinja2.UndefinedError as exc:
        name = undefined_name(exc)
        message = f"undefined variable '{name}'" if name else str(exc.message)
        return [Problem(loc, path, message, "define it in vars:, the inventory, or -e NAME=VALUE")]
    except jinja2.TemplateError as exc:
        return [Problem(loc, path, f"template error: {exc}", "fix the {{ }} expression")]
    return []


@dataclass(frozen=True, slots=True)
class _PerArgs:
    """What a step's check finds from its rendered arguments alone: the same for every host that renders them
    alike (at 200 hosts, 200 schema walks and sweep expansions of identical text were most of the check)."""

    problems: tuple[Problem, ...]  # the schema's and the device-write check's
    zipped: tuple[Problem, ...]  # the zip: problems, said after the kind's own
    points: tuple[dict[str, Any], ...]  # the distinct arguments of each sweep point, for the kind's check


@dataclass(slots=True)
class _Memo:
    """One plan check's shared answers: per step, which arguments hold a template; per (step, rendering), the
    per-argument checks."""

    templated: dict[str, frozenset[str]] = field(default_factory=dict)
    per_args: dict[tuple[str, str], _PerArgs] = field(default_factory=dict)

    def templated_of(self, spec: StepSpec) -> frozenset[str]:
        found = self.templated.get(spec.path)
        if found is None:
            found = self.templated[spec.path] = frozenset(k for k, v in spec.args.items() if any_template(v))
        return found


def _typed(value: Any) -> str:
    """The rendered arguments as a key: each value with its type, so 1 and "1", a date and its text, a string and
    an UnsafeText of the same text (the zip: check tells them apart) stay apart; a spec's keys keep their order."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{_typed(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return type(value).__name__ + "[" + ",".join(_typed(v) for v in value) + "]"
    return f"{type(value).__qualname__}:{value!r}"


def _per_args(spec: StepSpec, rendered: dict[str, Any], where: Locator, step_path: NodePath,
              writes: DeviceWrites | None, memo: _Memo | None) -> _PerArgs:
    key = (spec.path, _typed(rendered))
    if memo is not None and (hit := memo.per_args.get(key)) is not None:
        return hit
    problems = [*validate_step_args(spec.kind, rendered, where, step_path),
                *_destructive(spec, rendered, writes, where, step_path)]
    zipped = [Problem(where.value((*step_path, name) if name else step_path), format_path(step_path), message, hint)
              for name, message, hint in zip_problems(spec.kind, rendered, spec.zip)]
    found = _PerArgs(tuple(problems), tuple(zipped), () if problems else tuple(_points(spec, rendered)))
    if memo is not None:
        memo.per_args[key] = found
    return found


def _check_step(spec: StepSpec, variables: Mapping[str, Any], doc: Document | None,
                plan_dir: Path, kinds: Mapping[str, ArgsCheck], variables_only: bool = False,
                writes: DeviceWrites | None = None, memo: _Memo | None = None) -> list[Problem]:
    step_path = (*parse_path(spec.path), spec.kind)
    where = Locator(doc, spec.location)
    rendered: dict[str, Any] = {}
    problems: list[Problem] = _check_when(spec, variables, where, step_path)
    templated = (memo or _Memo()).templated_of(spec)
    for key, value in spec.args.items():
        if key in templated:
            problems += _render_arg(rendered, key, value, variables, where.value((*step_path, key)),
                                    format_path((*step_path, key)))
        else:  # no Jinja2 for an argument without a template (start-up time)
            rendered[key] = untemplated(value)
    if problems:
        return problems
    if variables_only:  # its schema problems are reported: add what the step kind itself would refuse
        try:
            return _refused_args(kinds.get(spec.kind), _points(spec, rendered), where, step_path, plan_dir, variables)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError):
            return []  # arguments too malformed for the kind's check; the schema problems say why
    shared = _per_args(spec, rendered, where, step_path, writes, memo)
    problems += shared.problems
    if not problems:  # the kind's check reads the host's variables too: run for each host
        problems += _refused_args(kinds.get(spec.kind), shared.points, where, step_path, plan_dir, variables)
    return [*problems, *shared.zipped]


MAX_CHECKED_POINTS = 4096  # beyond: each swept value is checked once, in bounded time, not every combination


def _points(spec: StepSpec, rendered: dict[str, Any]) -> list[dict[str, Any]]:
    """The distinct arguments of each sweep point, as the host gets them. With a bad ``zip:`` (said apart) or
    a matrix too large to walk, each swept value is checked once beside the others' first values."""
    swept = {k: v for k, v in rendered.items() if k in sweepable_params(spec.kind) and isinstance(v, list) and v}
    try:
        if math.prod(len(v) for v in swept.values()) > MAX_CHECKED_POINTS:
            raise InputError([])
        runs = [args for _point, args in expand(replace(spec, repeat=1, warmup=0), rendered)]
    except InputError:
        first = {**rendered, **{k: v[0] for k, v in swept.items()}}
        runs = [{**first, k: value} for k, values in swept.items() for value in values] or [rendered]
    seen: dict[str, dict[str, Any]] = {}
    for args in runs:
        seen.setdefault(json.dumps(args, sort_keys=True, default=str), args)
    return list(seen.values())


def _refused_args(check: ArgsCheck | None, points: Sequence[dict[str, Any]], where: Locator,
                  step_path: NodePath, plan_dir: Path, variables: Mapping[str, Any]) -> list[Problem]:
    """The step type's own checks of its rendered arguments (device names, paths, SQL values, files beside
    the plan), per sweep point: a value that would be refused on the host is refused here, before any host is
    touched, once however many points share it."""
    if check is None:
        return []
    out: list[Problem] = []
    for args in points:
        try:
            check(args, plan_dir, variables)
        except StepError as exc:
            problem = Problem(where.value(step_path), format_path(step_path), exc.message, exc.hint or "")
            out += [] if problem in out else [problem]
    return out
