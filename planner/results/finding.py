"""A finding's shape, shared by every family of checks (planner.results.findings, findings_db): what was seen,
how bad it is, where, and the numbers that raised it."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from planner.results.stats import Series


class Severity(enum.Enum):
    WARNING = "warning"  # the headline number probably does not mean what it seems to
    NOTE = "note"  # worth knowing when reading the number


class About(enum.Enum):
    """What a finding speaks of. A rehearsal's own caps (a smaller schema, a shorter window) and the rehearsing
    machine's CPU make findings about the rehearsal, not the systems studied: the report lists them apart and
    never leads with one. Set where the finding is made, never read from its words."""
    STUDY = "study"  # the systems and the plan: what a real run would say too
    REHEARSAL = "rehearsal"  # the rehearsal itself: its caps or the machine that rehearsed


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
    about: About = About.STUDY  # a record or store row without it was made before: about the study


@dataclass(frozen=True, slots=True)
class Thresholds:
    logical_to_physical: float = 4.0  # SLOB with a small recycle pool reads ~1 logical per physical
    cache_to_working_set: float = 0.10  # buffer cache >= 10% of the data touched: cache hits inflate reads
    wait_class_share_pct: float = 20.0  # Configuration/Other class share of DB time
    cpu_busy_pct: float = 90.0
    iops_per_core: float = 18_000.0  # the seed's ~20k-30k read IOPS per core ceiling, with some margin
    cv_pct: float = 10.0
    rated_fraction: float = 0.5  # "far below" a rated figure: under half of it
    multiblock_share_pct: float = 1.0  # multi-block read waits beyond this share: blocks/s is not IOPS


Place = tuple[str, str, str, str]
Index = dict[Place, dict[str, Series]]
Groups = dict[Place, list[Series]]
# Every family of checks indexes the same series by place; inside one findings pass (shared_index) each list is
# indexed once, so an analysis of 500 AWR reports spends seconds there instead of a minute.
_SHARED: ContextVar[dict[int, tuple[Sequence[Series], Index, Groups]] | None] = ContextVar("findings_index",
                                                                                          default=None)


def where(s: Series) -> Place:
    return s.play, s.host, s.title, s.point_label


def _build(all_series: Sequence[Series]) -> tuple[Index, Groups]:
    idx: Index = defaultdict(dict)
    groups: Groups = defaultdict(list)
    for s in all_series:
        place = where(s)
        mine = idx[place]
        mine.setdefault(s.key, s)
        mine.setdefault(s.metric, s)
        groups[place].append(s)
    return idx, groups


def _shared(all_series: Sequence[Series]) -> tuple[Index, Groups]:
    cache = _SHARED.get()
    if cache is None:
        return _build(all_series)
    hit = cache.get(id(all_series))
    if hit is None or hit[0] is not all_series:
        built = _build(all_series)
        cache[id(all_series)] = (all_series, *built)  # the list is kept: its id cannot be reused meanwhile
        return built
    return hit[1], hit[2]


def index(all_series: Sequence[Series]) -> Index:
    """(play, host, step title, point) -> metric key -> series."""
    return _shared(all_series)[0]


def groups(all_series: Sequence[Series]) -> Groups:
    """(play, host, step title, point) -> its series, in order."""
    return _shared(all_series)[1]


@contextmanager
def shared_index() -> Iterator[None]:
    """Inside: each list's index is built once. The checks only read what index() and groups() return."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


DEFAULT_THRESHOLDS = Thresholds()
