"""Summaries over repeats: min/median/max, mean, coefficient of variation; percent differences by direction.

Quantiles use ``statistics.quantiles(method="inclusive")`` (R7, numpy's default, Excel PERCENTILE.INC);
the report prints ``METHOD`` so readers know which definition was used.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.metrics import Direction

if TYPE_CHECKING:
    from planner.results.measure import Measurement

METHOD = ('min / median / max over the measured repeats (warm-ups excluded); spread = max - min; '
          'CV = sample standard deviation / mean; quartiles by statistics.quantiles(method="inclusive")')


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    min: float
    median: float
    max: float
    mean: float
    stdev: float  # sample standard deviation; 0 for one value
    q1: float
    q3: float

    @property
    def spread(self) -> float:
        return self.max - self.min

    @property
    def cv_pct(self) -> float | None:
        """Coefficient of variation in percent; None for a single value or a zero mean."""
        if self.n < 2 or self.mean == 0:
            return None
        return abs(self.stdev / self.mean) * 100


def summarise_values(values: Sequence[float]) -> Summary:
    if not values:
        raise ValueError("no values to summarise")
    vals = sorted(float(v) for v in values)
    if len(vals) >= 2:
        q1, _, q3 = statistics.quantiles(vals, n=4, method="inclusive")
        sd = statistics.stdev(vals)
    else:
        q1 = q3 = vals[0]
        sd = 0.0
    return Summary(len(vals), vals[0], statistics.median(vals), vals[-1], statistics.fmean(vals), sd, q1, q3)


def pct_diff(base: float, other: float) -> float | None:
    """(other - base) / |base| * 100; None when the base is zero."""
    if base == 0:
        return None
    return (other - base) / abs(base) * 100


def verdict(pct: float | None, direction: Direction, same_within: float = 0.05) -> str:
    """'better', 'worse', 'same' or 'n/a' (neutral metrics, or no base) for a change of ``pct`` percent."""
    if pct is None or direction is Direction.NEUTRAL:
        return "n/a"
    if abs(pct) < same_within:
        return "same"
    up = pct > 0
    return "better" if up == (direction is Direction.HIGHER) else "worse"


def summable(unit: str) -> bool:
    """Rates add up across a play's hosts (cluster IOPS); ratios, latencies and percentages do not."""
    u = unit.strip()
    return u in ("IOPS", "IO/s") or (u.endswith("/s") and not u.startswith("s/") and "%" not in u)


def combine_hosts(values: Sequence[float], unit: str) -> tuple[float, str]:
    """A play's value from its hosts' values, and how it was combined ('sum', 'mean' or 'one host')."""
    if len(values) == 1:
        return float(values[0]), "one host"
    if summable(unit):
        return float(sum(values)), "sum over hosts"
    return statistics.fmean(values), "mean over hosts"


def fmt(v: float | None, digits: int = 1) -> str:
    """Numbers as the seeds print them: thousands separators, one decimal unless integral; at least three
    significant digits below 10 (0.107 ms stays 0.107, never 0.1), without trailing zeros it does not have."""
    if v is None:
        return "—"
    if v != 0 and abs(v) < 0.1:
        return f"{v:.3g}"
    if float(v).is_integer() and abs(v) >= 1000:
        return f"{v:,.0f}"
    if digits == 1 and abs(v) < 10:
        text = f"{v:.{2 if abs(v) >= 1 else 3}f}".rstrip("0")
        return text + "0" if text.endswith(".") else text
    return f"{v:,.{digits}f}"


# -- series over repeats -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Series:
    """One metric of one step at one sweep point on one host, over its measured repeats."""

    play: str
    host: str
    step: str
    title: str
    kind: str
    params: tuple[tuple[str, object], ...]
    metric: str
    key: str
    labels: tuple[tuple[str, str], ...]
    unit: str
    direction: Direction
    headline: bool
    simulated: bool
    values: tuple[float, ...]
    warmups: int  # warm-up values seen and left out

    @property
    def summary(self) -> Summary:
        return summarise_values(self.values)

    @property
    def point_label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params) or "—"

    def label(self, name: str, default: str = "") -> str:
        return dict(self.labels).get(name, default)


# Labels that name WHAT is measured, never just where: fio's read and write figures of a zip over
# rw: [read, write] (dir=read at rw=read, dir=write at rw=write) are two metrics, not one swept metric.
IDENTITY_LABELS = frozenset({"dir", "op"})


