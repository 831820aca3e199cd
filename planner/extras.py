"""What a step kind says of its work beyond status, message, artifacts and metrics: one small frozen dataclass
per kind that has something to say (``Outcome.extra``, ``StepResult.extra``).

Each is written to results.json tagged, ``{"type": "slob_point", "v": 1, …}``, and read back by its tag
(``decode``), through the types planner.results.runfolder hands it: the ones here, which prep and generic kinds
write, and each workload kind's own, named in its spec (planner.kindspec). A folder written before the tags
is read by ``sniffs``: each type says whether an untagged object has its shape. ``Notes`` is never tagged: it is
a kind's or a plugin's own values, written as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, runtime_checkable

VERSION_KEY, TYPE_KEY = "v", "type"


def _frozen(d: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(d or {}))


@runtime_checkable
class StepExtra(Protocol):
    """What every extra is: a value that writes itself to JSON. A typed one also has ``TYPE``, ``from_json`` and
    ``sniffs`` (the ``TypedExtra`` protocol)."""

    def to_json(self) -> dict[str, Any]: ...


class TypedExtra(StepExtra, Protocol):
    TYPE: ClassVar[str]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StepExtra: ...

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool: ...


def tagged(type_: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """A typed extra's JSON: its tag, the record's version, then its fields."""
    return {TYPE_KEY: type_, VERSION_KEY: 1, **fields}


def decode(d: Mapping[str, Any], types: Mapping[str, type[TypedExtra]]) -> StepExtra | None:
    """An extra from its JSON: by its tag, else (a folder from before the tags) the first type whose shape it
    has; None when it is neither. Damaged values raise KeyError/TypeError/ValueError/AttributeError."""
    tag = d.get(TYPE_KEY)
    if isinstance(tag, str) and isinstance(d.get(VERSION_KEY), int) and tag in types:
        return types[tag].from_json({k: v for k, v in d.items() if k not in (TYPE_KEY, VERSION_KEY)})
    for cls in types.values():
        if cls.sniffs(d):
            return cls.from_json(d)
    return None


def text(v: Any) -> str:
    return "" if v is None else str(v)


def strings(v: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in v) if isinstance(v, (list, tuple)) else ()


def mapping(v: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(v)) if isinstance(v, Mapping) else MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Notes:
    """A kind's own values for the record (a kind with no typed extra of its own, a plugin's data):
    written to results.json as they are; planner reads none of them back."""

    values: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True, slots=True)
class CommandRun:
    """``command``: the exit code and the end of the output (planner.steps.generic)."""

    TYPE: ClassVar[str] = "command_run"
    rc: int
    stdout: str

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"rc": self.rc, "stdout": self.stdout})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CommandRun:
        return cls(int(d["rc"]), str(d["stdout"]))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return set(d) == {"rc", "stdout"}


@dataclass(frozen=True, slots=True)
class InitOraDone:
    """``init_ora``: whether the database was restarted, and the buffer pools in bytes as the instance has them
    after a cache change (planner.steps.prep_db); empty when no cache was changed."""

    TYPE: ClassVar[str] = "init_ora_done"
    restarted: bool
    buffer_pools: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"restarted": self.restarted,
                                  **({"buffer_pools": dict(self.buffer_pools)} if self.buffer_pools else {})})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> InitOraDone:
        pools = dict(d.get("buffer_pools") or {})
        return cls(bool(d["restarted"]), MappingProxyType({str(k): int(v) for k, v in pools.items()}))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return isinstance(d.get("restarted"), bool)


@dataclass(frozen=True, slots=True)
class SchedulersSet:
    """``io_scheduler``: each device given a scheduler, and the devices whose scheduler counts (a request-based
    multipath device's, not its paths') (planner.steps.prep_os)."""

    TYPE: ClassVar[str] = "schedulers_set"
    devices: tuple[tuple[str, str], ...]
    counts: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"devices": dict(self.devices), "counts": list(self.counts)})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SchedulersSet:
        return cls(tuple((str(k), str(v)) for k, v in d["devices"].items()), strings(d["counts"]))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return isinstance(d.get("devices"), Mapping) and "counts" in d


@dataclass(frozen=True, slots=True)
class FactsGathered:
    """``facts``: the host facts as gathered (planner.steps.collect; also kept as facts.json)."""

    TYPE: ClassVar[str] = "facts_gathered"
    facts: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"facts": dict(self.facts)})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FactsGathered:
        if not isinstance(d["facts"], Mapping):
            raise TypeError("facts is not an object")
        return cls(MappingProxyType(dict(d["facts"])))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return isinstance(d.get("facts"), Mapping) and len(d) == 1


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
class ClusterSeen:
    """A workload point's database as a cluster: its open instances, whether it is RAC, and how that was told."""

    instances: int
    rac: bool
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"instances": self.instances, "rac": self.rac, "why": self.why}


class CacheSeen(Protocol):
    """Where a point's data is cached, as read: the pool holding it, its size, the cache as a share of the data."""

    @property
    def pool(self) -> str: ...

    @property
    def cache_bytes(self) -> int: ...

    @property
    def pct_of_data(self) -> float: ...


@runtime_checkable
class DatabaseSeen(Protocol):
    """An extra saying what a workload point read of its database (a kind that drives its own AWR or Statspack
    window): the statistics source and why, the cache holding its data, the container, the CPU caging and whose
    AWR. The results and the report read these fields through this protocol, never by importing the kind."""

    @property
    def statistics(self) -> str: ...

    @property
    def statistics_why(self) -> str: ...

    @property
    def cache(self) -> CacheSeen: ...

    @property
    def container(self) -> ContainerSeen: ...

    @property
    def caging(self) -> CagingSeen: ...

    @property
    def awr_level(self) -> str: ...


@runtime_checkable
class RanAs(Protocol):
    """An extra knowing the parameters its point really ran with, where they differ from the plan's (a kit that
    multiplies the sessions the plan names)."""

    def ran_params(self, params: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]: ...


@dataclass(frozen=True, slots=True)
class LoadGenerator:
    """Where a transactional kind's load generator ran when the inventory's load_generator_host put it on another
    host than the database's (docs/load-generator-host.md): the report names it instead of the caveat."""

    TYPE: ClassVar[str] = "load_generator"
    host: str
    program: str

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"host": self.host, "program": self.program})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LoadGenerator:
        return cls(str(d["host"]), str(d["program"]))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return set(d) == {"host", "program"}


# The typed extras of planner's prep and generic kinds (workload kinds name theirs in their spec).
OWN_TYPES: tuple[type[TypedExtra], ...] = (InitOraDone, SchedulersSet, FactsGathered, CommandRun, LoadGenerator)


def notes(values: Mapping[str, Any] | None) -> Notes | None:
    """A kind's free values as Notes (None when there are none)."""
    return Notes(_frozen(values)) if values else None
