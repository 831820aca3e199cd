"""The step registry: plan kind -> StepType class, planner's own and those plugins add (docs/plugins.md).

collect: [iostat, mpstat, vmstat] are not steps: the engine samples them around each workload point
(planner.engine.window), so they are registered only so that plans naming them validate. `ash` is declared in
the plan language but has no engine yet.

Adding a built-in step kind is one file here (a StepType subclass that says everything about the kind, its
arguments' JSON schema ``args_schema`` included) and one line below; then ``python -m
planner.steps.schema_export`` regenerates the shipped plan schema (tests/test_plan_schema_generated.py says
so when it is stale). A plugin kind carries its schema on the class the same way and is registered by
``load_plugins``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from planner import kindspec
from planner.errors import PlannerError, StepError
from planner.plan.kind_schema import compose, sampled_around_points, schema_problem
from planner.plan.model import Section
from planner.plan.schema import add_step_kinds
from planner.status import ExitCode
from planner.steps.base import NotYetImplemented, StepType, reversible, workload
from planner.steps.registry import FROM_SPEC, KindAttribute, KindRegistry

if TYPE_CHECKING:
    from importlib import metadata

# In the plan schema's order (planner schema, the "prep steps are: ..." hints): generic, prep, workloads, collect.
# Named, not imported: a kind's file is imported when a plan (or a restore) first asks for the kind.
REGISTRY = KindRegistry({
    "command": "planner.steps.generic:Command", "template": "planner.steps.generic:Template",
    "copy": "planner.steps.generic:Copy", "fetch": "planner.steps.generic:Fetch",
    "io_scheduler": "planner.steps.prep_os:IoScheduler", "asm_diskgroup": "planner.steps.prep_asm:AsmDiskgroup",
    "init_ora": "planner.steps.prep_db:InitOra", "flashback": "planner.steps.prep_flashback:Flashback",
    "sysctl": "planner.steps.prep_os:Sysctl", "hugepages": "planner.steps.prep_os:Hugepages",
    "pg_conf": "planner.steps.prep_pg:PgConf",
})
for _kind in kindspec.KINDS:  # the workload kinds, each from its own folder: its spec read when first looked up
    REGISTRY.name(_kind, FROM_SPEC)
REGISTRY.name("awr", "planner.steps.dbreport:AwrCollect")
REGISTRY.name("statspack", "planner.steps.dbreport:StatspackCollect")
REGISTRY.name("pg_stat", "planner.steps.pg_stat:PgStatCollect")


def _not_yet(kind: str, schema: Mapping[str, Any]) -> type[StepType]:
    return type(f"NotYet_{kind}", (NotYetImplemented,),
                {"kind": kind, "sections": frozenset({Section.COLLECT}), "args_schema": schema,
                 "issue": "a later issue (iostat/mpstat/vmstat wrap workloads instead)"})


REGISTRY["iostat"] = _not_yet("iostat", sampled_around_points("iostat -x during each workload point"))
REGISTRY["mpstat"] = _not_yet("mpstat", sampled_around_points("mpstat -P ALL during each workload point"))
REGISTRY["vmstat"] = _not_yet("vmstat", sampled_around_points("vmstat during each workload point"))
REGISTRY.name("facts", "planner.steps.collect:FactsCollect")
REGISTRY["ash"] = _not_yet("ash", {"description": "active session history summary", "type": ["object", "null"],
                                   "properties": {}, "additionalProperties": False})

BUILTIN_KINDS = frozenset(REGISTRY)


def builtin_schema() -> dict[str, Any]:
    """The plan schema of planner's own kinds, composed from their classes: what schemas/plan.schema.json ships
    (python -m planner.steps.schema_export writes it; a test checks the two agree)."""
    return compose({kind: (section_of(cls), cls.args_schema or {"type": "object"})
                    for kind, cls in REGISTRY.items() if kind in BUILTIN_KINDS})

# For the plan check (planner.plan.check.check_plan): each kind's own check of its rendered arguments (read from
# its class when the check asks for the kind).
ARG_CHECKS: KindAttribute = KindAttribute(REGISTRY, "check_args")

ENTRY_POINT_GROUP = "planner.steps"  # [project.entry-points."planner.steps"] kind = "package.module:Class"
_loaded: set[str] = set()  # entry points already registered (load_plugins may be called again)
_broken: dict[str, PlannerError] = {}  # kind -> why its plugin cannot be used (imported once, said each time)
_KIND = re.compile(r"[a-z][a-z0-9_]*")


def _not_implemented(rendered: object, plan_dir: object, variables: object = None) -> None:
    # refused at the plan check: a plan naming it validated, then failed on every host
    raise StepError("collect: ash is not implemented yet: it would fail on every host",
                    hint="remove it; the AWR or Statspack report (collect: [awr] / [statspack]) lists the top "
                         "wait events")


ARG_CHECKS["ash"] = _not_implemented


def step_class(kind: str) -> type[StepType]:
    """The class of a kind; a plugin's is imported the first time a kind it provides is asked for (a restore
    of a run that used it), never before. KeyError for a kind nobody provides, PluginError for a broken one."""
    cls = REGISTRY.get(kind)
    if cls is None and kind in _entry_points():
        load_plugins([kind])
        cls = REGISTRY.get(kind)
    if cls is None:
        raise KeyError(kind)
    return cls


def section_of(cls: type[StepType]) -> str:
    """The schema's x-section of a kind: one section, or ``any`` when it may stand in all three."""
    if set(cls.sections) == set(Section):
        return "any"
    if len(cls.sections) == 1:
        return next(iter(cls.sections)).value
    raise PlannerError(f"step kind '{cls.kind}' ({cls.__module__}.{cls.__qualname__}): sections must be one "
                       "section or all three", hint="set sections = frozenset({Section.PREP}) (or WORKLOADS, COLLECT)")


