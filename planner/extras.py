"""What a step kind says of its work beyond status, message, artifacts and metrics: one small frozen dataclass
per kind that has something to say (``Outcome.extra``, ``StepResult.extra``).

They sit in the foundation, not in the kinds' own files, because the results and the report read them and
may not import a step kind (the layers in pyproject's import contract). Each says which kind writes it.
results.json keeps them as the result's ``data`` object, in the shape planner wrote before they were typed:
``to_json`` here, the reading (old folders included) in planner.results.runfolder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def _frozen(d: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True, slots=True)
class Notes:
    """A kind's own values for the record (orion's LUNs and estimates, CALIBRATE_IO's figures, a plugin's data):
    written to results.json as they are; planner reads none of them back."""

    values: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True, slots=True)
class CommandRun:
    """``command``: the exit code and the end of the output (planner.steps.generic)."""

    rc: int
    stdout: str

    def to_json(self) -> dict[str, Any]:
        return {"rc": self.rc, "stdout": self.stdout}


@dataclass(frozen=True, slots=True)
class InitOraDone:
    """``init_ora``: whether the database was restarted, and the buffer pools in bytes as the instance has them
    after a cache change (planner.steps.prep_db); empty when no cache was changed."""

    restarted: bool
    buffer_pools: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        return {"restarted": self.restarted, **({"buffer_pools": dict(self.buffer_pools)} if self.buffer_pools else {})}


@dataclass(frozen=True, slots=True)
class SchedulersSet:
    """``io_scheduler``: each device given a scheduler, and the devices whose scheduler counts (a request-based
    multipath device's, not its paths') (planner.steps.prep_os)."""

    devices: tuple[tuple[str, str], ...]
    counts: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"devices": dict(self.devices), "counts": list(self.counts)}


@dataclass(frozen=True, slots=True)
class FactsGathered:
    """``facts``: the host facts as gathered (planner.steps.collect; also kept as facts.json)."""

    facts: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"facts": dict(self.facts)}


@dataclass(frozen=True, slots=True)
class ContainerSeen:
    """The container a point ran in, as read (planner.db.container): a CDB's PDB or root, or a non-CDB."""

    cdb: bool
    name: str
    pdb: bool
    describe: str

    def to_json(self) -> dict[str, Any]:
        return {"cdb": self.cdb, "name": self.name, "pdb": self.pdb, "describe": self.describe}


@dataclass(frozen=True, slots=True)
class CagingSeen:
    """Whether Resource Manager caged the instance's CPU during a point, as read (planner.db.caging)."""

    caged: bool
    cpu_count: int
    describe: str
    plan: str = ""
    windows: tuple[str, ...] = ()
    set_by: str = ""  # RESOURCE_MANAGER_PLAN as read

    def to_json(self) -> dict[str, Any]:
        return {"plan": self.plan, "caged": self.caged, "cpu_count": self.cpu_count, "windows": list(self.windows),
                "resource_manager_plan": self.set_by, "describe": self.describe}


@dataclass(frozen=True, slots=True)
class SlobCache:
    """Where a SLOB point's data is cached (planner.steps.wl_slob's cache check): the pool holding it, the pool
    the kit's table names, their sizes, and the cache as a share of the data."""

    pool: str
    kit_pool: str
    cache_bytes: int
    data_bytes: int
    pct_of_data: float
    buffer_pools: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    slob_data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # the segment, as read

    def to_json(self) -> dict[str, Any]:
        return {"cache_pool": self.pool, "kit_pool": self.kit_pool, "cache_bytes": self.cache_bytes,
                "data_bytes": self.data_bytes, "buffer_pools": dict(self.buffer_pools),
                "slob_data": dict(self.slob_data), "cache_pct_of_data": self.pct_of_data}


@dataclass(frozen=True, slots=True)
class ClusterSeen:
    """A SLOB point's database as a cluster: its open instances, whether it is RAC, and how that was told."""

    instances: int
    rac: bool
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"instances": self.instances, "rac": self.rac, "why": self.why}


@dataclass(frozen=True, slots=True)
class SlobPoint:
    """``slob``: what a point ran with and read of its database: the statistics source and why, where the data
    is cached, the container, the CPU caging and, on RAC, the scope of its figures (planner.steps.wl_slob).
    ``rac``/``cluster`` are None for a point refused before it ran."""

    sessions: int
    schemas: int
    threads_per_schema: int
    update_pct: int
    kit_version: str
    statistics: str  # "awr" | "statspack"
    statistics_why: str
    cache: SlobCache
    container: ContainerSeen
    caging: CagingSeen
    rac: str | None = None  # on RAC: the cluster's figures, or why there are none ("" on a single instance)
    cluster: ClusterSeen | None = None
    awr_level: str = ""  # in a PDB with AWR: whose AWR the kit's snapshots go to (planner.db.container.AwrLevel)

    def to_json(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "schemas": self.schemas, "threads_per_schema": self.threads_per_schema,
                "update_pct": self.update_pct, "kit_version": self.kit_version, "statistics": self.statistics,
                "statistics_why": self.statistics_why, **self.cache.to_json(),
                "container": self.container.to_json(), "caging": self.caging.to_json(),
                **({"rac": self.rac} if self.rac is not None else {}),
                **({"cluster": self.cluster.to_json()} if self.cluster is not None else {}),
                **({"awr_level": self.awr_level} if self.awr_level else {})}


StepExtra = Notes | CommandRun | InitOraDone | SchedulersSet | FactsGathered | SlobPoint


def notes(values: Mapping[str, Any] | None) -> Notes | None:
    """A kind's free values as Notes (None when there are none)."""
    return Notes(_frozen(values)) if values else None
