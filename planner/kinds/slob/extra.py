"""SLOB's typed extra: what a point ran with and read of its database (``SlobPoint``, tagged ``slob_point`` in
results.json), and where its data was cached (``SlobCache``). The results and the report read it through
planner.extras' ``DatabaseSeen`` and ``RanAs`` protocols; the container, caging and cluster it holds are the
database's, not SLOB's, and stay foundation types in planner.extras."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from planner.extras import CagingSeen, ClusterSeen, ContainerSeen, mapping, strings, tagged, text
from planner.kinds.slob.points import kit_params


@dataclass(frozen=True, slots=True)
class SlobCache:
    """Where a SLOB point's data is cached (planner.kinds.slob.cache): the pool holding it, the pool
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
class SlobPoint:
    """``slob``: what a point ran with and read of its database: the statistics source and why, where the data
    is cached, the container, the CPU caging and, on RAC, the scope of its figures (planner.kinds.slob.step).
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
    TYPE: ClassVar[str] = "slob_point"

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, self._fields())

    def _fields(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "schemas": self.schemas, "threads_per_schema": self.threads_per_schema,
                "update_pct": self.update_pct, "kit_version": self.kit_version, "statistics": self.statistics,
                "statistics_why": self.statistics_why, **self.cache.to_json(),
                "container": self.container.to_json(), "caging": self.caging.to_json(),
                **({"rac": self.rac} if self.rac is not None else {}),
                **({"cluster": self.cluster.to_json()} if self.cluster is not None else {}),
                **({"awr_level": self.awr_level} if self.awr_level else {})}

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        return "statistics" in d and "caging" in d

    def ran_params(self, params: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
        """The point's parameters as the kit ran them (planner.extras.RanAs): schemas, threads and sessions."""
        return kit_params(params, self.threads_per_schema, self.sessions)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SlobPoint:
        cont, cag, cluster = dict(d.get("container") or {}), dict(d["caging"]), d.get("cluster")
        cache = SlobCache(text(d.get("cache_pool")), text(d.get("kit_pool")), int(d.get("cache_bytes") or 0),
                          int(d.get("data_bytes") or 0), float(d.get("cache_pct_of_data") or 0),
                          mapping(d.get("buffer_pools")), mapping(d.get("slob_data")))
        return cls(
            int(d.get("sessions") or 0), int(d.get("schemas") or 0), int(d.get("threads_per_schema") or 0),
            int(d.get("update_pct") or 0), text(d.get("kit_version")), text(d["statistics"]),
            text(d.get("statistics_why")), cache,
            ContainerSeen(bool(cont.get("cdb")), text(cont.get("name")), bool(cont.get("pdb")),
                          text(cont.get("describe"))),
            CagingSeen(bool(cag.get("caged")), int(cag.get("cpu_count") or 0), text(cag.get("describe")),
                       text(cag.get("plan")), strings(cag.get("windows")), text(cag.get("resource_manager_plan"))),
            None if d.get("rac") is None else text(d.get("rac")),
            ClusterSeen(int(cluster.get("instances") or 0), bool(cluster.get("rac")), text(cluster.get("why")))
            if isinstance(cluster, Mapping) else None, text(d.get("awr_level")))
