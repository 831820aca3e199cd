"""Each workload point's series read back from the run folder (planner.timeseries), with its headline series and
how it settled: what the findings judge and the report draws."""

from __future__ import annotations

from dataclasses import dataclass

from planner import kindspec
from planner.errors import ParseError
from planner.results.measure import RunData, play_name
from planner.status import StepResult
from planner.timeseries import Steadiness, SteadySpec, TimeSeries, read, steadiness, steady_spec

MAX_SERIES_FILES = 2  # per point: the tool's own series.json and the samplers' series-os.json
MIN_JUDGED = 5  # intervals: a shorter point (a rehearsal's seconds) is too short to call a trend
MIN_DEVICE_IOPS = 10.0  # below this the busiest device is idle: the workload's I/O is not on it (a stand-in)
# A transactional tool's own series (a per-interval report of its own: "<kind>.tps", "<kind>.latency_ms"): what
# its point is judged and charted by when the plan asked for none of a kind's own series, before the devices'
# figures.
TOOL_RATE, TOOL_LATENCY = ".tps", ".latency_ms"


@dataclass(frozen=True, slots=True)
class PointSeries:
    play: str
    host: str
    step: str
    title: str
    kind: str
    point: int | None
    point_label: str
    repeat: int
    warmup: bool
    series: tuple[TimeSeries, ...]
    spec: SteadySpec | None = None  # the step's own steady_state:, None when it asked for none
    files: tuple[str, ...] = ()  # the series files, relative to the run folder
    simulated: bool = False  # a rehearsal's stand-in: the OS samplers saw the lab host, not the tool's I/O

    @property
    def headline(self) -> TimeSeries | None:
        """The series a point is judged and charted by: the tool's IOPS (or the metric its steady_state:
        names), else a transactional tool's own TPS, else the busiest device's IOPS from iostat."""
        wanted = kindspec.steady_series(self.spec.metric if self.spec else kindspec.default_steady_word()) \
            or kindspec.steady_series(kindspec.default_steady_word())
        return (_first_busiest(self.series, wanted) or _tool(self.series, TOOL_RATE)
                or _busiest(self.series, "iostat.iops"))

    @property
    def latency(self) -> TimeSeries | None:
        return (_first_busiest(self.series, kindspec.latency_series()) or _tool(self.series, TOOL_LATENCY)
                or _busiest(self.series, "iostat.await_ms"))

    def too_short(self) -> str:
        """Why this point is not judged, in words ('' when it is)."""
        s = self.headline
        if s is None:
            return "no series"
        kept = [v for t, v in zip(s.t, s.values, strict=True) if t >= s.warmup_s]
        if len(kept) < MIN_JUDGED:
            return f"too short to judge ({len(kept)} intervals of {s.step_s:g}s)"
        if s.metric == "iostat.iops" and self.simulated:
            return "simulated: the device figures are the lab host's, not the tool's"
        if s.metric == "iostat.iops" and sum(kept) / len(kept) < MIN_DEVICE_IOPS:
            return "no device was busy (under 10 IO/s)"
        return ""

    def steadiness(self) -> Steadiness | None:
        s = self.headline
        return steadiness(s, self.spec or SteadySpec()) if s is not None else None


def _busiest(series: tuple[TimeSeries, ...], metric: str) -> TimeSeries | None:
    found = [s for s in series if s.metric == metric and s.t]
    return max(found, key=lambda s: sum(s.values) / len(s.values)) if found else None


def _first_busiest(series: tuple[TimeSeries, ...], metrics: tuple[str, ...]) -> TimeSeries | None:
    """The busiest series of the first of ``metrics`` the point has."""
    return next((found for m in metrics if (found := _busiest(series, m)) is not None), None)


def _tool(series: tuple[TimeSeries, ...], suffix: str) -> TimeSeries | None:
    """The tool's own series of that kind (not a sampler's: their metrics are iostat.*, mpstat.*, vmstat.*)."""
    return next((s for s in series if s.metric.endswith(suffix) and s.t
                 and not s.metric.startswith(("iostat.", "mpstat.", "vmstat."))), None)


def _spec(data: RunData, step: str) -> SteadySpec | None:
    for play in data.plan.plays if data.plan else ():
        for s in play.steps:
            if s.path == step:
                return steady_spec(s.args.get("steady_state"))
    return None


@dataclass(frozen=True, slots=True)
class UnreadSeries:
    """A point's series file that could not be read (damaged, or data no run writes): the point's figures
    stand, but it is neither charted nor judged, and the report says so rather than skipping it in silence."""

    play: str
    host: str
    title: str
    point_label: str
    file: str  # relative to the run folder
    reason: str


@dataclass(frozen=True, slots=True)
class RunSeries:
    points: tuple[PointSeries, ...]
    unread: tuple[UnreadSeries, ...]


def _one(data: RunData, r: StepResult, unread: list[UnreadSeries]) -> PointSeries | None:
    arts = [a for a in r.artifacts if a.kind == "series"][:MAX_SERIES_FILES]
    files = [a.path for a in arts]
    got: list[TimeSeries] = []
    label = " ".join(f"{k}={v}" for k, v in r.params) or "—"
    play = play_name(r.play, data.play_names())
    for f in files:
        path = (data.run_dir / f).resolve()
        if not path.is_relative_to(data.run_dir.resolve()):
            continue  # a crafted results.json: a series file is read only inside the run folder
        try:
            got += read(path)
        except ParseError as e:  # a damaged file: the point has no series, its figures stand
            why = str(e).split("parser: section 'series': ", 1)[-1]
            unread.append(UnreadSeries(play, r.host, r.title, label, f, why))
    if not got:
        return None
    return PointSeries(play, r.host, r.step, r.title, data.step_kinds.get(r.step, ""), r.point, label, r.repeat,
                       r.warmup, tuple(got), _spec(data, r.step), tuple(files), any(a.simulated for a in r.artifacts))


def read_points(data: RunData) -> RunSeries:
    """Every point result that kept series, in the run's order, and the series files that could not be read."""
    unread: list[UnreadSeries] = []
    points = tuple(p for r in data.results if (p := _one(data, r, unread)) is not None)
    return RunSeries(points, tuple(unread))
