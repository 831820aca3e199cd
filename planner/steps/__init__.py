"""The step registry: plan kind -> StepType class.

collect: [iostat, mpstat, vmstat] are not steps: the engine samples them around each workload point
(planner.engine.window), so they are registered only so that plans naming them validate. `ash` is declared in
the plan language but has no engine yet.
"""

from __future__ import annotations

from planner.errors import StepError
from planner.steps import dbreport, wl_calibrate, wl_fio, wl_iozone, wl_orion, wl_slb, wl_slob
from planner.steps.base import NotYetImplemented, StepType
from planner.steps.collect import FactsCollect
from planner.steps.generic import Command, Copy, Fetch, Template
from planner.steps.prep_asm import AsmDiskgroup
from planner.steps.prep_db import Flashback, InitOra
from planner.steps.prep_os import Hugepages, IoScheduler, Sysctl

REGISTRY: dict[str, type[StepType]] = {cls.kind: cls for cls in (Command, Template, Copy, Fetch, FactsCollect)}
REGISTRY.update({cls.kind: cls for cls in (wl_fio.Fio, wl_slb.Slb, wl_iozone.Iozone)})
REGISTRY.update({cls.kind: cls for cls in (wl_slob.Slob, wl_orion.Orion, wl_calibrate.CalibrateIo,
                                          dbreport.AwrCollect, dbreport.StatspackCollect)})
REGISTRY.update({cls.kind: cls for cls in (IoScheduler, Sysctl, Hugepages, InitOra, Flashback, AsmDiskgroup)})

for _kind in ("iostat", "mpstat", "vmstat", "ash"):
    REGISTRY[_kind] = type(f"NotYet_{_kind}", (NotYetImplemented,),
                           {"kind": _kind, "issue": "a later issue (iostat/mpstat/vmstat wrap workloads instead)"})


# For the plan check (planner.plan.loader.check_plan): each kind's own check of its rendered arguments.
ARG_CHECKS = {kind: cls.check_args for kind, cls in REGISTRY.items()}


def _not_implemented(rendered: object, plan_dir: object) -> None:
    # refused at the plan check: a plan naming it validated, then failed on every host (issue 15 item 8)
    raise StepError("collect: ash is not implemented yet: it would fail on every host",
                    hint="remove it; the AWR or Statspack report (collect: [awr] / [statspack]) lists the top "
                         "wait events")


ARG_CHECKS["ash"] = _not_implemented


def step_class(kind: str) -> type[StepType]:
    return REGISTRY[kind]