class PluginError(PlannerError):
    """An installed step plugin that cannot be used: its import failed (or exited), or its declarations are wrong."""

    exit_code = ExitCode.BAD_INPUT


PLUGIN_IMPORT_S = 30.0  # a plugin's import; planner's own kinds import in milliseconds


def _broken_error(origin: str, why: str) -> PluginError:
    return PluginError(f"plugin {origin} is broken: {why}",
                       hint="fix or uninstall that package (pip uninstall ...); plans that do not use its kind "
                            "and show, report and restore of other runs are not affected")


def _declarations(cls: Any, where: str) -> str | None:
    """What is wrong with a step class's declarations, or None: planner reads them at every plan check."""
    if not (isinstance(cls, type) and issubclass(cls, StepType)):
        return "its entry point does not name a planner.steps.base.StepType subclass"
    kind = getattr(cls, "kind", None)
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        return f"kind {kind!r} is not a lower-case name (a-z, 0-9, _)"
    sections = getattr(cls, "sections", None)
    if not isinstance(sections, frozenset | set) or not sections or not all(isinstance(x, Section) for x in sections):
        return (f"sections {sections!r} is not a set of planner.plan.model.Section "
                "(write sections = frozenset({Section.PREP}))")
    if len(sections) not in (1, len(Section)):
        return "sections must be one section or all three"
    if getattr(cls, "reversible", False) and not reversible(cls) is not None:
        return ("reversible = True is the old way: subclass planner.steps.base.Reversible (its save, revert and "
                "describe_saved), docs/plugins.md")
    return schema_problem(cls.args_schema)


