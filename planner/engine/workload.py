"""The workload loop: one workload step's points (sweep values x repeats), one after the other, each on every
active host of the play at once, inside its measurement window (planner.engine.window), with the hosts'
synchronised start where the play asks for it (planner.engine.syncstart)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.engine import window as win
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState, artifact_folder, run_step, spec_result
from planner.engine.point_progress import live_text, plan_progress
from planner.engine.pool import HostPool
from planner.engine.preview import preview_points
from planner.engine.progress import Progress, duration, point_label, point_names
from planner.engine.resume import Previous
from planner.engine.runrecord import RunRecord, slug
from planner.engine.runstate import PlayVars, ResultLog
from planner.engine.syncstart import Clocks, SyncStart, record_skew
from planner.plan.model import Play, StepSpec, SweepPoint
from planner.plan.sweeps import expand
from planner.plan.templating import eval_when, render
from planner.status import Status, StepResult
from planner.steps import step_class
from planner.steps.base import Outcome, StepContext, real_in_rehearsal, rehearsed
from planner.steps.wl_common import point_name

Points = list[tuple[SweepPoint, dict[str, Any]]]  # a host's points: each with its rendered arguments


@dataclass(frozen=True, slots=True)
class LoopContext:
    """What the workload loop needs of its run, and nothing more (the Runner hands it over at its start)."""

    settings: ExecSettings  # check, diff, rehearsal
    forks: int
    console: Console
    progress: Progress
    pool: HostPool  # runs a point on the play's hosts at once
    vars: PlayVars  # each play's variables per host, resolved once
    results: ResultLog  # results.json appended point by point; holds the run's record once it is open
    add: Callable[[StepResult], None]  # a result of the run (shown by the caller, counted, its host marked)
    done: Callable[[HostState, StepSpec, int | None], bool]  # --resume: done before, and said so
    previous: Previous | None = None  # --resume: what the run being resumed recorded

    @property
    def record(self) -> RunRecord | None:
        return self.results.record


class WorkloadLoop:
    """The run's workload steps; it keeps what spans them: the hosts' clock offsets and each synchronised
    start's measured skew."""

    def __init__(self, ctx: LoopContext) -> None:
        self.ctx = ctx
        self.clocks = Clocks()  # sync_start: the hosts' clock offsets
        self.sync_log: list[dict[str, Any]] = []  # sync_start: each point's measured start skew

    def points(self, play: Play, spec: StepSpec, hs: HostState) -> Points:
        points = expand(spec, render(dict(spec.args), self.ctx.vars.of(play, hs)))
        if self.ctx.settings.simulated:  # rehearsal: real workloads run briefly (StepType.rehearsal_caps)
            as_rehearsed = rehearsed(step_class(spec.kind))
            if as_rehearsed is not None:
                points = [(p, as_rehearsed.capped_for_rehearsal(a)) for p, a in points]
        return points

    def step(self, play: Play, spec: StepSpec, states: list[HostState]) -> None:
        """The workload step on ``states``: every point (check mode: what would run)."""
        ctx = self.ctx
        skipped = self._when_false(play, spec, states)
        states = [hs for hs in states if hs not in skipped]
        if not states:
            ctx.results.save()
            return
        plans = self._resolve(play, spec, states)
        npoints = max((len(p) for p in plans.values()), default=0)
        window = win.window_spec(play)
        for host, pts in plans.items():
            ctx.console.name_points(spec.path, host, point_names([p for p, _ in pts]))
        plan_progress(ctx.progress, ctx.previous, spec, plans, npoints)
        if ctx.settings.check:
            self._would_run(play, spec, states, plans, window)
            return
        snaps = win.SnapMemo()  # this step's begin snapshots (AWR/Statspack), by host
        for i in range(npoints):
            active = [hs for hs in states if hs.active and i < len(plans[hs.host.name])]
            if not active:
                break
            active = [hs for hs in active if not ctx.done(hs, spec, plans[hs.host.name][i][0].index)]
            if not active:
                continue
            run = PointRun(ctx, play, spec, plans, window, snaps, i)
            late = self._point(run, active)
            if late and play.sync_rerun_late:  # once: a second late start is kept, marked late
                self._set_aside_late(play, spec, active, plans[active[0].host.name][i][0], late)
                self._point(run, [hs for hs in active if hs.active])
            ctx.results.save()  # the point's results, appended (a late start's were dropped before)
        ctx.progress.plan(spec.path, 0, None)  # a host that left the play leaves nothing to wait for

    def _resolve(self, play: Play, spec: StepSpec, states: list[HostState]) -> dict[str, Points]:
        """Each host's points, noted in the record (one write for the step)."""
        record = self.ctx.record
        plans: dict[str, Points] = {}
        for hs in states:
            plans[hs.host.name] = self.points(play, spec, hs)
            if record is not None:
                record.note_resolved(play.name, hs.host.name, spec.path, {
                    "title": spec.title, "kind": spec.kind,
                    "points": [{"point": p.index + 1, "params": dict(p.params), "repeat": p.repeat + 1,
                                "warmup": p.warmup, "args": a} for p, a in plans[hs.host.name]]}, write=False)
        if record is not None:
            record.note_resolved(play.name, "", spec.path, None)
        return plans

    def _would_run(self, play: Play, spec: StepSpec, states: list[HostState], plans: Mapping[str, Points],
                   window: win.WindowSpec) -> None:
        """Check mode: workloads do not run; with --diff, each point's commands and files are shown."""
        ctx = self.ctx
        ctx.console.banner("TASK", spec.title)
        for hs in states:
            r = spec_result(spec, hs.host.name, Status.SKIPPED,
                            f"would run {len(plans[hs.host.name])} point(s); workloads do not run in check mode",
                            diff=preview_points(spec, hs, ctx.vars.of(play, hs), ctx.settings,
                                                plans[hs.host.name], window.db_report or "")
                            if ctx.settings.diff else None)
            ctx.add(r)
            ctx.console.result(r)

    def _when_false(self, play: Play, spec: StepSpec, states: list[HostState]) -> list[HostState]:
        """Hosts on which the workload's ``when:`` is false: skipped (shown and counted), like prep and collect."""
        if not spec.when:
            return []
        skipped = [hs for hs in states if not eval_when(spec.when, self.ctx.vars.of(play, hs))]
        if skipped:
            self.ctx.console.banner("TASK", spec.title)
        for hs in skipped:
            self.ctx.add(r := spec_result(spec, hs.host.name, Status.SKIPPED, "condition was false"))
            self.ctx.console.result(r)
        return skipped

    def _set_aside_late(self, play: Play, spec: StepSpec, active: list[HostState], point: SweepPoint,
                        late: list[str]) -> None:
        """A late synchronised start: the point's results leave the run's figures and its artifacts go aside
        (``pointNNN-late-start``, kept for inspection) before the point runs once more."""
        ctx = self.ctx
        names = {hs.host.name for hs in active}
        ctx.results.drop(lambda r: r.step == spec.path and r.point == point.index and r.host in names)
        if ctx.record is not None:
            for hs in active:
                folder = artifact_folder(ctx.record, ctx.settings.plan_dir, play.name, hs.host.name, spec, point)
                if folder.is_dir():
                    folder.rename(folder.with_name(f"{folder.name}-late-start"))
        if self.sync_log:
            self.sync_log[-1]["rerun"] = True
        ctx.console.warn(f"synchronised start: {', '.join(late)} started late: point {point.index + 1} of "
                         f"{spec.title} runs once more (sync_start: {{rerun_late: false}} keeps the first run)")

    def _point(self, run: PointRun, active: list[HostState]) -> list[str]:
        """The point on ``active``; the hosts that started late under sync_start (else [])."""
        ctx, spec, play = self.ctx, run.spec, run.play
        point0, args0 = run.plans[active[0].host.name][run.index]
        name0 = point_label(point0, {point0.index: ctx.console.point_name(spec.path, active[0].host.name,
                                                                            point0.index)})
        ctx.console.banner("TASK", f"{spec.title} : {name0}")
        # synchronised start across the play's hosts (e.g. RAC nodes): right before the measured command
        sync = SyncStart([hs.host.name for hs in active], self.clocks, play.sync_tolerance_ms) \
            if play.sync_start and len(active) > 1 else None
        started = time.monotonic()
        # every host of a synchronised play needs its own thread to meet at the barrier
        forks = len(active) if sync is not None else ctx.forks
        ctx.console.live_start(live_text(ctx.progress, spec, name0.split(":")[0], started,
                                         win.expected_seconds(spec.kind, args0)))
        try:
            ctx.pool.on_hosts(lambda hs: run.on(hs, sync), active, forks)
        finally:
            ctx.console.live_stop()
        late = record_skew(self.sync_log, spec, point0, name0, sync, ctx.console, ctx.record) \
            if sync is not None else []
        done_s = time.monotonic() - started
        ctx.progress.done(spec.path, done_s)
        ctx.console.line(f"progress: {spec.title} {name0.split(':')[0]} done in {done_s:.1f}s; "
                         f"about {duration(ctx.progress.left_s())} left in the run")
        return late


