"""The workload loop: one workload step's points (sweep values x repeats), one after the other, each on every
active host of the play at once, inside its measurement window (planner.engine.window), with the hosts'
synchronised start where the play asks for it (planner.engine.syncstart)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from planner.engine import window as win
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState, run_step, spec_result
from planner.engine.options import RunOptions
from planner.engine.point_progress import live_text, plan_progress
from planner.engine.pool import HostPool
from planner.engine.preview import preview_points
from planner.engine.progress import Progress, duration, point_label, point_names
from planner.engine.resume import Previous
from planner.engine.runrecord import RunRecord, slug
from planner.engine.syncstart import Clocks, SyncStart, record_skew
from planner.plan.model import Play, StepSpec, SweepPoint
from planner.plan.sweeps import expand
from planner.plan.templating import eval_when, render
from planner.status import Status, StepResult
from planner.steps import step_class
from planner.steps.base import StepContext, real_in_rehearsal, rehearsed
from planner.steps.wl_common import point_name

Points = list[tuple[SweepPoint, dict[str, Any]]]  # a host's points: each with its rendered arguments


class Run(Protocol):
    """What the loop asks of the run it belongs to (planner.engine.runner.Runner)."""

    opts: RunOptions
    settings: ExecSettings
    console: Console
    record: RunRecord | None
    previous: Previous | None
    progress: Progress
    pool: HostPool

    def variables(self, play: Play, hs: HostState) -> dict[str, Any]: ...

    def artifacts(self, play: Play, hs: HostState, spec: StepSpec, point: SweepPoint | None) -> Path: ...

    def done(self, hs: HostState, spec: StepSpec, point: int | None = None) -> bool: ...

    def add(self, r: StepResult) -> None: ...

    def save_results(self) -> None: ...

    def drop_results(self, dropped: Callable[[StepResult], bool]) -> None: ...


class WorkloadLoop:
    """The run's workload steps; it keeps what spans them: the hosts' clock offsets and each synchronised
    start's measured skew."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.clocks = Clocks()  # sync_start: the hosts' clock offsets
        self.sync_log: list[dict[str, Any]] = []  # sync_start: each point's measured start skew
        self.snaps = win.SnapMemo()  # the current step's begin snapshots (AWR/Statspack), by host

    def points(self, play: Play, spec: StepSpec, hs: HostState) -> Points:
        points = expand(spec, render(dict(spec.args), self.run.variables(play, hs)))
        if self.run.opts.simulated:  # rehearsal: real workloads run briefly (StepType.rehearsal_caps)
            as_rehearsed = rehearsed(step_class(spec.kind))
            if as_rehearsed is not None:
                points = [(p, as_rehearsed.capped_for_rehearsal(a)) for p, a in points]
        return points

    def step(self, play: Play, spec: StepSpec, states: list[HostState]) -> None:
        """The workload step on ``states``: every point (check mode: what would run)."""
        run = self.run
        skipped = self._when_false(play, spec, states)
        states = [hs for hs in states if hs not in skipped]
        if not states:
            run.save_results()
            return
        plans, variables = self._resolve(play, spec, states)
        self.snaps = win.SnapMemo()
        npoints = max((len(p) for p in plans.values()), default=0)
        window = win.window_spec(play)
        for host, pts in plans.items():
            run.console.name_points(spec.path, host, point_names([p for p, _ in pts]))
        plan_progress(run.progress, run.previous, spec, plans, npoints)
        if run.opts.check:
            self._would_run(play, spec, states, plans, window)
            return
        for i in range(npoints):
            active = [hs for hs in states if hs.active and i < len(plans[hs.host.name])]
            if not active:
                break
            active = [hs for hs in active if not run.done(hs, spec, plans[hs.host.name][i][0].index)]
            if not active:
                continue
            late = self._point(play, spec, active, plans, variables, window, i)
            if late and play.sync_rerun_late:  # once: a second late start is kept, marked late
                self._set_aside_late(play, spec, active, plans[active[0].host.name][i][0], late)
                self._point(play, spec, [hs for hs in active if hs.active], plans, variables, window, i)
        run.progress.plan(spec.path, 0, None)  # a host that left the play leaves nothing to wait for

    def _resolve(self, play: Play, spec: StepSpec,
                 states: list[HostState]) -> tuple[dict[str, Points], dict[str, dict[str, Any]]]:
        """Each host's points and variables, noted in the record (one write for the step)."""
        run = self.run
        plans: dict[str, Points] = {}
        variables: dict[str, dict[str, Any]] = {}
        for hs in states:
            variables[hs.host.name] = run.variables(play, hs)
            plans[hs.host.name] = self.points(play, spec, hs)
            if run.record is not None:
                run.record.note_resolved(play.name, hs.host.name, spec.path, {
                    "title": spec.title, "kind": spec.kind,
                    "points": [{"point": p.index + 1, "params": dict(p.params), "repeat": p.repeat + 1,
                                "warmup": p.warmup, "args": a} for p, a in plans[hs.host.name]]}, write=False)
        if run.record is not None:
            run.record.note_resolved(play.name, "", spec.path, None)
        return plans, variables

    def _would_run(self, play: Play, spec: StepSpec, states: list[HostState], plans: Mapping[str, Points],
                   window: win.WindowSpec) -> None:
        """Check mode: workloads do not run; with --diff, each point's commands and files are shown."""
        run = self.run
        run.console.banner("TASK", spec.title)
        for hs in states:
            r = spec_result(spec, hs.host.name, Status.SKIPPED,
                            f"would run {len(plans[hs.host.name])} point(s); workloads do not run in check mode",
                            diff=preview_points(spec, hs, run.variables(play, hs), run.settings,
                                                plans[hs.host.name], window.db_report or "")
                            if run.opts.diff else None)
            run.add(r)
            run.console.result(r)

    def _when_false(self, play: Play, spec: StepSpec, states: list[HostState]) -> list[HostState]:
        """Hosts on which the workload's ``when:`` is false: skipped (shown and counted), like prep and collect."""
        if not spec.when:
            return []
        skipped = [hs for hs in states if not eval_when(spec.when, self.run.variables(play, hs))]
        if skipped:
            self.run.console.banner("TASK", spec.title)
        for hs in skipped:
            self.run.add(r := spec_result(spec, hs.host.name, Status.SKIPPED, "condition was false"))
            self.run.console.result(r)
        return skipped

    def _set_aside_late(self, play: Play, spec: StepSpec, active: list[HostState], point: SweepPoint,
                        late: list[str]) -> None:
        """A late synchronised start: the point's results leave the run's figures and its artifacts go aside
        (``pointNNN-late-start``, kept for inspection) before the point runs once more."""
        names = {hs.host.name for hs in active}
        self.run.drop_results(lambda r: r.step == spec.path and r.point == point.index and r.host in names)
        if self.run.record is not None:
            for hs in active:
                folder = self.run.artifacts(play, hs, spec, point)
                if folder.is_dir():
                    folder.rename(folder.with_name(f"{folder.name}-late-start"))
        if self.sync_log:
            self.sync_log[-1]["rerun"] = True
        self.run.console.warn(f"synchronised start: {', '.join(late)} started late: point {point.index + 1} of "
                              f"{spec.title} runs once more (sync_start: {{rerun_late: false}} keeps the first run)")

    def _point(self, play: Play, spec: StepSpec, active: list[HostState], plans: Mapping[str, Points],
               variables: Mapping[str, Any], window: win.WindowSpec, i: int) -> list[str]:
        """Point ``i`` of a workload on ``active``; the hosts that started late under sync_start (else [])."""
        run = self.run
        late: list[str] = []
        point0, args0 = plans[active[0].host.name][i]
        name0 = point_label(point0, {point0.index: run.console.point_name(spec.path, active[0].host.name,
                                                                            point0.index)})
        run.console.banner("TASK", f"{spec.title} : {name0}")
        # synchronised start across the play's hosts (e.g. RAC nodes): right before the measured command
        sync = SyncStart([hs.host.name for hs in active], self.clocks, play.sync_tolerance_ms) \
            if play.sync_start and len(active) > 1 else None
        one = self._one(play, spec, plans, variables, window, i, sync)
        started = time.monotonic()
        # every host of a synchronised play needs its own thread to meet at the barrier
        forks = len(active) if sync is not None else run.opts.forks
        run.console.live_start(live_text(run.progress, spec, name0.split(":")[0], started,
                                         win.expected_seconds(spec.kind, args0)))
        try:
            run.pool.on_hosts(one, active, forks)
        finally:
            run.console.live_stop()
        run.save_results()
        if sync is not None:
            late = record_skew(self.sync_log, spec, point0, name0, sync, run.console, run.record)
        done_s = time.monotonic() - started
        run.progress.done(spec.path, done_s)
        run.console.line(f"progress: {spec.title} {name0.split(':')[0]} done in {done_s:.1f}s; "
                         f"about {duration(run.progress.left_s())} left in the run")
        return late

    def _one(self, play: Play, spec: StepSpec, plans: Mapping[str, Points], variables: Mapping[str, Any],
             window: win.WindowSpec, i: int, sync: SyncStart | None) -> Callable[[HostState], StepResult]:
        """Point ``i`` on one host, in its window (and at the synchronised start's barrier)."""
        run = self.run

        def one(hs: HostState, i: int = i, sync: SyncStart | None = sync) -> StepResult:
            try:
                return one_point(hs, i, sync)
            finally:
                if sync is not None:
                    sync.leave(hs.host.name)

        def one_point(hs: HostState, i: int, sync: SyncStart | None) -> StepResult:
            point, args = plans[hs.host.name][i]
            workdir = f"{hs.workdir}/{slug(spec.path)}/{point_name(point.index)}"

            def wrapped(ctx: StepContext, writes_db_report: bool, body: Callable[[], Any]) -> Any:
                # run_in_window empties (and makes) the point folder: every attempt starts from nothing
                ctx.point_dir, ctx.db_report = workdir, window.db_report or ""
                if sync is not None:
                    ctx.sync = sync.member(hs.host.name, ctx.conn)
                # a rehearsal's stand-ins finish at once, whatever run time the plan asks for: sample at 1 s
                stand_in = run.opts.simulated and not real_in_rehearsal(step_class(spec.kind))
                expected = None if stand_in else win.expected_seconds(spec.kind, args)
                return win.run_in_window(ctx, window, workdir, writes_db_report, body, expected_s=expected,
                                         snaps=self.snaps)

            return run_step(spec, hs, args, variables[hs.host.name], run.settings, run.record,
                            run.artifacts(play, hs, spec, point), point=point, window=wrapped)

        return one
