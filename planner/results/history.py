"""Many AWR / Statspack reports of one database read as a time series (``planner analyze DIR``).

A DBA who mines a database's AWR history (the job JAS-MIN does for many reports) asks, snapshot by
snapshot: how busy was it (DB time per second is the average active sessions), how much of that was CPU,
which waits took the rest, how the load profile moved, and where something stood out. Reports are grouped by
database (DBID) and instance and ordered by their begin snapshot's time (then its id). Per snapshot:

- ``aas``: DB time per second (Load Profile "DB Time(s)", else DB time / elapsed);
- ``cpu``: DB CPU per second; ``wait_share``: 1 - cpu / aas, the share of DB time that was waits;
- the Top events' share of DB time; the load profile's physical reads, writes, redo, logical reads, transactions.

A snapshot is "mostly waits" when more than half its DB time was waits (and it had at least 0.1 active
sessions: an idle database's ratio says nothing). An anomaly is a value whose modified z-score (Iglewicz and
Hoaglin: 0.6745 x the distance from the median / the median absolute deviation) exceeds ``ANOMALY_MADS``
(their 3.5), for the series where at least ``MIN_POINTS`` snapshots have a value.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from planner.metrics import Parsed

LOAD = (("physical_reads_per_s", "Physical reads/s"), ("physical_writes_per_s", "Physical writes/s"),
        ("physical_read_io_requests_per_s", "Read requests/s"), ("redo_size_per_s", "Redo bytes/s"),
        ("logical_reads_per_s", "Logical reads/s"), ("transactions_per_s", "Transactions/s"))
ANOMALY_MADS = 3.5
MIN_POINTS = 5
MIN_ACTIVE = 0.1
_TIME_FORMATS = ("%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M", "%d-%b-%Y %H:%M:%S", "%d %b %Y %H:%M")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One report's figures, as one point of the history."""

    source: str
    begin_id: int | None
    end_id: int | None
    begin: str  # as printed
    when: datetime | None
    aas: float | None
    cpu: float | None
    waits: tuple[tuple[str, float], ...]  # (event, % of DB time), the report's Top events
    load: tuple[tuple[str, float], ...]  # (metric, value) of LOAD

    @property
    def wait_share(self) -> float | None:
        if self.aas is None or self.cpu is None or self.aas < MIN_ACTIVE:
            return None
        return max(0.0, 1 - self.cpu / self.aas)


@dataclass(frozen=True, slots=True)
class Anomaly:
    source: str
    begin: str
    what: str
    value: float
    median: float


@dataclass(frozen=True, slots=True)
class History:
    database: str  # "ORCL (DBID 1344731332), instance 1"
    snapshots: tuple[Snapshot, ...]
    anomalies: tuple[Anomaly, ...]
    top_events: tuple[str, ...]  # the events that were in any snapshot's Top, most time first

    @property
    def mostly_waits(self) -> tuple[Snapshot, ...]:
        return tuple(s for s in self.snapshots if (w := s.wait_share) is not None and w > 0.5)


def _when(text: str) -> datetime | None:
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def snapshot(p: Parsed) -> Snapshot:
    aas = p.value("db_time_per_s")
    if aas is None and (mins := p.value("db_time_min")) is not None and (el := p.value("elapsed_min")):
        aas = mins / el
    if aas is None:
        aas = p.value("aas")
    waits = tuple((m.label("event"), m.value) for m in p.metrics
                  if m.name == "wait.pct_db_time" and m.label("section", "top") == "top" and not m.label("instance"))
    load = tuple((name, v) for name, _ in LOAD if (v := p.value(name)) is not None)
    begin = p.fact("begin_snap_time")
    return Snapshot(p.source, _int(p.fact("begin_snap_id")), _int(p.fact("end_snap_id")), begin, _when(begin),
                    aas, p.value("db_cpu_per_s"), waits, load)


def _key(p: Parsed) -> tuple[str, str]:
    return p.fact("dbid") or p.fact("db_name") or "?", p.fact("inst_num") or p.fact("instance") or ""


def _order(s: Snapshot) -> tuple[int, datetime, int]:
    return (0 if s.when else 1, s.when or datetime.min, s.begin_id or 0)


def _anomalies(snaps: Sequence[Snapshot]) -> list[Anomaly]:
    series: dict[str, list[tuple[Snapshot, float]]] = defaultdict(list)
    for s in snaps:
        if s.aas is not None:
            series["Average active sessions"].append((s, s.aas))
        for name, v in s.load:
            series[dict(LOAD)[name]].append((s, v))
    out = []
    for what, points in series.items():
        if len(points) < MIN_POINTS:
            continue
        values = [v for _, v in points]
        med = statistics.median(values)
        # the modified z-score: 0.6745 (x - median) / MAD; where most values are equal the MAD is 0 and the mean
        # absolute deviation stands in for it (1.253314 x MeanAD, as IBM's SPSS Statistics does)
        mad = statistics.median(abs(v - med) for v in values)
        scale = mad / 0.6745 if mad > 0 else 1.253314 * statistics.fmean(abs(v - med) for v in values)
        if scale <= 0:
            continue
        out += [Anomaly(s.source, s.begin, what, v, med) for s, v in points if abs(v - med) / scale > ANOMALY_MADS]
    return out


def build(parsed: Sequence[Parsed]) -> list[History]:
    """One history per database and instance that has at least two reports."""
    groups: dict[tuple[str, str], list[Parsed]] = defaultdict(list)
    for p in parsed:
        groups[_key(p)].append(p)
    out = []
    for (dbid, inst), ps in sorted(groups.items()):
        if len(ps) < 2:
            continue
        snaps = sorted((snapshot(p) for p in ps), key=_order)
        name = ps[0].fact("db_name") or ps[0].fact("instance") or "database"
        totals: dict[str, float] = defaultdict(float)
        for s in snaps:
            for event, pct in s.waits:
                totals[event] += pct * (s.aas or 0)
        top = tuple(e for e, _ in sorted(totals.items(), key=lambda kv: -kv[1]))
        label = f"{name} (DBID {dbid})" + (f", instance {inst}" if inst else "")
        out.append(History(label, tuple(snaps), tuple(_anomalies(snaps)), top))
    return out