@dataclass(frozen=True, slots=True)
class PointRun:
    """Point ``index`` of one workload step, run on one host at a time (each host's worker thread calls
    ``on``): its arguments there, its folder on the host, its window around the step's apply."""

    ctx: LoopContext
    play: Play
    spec: StepSpec
    plans: Mapping[str, Points]
    window: win.WindowSpec
    snaps: win.SnapMemo
    index: int

    def on(self, hs: HostState, sync: SyncStart | None) -> StepResult:
        """The point on ``hs`` (at the synchronised start's barrier, which the host leaves however it ends)."""
        try:
            return self._run(hs, sync)
        finally:
            if sync is not None:
                sync.leave(hs.host.name)

    def _run(self, hs: HostState, sync: SyncStart | None) -> StepResult:
        ctx = self.ctx
        point, args = self.plans[hs.host.name][self.index]
        rel = f"/{slug(self.spec.path)}/{point_name(point.index)}"  # under the host's run folder (a client's too)
        window = functools.partial(self._in_window, hs=hs, rel=rel, args=args, sync=sync)
        return run_step(self.spec, hs, args, ctx.vars.of(self.play, hs), ctx.settings, ctx.record,
                        artifact_folder(ctx.record, ctx.settings.plan_dir, self.play.name, hs.host.name, self.spec,
                                        point), point=point, window=window)

    def _in_window(self, sctx: StepContext, writes_db_report: bool, body: Callable[[], Outcome], *,
                   hs: HostState, rel: str, args: Mapping[str, Any], sync: SyncStart | None) -> win.Windowed:
        """The step's apply (``body``) on ``hs`` inside the point's window (execute.run_step calls it per attempt)."""
        workdir = hs.workdir + rel
        # run_in_window empties (and makes) the point folder: every attempt starts from nothing
        sctx.point_dir, sctx.db_report = workdir, self.window.db_report or ""
        as_rehearsed = rehearsed(step_class(self.spec.kind))
        databases = as_rehearsed.server_databases(args) if as_rehearsed is not None else ()
        sctx.point_database = databases[0] if databases else ""
        if sync is not None:
            sctx.sync = sync.member(hs.host.name, sctx.conn)
        _for_generator(sctx, hs, rel, sync)
        # a rehearsal's stand-ins finish at once, whatever run time the plan asks for: sample at 1 s
        stand_in = self.ctx.settings.simulated and not real_in_rehearsal(step_class(self.spec.kind))
        expected = None if stand_in else win.expected_seconds(self.spec.kind, args)
        more = self.index + 1 < len(self.plans[hs.host.name])  # its begin snapshot can be taken at this one's end
        return win.run_in_window(sctx, self.window, workdir, writes_db_report, body, expected_s=expected,
                                 snaps=self.snaps, more=more)


def _for_generator(sctx: StepContext, hs: HostState, rel: str, sync: SyncStart | None) -> None:
    """The point's settings on the load generator host's context too (docs/load-generator-host.md): the step runs
    its tool there, so the measured command there is the one the start gate and the measured-start hook wait
    for. Its point folder is the client's own (its run folder, the same ``rel``); the window empties it and
    hands it the measured-start hook (planner.engine.window)."""
    gen, g = sctx.generator, hs.generator
    if gen is None or g is None:
        return
    gen.point_dir = f"{g.state.workdir}{rel}" if g.state.workdir else ""
    gen.db_report, gen.point_database = sctx.db_report, sctx.point_database
    gen.sync = sync.member(hs.host.name, gen.conn, clock=gen.host.name) if sync is not None else None
