"""The step registry: plan kind -> StepType class, planner's own and those plugins add (docs/plugins.md).

collect: [iostat, mpstat, vmstat] are not steps: the engine samples them around each workload point
(planner.engine.window), so they are registered only so that plans naming them validate. `ash` is declared in
the plan language but has no engine yet.

Adding a built-in step kind is one file here (a StepType subclass that says everything about the kind) and
one line below, plus its arguments' sub-schema in planner/plan/schemas/plan.schema.json. A plugin kind
carries its schema on the class (``args_schema``) and is registered by ``load_plugins``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from planner.errors import PlannerError, StepError
from planner.plan.model import Section
from planner.plan.schema import add_step_kinds
from planner.steps import dbreport, wl_calibrate, wl_fio, wl_iozone, wl_orion, wl_slb, wl_slob
from planner.steps.base import NotYetImplemented, StepType
from planner.steps.collect import FactsCollect
from planner.steps.generic import Command, Copy, Fetch, Template
from planner.steps.prep_asm import AsmDiskgroup
from planner.steps.prep_db import InitOra
from planner.steps.prep_flashback import Flashback
from planner.steps.prep_os import Hugepages, IoScheduler, Sysctl

REGISTRY: dict[str, type[StepType]] = {cls.kind: cls for cls in (Command, Template, Copy, Fetch, FactsCollect)}
REGISTRY.update({cls.kind: cls for cls in (wl_fio.Fio, wl_slb.Slb, wl_iozone.Iozone)})
REGISTRY.update({cls.kind: cls for cls in (wl_slob.Slob, wl_orion.Orion, wl_calibrate.CalibrateIo,
                                          dbreport.AwrCollect, dbreport.StatspackCollect)})
REGISTRY.update({cls.kind: cls for cls in (IoScheduler, Sysctl, Hugepages, InitOra, Flashback, AsmDiskgroup)})

for _kind in ("iostat", "mpstat", "vmstat", "ash"):
    REGISTRY[_kind] = type(f"NotYet_{_kind}", (NotYetImplemented,),
                           {"kind": _kind, "issue": "a later issue (iostat/mpstat/vmstat wrap workloads instead)"})

BUILTIN_KINDS = frozenset(REGISTRY)

# For the plan check (planner.plan.check.check_plan): each kind's own check of its rendered arguments.
ARG_CHECKS: dict[str, Callable[[Mapping[str, Any], Path, Mapping[str, Any]], None]] = {
    kind: cls.check_args for kind, cls in REGISTRY.items()}

ENTRY_POINT_GROUP = "planner.steps"  # [project.entry-points."planner.steps"] kind = "package.module:Class"
_loaded: set[str] = set()  # entry points already registered (load_plugins may be called again)


def _not_implemented(rendered: object, plan_dir: object, variables: object = None) -> None:
    # refused at the plan check: a plan naming it validated, then failed on every host (issue 15 item 8)
    raise StepError("collect: ash is not implemented yet: it would fail on every host",
                    hint="remove it; the AWR or Statspack report (collect: [awr] / [statspack]) lists the top "
                         "wait events")


ARG_CHECKS["ash"] = _not_implemented


def step_class(kind: str) -> type[StepType]:
    return REGISTRY[kind]


def section_of(cls: type[StepType]) -> str:
    """The schema's x-section of a kind: one section, or ``any`` when it may stand in all three."""
    if set(cls.sections) == set(Section):
        return "any"
    if len(cls.sections) == 1:
        return next(iter(cls.sections)).value
    raise PlannerError(f"step kind '{cls.kind}' ({cls.__module__}.{cls.__qualname__}): sections must be one "
                       "section or all three", hint="set sections = frozenset({Section.PREP}) (or WORKLOADS, COLLECT)")


def register(cls: type[StepType], origin: str = "") -> None:
    """Add one step kind: to the registry, the plan check and the plan schema (its ``args_schema``)."""
    where = origin or f"{cls.__module__}.{cls.__qualname__}"
    if not (isinstance(cls, type) and issubclass(cls, StepType)) or not isinstance(getattr(cls, "kind", None), str):
        raise PlannerError(f"step plugin {where} is not a StepType subclass with a kind",
                           hint="subclass planner.steps.base.StepType and set kind = 'my_kind' (docs/plugins.md)")
    if cls.kind in BUILTIN_KINDS or (cls.kind in REGISTRY and REGISTRY[cls.kind] is not cls):
        raise PlannerError(f"step plugin {where}: step kind '{cls.kind}' is already registered "
                           f"({REGISTRY[cls.kind].__module__})", hint="give the plugin's kind a name of its own")
    schema = dict(cls.args_schema) if cls.args_schema is not None else {"type": "object"}
    schema.setdefault("description", (cls.__doc__ or "").strip().split("\n")[0] or f"step kind from {where}")
    add_step_kinds({cls.kind: {**schema, "x-section": section_of(cls)}})
    REGISTRY[cls.kind] = cls
    ARG_CHECKS[cls.kind] = cls.check_args


def load_plugins() -> list[str]:
    """Register the step kinds other installed packages declare in the ``planner.steps`` entry-point group.

    Called by the CLI before it reads a plan; a library user calls it once too. Returns the kinds added now.
    A plugin that fails to import, or is not a StepType, stops planner with an error naming it: a plan that
    uses it could not be checked, and silently running without it would hide the problem.
    """
    added = []
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.value in _loaded:
            continue
        origin = f"entry point '{ep.name} = {ep.value}'" + (f" of {ep.dist.name}" if ep.dist else "")
        try:
            cls = ep.load()
        except Exception as e:  # a plugin's own import failure: say which plugin, never a bare traceback
            raise PlannerError(f"step plugin {origin} cannot be loaded: {type(e).__name__}: {e}",
                               hint="fix or uninstall that package (pip uninstall ...)") from e
        register(cls, origin)
        _loaded.add(ep.value)
        added.append(cls.kind)
    return added


def metric_names() -> frozenset[str]:
    """Every metric name planner's parsers and step kinds produce under a fixed name (a ``reproduces:`` claim
    must name one of these, or one of metrics.OUTPUT_NAMED_FAMILIES)."""
    from planner.metrics import DISPLAY_NAMES
    from planner.parsers.awr_common import LOAD_PROFILE, PER_COLUMNS

    names = set(DISPLAY_NAMES) | {m for cls in REGISTRY.values() for m in cls.report_metrics}
    names |= {f"{row.base}_per_{per}" for row in LOAD_PROFILE.values() for per in PER_COLUMNS}
    return frozenset(names)


def device_writers() -> dict[str, Callable[[Mapping[str, Any]], bool]]:
    """Each step kind's StepType.writes_devices: the plan check refuses such a step without destructive: true."""
    return {kind: cls.writes_devices for kind, cls in REGISTRY.items()}
