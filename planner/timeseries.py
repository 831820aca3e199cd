"""Per-interval series inside one workload point: the typed ``TimeSeries``, a streaming downsampler that keeps a
long run's memory bounded, and the one file format a point's series are kept in (docs/series.md).

Times are offsets in seconds from the point's window start. A series holds at most ``MAX_BUCKETS`` buckets:
samples are added one at a time and, when a run outgrows the buckets, neighbouring buckets merge pairwise (the
bucket width doubles), so a 1-hour point costs what a 10-minute one does. Each bucket keeps min, mean and max.
Imports only planner.errors: the steps, the engine, results and the report all read it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from planner.errors import ParseError

FORMAT = "planner-series"
VERSION = 1
FILE_NAME = "series.json"  # one per producer in a point's artifacts: series.json (the tool), series-os.json
MAX_BUCKETS = 600  # 10 minutes at 1 s; a longer point is merged into 2 s, 4 s ... buckets
MAX_SERIES = 64  # per file: a host's devices and CPUs beyond this are not kept as series
MAX_FILE_BYTES = 4 * 1024 * 1024  # 64 series x 600 buckets x 3 arrays fit with room to spare
_ARRAYS = ("values", "low", "high")


@dataclass(frozen=True, slots=True)
class TimeSeries:
    """One metric over a point: bucket start offsets (s from the window start) and each bucket's mean, min, max."""

    metric: str  # e.g. <tool>.iops, iostat.r_iops, mpstat.busy_pct
    unit: str
    source: str  # what it was read from, in words: "<tool> iops log", "iostat -x"
    step_s: float  # bucket width
    t: tuple[float, ...]
    values: tuple[float, ...]  # the mean of the samples in each bucket
    low: tuple[float, ...]
    high: tuple[float, ...]
    labels: tuple[tuple[str, str], ...] = ()  # device=sda, cpu=all
    percentiles: tuple[tuple[str, tuple[float, ...]], ...] = ()  # ("p99", per-bucket values) where a tool gives them
    warmup_s: float = 0.0  # the first seconds the tool itself did not measure (its ramp time)

    def label(self, name: str, default: str = "") -> str:
        return dict(self.labels).get(name, default)

    @property
    def end_s(self) -> float:
        return self.t[-1] + self.step_s if self.t else 0.0


@dataclass(slots=True)
class _Bucket:
    index: int
    n: int
    total: float
    low: float
    high: float

    def merge(self, other: _Bucket) -> None:
        self.n += other.n
        self.total += other.total
        self.low = min(self.low, other.low)
        self.high = max(self.high, other.high)


