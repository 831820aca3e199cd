"""The runner: facts -> prep -> workloads -> collect -> restore prep, play by play, hosts in parallel.

Steps run in plan order (Ansible's linear strategy): a TASK runs on every active host of the play (up to
``forks`` at once) before the next begins, so two workloads never overlap on a host. A host that fails or
becomes unreachable takes no further steps in that play; the others go on.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from planner.engine import probes, restarts
from planner.engine import window as win
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState, run_step, spec_result
from planner.engine.fanout import on_hosts
from planner.engine.hosts import HostsMixin
from planner.engine.interrupts import deferred_interrupts
from planner.engine.inventory_copy import snapshot_inventory
from planner.engine.options import _PHASE_OF, Connector, Phase, RunOptions, RunOutcome, selected
from planner.engine.point_progress import live_text, plan_progress
from planner.engine.preview import preview_points
from planner.engine.progress import Progress, duration, point_label, point_names
from planner.engine.restore import RestoreLog, revert_pending
from planner.engine.resume import Previous, reopen_record
from planner.engine.runrecord import RunRecord, finish_record, open_record, slug
from planner.engine.syncstart import Clocks, SyncStart, record_skew
from planner.host import Host
from planner.plan.model import Plan, Play, Section, StepSpec, SweepPoint
from planner.plan.sweeps import expand
from planner.plan.templating import eval_when, render, variables_for
from planner.status import ExitCode, Status, StepResult, exit_code, recap
from planner.steps import step_class
from planner.steps.base import StepContext
from planner.steps.saved_state import RestoreEntry


class Runner(HostsMixin):
    def __init__(self, plan: Plan, play_hosts: Mapping[str, Sequence[Host]], opts: RunOptions,
                 console: Console, connector: Connector, previous: Previous | None = None) -> None:
        self.plan = plan
        self.play_hosts = play_hosts  # play name -> hosts, already selected (pattern & --limit)
        self.opts = opts
        self.console = console
        self.connector = connector
        self.results: list[StepResult] = []
        self.states: dict[str, HostState] = {}
        self.previous = previous  # --resume: what the run being resumed recorded
        self.restore_log = RestoreLog(previous.restore if previous else ())  # written once the record is open
        self.record: RunRecord | None = None
        self.phase = Phase.START  # where an interrupt landed
        self.finished = False  # the record has its final status (what follows is the report)
        self._lock = threading.Lock()
        self._locked: list[HostState] = []
        self._record_failures: list[str] = []
        self.progress = Progress()  # the workloads' executions left, for the ETA
        self.clocks = Clocks()  # sync_start: the hosts' clock offsets
        self.sync_log: list[dict[str, Any]] = []  # sync_start: each point's measured start skew
        self.settings = ExecSettings(opts.check, opts.diff, plan.source.parent, plan.allow_destroy, opts.simulated)

    # -- record ------------------------------------------------------------------------------------------
    def _open_record(self) -> None:
        if self.opts.check:
            return  # check mode touches nothing and records nothing, like ansible-playbook --check
        if self.previous is not None:
            self.record = reopen_record(self.previous, self.opts.secrets, list(self.opts.argv))
        else:
            self.record = open_record(self.opts.runs_dir, self.plan, self.play_hosts, argv=self.opts.argv,
                                      secrets=self.opts.secrets, simulated=self.opts.simulated,
                                      rehearsal_notes=self.opts.rehearsal_notes)
            self.record.write_meta(cwd=os.getcwd(), pid=os.getpid())  # for --resume: relative paths in argv
            if self.opts.inventory_files:
                snapshot_inventory(self.record, self.opts.inventory, self.opts.inventory_files)
        self.restore_log.attach(self.record)

    def _save_results(self) -> None:
        if self.record:
            with self._lock:  # a resumed run appends to what the run before it recorded
                data = [*(self.previous.results if self.previous else ()), *(r.to_json() for r in self.results)]
            try:
                self.record.write("results.json", data)
            except OSError as e:  # e.g. the controller's disk is full: warn, keep going, restore prep
                self.console.warn(f"run record: {e}")
                self._record_failures.append(str(e))

    def _add(self, r: StepResult) -> None:
        if self.record is not None and r.artifacts:  # a fetched file holding a password is redacted too
            for path in self.record.scrub_artifacts([a.path for a in r.artifacts]):
                self.console.warn(f"{path}: held a secret; replaced by ******** (noted in meta.json)")
        with self._lock:
            self.results.append(r)
        st = self.states.get(r.host)
        if st and not r.ignored:
            if r.status is Status.FAILED:
                st.failed = True
            elif r.status is Status.UNREACHABLE:
                st.unreachable = True

    def _on_save(self, spec: StepSpec, hs: HostState, args: Mapping[str, Any], saved: Mapping[str, Any]) -> None:
        if self.previous and self.previous.keeps_original(hs.host.name, spec.path):
            return  # the dead run's entry holds the state from before it; this one would hold its prep
        self.restore_log.add(RestoreEntry(play=f"plays[{spec.play}]", host=hs.host.name, step=spec.path,
                                          title=spec.title, kind=spec.kind, args=dict(args), saved=dict(saved),
                                          become=spec.become, become_user=spec.become_user,
                                          play_index=spec.play, index=spec.index))

    # -- steps ---------------------------------------------------------------------------------------------
    def _variables(self, play: Play, hs: HostState) -> dict[str, Any]:
        v = variables_for(self.plan, play, hs.host, self.opts.extra_vars)
        v["planner_facts"] = hs.facts
        return v

    def _artifacts(self, play: Play, hs: HostState, spec: StepSpec, point: SweepPoint | None) -> Path:
        parts = [play.name, hs.host.name, spec.path.split(".", 1)[-1]]
        if point is not None:
            parts.append(f"point{point.index:03d}")
        return self.record.artifact_dir(*parts) if self.record else self.settings.plan_dir  # check mode: none

    def _simple_step(self, play: Play, spec: StepSpec, states: list[HostState]) -> None:
        self.console.banner("TASK", spec.title)

        def one(hs: HostState) -> StepResult:
            variables = self._variables(play, hs)
            if spec.when and not eval_when(spec.when, variables):
                return spec_result(spec, hs.host.name, Status.SKIPPED, "condition was false")
            args = render(dict(spec.args), variables)
            if self.record is not None:  # written once the step's hosts are noted (below)
                self.record.note_resolved(play.name, hs.host.name, spec.path, {"title": spec.title, "kind": spec.kind,
                                                                             "args": args}, write=False)
            return run_step(spec, hs, args, variables, self.settings, self.record,
                            self._artifacts(play, hs, spec, None), on_save=self._on_save)

        try:
            self._on_hosts(one, [s for s in states if s.active and not self._done(hs=s, spec=spec)], self.opts.forks)
        finally:
            if self.record is not None:  # the step's hosts' arguments, in one write (also when interrupted)
                self.record.note_resolved(play.name, "", spec.path, None)
        self._save_results()

    def _restart_after_prep(self, index: int, play: Play, states: list[HostState]) -> None:
        """The play's one database restart for the static parameters its init_ora steps deferred."""
        todo = None if self.opts.check else restarts.after_prep(
            index, play, states, self.results, lambda hs: self._variables(play, hs), self.settings, self.record,
            self.record.path if self.record else self.settings.plan_dir)
        if todo:
            self.console.banner("TASK", restarts.TITLE_PREP)
            self._on_hosts(todo[1], todo[0], self.opts.forks)
            self._save_results()

    def _on_hosts(self, fn: Callable[[HostState], StepResult], states: Sequence[HostState], forks: int) -> None:
        def record(r: StepResult) -> None:
            self._add(r)
            self.console.result(r)

        on_hosts(fn, states, forks, record, self._cancel_all)

    def _done(self, hs: HostState, spec: StepSpec, point: int | None = None) -> bool:
        """--resume: this step (or point) completed on the host in the run being resumed (prep runs again)."""
        done = self.previous is not None and spec.section is not Section.PREP and self.previous.is_done(
            hs.host.name, spec.path, point)
        if done:
            name = "" if point is None else " " + self.console.point_name(spec.path, hs.host.name, point)
            self.console.line(f"skipping: [{hs.host.name}] {spec.title}{name}: done before the resume")
        return done

    def _points(self, play: Play, spec: StepSpec, hs: HostState) -> list[tuple[SweepPoint, dict[str, Any]]]:
        points = expand(spec, render(dict(spec.args), self._variables(play, hs)))
        if self.opts.simulated:  # rehearsal: real workloads run briefly (StepType.rehearsal_caps)
            step_type = step_class(spec.kind)
            points = [(p, step_type.capped_for_rehearsal(a)) for p, a in points]
        return points

    def _when_false(self, play: Play, spec: StepSpec, states: list[HostState]) -> list[HostState]:
        """Hosts on which the workload's ``when:`` is false: skipped (shown and counted), like prep and collect."""
        if not spec.when:
            return []
        skipped = [hs for hs in states if not eval_when(spec.when, self._variables(play, hs))]
        if skipped:
            self.console.banner("TASK", spec.title)
        for hs in skipped:
            self._add(r := spec_result(spec, hs.host.name, Status.SKIPPED, "condition was false"))
            self.console.result(r)
        return skipped

    def _workload(self, play: Play, spec: StepSpec, states: list[HostState]) -> None:
        plans: dict[str, list[tuple[SweepPoint, dict[str, Any]]]] = {}
        variables: dict[str, dict[str, Any]] = {}
        skipped = self._when_false(play, spec, states)
        states = [hs for hs in states if hs not in skipped]
        if not states:
            self._save_results()
            return
        for hs in states:
            variables[hs.host.name] = self._variables(play, hs)
            plans[hs.host.name] = self._points(play, spec, hs)
            if self.record is not None:
                self.record.note_resolved(play.name, hs.host.name, spec.path, {
                    "title": spec.title, "kind": spec.kind,
                    "points": [{"point": p.index + 1, "params": dict(p.params), "repeat": p.repeat + 1,
                                "warmup": p.warmup, "args": a} for p, a in plans[hs.host.name]]}, write=False)
        if self.record is not None:
            self.record.note_resolved(play.name, "", spec.path, None)
        npoints = max((len(p) for p in plans.values()), default=0)
        window = win.window_spec(play)
        for host, pts in plans.items():
            self.console.name_points(spec.path, host, point_names([p for p, _ in pts]))
        plan_progress(self.progress, self.previous, spec, plans, npoints)
        if self.opts.check:
            self.console.banner("TASK", spec.title)
            for hs in states:
                r = spec_result(spec, hs.host.name, Status.SKIPPED,
                                f"would run {len(plans[hs.host.name])} point(s); workloads do not run in check mode",
                                diff=preview_points(spec, hs, self._variables(play, hs), self.settings,
                                                    plans[hs.host.name], window.db_report or "")
                                if self.opts.diff else None)
                self._add(r)
                self.console.result(r)
            return
        for i in range(npoints):
            active = [hs for hs in states if hs.active and i < len(plans[hs.host.name])]
            if not active:
                break
            active = [hs for hs in active if not self._done(hs, spec, plans[hs.host.name][i][0].index)]
            if not active:
                continue
            late = self._point(play, spec, active, plans, variables, window, i)
            if late and play.sync_rerun_late:  # once: a second late start is kept, marked late
                self._set_aside_late(play, spec, active, plans[active[0].host.name][i][0], late)
                self._point(play, spec, [hs for hs in active if hs.active], plans, variables, window, i)
        self.progress.plan(spec.path, 0, None)  # a host that left the play leaves nothing to wait for

    def _set_aside_late(self, play: Play, spec: StepSpec, active: list[HostState], point: SweepPoint,
                        late: list[str]) -> None:
        """A late synchronised start: the point's results leave the run's figures and its artifacts go aside
        (``pointNNN-late-start``, kept for inspection) before the point runs once more."""
        names = {hs.host.name for hs in active}
        self.results = [r for r in self.results
                        if not (r.step == spec.path and r.point == point.index and r.host in names)]
        if self.record is not None:
            for hs in active:
                folder = self._artifacts(play, hs, spec, point)
                if folder.is_dir():
                    folder.rename(folder.with_name(f"{folder.name}-late-start"))
        if self.sync_log:
            self.sync_log[-1]["rerun"] = True
        self.console.warn(f"synchronised start: {', '.join(late)} started late: point {point.index + 1} of "
                          f"{spec.title} runs once more (sync_start: {{rerun_late: false}} keeps the first run)")

    def _point(self, play: Play, spec: StepSpec, active: list[HostState],
               plans: Mapping[str, list[tuple[SweepPoint, dict[str, Any]]]], variables: Mapping[str, Any],
               window: Any, i: int) -> list[str]:
        """Point ``i`` of a workload on ``active``; the hosts that started late under sync_start (else [])."""
        late: list[str] = []
        point0, args0 = plans[active[0].host.name][i]
        name0 = point_label(point0, {point0.index: self.console.point_name(spec.path, active[0].host.name,
                                                                             point0.index)})
        self.console.banner("TASK", f"{spec.title} : {name0}")
        # synchronised start across the play's hosts (e.g. RAC nodes): right before the measured command
        sync = SyncStart([hs.host.name for hs in active], self.clocks, play.sync_tolerance_ms) \
            if play.sync_start and len(active) > 1 else None

        def one(hs: HostState, i: int = i, sync: SyncStart | None = sync) -> StepResult:
            try:
                return one_point(hs, i, sync)
            finally:
                if sync is not None:
                    sync.leave(hs.host.name)

        def one_point(hs: HostState, i: int, sync: SyncStart | None) -> StepResult:
            point, args = plans[hs.host.name][i]
            workdir = f"{hs.workdir}/{slug(spec.path)}/point{point.index:03d}"

            def wrapped(ctx: StepContext, writes_db_report: bool, body: Callable[[], Any]) -> Any:
                # run_in_window empties (and makes) the point folder: every attempt starts from nothing
                ctx.point_dir, ctx.db_report = workdir, window.db_report or ""
                if sync is not None:
                    ctx.sync = sync.member(hs.host.name, ctx.conn)
                # a rehearsal's stand-ins finish at once, whatever run time the plan asks for: sample at 1 s
                stand_in = self.opts.simulated and not step_class(spec.kind).real_in_rehearsal
                expected = None if stand_in else win.expected_seconds(spec.kind, args)
                return win.run_in_window(ctx, window, workdir, writes_db_report, body, expected_s=expected)

            return run_step(spec, hs, args, variables[hs.host.name], self.settings, self.record,
                            self._artifacts(play, hs, spec, point), point=point, window=wrapped)

        started = time.monotonic()
        # every host of a synchronised play needs its own thread to meet at the barrier
        forks = len(active) if sync is not None else self.opts.forks
        self.console.live_start(live_text(self.progress, spec, name0.split(":")[0], started,
                                                win.expected_seconds(spec.kind, args0)))
        try:
            self._on_hosts(one, active, forks)
        finally:
            self.console.live_stop()
        self._save_results()
        if sync is not None:
            late = record_skew(self.sync_log, spec, point0, name0, sync, self.console, self.record)
        done_s = time.monotonic() - started
        self.progress.done(spec.path, done_s)
        self.console.line(f"progress: {spec.title} {name0.split(':')[0]} done in {done_s:.1f}s; "
                          f"about {duration(self.progress.left_s())} left in the run")
        return late

    def _cancel_all(self) -> None:
        for hs in self.states.values():
            if hs.conn is not None:
                hs.conn.cancel()

    def restore(self, play_name: str | None = None) -> None:
        """Revert saved prep in reverse order (all plays, or one): planner.engine.restore.revert_pending."""
        if not self.restore_log.pending(play_name):
            return
        self.phase = Phase.RESTORE

        def done(r: StepResult) -> None:
            self._add(r)
            self.console.result(r)

        revert_pending(self.restore_log, self.states, self.settings, self.record,
                       self.record.path if self.record else Path("."), self.console, done, play=play_name,
                       one_restart=True)  # one database restart per play (planner.engine.restarts)
        self._save_results()

    def _play(self, index: int, play: Play) -> None:
        hosts = self.play_hosts.get(play.name, ())
        self.console.banner("PLAY", play.name)
        specs = [s for s in play.steps if selected(s, play, self.opts)]
        batched = self._connect(hosts, lambda hs: self._batch(index, play, specs, hs))  # facts, lock and reads
        states = [self.states[h.name] for h in hosts]
        for hs in states:  # a failure in an earlier play does not bar the host from the next one
            hs.failed = False
        todo = [hs for hs in states if hs.active and self._work_left(play, hs)]
        if later := [hs for hs in todo if hs.host.name not in batched]:
            self.phase = Phase.PREP  # the play's reads, one round trip per host (planner.engine.probes)
            self._map(lambda hs: self._prepare(index, play, specs, hs), later)
        prepped = False
        for spec in [*specs, None]:  # None: the play's end
            if (spec is None or spec.section is not Section.PREP) and not prepped:
                prepped = True
                self._restart_after_prep(index, play, [s for s in states if s in todo])
            if spec is None:
                break
            if spec.section is Section.COLLECT and spec.kind in win.WINDOW_KINDS:
                continue  # these wrap each workload point (OS statistics, AWR/Statspack snapshots)
            live = [s for s in states if s.active and (spec.section is not Section.PREP or s in todo)]
            if not live:
                if any(s.active for s in states):
                    continue
                break
            self.phase = _PHASE_OF[spec.section]
            if spec.section is Section.WORKLOADS:
                self._workload(play, spec, live)
            else:
                self._simple_step(play, spec, live)
        if not (self.opts.keep_prep or play.keep_prep) and not self.opts.check:
            self.restore(f"plays[{index}]")
        probes.unwrap(states)

    def _work_left(self, play: Play, hs: HostState) -> bool:
        """--resume: whether the play still has a workload point or collect step to do on the host."""
        specs = [s for s in play.workloads + play.collect if selected(s, play, self.opts)
                 and s.kind not in win.WINDOW_KINDS]
        return self.previous is None or self.previous.work_left(hs.host.name, (
            (s.path, [p.index for p, _ in self._points(play, s, hs)] if s.section is Section.WORKLOADS else [None])
            for s in specs))

    def _plan_run_progress(self) -> None:
        """Every workload step's executions, before the first play: the ETA covers the whole run. A step whose
        arguments need the hosts' facts is counted when it starts."""
        for play in self.plan.plays:
            for spec in play.workloads:
                if not selected(spec, play, self.opts):
                    continue
                plans: dict[str, list[tuple[SweepPoint, dict[str, Any]]]] = {}
                for host in self.play_hosts.get(play.name, ()):
                    with contextlib.suppress(Exception):  # best effort: an estimate, never a failure
                        plans[host.name] = self._points(play, spec, HostState(host, None))
                if plans:
                    plan_progress(self.progress, self.previous, spec, plans, max(len(p) for p in plans.values()))

    def run(self) -> RunOutcome:
        self._open_record()
        if not self.opts.check:
            self._plan_run_progress()
        interrupted = ""
        with contextlib.ExitStack() as stack:
            try:
                for i, play in enumerate(self.plan.plays):
                    self._play(i, play)
            except KeyboardInterrupt:
                interrupted = self.phase.value
            finally:
                # From here on a second Ctrl-C/SIGTERM must not leave the hosts half restored.
                stack.enter_context(deferred_interrupts(self.console, bool(interrupted)))
                if interrupted:
                    self._cancel_all()
                    self.console.warn(f"interrupted during {interrupted}: restoring prep, keeping everything "
                                      "measured so far")
                    self.restore()
                if self.record is not None:
                    self._release_locks(self.record.id)
                for hs in self.states.values():
                    if hs.conn is not None:
                        hs.conn.close()
            stats = recap(self.results, [h for h in self.states])
            code = exit_code(stats, bool(interrupted))
            self.console.recap(stats)
            if self.record:
                self._save_results()
                lost = self._record_failures + self.record.write_errors
                if lost and code == 0:
                    code = ExitCode.FAILED  # the measurements are not all on disk: the run did not succeed
                    self.console.warn(f"the run record is incomplete ({len(lost)} write(s) failed): {lost[0]}")
                finish_record(self.record, {h: asdict(s) for h, s in stats.items()}, self.console.transcript,
                              int(code), interrupted)
            self.finished = True
        return RunOutcome(self.results, self.record, int(code), bool(interrupted))
