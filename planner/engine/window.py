"""Around every workload point: OS statistics for exactly the point's window, and AWR/Statspack (or
PostgreSQL's pg_stat) snapshots for workloads that do not write their own database report. (The host lock
lives in planner.engine.hostlock.)
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.errors import PlannerError
from planner.plan.model import Play
from planner.status import Artifact
from planner.steps import step_class
from planner.steps.base import AroundPoint, StepContext, around_point
from planner.steps.wl_common import fresh_dir
from planner.transport import hostprograms, ostats

# The OS samplers around a workload point: planner.parsers.OS_TOOLS, named here so that telling a window's items
# apart imports neither the parsers nor every kind's spec before the first host command (a test holds them equal)
OS_TOOLS = ("iostat", "mpstat", "vmstat")
DB_REPORTS = ("awr", "statspack", "pg_stat")
WINDOW_KINDS = frozenset(OS_TOOLS + DB_REPORTS)  # collect items that wrap workloads rather than run as steps


# A window's figures are means over its samples: fewer than this many and one sample is the figure.
MIN_SAMPLES = 3
MAX_AUTO_INTERVAL_S = 5

@dataclass(frozen=True, slots=True)
class WindowSpec:
    """What to collect around each workload point of a play (from its `collect:` section)."""

    os_tools: tuple[str, ...] = ()
    interval_s: int | None = None  # the plan's `interval:`; None: chosen from each point's expected length
    db_report: str | None = None  # "awr" | "statspack" | "pg_stat"


@dataclass(frozen=True, slots=True)
class Windowed:
    """What one point's window gave back: the body's result (None when it failed), what the window collected
    (kept with a failed point's result too) and its warnings; ``failure``: the body's exception, for the
    caller to raise once it kept the artifacts."""

    result: Any
    artifacts: tuple[Artifact, ...] = ()
    warnings: tuple[str, ...] = ()
    failure: BaseException | None = None


class SnapMemo:
    """One workload step's begin snapshots, by host: a later point's begin asks only what can change
    (planner.steps.dbreport.begin), or was already taken in the previous point's end session; each host's
    thread touches its own entries."""

    def __init__(self) -> None:
        self._last: dict[str, object] = {}  # the kind's own token (StepType.around_point_begin)
        self._next: dict[str, object] = {}  # a begin taken at the previous point's end, for the next point

    def last(self, host: str) -> object | None:
        return self._last.get(host)

    def keep(self, host: str, token: object) -> None:
        self._last[host] = token

    def take_next(self, host: str) -> object | None:
        """The begin already taken for this point (once: a retried attempt takes its own)."""
        return self._next.pop(host, None)

    def keep_next(self, host: str, token: object | None) -> None:
        if token is None:
            self._next.pop(host, None)
        else:
            self._next[host] = self._last[host] = token


def window_spec(play: Play) -> WindowSpec:
    """What the play's `collect:` asks to wrap around each workload point."""
    tools = tuple(s.kind for s in play.collect if s.kind in OS_TOOLS)
    intervals = [int(s.args["interval"]) for s in play.collect
                 if s.kind in OS_TOOLS and isinstance(s.args, Mapping) and s.args.get("interval") is not None]
    db = next((s.kind for s in play.collect if s.kind in DB_REPORTS), None)
    if db is not None:
        step_class(db)  # its module imported now, before any point runs, not inside the first point's window
    return WindowSpec(tools, min(intervals) if intervals else None, db)


def expected_seconds(kind: str, args: Mapping[str, Any]) -> float | None:
    """How long a workload point should run, from its arguments (None when they do not say): the kind's own
    duration model (StepType.duration), the one preflight and the timeouts ask too."""
    try:
        return step_class(kind).duration(args).expected_s
    except KeyError:
        return None


def sample_interval(spec: WindowSpec, expected_s: float | None) -> tuple[int, str]:
    """The sampling interval for one point and, when the plan's own interval was shortened, why.

    The short points of a rehearsal or a quick sweep (2 s of fio) sampled every 5 s gave mpstat no row at
    all ("mpstat parser: section 'CPU': no CPU rows"): the interval is at most a third of the point, 1 s
    at the least; a point of unknown length is sampled every second (the figures are means over samples).
    """
    fits = max(1, int(expected_s // MIN_SAMPLES)) if expected_s else None
    if spec.interval_s is None:
        return (min(MAX_AUTO_INTERVAL_S, fits) if fits else 1), ""
    if fits is not None and fits < spec.interval_s:
        return fits, (f"OS statistics every {fits}s instead of {spec.interval_s}s: the point runs about "
                      f"{expected_s:g}s, and a window needs {MIN_SAMPLES} samples")
    return spec.interval_s, ""


class _Retake:
    """The begin snapshot taken again at the point's measured start (StepContext.before_measured); the window
    reads the token back when the body is done (the first one when the workload marked no measured command)."""

    def __init__(self, ctx: StepContext, kind: type[AroundPoint], token: object) -> None:
        self.ctx, self.kind, self.token = ctx, kind, token
        self.taken = False

    def __call__(self) -> None:  # StepContext.run calls it at the first measured command (of the host or its
        # load generator host, which both hold it): once per point, always on the database host (self.ctx)
        if not self.taken:
            self.taken = True
            self.token = self.kind.around_point_begin(self.ctx, self.token)


def run_in_window(ctx: StepContext, spec: WindowSpec, workdir: str, writes_db_report: bool,
                  body: Callable[[], Any], expected_s: float | None = None,
                  snaps: SnapMemo | None = None, more: bool = False) -> Windowed:
    """Run ``body`` with OS sampling and DB snapshots around it; what it collected is returned, also when the
    body failed (its exception in ``failure``: the caller keeps the artifacts, then raises it).

    ``workdir`` is the engine's point folder: emptied first (one round trip), as every attempt of a point
    (a first run, a ``--resume``, a retry after a connection drop) must never find an earlier attempt's files.
    The workload steps write their output there (planner.steps.wl_common.point_dir) and never empty it again.
    ``more``: another point of the step follows on this host: its begin snapshot is taken in this point's end
    session where the kind allows it (a database session less between the points; that point's interval then
    starts at this one's end, its gap included), and kept in ``snaps`` for it.
    """
    fresh_dir(ctx, workdir)
    gen = ctx.generator  # the load generator host's context: its own point folder, empty at every attempt too
    if gen is not None and gen.point_dir:
        fresh_dir(gen, gen.point_dir)
    artifacts: list[Artifact] = []
    warnings: list[str] = []
    sampler = None
    interval = 1
    token: object = None
    retake: _Retake | None = None
    db_kind = around_point(step_class(spec.db_report)) if spec.db_report and not writes_db_report else None
    if db_kind is not None:  # the play's awr or statspack kind takes the snapshots (StepType.around_point_begin)
        token = _begin(ctx, db_kind, snaps)
        if db_kind.retake_at_measured_start:
            retake = ctx.before_measured = _Retake(ctx, db_kind, token)
            if gen is not None:  # the measured command may be the client's: the first one to run takes it
                gen.before_measured = retake
    if spec.os_tools:
        osdir = posixpath.join(workdir, "ostats")
        interval, note = sample_interval(spec, expected_s)
        if note:
            warnings.append(note)
        sampler = ostats.start(ctx.conn, osdir, interval, spec.os_tools,
                               log=lambda r: ctx.log(ctx.host.name, ctx.step_path, r))
        warnings += [hostprograms.skipped(t, ctx.host.name) for t in sampler.skipped]
    failure: BaseException | None = None
    result: Any = None
    try:
        result = body()
    except BaseException as e:  # keep what the window collected, then let the step's failure through
        failure = e
    if retake is not None:
        token, ctx.before_measured = retake.token, None
        if gen is not None:
            gen.before_measured = None
    if sampler is not None:
        from planner.engine import os_series  # the parsers and series: only for a play that samples the OS
        try:
            if failure is None:  # a point shorter than its first samples: wait for them (bounded)
                sampler.wait_for_samples()
            for f in sampler.stop():
                name = posixpath.basename(f)
                kind = name.rsplit(".", 1)[0]
                try:
                    artifacts.append(ctx.fetch(f, name, kind if kind in OS_TOOLS else ""))
                except OSError as e:
                    warnings.append(f"could not fetch {f}: {e}")
            artifacts += os_series.keep(ctx, artifacts, interval)  # per interval too, not only the window's mean
        except PlannerError as e:
            if failure is None:
                raise
            # the point already failed (e.g. the host went away): its own error is the one to report
            warnings.append(f"OS statistics not collected: {e}")
    if db_kind is not None and failure is None:
        chain = more and snaps is not None and not db_kind.retake_at_measured_start
        collected = db_kind.around_point_end(ctx, token, then_begin=chain)
        if snaps is not None:
            snaps.keep_next(ctx.host.name, collected.next_begin)
        artifacts += collected.artifacts
        warnings += collected.notes  # e.g. RAC with Statspack: per instance only, and why
    return Windowed(result, tuple(artifacts), tuple(warnings), failure)


def _begin(ctx: StepContext, db_kind: type[AroundPoint], snaps: SnapMemo | None) -> object:
    """The point's begin token: the one the previous point's end session took, else a begin snapshot now."""
    if snaps is None:
        return db_kind.around_point_begin(ctx, None)
    token = snaps.take_next(ctx.host.name)
    if token is None:
        token = db_kind.around_point_begin(ctx, snaps.last(ctx.host.name))
        snaps.keep(ctx.host.name, token)
    return token