def register(cls: type[StepType], origin: str = "") -> None:
    """Add one step kind: to the registry, the plan check and the plan schema (its ``args_schema``), after its
    declarations are checked (PluginError otherwise)."""
    where = origin or f"{cls.__module__}.{cls.__qualname__}"
    why = _declarations(cls, where)
    if why is not None:
        raise _broken_error(where, why)
    if cls.kind in BUILTIN_KINDS or (cls.kind in REGISTRY and REGISTRY[cls.kind] is not cls):
        raise _broken_error(where, f"step kind '{cls.kind}' is already registered ({REGISTRY[cls.kind].__module__}); "
                            "give the plugin's kind a name of its own")
    schema = dict(cls.args_schema) if cls.args_schema is not None else {"type": "object"}
    schema.setdefault("description", (cls.__doc__ or "").strip().split("\n")[0] or f"step kind from {where}")
    add_step_kinds({cls.kind: {**schema, "x-section": section_of(cls)}})
    REGISTRY[cls.kind] = cls
    ARG_CHECKS[cls.kind] = cls.check_args


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed plugins' entry points by name (the kind they provide), read from the packages' metadata
    only: nothing is imported."""
    from importlib import metadata  # ~15 ms: only when a plan names a kind planner does not have, or `schema`

    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _import_within(ep: metadata.EntryPoint, seconds: float, origin: str) -> Any:
    """``ep.load()`` in a thread given ``seconds``: an import that never returns (a plugin waiting on a network
    share, a lock, a prompt) hung validate and `planner schema`. Past the bound the plugin is broken; its thread
    is left behind (a thread cannot be stopped), and its module is never asked for again (``_broken``)."""
    import threading

    done: list[tuple[bool, Any]] = []

    def body() -> None:
        try:
            done.append((True, ep.load()))
        except BaseException as e:  # handed to the caller's handlers below, as if raised there
            done.append((False, e))

    worker = threading.Thread(target=body, daemon=True, name=f"plugin-import-{ep.name}")
    worker.start()
    worker.join(seconds)
    if not done:
        raise _broken_error(origin, f"its import did not finish within {seconds:g} s")
    ok, value = done[0]
    if not ok:
        raise value
    return value


def _load_one(ep: metadata.EntryPoint) -> None:
    origin = f"'{ep.name}' ({ep.value}" + (f", package {ep.dist.name})" if ep.dist else ")")
    try:
        cls = _import_within(ep, PLUGIN_IMPORT_S, origin)
    except PluginError:
        raise
    except KeyboardInterrupt:
        raise
    except SystemExit as e:  # sys.exit() at import must not end planner, least of all with exit 0
        raise _broken_error(origin, f"its import called sys.exit({e.code!r})") from None
    except BaseException as e:  # a plugin's own import failure: say which plugin, never a bare traceback
        raise _broken_error(origin, f"its import failed: {type(e).__name__}: {e}") from None
    if getattr(cls, "kind", None) != ep.name and isinstance(cls, type) and issubclass(cls, StepType):
        raise _broken_error(origin, f"the entry point's name must be the kind it provides ({cls.kind!r})")
    register(cls, origin)


def load_plugins(kinds: Iterable[str] | None = None, *, errors: list[str] | None = None) -> list[str]:
    """Register the step kinds other installed packages declare in the ``planner.steps`` entry-point group.

    ``kinds``: only the plugins providing these kinds are imported (the kinds a plan names; the CLI passes
    them), None: every installed one (``planner schema``). A broken plugin raises PluginError ("plugin X is
    broken: ..."), or with ``errors`` given is left out and said there. Returns the kinds added now.
    """
    wanted = None if kinds is None else set(kinds)
    added = []
    for name, ep in _entry_points().items():
        if (wanted is not None and name not in wanted) or ep.value in _loaded:
            continue
        try:
            if name in _broken:
                raise _broken[name]
            _load_one(ep)
        except PlannerError as e:
            _broken[name] = e
            if errors is None:
                raise
            errors.append(str(e.message))
            continue
        _loaded.add(ep.value)
        added.append(name)
    return added


def metric_names() -> frozenset[str]:
    """Every metric name planner's parsers and step kinds produce under a fixed name (a ``reproduces:`` claim
    must name one of these, or one of metrics.OUTPUT_NAMED_FAMILIES)."""
    from planner.metrics import DISPLAY_NAMES
    from planner.parsers.awr_common import LOAD_PROFILE, PER_COLUMNS

    names = set(DISPLAY_NAMES) | {m for cls in REGISTRY.values() if (w := workload(cls)) is not None
                                  for m in w.report_metrics}
    names |= {f"{row.base}_per_{per}" for row in LOAD_PROFILE.values() for per in PER_COLUMNS}
    return frozenset(names)


def produced_metrics() -> Mapping[str, frozenset[str]]:
    """Step kind -> the metric names its steps give their play: a workload kind's own (its report metrics and its
    parsers' words); the database report's (AWR/Statspack Load Profile, SLOB's figures) for the kinds that take
    snapshots (awr, statspack, and the workloads that write their own report). A claim on one of these names needs
    a step of such a kind in its play (planner.plan.check)."""
    from planner import kindspec
    from planner.parsers.awr_common import LOAD_PROFILE, PER_COLUMNS

    db = {f"{row.base}_per_{per}" for row in LOAD_PROFILE.values() for per in PER_COLUMNS}
    own: dict[str, set[str]] = {}
    snapshots = ["awr", "statspack"]
    for kind, cls in REGISTRY.items():
        if (w := workload(cls)) is not None:
            own[kind] = set(w.report_metrics)
            if w.writes_db_report:
                snapshots.append(kind)
                db |= {m for m in w.report_metrics if "." not in m}
    for spec in kindspec.specs():
        own.setdefault(spec.kind, set()).update(spec.report.metric_words)
    for kind in snapshots:
        own.setdefault(kind, set()).update(db)
    return {kind: frozenset(names) for kind, names in own.items()}


def series_labels(kind: str, args: Mapping[str, Any]) -> Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """A workload kind's Workload.series_labels for these plan arguments ({} for other kinds and unknown ones)."""
    cls = REGISTRY.get(kind)
    w = workload(cls) if cls is not None else None
    return w.series_labels(args) if w is not None else {}


def device_writers() -> Mapping[str, Callable[[Mapping[str, Any]], bool]]:
    """Each step kind's StepType.writes_devices: the plan check refuses such a step without destructive: true.
    Read from a kind's class when the check asks for the kind (a plan's kinds are imported, no others)."""
    return KindAttribute(REGISTRY, "writes_devices")
