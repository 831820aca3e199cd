"""The typed plan model: what a plan file means once it has been loaded, validated and resolved.

Flow: plan file -> planner.plan.source (YAML with locations) -> planner.plan.schema (versioned JSON Schema)
-> ``Plan`` (this module); the engine expands sweeps into ``SweepPoint``s and renders each host's arguments.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import Location


class Section(enum.Enum):
    PREP = "prep"
    WORKLOADS = "workloads"
    COLLECT = "collect"


@dataclass(frozen=True, slots=True)
class StepSpec:
    """One step as written in the plan (arguments may still hold ``{{ templates }}`` and sweep lists)."""

    kind: str  # step type: io_scheduler, init_ora, command, a workload kind, ...
    section: Section
    args: Mapping[str, Any]  # the step's own arguments, as written (templates unrendered)
    path: str  # "plays[1].workloads[0]" — used in messages and as a stable id
    name: str = ""  # `name:` if given, else the kind
    tags: frozenset[str] = frozenset()
    when: str | None = None  # Jinja expression, evaluated per host
    ignore_errors: bool = False
    timeout_s: float | None = None
    become: bool | None = None
    become_user: str | None = None
    repeat: int = 1  # workloads: each sweep point runs this many times
    warmup: int = 0  # workloads: extra leading runs per point, recorded but excluded from statistics
    zip: tuple[str, ...] = ()  # workloads: these list-valued args are paired instead of crossed
    destructive: bool = False  # the user opted in to a step that destroys data on devices
    location: Location | None = None
    play: int | None = None  # the play's index in the plan (None: a step built outside a plan)
    index: int | None = None  # the step's index in its section of the play

    @property
    def title(self) -> str:
        return self.name or self.kind


@dataclass(frozen=True, slots=True)
class Claim:
    """A ``reproduces:`` claim: the number a source published, for the report's verdict."""

    source: str
    play: str  # which play (system) the claim is about
    metric: str
    expected: float
    tolerance_pct: float
    location: Location | None = None


@dataclass(frozen=True, slots=True)
class Play:
    name: str
    hosts: str  # inventory pattern
    prep: tuple[StepSpec, ...] = ()
    workloads: tuple[StepSpec, ...] = ()
    collect: tuple[StepSpec, ...] = ()
    vars: Mapping[str, Any] = field(default_factory=dict)
    sync_start: bool = False  # start each workload point on all the play's hosts together
    sync_tolerance_ms: float = 10.0  # sync_start: {tolerance_ms}: a host later than this marks its point late
    sync_rerun_late: bool = True  # sync_start: {rerun_late}: a late point is run once more
    keep_prep: bool = False  # leave prep in place after the run (default: restore)
    rated: Mapping[str, float] = field(default_factory=dict)  # datasheet figures, e.g. {read_iops: 1500000}
    tags: frozenset[str] = frozenset()
    location: Location | None = None

    @property
    def steps(self) -> tuple[StepSpec, ...]:
        return self.prep + self.workloads + self.collect


@dataclass(frozen=True, slots=True)
class ReportSpec:
    template: str = "default.md.j2"
    output: str | None = None  # relative to the plan file; default: inside the run folder


@dataclass(frozen=True, slots=True)
class Plan:
    name: str
    source: Path  # the plan file
    description: str = ""
    inventory: Path | None = None  # resolved relative to the plan file
    vars: Mapping[str, Any] = field(default_factory=dict)
    plays: tuple[Play, ...] = ()
    report: ReportSpec | None = None
    allow_destroy: tuple[str, ...] = ()  # devices the plan allows destructive steps to write
    reproduces: tuple[Claim, ...] = ()


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """One execution of a workload: its parameter values, which repeat, and whether it is a warm-up."""

    index: int  # 0-based position in execution order
    params: tuple[tuple[str, Any], ...]  # only the swept parameters
    repeat: int  # 0-based repeat index within the point (warm-ups count from 0 separately)
    warmup: bool = False

    @property
    def label(self) -> str:
        p = " ".join(f"{k}={v}" for k, v in self.params)
        kind = f"warmup {self.repeat + 1}" if self.warmup else f"repeat {self.repeat + 1}"
        return f"{p} ({kind})" if p else kind
