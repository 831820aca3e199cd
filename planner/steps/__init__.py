"""The step registry: plan kind -> StepType class.

Kinds whose engines arrive with later issues are registered as NotYetImplemented so every plan validates
(their argument schemas are already in planner/schemas/plan.schema.json).
"""

from __future__ import annotations

from planner.steps.base import NotYetImplemented, StepType
from planner.steps.generic import Command, Copy, Fetch, Template

REGISTRY: dict[str, type[StepType]] = {cls.kind: cls for cls in (Command, Template, Copy, Fetch)}

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
