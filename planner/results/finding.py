"""A finding's shape, shared by every family of checks (planner.results.findings, findings_db): what was seen,
how bad it is, where, and the numbers that raised it."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from planner.results.stats import Series


class Severity(enum.Enum):
    WARNING = "warning"  # the headline number probably does not mean what it seems to
    NOTE = "note"  # worth knowing when reading the number


@dataclass(frozen=True, slots=True)
class Finding:
    code: str  # cached_reads, wait_class, cpu_bound, noisy_repeats, below_rated, rac_not_iops, blocks_not_requests
    severity: Severity
    title: str
    play: str
    host: str
    step: str
    point: str
    message: str
    numbers: tuple[tuple[str, str], ...]  # (what, value as printed) — what triggered it


def where(s: Series) -> tuple[str, str, str, str]:
    return s.play, s.host, s.title, s.point_label


def index(all_series: Sequence[Series]) -> dict[tuple[str, str, str, str], dict[str, Series]]:
    """(play, host, step title, point) -> metric key -> series."""
    idx: dict[tuple[str, str, str, str], dict[str, Series]] = defaultdict(dict)
    for s in all_series:
        idx[where(s)].setdefault(s.key, s)
        idx[where(s)].setdefault(s.metric, s)
    return idx


