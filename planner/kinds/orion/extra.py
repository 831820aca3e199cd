"""What an ``orion`` point says beyond its metrics: the LUNs it ran on, the write share, and ORION's own estimate
of the run time beside planner's model (so a lab run's timeout can be checked against both)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from planner.extras import strings, tagged

_FIELDS = frozenset({"luns", "write_pct", "orion_estimate_min", "model_min", "duration_note"})


@dataclass(frozen=True, slots=True)
class OrionRun:
    TYPE: ClassVar[str] = "orion_run"
    luns: tuple[str, ...]
    write_pct: int
    estimate_min: int | None  # "Calibration will take approximately N minutes"; None when ORION printed none
    model_min: float  # planner's duration model
    duration_note: str

    def to_json(self) -> dict[str, Any]:
        return tagged(self.TYPE, {"luns": list(self.luns), "write_pct": self.write_pct,
                                  "orion_estimate_min": self.estimate_min, "model_min": self.model_min,
                                  "duration_note": self.duration_note})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> OrionRun:
        said = d["orion_estimate_min"]
        return cls(strings(d["luns"]), int(d["write_pct"]), None if said is None else int(said),
                   float(d["model_min"]), str(d["duration_note"]))

    @classmethod
    def sniffs(cls, d: Mapping[str, Any]) -> bool:
        """A folder written before the tags: the point's values as they were written, untagged."""
        return set(d) == _FIELDS
