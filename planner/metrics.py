"""The metrics model: every number planner reports carries its unit, its direction and its origin.

Parsers (planner/parsers/) turn tool output into a ``Parsed`` document: typed ``Metric`` values, a few
text facts (database name, version, host line) and the sections that could not be read. Nothing here
does I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from planner.errors import ParseError


class Direction(enum.Enum):
    """Whether a larger value is an improvement (Rally's treat_increase_as_improvement)."""

    HIGHER = "higher"
    LOWER = "lower"
    NEUTRAL = "neutral"  # descriptive values: CPUs, memory, snapshot ids, elapsed minutes


@dataclass(frozen=True, slots=True)
class Source:
    """Where a value was read: file (artifact path or name as given) and 1-based line, when known."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True, slots=True)
class Metric:
    """One number. ``labels`` qualify it: instance, event, device, job, direction, time..."""

    name: str
    value: float
    unit: str
    direction: Direction = Direction.NEUTRAL
    source: Source | None = None
    labels: tuple[tuple[str, str], ...] = ()
    derived: bool = False  # computed from other metrics (formula documented in planner/parsers/derived.py)

    def label(self, key: str, default: str = "") -> str:
        for k, v in self.labels:
            if k == key:
                return v
        return default

    @property
    def key(self) -> str:
        """Stable name with labels, e.g. ``wait.time_s{event=db file sequential read}``."""
        if not self.labels:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.labels)
        return f"{self.name}{{{inner}}}"


@dataclass(frozen=True, slots=True)
class Parsed:
    """What one parser made of one file."""

    kind: str  # "awr_text", "awr_html", "statspack", "orion_summary", "orion_csv", "fio_json", ...
    source: str
    metrics: tuple[Metric, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()  # text values: db_name, version, host_name, platform, rac
    errors: tuple[ParseError, ...] = ()  # sections that could not be read; what could be read still is
    simulated: bool = False  # output written by a planner stand-in, not the real tool

    def fact(self, key: str, default: str = "") -> str:
        for k, v in self.facts:
            if k == key:
                return v
        return default

    def get(self, name: str, **labels: str) -> Metric | None:
        """The first metric with this name whose labels include all of ``labels``."""
        for m in self.metrics:
            if m.name == name and all(m.label(k) == v for k, v in labels.items()):
                return m
        return None

    def value(self, name: str, **labels: str) -> float | None:
        m = self.get(name, **labels)
        return m.value if m else None

    def all(self, name: str) -> list[Metric]:
        return [m for m in self.metrics if m.name == name]


@dataclass(slots=True)
class MetricSink:
    """Mutable helper parsers use while reading; frozen into ``Parsed`` at the end."""

    source: str
    metrics: list[Metric] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    errors: list[ParseError] = field(default_factory=list)

    def add(self, name: str, value: float, unit: str, direction: Direction = Direction.NEUTRAL,
            line: int | None = None, derived: bool = False, **labels: str) -> Metric:
        m = Metric(name, float(value), unit, direction, Source(self.source, line),
                   tuple(labels.items()), derived)
        self.metrics.append(m)
        return m

    def freeze(self, kind: str, simulated: bool = False) -> Parsed:
        return Parsed(kind, self.source, tuple(self.metrics), tuple(self.facts.items()),
                      tuple(self.errors), simulated)
