"""The runner: facts -> prep -> workloads -> collect -> restore prep, play by play, hosts in parallel.

Steps run in plan order (Ansible's linear strategy): a TASK runs on every active host of the play (up to
``forks`` at once) before the next begins, so two workloads never overlap on a host. A host that fails or
becomes unreachable takes no further steps in that play; the others go on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner import kindspec, signals
from planner.engine import hostlock, probes, restarts
from planner.engine import window as win
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, Generator, HostState, artifact_folder, run_step, spec_result
from planner.engine.interrupts import deferred_interrupts
from planner.engine.inventory_copy import snapshot_inventory
from planner.engine.options import _PHASE_OF, Connector, Phase, RunOptions, RunOutcome, selected
from planner.engine.point_progress import plan_progress
from planner.engine.pool import HostPool
from planner.engine.progress import Progress
from planner.engine.restore import RestoreLog, revert_pending
from planner.engine.resume import Previous, reopen_record
from planner.engine.runrecord import RunRecord, finish_record, open_record, utc_now
from planner.engine.runstate import PlayVars, ResultLog
from planner.host import Host
from planner.plan.model import Plan, Play, Section, StepSpec, SweepPoint
from planner.plan.templating import eval_when, render
from planner.status import ExitCode, Status, StepResult, exit_code, recap
from planner.steps import step_class
from planner.steps.base import reversible
from planner.steps.saved_state import RestoreEntry
from planner.transport import remote_procs as procs
from planner.variables import LOAD_GENERATOR_HOST

if TYPE_CHECKING:
    from planner.engine.workload import WorkloadLoop


class Runner:
    """One run of a plan: its record, its results and its plays' steps; the hosts are the pool's
    (planner.engine.pool), the workload steps the workload loop's (planner.engine.workload)."""

    def __init__(self, plan: Plan, play_hosts: Mapping[str, Sequence[Host]], opts: RunOptions,
                 console: Console, connector: Connector, previous: Previous | None = None) -> None:
        self.plan = plan
        self.play_hosts = play_hosts  # play name -> hosts, already selected (pattern & --limit)
        self.opts = opts
        self.console = console
        self._secret_files_said: set[str] = set()  # file names already warned of holding a secret
        self.previous = previous  # --resume: what the run being resumed recorded
        self.restore_log = RestoreLog(previous.restore if previous else ())  # written once the record is open
        self.record: RunRecord | None = None
        self.phase = Phase.START  # where an interrupt landed
        self.finished = False  # the record has its final status (what follows is the report)
        # the run's results; results.json appended to (a resumed run's: the file of the run it resumes)
        self.log = ResultLog(previous.results if previous else (), resumed=previous is not None, warn=console.warn)
        self.vars = PlayVars(plan, opts.extra_vars)  # each play's variables per host, resolved once
        self.progress = Progress()  # the workloads' executions left, for the ETA
        self.pool = HostPool(connector, console, forks=opts.forks, break_stale_lock=opts.break_stale_lock,
                             previous=previous, add=self.add, set_phase=self._set_phase)
        self.settings = ExecSettings(opts.check, opts.diff, plan.source.parent, plan.allow_destroy, opts.simulated)
        self._connecting = 0  # the play's hosts not connected yet; at 0, opts.when_connected (once)
        self._connected_lock = threading.Lock()
        self._connected_said = False
        self._workloads: WorkloadLoop | None = None  # made when the run starts, if a play has workload steps

    @property
    def workloads(self) -> WorkloadLoop:
        """The workload loop (planner.engine.workload, with the sweeps' previews and the synchronised start: five
        dataclasses and their modules), imported when a run has a workload step: a plan of prep and collect steps
        never loads it. run() makes it before the first play, so no interrupt can land inside its import."""
        if self._workloads is None:
            from planner.engine.workload import LoopContext, WorkloadLoop

            self._workloads = WorkloadLoop(LoopContext(self.settings, self.opts.forks, self.console, self.progress,
                                                       self.pool, self.vars, self.log, self.add, self.done,
                                                       self.previous))
        return self._workloads

    @property
    def results(self) -> list[StepResult]:
        return self.log.results

    # -- record ------------------------------------------------------------------------------------------
    def _open_record(self) -> None:
        if self.opts.check:
            return  # check mode touches nothing and records nothing, like ansible-playbook --check
        if self.previous is not None:
            self.record = reopen_record(self.previous, self.opts.secrets, list(self.opts.argv))
        else:
            self.record = open_record(self.opts.runs_dir, self.plan, self.play_hosts, argv=self.opts.argv,
                                      secrets=self.opts.secrets, simulated=self.opts.simulated,
                                      rehearsal_notes=self.opts.rehearsal_notes, world=self.opts.world)
            self.record.write_meta(cwd=os.getcwd(), pid=os.getpid())  # for --resume: relative paths in argv
            if self.opts.inventory_files:
                snapshot_inventory(self.record, self.opts.inventory, self.opts.inventory_files)
        self.restore_log.attach(self.record)
        self.log.record = self.record

    def save_results(self) -> None:
        """results.json on disk as the results so far (planner.engine.runstate.ResultLog)."""
        self.log.save()

    def _set_phase(self, phase: Phase) -> None:
        self.phase = phase

    def add(self, r: StepResult) -> None:
        if self.record is not None and r.artifacts:  # a fetched file holding a password is redacted too
            for path in self.record.scrub_artifacts([a.path for a in r.artifacts]):
                name = path.rsplit("/", 1)[-1]
                if name in self._secret_files_said:
                    continue  # SLOB's runit.log prints its connect string at every point: said once, listed all
                self._secret_files_said.add(name)
                self.console.warn(f"{path}: held a secret; replaced by ******** (noted in meta.json, with every "
                                  f"later {name} that holds one)")
        self.log.append(r)
        st = self.pool.states.get(r.host)
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
    def variables(self, play: Play, hs: HostState) -> dict[str, Any]:
        return self.vars.of(play, hs)

    def artifacts(self, play: Play, hs: HostState, spec: StepSpec, point: SweepPoint | None) -> Path:
        return artifact_folder(self.record, self.settings.plan_dir, play.name, hs.host.name, spec, point)

    def _simple_step(self, play: Play, spec: StepSpec, states: list[HostState]) -> None:
        self.console.banner("TASK", spec.title)

        def one(hs: HostState) -> StepResult:
            variables = self.variables(play, hs)
            if spec.when and not eval_when(spec.when, variables):
                return spec_result(spec, hs.host.name, Status.SKIPPED, "condition was false")
            args = render(dict(spec.args), variables)
            if self.record is not None:  # written once the step's hosts are noted (below)
                self.record.note_resolved(play.name, hs.host.name, spec.path, {"title": spec.title, "kind": spec.kind,
                                                                             "args": args}, write=False)
            return run_step(spec, hs, args, variables, self.settings, self.record,
                            self.artifacts(play, hs, spec, None), on_save=self._on_save)

        try:
            self.pool.on_hosts(one, [s for s in states if s.active and not self.done(hs=s, spec=spec)], self.opts.forks)
        finally:
            if self.record is not None:  # the step's hosts' arguments, in one write (also when interrupted)
                self.record.note_resolved(play.name, "", spec.path, None)
        if spec.section is not Section.PREP:  # prep results go with the next point's write: restore.json,
            self.save_results()  # written before each change, is what a killed run is restored from

    def _restart_after_prep(self, index: int, play: Play, states: list[HostState]) -> None:
        """The play's one database restart for the static parameters its init_ora steps deferred."""
        todo = None if self.opts.check else restarts.after_prep(
            index, play, states, self.results, lambda hs: self.variables(play, hs), self.settings, self.record,
            self.record.path if self.record else self.settings.plan_dir)
        if todo:
            self.console.banner("TASK", restarts.TITLE_PREP)
            self.pool.on_hosts(todo[1], todo[0], self.opts.forks)  # recorded with the next point, as prep is

    def done(self, hs: HostState, spec: StepSpec, point: int | None = None) -> bool:
        """--resume: this step (or point) completed on the host in the run being resumed (prep runs again)."""
        done = self.previous is not None and spec.section is not Section.PREP and self.previous.is_done(
            hs.host.name, spec.path, point)
        if done:
            name = "" if point is None else " " + self.console.point_name(spec.path, hs.host.name, point)
            self.console.line(f"skipping: [{hs.host.name}] {spec.title}{name}: done before the resume")
        return done

    def restore(self, play_name: str | None = None) -> None:
        """Revert saved prep in reverse order (all plays, or one): planner.engine.restore.revert_pending."""
        if not self.restore_log.pending(play_name):
            return
        self.phase = Phase.RESTORE

        def done(r: StepResult) -> None:
            self.add(r)
            self.console.result(r)

        revert_pending(self.restore_log, self.pool.states, self.settings, self.record,
                       self.record.path if self.record else Path("."), self.console, done, play=play_name,
                       one_restart=True)  # one database restart per play (planner.engine.restarts)
        self.save_results()

    def _play(self, index: int, play: Play) -> None:
        hosts = self.play_hosts.get(play.name, ())
        self.console.banner("PLAY", play.name)
        specs = [s for s in play.steps if selected(s, play, self.opts)]
        # facts, lock and reads
        with self._connected_lock:
            self._connecting = sum(1 for h in hosts if h.name not in self.pool.states)
        batched = self.pool.connect(hosts, self.record, lambda hs: self._batch(index, play, specs, hs, connected=True))
        states = [self.pool.states[h.name] for h in hosts]
        for hs in states:  # a failure in an earlier play does not bar the host from the next one
            hs.failed = False
        self._generators(play, specs, states)
        todo = [hs for hs in states if hs.active and self._work_left(play, hs)]
        if later := [hs for hs in todo if hs.host.name not in batched]:
            self.phase = Phase.PREP  # the play's reads, one round trip per host (planner.engine.probes)
            self.pool.map(lambda hs: self._prepare(index, play, specs, hs), later)
        prepped = False
        for spec in [*specs, None]:  # None: the play's end
            if (spec is None or spec.section is not Section.PREP) and not prepped:
                prepped = True
                self._restart_after_prep(index, play, [s for s in states if s in todo])
            if spec is None:
                break
            signals.raise_pending()  # a Ctrl-C Python swallowed stops the play before its next step
            if spec.section is Section.COLLECT and spec.kind in win.WINDOW_KINDS:
                continue  # these wrap each workload point (OS statistics, AWR/Statspack snapshots)
            live = [s for s in states if s.active and (spec.section is not Section.PREP or s in todo)]
            if not live:
                if any(s.active for s in states):
                    continue
                break
            self.phase = _PHASE_OF[spec.section]
            if spec.section is Section.WORKLOADS:
                self.workloads.step(play, spec, live)
            else:
                self._simple_step(play, spec, live)
        if not (self.opts.keep_prep or play.keep_prep) and not self.opts.check:
            self.restore(f"plays[{index}]")
        probes.unwrap(states)

    def _generators(self, play: Play, specs: Sequence[StepSpec], states: Sequence[HostState]) -> None:
        """The client hosts the play's database hosts name as ``load_generator_host`` for a step whose kind names
        a load generator: connected, their facts read and locked like any host (no batch: they take no steps),
        released with the run's other locks. A database host whose client cannot be used takes no steps in the
        play: its load would otherwise be generated where the inventory says it is not."""
        # only the kinds the play names (as planner.plan.check): kindspec.oltp() read every kind's spec, ten
        # modules, on the main thread once the hosts are connected, for plans that name no load generator
        wanted = any((k := kindspec.spec(s.kind)) is not None and k.oltp is not None and k.oltp.generator
                     for s in specs)
        names = {hs.host.name for hs in states}
        clients: dict[str, str] = {}  # database host -> client host
        for hs in states:
            name = str(self.variables(play, hs).get(LOAD_GENERATOR_HOST.name) or "").strip() if wanted else ""
            hs.generator = None
            if name and name != hs.host.name:
                clients[hs.host.name] = name
        self.pool.connect([self.opts.clients[c] for c in sorted(set(clients.values()))
                           if c in self.opts.clients and c not in names], self.record)
        shared = {c for c in clients.values() if list(clients.values()).count(c) > 1}
        for hs in states:
            name = clients.get(hs.host.name, "")
            client = self.pool.states.get(name) if name not in names and name not in shared else None
            if not name or (client is not None and client.active):
                if client is not None:
                    gen_hs = HostState(client.host, None)  # its variables in this play, as its own step's
                    hs.generator = Generator(client, self.vars.of(play, gen_hs) | {"planner_facts": client.facts})
                continue
            why = "a host of the play itself" if name in names else "the load generator of two database hosts " \
                "(their users would share its CPU)" if name in shared else \
                client.blocked or "unreachable" if client is not None else \
                "the rehearsal did not simulate it" if self.opts.simulated else "not in the inventory"
            r = StepResult("connect", "load generator host", hs.host.name, Status.FAILED,
                           f"its load generator host {name} cannot be used ({why}): no steps on {hs.host.name} in "
                           "this play, rather than generate the load where the inventory says it does not run",
                           started=utc_now())
            self.add(r)
            self.console.result(r)
            hs.failed = True

    def _batch(self, index: int, play: Play, specs: Sequence[StepSpec], hs: HostState,
               connected: bool = False) -> probes.Batch:
        """What the host's one exec for the play asks (planner.engine.probes); it may release the lock when
        this is the host's last play and nothing after its steps needs the host (no prep to restore)."""
        later = any(hs.host.name in {h.name for h in self.play_hosts.get(p.name, ())}
                    for p in self.plan.plays[index + 1:])
        restores = not (self.opts.keep_prep or play.keep_prep) and any(
            reversible(step_class(s.kind)) is not None for s in specs)
        may_end = self.record is not None and self.previous is None and not later and not restores
        if connected:  # by pool.connect, the host just connected
            self._host_connected()
        return probes.plan(hs, [s for s in specs if not (s.section is Section.COLLECT and s.kind in win.WINDOW_KINDS)],
                           self.variables(play, hs), self.settings, reads_only=self.previous is not None,
                           may_end=may_end)

    def _host_connected(self) -> None:
        """The last of the first connecting play's hosts is connected (its exec about to go out): the handshakes'
        CPU is behind, what is left is the hosts' work and the network's wait (opts.when_connected)."""
        with self._connected_lock:
            self._connecting -= 1
            if self._connecting > 0 or self._connected_said or self.opts.when_connected is None:
                return
            self._connected_said = True
        self.opts.when_connected()

    def _prepare(self, index: int, play: Play, specs: Sequence[StepSpec], hs: HostState) -> None:
        b = self._batch(index, play, specs, hs)
        lock = ("", "", "")
        if b.release and self.record is not None and hs in self.pool.locked:
            lock = (hostlock.lock_path(str(hs.host.vars.get("planner_root", "") or ""), hs.host), "",
                    procs.running_dir(hs.workdir))
        raw = hs.conn.inner if isinstance(hs.conn, procs.TrackedConnection) else hs.conn
        run_id = self.record.id if self.record else ""
        probes.prepare(hs, b if lock[0] or not b.release else dataclasses.replace(b, release=False), self.record,
                       lock, relock=lambda: hostlock.relock(hs, raw, run_id) if raw is not None else None)

    def _work_left(self, play: Play, hs: HostState) -> bool:
        """--resume: whether the play still has a workload point or collect step to do on the host."""
        specs = [s for s in play.workloads + play.collect if selected(s, play, self.opts)
                 and s.kind not in win.WINDOW_KINDS]
        return self.previous is None or self.previous.work_left(hs.host.name, (
            (s.path,
             [p.index for p, _ in self.workloads.points(play, s, hs)] if s.section is Section.WORKLOADS else [None])
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
                        plans[host.name] = self.workloads.points(play, spec, HostState(host, None))
                if plans:
                    plan_progress(self.progress, self.previous, spec, plans, max(len(p) for p in plans.values()))

    def _done_with(self, hs: HostState, interrupted: bool) -> bool:
        """Whether the run leaves nothing on the host for later: not interrupted, and its prep there restored
        (or none). Otherwise its work folder stays for `planner restore`, which stops what a point there may
        have left running (the OS samplers' records live in the point folders)."""
        return not interrupted and not any(e.host == hs.host.name for e in self.restore_log.pending())

    def _stop(self, why: str) -> None:
        """A run stopped before its end (an interrupt, or a bug on the controller): what runs on the hosts is
        stopped, and their prep put back. A bug inside the restore itself leaves its entries pending (their
        work folders kept for `planner restore`) and the locks are still released after it."""
        self.pool.cancel_all()
        self.console.warn(f"{why}: restoring prep, keeping everything measured so far")
        try:
            self.restore()
        except Exception as e:  # noqa: BLE001 - the locks and the record come next, whatever happened here
            self.console.warn(f"restore stopped by an internal error ({type(e).__name__}: {e}); what is not "
                              f"restored is restored by: planner restore {self.record.id if self.record else 'RUN'}")

    def _name_kept(self, stopped: bool, why_stopped: str = "the run was interrupted") -> None:
        """The work folders a run leaves on its hosts are named: each is kept for `planner restore` (the others
        went with their locks)."""
        assert self.record is not None
        for hs in self.pool.locked:
            if hs.conn is not None and not self._done_with(hs, stopped):
                left = sorted({e.title or e.kind for e in self.restore_log.pending() if e.host == hs.host.name})
                why = (why_stopped if stopped else
                       f"prep not put back there: {', '.join(left)}")
                self.console.line(f"work folder kept on {hs.host.name}: {hostlock.run_workdir(hs, self.record.id)} "
                                  f"({why}; kept for planner restore {self.record.id})")

    def run(self) -> RunOutcome:
        self._open_record()
        if any(play.workloads for play in self.plan.plays):
            _ = self.workloads  # its modules imported now, before the plays: no interrupt lands inside the import
        if not self.opts.check:
            self._plan_run_progress()
        interrupted = ""
        bug: Exception | None = None  # an exception nobody foresaw, raised again once the hosts are put back
        with contextlib.ExitStack() as stack:
            try:
                for i, play in enumerate(self.plan.plays):
                    self._play(i, play)
            except KeyboardInterrupt:
                signals.acknowledged()
                interrupted = self.phase.value
            except Exception as e:  # a bug on the controller: the hosts get what an interrupt gives them
                bug = e
            finally:
                # From here on a second Ctrl-C/SIGTERM must not leave the hosts half restored.
                stopped = bool(interrupted) or bug is not None
                stack.enter_context(deferred_interrupts(self.console, stopped))
                if stopped:
                    self._stop(f"interrupted during {interrupted}" if interrupted else
                               f"internal error during {self.phase.value} ({type(bug).__name__}: {bug})")
                if self.record is not None:
                    self.pool.release(self.record.id, lambda hs: self._done_with(hs, stopped))
                    self._name_kept(stopped, "the run was interrupted" if interrupted else
                                    "the run stopped on an internal error")
                self.pool.close()
            stats = recap(self.results, [h for h in self.pool.states])
            died = signals.take_thread_bugs()  # a helper thread's bug (planner.signals): the run's, as its own are
            for what in died:
                self.console.warn(f"{what} ended on an internal error (said above): the run ends as error (exit "
                                  "code 250)")
            code = ExitCode.UNEXPECTED if bug is not None or died else exit_code(stats, bool(interrupted))
            self.console.recap(stats)
            if self.record:
                self.log.save(final=True)
                lost = self.log.failures + self.record.write_errors
                if lost and code == 0:
                    code = ExitCode.FAILED  # the measurements are not all on disk: the run did not succeed
                    self.console.warn(f"the run record is incomplete ({len(lost)} write(s) failed): {lost[0]}")
                finish_record(self.record, {h: asdict(s) for h, s in stats.items()}, self.console.transcript,
                              code, interrupted)
            self.finished = True
        if bug is not None:  # the CLI says it (exit 250); the hosts are back and the record is final
            if self.record is not None:
                self.console.line(f"\nrun record: {self.record.path} (everything measured before the error)")
            raise bug
        return RunOutcome(self.results, self.record, code, bool(interrupted))