def _point_labels(measurements: Sequence[Measurement]) -> dict[tuple[str, str, str, str], frozenset[str]]:
    """Per (play, host, step, metric): labels that only restate the sweep point.

    iozone labels its figures ``procs=4`` at threads=4 and ``procs=16`` at threads=16: keyed with that label,
    every point would be a series of its own and a sweep table or chart could never show the sweep. A label
    is such a restatement when it has exactly one value within each point and differs between points.
    """
    seen: dict[tuple[str, str, str, str], dict[str, dict[str, set[str]]]] = defaultdict(lambda: defaultdict(dict))
    points: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)
    for m in measurements:
        k = (m.play, m.host, m.step, m.metric)
        p = repr(m.params)
        points[k].add(p)
        for name, value in m.labels:
            seen[k][name].setdefault(p, set()).add(value)
    out: dict[tuple[str, str, str, str], frozenset[str]] = {}
    for k, labels in seen.items():
        if len(points[k]) < 2:
            continue
        out[k] = frozenset(name for name, by_point in labels.items() if name not in IDENTITY_LABELS
                           and len(by_point) == len(points[k]) and all(len(v) == 1 for v in by_point.values())
                           and len({next(iter(v)) for v in by_point.values()}) > 1)
    return out


def _key(metric: str, labels: tuple[tuple[str, str], ...]) -> str:
    return metric + "{" + ",".join(f"{k}={v}" for k, v in labels) + "}" if labels else metric


def series(measurements: Sequence[Measurement]) -> list[Series]:
    """Group by (play, host, step, point params, metric key) in first-seen order; warm-ups excluded.

    Labels that only restate the sweep point are left out of the key (see _point_labels)."""
    restated = _point_labels(measurements)
    groups: dict[tuple[object, ...], list[Measurement]] = {}
    keys: dict[tuple[object, ...], tuple[str, tuple[tuple[str, str], ...]]] = {}
    for m in measurements:
        drop = restated.get((m.play, m.host, m.step, m.metric), frozenset())
        labels = tuple(kv for kv in m.labels if kv[0] not in drop) if drop else m.labels
        key = _key(m.metric, labels) if drop else m.key
        k: tuple[object, ...] = (m.play, m.host, m.step, repr(m.params), key)
        groups.setdefault(k, []).append(m)
        keys[k] = (key, labels)
    out: list[Series] = []
    for k, ms in groups.items():
        measured = [m for m in ms if not m.warmup]
        if not measured:
            continue
        f = measured[0]
        key, labels = keys[k]
        out.append(Series(f.play, f.host, f.step, f.title, f.kind, f.params, f.metric, key, labels, f.unit,
                          f.direction, any(m.headline for m in ms), any(m.simulated for m in ms),
                          tuple(m.value for m in measured), len(ms) - len(measured)))
    return out


@dataclass(frozen=True, slots=True)
class PlayValue:
    """A play's (system's) figure for one metric: best sweep point, hosts combined, median over repeats."""

    play: str
    key: str
    value: float
    unit: str
    direction: Direction
    point: str
    how: str  # "one host", "sum over hosts" or "mean over hosts"
    low: float  # the same combination of the repeats' minima / maxima
    high: float
    simulated: bool


def matches(s: Series, metric: str) -> bool:
    """The series is the metric's, or its key; or it carries every label the name gives (``fio.clat_ms{stat=p99}``
    names a job's p99 without spelling the job's and direction's labels, as validate's hint writes it)."""
    if s.metric == metric or s.key == metric:
        return True
    name, _, inner = metric.partition("{")
    if s.metric != name or not inner.endswith("}"):
        return False
    given = [pair.partition("=") for pair in inner[:-1].split(",")]
    return all(sep and (k.strip(), v.strip()) in s.labels for k, sep, v in given)


def play_value(all_series: Sequence[Series], play: str, metric: str) -> list[PlayValue]:
    """One PlayValue per matching metric key (several when labels differ, e.g. fio jobs)."""
    by_key: dict[str, dict[tuple[str, str], list[Series]]] = {}
    for s in all_series:
        if s.play == play and matches(s, metric):
            by_key.setdefault(s.key, {}).setdefault((s.step, s.point_label), []).append(s)
    if any("instance=all" in k for k in by_key):  # RAC: the cluster's total is the play's, not an instance's share
        by_key = {k: v for k, v in by_key.items() if "instance=" not in k or "instance=all" in k}
    out: list[PlayValue] = []
    for key, points in by_key.items():
        cands: list[PlayValue] = []
        for (_, label), ss in points.items():
            unit, d = ss[0].unit, ss[0].direction
            med, how = combine_hosts([s.summary.median for s in ss], unit)
            lo, _ = combine_hosts([s.summary.min for s in ss], unit)
            hi, _ = combine_hosts([s.summary.max for s in ss], unit)
            cands.append(PlayValue(play, key, med, unit, d, label, how, lo, hi, any(s.simulated for s in ss)))
        # the seed's practice: "I tried numerous values for readers and 256 gave me the best result"
        pick = min if cands[0].direction is Direction.LOWER else max
        out.append(pick(cands, key=lambda c: c.value))
    return out
