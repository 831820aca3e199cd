"""The step registry: plan kind -> StepType class.

Kinds whose engines arrive with later issues are registered as NotYetImplemented so every plan validates
(their argument schemas are already in planner/schemas/plan.schema.json).
"""

from __future__ import annotations

from planner.steps import dbreport, wl_calibrate, wl_fio, wl_iozone, wl_orion, wl_slb, wl_slob  # issue #5
from planner.steps.base import NotYetImplemented, StepType
from planner.steps.collect import FactsCollect
from planner.steps.generic import Command, Copy, Fetch, Template
from planner.steps.prep_asm import AsmDiskgroup  # issue #4 host prep
from planner.steps.prep_db import Flashback, InitOra
from planner.steps.prep_os import Hugepages, IoScheduler, Sysctl

REGISTRY: dict[str, type[StepType]] = {cls.kind: cls for cls in (Command, Template, Copy, Fetch, FactsCollect)}
REGISTRY.update({cls.kind: cls for cls in (wl_fio.Fio, wl_slb.Slb, wl_iozone.Iozone)})
REGISTRY.update({cls.kind: cls for cls in (wl_slob.Slob, wl_orion.Orion, wl_calibrate.CalibrateIo,
                                          dbreport.AwrCollect, dbreport.StatspackCollect)})
REGISTRY.update({cls.kind: cls for cls in (IoScheduler, Sysctl, Hugepages, InitOra, Flashback, AsmDiskgroup)})

_LATER = {
    "issue #4 (host prep)": ("io_scheduler", "asm_diskgroup", "init_ora", "flashback", "sysctl", "hugepages"),
    "issue #5 (workloads)": ("slob", "orion", "slb", "calibrate_io", "iozone", "fio",
                             "awr", "statspack", "iostat", "mpstat", "vmstat", "ash", "facts"),
}
for _issue, _kinds in _LATER.items():
    for _kind in _kinds:
        REGISTRY.setdefault(_kind, type(f"NotYet_{_kind}", (NotYetImplemented,), {"kind": _kind, "issue": _issue}))


def step_class(kind: str) -> type[StepType]:
    return REGISTRY[kind]
