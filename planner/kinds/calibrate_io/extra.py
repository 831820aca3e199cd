"""What a ``calibrate_io`` point says beyond its metrics: CALIBRATE_IO's three OUT values as returned."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from planner.extras import tagged

_FIELDS = frozenset({"max_iops", "max_mbps", "actual_latency"})


def _whole(v: Any) -> int | None:
    return None if v is None else int(v)


@dataclass(frozen=True, slots=True)
class Calibration:
    TYPE: ClassVar[str] = "calibration"
    max_iops: int
    max_mbps: int
    actual_latency: int | None  # whole milliseconds (0: under 1 ms); NULL when Oracle gives none

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"max_iops": self.max_iops, "max_mbps": self.max_mbps,
                                  "actual_latency": self.actual_latency})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Calibration:
        return cls(int(d["max_iops"]), int(d["max_mbps"]), _whole(d["actual_latency"]))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        """A folder written before the tags: the three OUT values, untagged."""
        return set(d) == _FIELDS