@dataclass(slots=True)
class Downsampler:
    """Streaming buckets for one metric: ``add`` samples in time order; memory is ``max_buckets`` buckets."""

    metric: str
    unit: str
    source: str
    step_s: float = 1.0
    max_buckets: int = MAX_BUCKETS
    labels: tuple[tuple[str, str], ...] = ()
    _buckets: list[_Bucket] = field(default_factory=list)

    def add(self, t_s: float, value: float) -> None:
        if not math.isfinite(value) or not math.isfinite(t_s):
            return
        index = int(max(t_s, 0.0) // self.step_s)
        while index >= self.max_buckets:
            self._coarsen()
            index = int(max(t_s, 0.0) // self.step_s)
        last = self._buckets[-1] if self._buckets else None
        if last is not None and last.index == index:
            last.merge(_Bucket(index, 1, value, value, value))
        elif last is not None and last.index > index:  # a late sample: into its own bucket, never reordered
            for b in self._buckets:
                if b.index == index:
                    b.merge(_Bucket(index, 1, value, value, value))
                    return
        else:
            self._buckets.append(_Bucket(index, 1, value, value, value))

    def _coarsen(self) -> None:
        """Twice the bucket width: each pair of neighbours becomes one bucket."""
        self.step_s *= 2
        merged: list[_Bucket] = []
        for b in self._buckets:
            b.index //= 2
            if merged and merged[-1].index == b.index:
                merged[-1].merge(b)
            else:
                merged.append(b)
        self._buckets = merged

    def result(self, warmup_s: float = 0.0) -> TimeSeries:
        bs = self._buckets
        return TimeSeries(self.metric, self.unit, self.source, self.step_s,
                          tuple(b.index * self.step_s for b in bs), tuple(b.total / b.n for b in bs),
                          tuple(b.low for b in bs), tuple(b.high for b in bs), self.labels, warmup_s=warmup_s)


def coarsen_to(s: TimeSeries, step_s: float) -> TimeSeries:
    """The same series in buckets of ``step_s`` (a multiple of its own width), means weighted equally."""
    if step_s <= s.step_s or not s.t:
        return s
    d = Downsampler(s.metric, s.unit, s.source, step_s, int(s.end_s // step_s) + 2, s.labels)
    lows: dict[int, float] = {}
    highs: dict[int, float] = {}
    for t, v, lo, hi in zip(s.t, s.values, s.low, s.high, strict=True):
        d.add(t, v)
        i = int(t // step_s)
        lows[i] = min(lows.get(i, lo), lo)
        highs[i] = max(highs.get(i, hi), hi)
    r = d.result(s.warmup_s)
    idx = [int(t // step_s) for t in r.t]
    return TimeSeries(r.metric, r.unit, r.source, r.step_s, r.t, r.values, tuple(lows[i] for i in idx),
                      tuple(highs[i] for i in idx), r.labels, (), s.warmup_s)


def combine(parts: Sequence[TimeSeries], *, total: bool) -> TimeSeries | None:
    """Several jobs' series of one metric as one: summed per bucket (IOPS, bandwidth) or averaged (latency)."""
    if not parts:
        return None
    step = max(p.step_s for p in parts)
    aligned = [coarsen_to(p, step) for p in parts]
    cols: dict[float, list[tuple[float, float, float]]] = {}
    for p in aligned:
        for t, v, lo, hi in zip(p.t, p.values, p.low, p.high, strict=True):
            cols.setdefault(t, []).append((v, lo, hi))
    ts = sorted(cols)

    def fold(i: int) -> tuple[float, ...]:
        return tuple((sum(c[i] for c in cols[t]) / (1 if total else len(cols[t]))) for t in ts)

    first = parts[0]
    return TimeSeries(first.metric, first.unit, first.source, step, tuple(ts), fold(0), fold(1), fold(2),
                      first.labels, (), max(p.warmup_s for p in parts))


def _to_json(s: TimeSeries) -> dict[str, Any]:
    return {"metric": s.metric, "unit": s.unit, "source": s.source, "labels": dict(s.labels), "step_s": s.step_s,
            "warmup_s": s.warmup_s, "t": [round(x, 3) for x in s.t],
            **{k: [round(x, 6) for x in getattr(s, k)] for k in _ARRAYS},
            "percentiles": {k: [round(x, 6) for x in v] for k, v in s.percentiles}}


def dumps(series: Iterable[TimeSeries]) -> bytes:
    """The file's bytes: ``{"format", "version", "series": [...]}`` (docs/series.md)."""
    items = list(series)[:MAX_SERIES]
    return json.dumps({"format": FORMAT, "version": VERSION, "series": [_to_json(s) for s in items]},
                      separators=(",", ":")).encode()


def _bad(path: Path, message: str) -> ParseError:
    return ParseError("series", "series", message, source=path)


# What a series file may hold: times and widths within ~30 years of seconds, values within 1e15 (IOPS, MB/s,
# ms). Past these, sums, squares and charts overflow to inf/nan: 1.7e308 twice is inf, a 1e308 window is one.
MAX_SERIES_S = 1e9
MAX_SERIES_VALUE = 1e15


def _bounded(x: object, limit: float) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= limit


def _floats(path: Path, obj: Mapping[str, Any], key: str, n: int | None) -> tuple[float, ...]:
    raw = obj.get(key)
    if not isinstance(raw, list) or len(raw) > MAX_BUCKETS or (n is not None and len(raw) != n):
        raise _bad(path, f"{key!r} is not a list of at most {MAX_BUCKETS} numbers matching 't'")
    limit = MAX_SERIES_S if key == "t" else MAX_SERIES_VALUE
    if not all(_bounded(x, limit) for x in raw):
        raise _bad(path, f"{key!r} holds something other than finite numbers within {limit:g}")
    return tuple(float(x) for x in raw)


def _from_json(path: Path, obj: Any) -> TimeSeries:
    if not isinstance(obj, dict):
        raise _bad(path, "a series is not an object")
    t = _floats(path, obj, "t", None)
    values, low, high = (_floats(path, obj, k, len(t)) for k in _ARRAYS)
    pct = obj.get("percentiles") or {}
    labels = obj.get("labels") or {}
    strs = [obj.get("metric"), obj.get("unit"), obj.get("source")]
    step, warm = obj.get("step_s"), obj.get("warmup_s", 0.0)
    if not all(isinstance(x, str) and len(x) <= 200 for x in strs) or not isinstance(pct, dict) \
            or not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()) \
            or not _bounded(step, MAX_SERIES_S) or not step > 0 or not _bounded(warm, MAX_SERIES_S):
        raise _bad(path, "metric, unit, source, labels, step_s (a width above 0 within 1e9 s), warmup_s or "
                   "percentiles have the wrong type")
    return TimeSeries(str(strs[0]), str(strs[1]), str(strs[2]), float(step), t, values, low, high,
                      labels=tuple((str(k), str(v)) for k, v in list(labels.items())[:8]),
                      percentiles=tuple((str(k), _floats(path, pct, k, len(t))) for k in list(pct)[:8]),
                      warmup_s=float(warm))


def read(path: Path) -> tuple[TimeSeries, ...]:
    """A series file read back, bounded in size and shape; ParseError names what is wrong (it is data)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise _bad(path, f"cannot be read: {e.strerror or e}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise _bad(path, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: not a series file planner wrote")
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise _bad(path, "not JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise _bad(path, f"not a {FORMAT} version {VERSION} file")
    items = doc.get("series")
    if not isinstance(items, list) or len(items) > MAX_SERIES:
        raise _bad(path, f"'series' is not a list of at most {MAX_SERIES}")
    return tuple(_from_json(path, s) for s in items)


# --- steady state (after SNIA PTS: the last window's data and its best-fit line stay near the window's mean) ---


@dataclass(frozen=True, slots=True)
class SteadySpec:
    """A step's ``steady_state:`` (of a kind whose tool logs its own series); also the defaults every point is
    judged by."""

    metric: str = "iops"  # iops | bw | lat
    window_s: float = 60.0
    max_range_pct: float = 20.0  # every value within ±this % of the window's mean
    max_slope_pct: float = 10.0  # the best-fit line's rise or fall across the window, as % of its mean


@dataclass(frozen=True, slots=True)
class Steadiness:
    """How one series settled: the first window (from the end of the warm-up) that met the spec, else the last."""

    reached: bool
    after_s: float | None  # when that window ended, s from the window start; None when never reached
    range_pct: float  # the largest deviation from the window's mean, %
    slope_pct: float  # the best-fit line's change across the window, % of the mean (signed)
    window_s: float
    trend_pct: float  # the mean of the run's last fifth against its first fifth, % (signed): what a reader calls
    # "fell 38% over the run" (a fitted line overstates a step change)
    run_s: float  # the measured run's length


def _fit(t: Sequence[float], v: Sequence[float]) -> tuple[float, float]:
    """(mean, slope per second) of the least-squares line through the points."""
    n = len(v)
    mt, mv = sum(t) / n, sum(v) / n
    var = sum((x - mt) ** 2 for x in t)
    return mv, (sum((x - mt) * (y - mv) for x, y in zip(t, v, strict=True)) / var) if var else 0.0


def _window(t: Sequence[float], v: Sequence[float], span: float) -> tuple[float, float]:
    mean, slope = _fit(t, v)
    if not mean:
        return 0.0, 0.0
    return (max(abs(x - mean) for x in v) / abs(mean) * 100, slope * span / abs(mean) * 100)


def steadiness(s: TimeSeries, spec: SteadySpec = SteadySpec()) -> Steadiness | None:
    """The verdict for one series, or None when the measured part has fewer than three buckets."""
    keep = [i for i, t in enumerate(s.t) if t >= s.warmup_s]
    t, v = [s.t[i] for i in keep], [s.values[i] for i in keep]
    if len(v) < 3:
        return None
    run = t[-1] + s.step_s - t[0]
    fifth = max(1, len(v) // 5)
    first, final = sum(v[:fifth]) / fifth, sum(v[-fifth:]) / fifth
    whole = (final - first) / abs(first) * 100 if first else 0.0
    n = max(3, min(len(v), round(spec.window_s / s.step_s)))
    span = n * s.step_s
    last = (0.0, 0.0)
    for end in range(n, len(v) + 1):
        last = _window(t[end - n:end], v[end - n:end], span)
        if last[0] <= spec.max_range_pct and abs(last[1]) <= spec.max_slope_pct:
            return Steadiness(True, t[end - 1] + s.step_s, last[0], last[1], span, whole, run)
    return Steadiness(False, None, last[0], last[1], span, whole, run)


# the longest duration a plan may give (a timeout, a steady-state window or ramp): 30 days. A study point
# runs minutes to hours; beyond this a number is a typo, and 1e308 or 10**400 would overflow the arithmetic.
MAX_DURATION_S = 30 * 86400.0


def seconds(text: Any) -> float | None:
    """``60``, ``60s``, ``5m``, ``1h`` as seconds; None for anything else (the step's check names it)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        try:
            return float(text)
        except OverflowError:  # an int past float's range (10**400)
            return math.inf
    s = str(text).strip().lower()
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0), ("", 1.0)):
        body = s[:-len(suffix)] if suffix and s.endswith(suffix) else s
        if (suffix == "" or s.endswith(suffix)) and body.replace(".", "", 1).isdigit():
            return float(body) * factor
    return None


def steady_spec(args: Any) -> SteadySpec | None:
    """A step's already-checked ``steady_state:`` mapping as a SteadySpec (None when it gives none)."""
    if not isinstance(args, Mapping):
        return None
    d = SteadySpec()
    return SteadySpec(str(args.get("metric", d.metric)), seconds(args.get("window", d.window_s)) or d.window_s,
                      float(args.get("max_range_pct", d.max_range_pct)),
                      float(args.get("max_slope_pct", d.max_slope_pct)))
