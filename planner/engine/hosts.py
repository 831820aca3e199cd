"""The runner's hosts: connecting, gathering facts with the lock tried in the same round trip (with the play's
batched reads, planner.engine.probes), taking and releasing the run's locks, and running one function on many
hosts at once (up to ``forks``)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from planner.engine import batch, hostlock, probes
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState
from planner.engine.options import Connector, Phase, RunOptions
from planner.engine.resume import Previous, controller_pids
from planner.engine.runrecord import RunRecord, utc_now
from planner.engine.window import WINDOW_KINDS
from planner.host import Host
from planner.plan.model import Plan, Play, Section, StepSpec
from planner.status import Status, StepResult
from planner.steps import step_class
from planner.transport import remote_procs as procs
from planner.transport.connection import Connection


class HostsMixin:
    """Part of planner.engine.runner.Runner, kept in its own file (the runner sets these in __init__)."""

    states: dict[str, HostState]
    connector: Connector
    console: Console
    record: RunRecord | None
    previous: Previous | None
    opts: RunOptions
    phase: Phase
    _locked: list[HostState]

    plan: Plan
    play_hosts: Mapping[str, Sequence[Host]]
    settings: ExecSettings

    def _add(self, r: StepResult) -> None:
        raise NotImplementedError  # Runner._add

    def _variables(self, play: Play, hs: HostState) -> dict[str, Any]:
        raise NotImplementedError  # Runner._variables

    def _cancel_all(self) -> None:
        raise NotImplementedError  # Runner._cancel_all

    # -- hosts ---------------------------------------------------------------------------------------------
    def _connect(self, hosts: Sequence[Host], plan: Callable[[HostState], probes.Batch] | None = None) -> set[str]:
        """Connect the hosts not connected yet, facts and lock in one exec each, with ``plan``'s batch of the
        play's reads (planner.engine.probes) in it too; returns the hosts whose batch ran there."""
        new = [h for h in hosts if h.name not in self.states]
        if not new:
            return set()
        conns = self.connector(new)
        for h in new:
            c = conns.get(h.name)
            if isinstance(c, Connection):
                self.states[h.name] = HostState(h, c)
            else:
                self.states[h.name] = HostState(h, None, unreachable=True)
                r = StepResult("connect", "connect", h.name, Status.UNREACHABLE, str(c), started=utc_now())
                self._add(r)
                self.console.result(r)
        fresh = [self.states[h.name] for h in new if self.states[h.name].active]
        if not fresh:
            return set()
        self.phase = Phase.FACTS
        self.console.banner("TASK", "Gathering Facts")
        if self.record is not None:  # the lock is tried in the facts' round trip: released even if interrupted
            self._locked += fresh
        replies: dict[str, str | None] = {}  # host -> the lock's reply (with a run record; check mode takes none)
        batches = {hs.host.name: plan(hs) if plan is not None else None for hs in fresh}
        got: dict[str, batch.Reply] = {}
        for hs, (r, reply, b) in zip(fresh, self._map(lambda hs: hostlock.start_host(
                hs, self.record, batches[hs.host.name]), fresh), strict=True):
            replies[hs.host.name] = reply
            if b is not None:
                got[hs.host.name] = b
            self._add(r)
            self.console.result(r)
        if self.record is None:
            return self._wrap(fresh, batches, got, "")
        self._locked = [s for s in self._locked if s.active or s not in fresh]  # unreachable: as before
        run_id, taking = self.record.id, [s for s in fresh if s.active]
        dead = controller_pids(self.previous.meta) if self.previous else None  # --resume: its controllers

        def take(hs: HostState) -> tuple[StepResult | None, str, bool]:
            return hostlock.take_host(hs, run_id, break_stale=self.opts.break_stale_lock, resumes_pids=dead,
                                      reply=replies.get(hs.host.name))

        for hs, (r, note, locked) in zip(taking, self._map(take, taking), strict=True):
            if not locked:  # another run's lock: never ours to release
                self._locked.remove(hs)
            if note:
                self.console.warn(f"{hs.host.name}: {note}")
            if r is not None:
                self._add(r)
                self.console.result(r)
        self.record.write_meta(remote={**self.record.meta.get("remote", {}), **hostlock.remote_meta(self._locked)})
        return self._wrap([hs for hs in taking if hs in self._locked], batches, got, run_id)

    def _wrap(self, states: Sequence[HostState], batches: Mapping[str, probes.Batch | None],
              got: Mapping[str, batch.Reply], run_id: str) -> set[str]:
        """Each host's connection answers its batched reads; one whose lock the exec released takes it again
        before anything else goes to the host."""
        done = set()
        for hs in states:
            b, reply = batches.get(hs.host.name), got.get(hs.host.name)
            if b is None or reply is None or not hs.active or hs.conn is None:
                continue
            raw = hs.conn.inner if isinstance(hs.conn, procs.TrackedConnection) else hs.conn
            probes.wrap(hs, b, reply, functools.partial(hostlock.relock, hs, raw, run_id))
            done.add(hs.host.name)
        return done

    def _batch(self, index: int, play: Play, specs: Sequence[StepSpec], hs: HostState) -> probes.Batch:
        """What the host's one exec for the play asks (planner.engine.probes); it may release the lock when
        this is the host's last play and nothing after its steps needs the host (no prep to restore)."""
        later = any(hs.host.name in {h.name for h in self.play_hosts.get(p.name, ())}
                    for p in self.plan.plays[index + 1:])
        restores = not (self.opts.keep_prep or play.keep_prep) and any(
            step_class(s.kind).reversible for s in specs)
        may_end = self.record is not None and self.previous is None and not later and not restores
        return probes.plan(hs, [s for s in specs if not (s.section is Section.COLLECT and s.kind in WINDOW_KINDS)],
                           self._variables(play, hs), self.settings, reads_only=self.previous is not None,
                           may_end=may_end)

    def _prepare(self, index: int, play: Play, specs: Sequence[StepSpec], hs: HostState) -> None:
        b = self._batch(index, play, specs, hs)
        lock = ("", "", "")
        if b.release and self.record is not None and hs in self._locked:
            lock = (hostlock.lock_path(str(hs.host.vars.get("planner_root", "") or ""), hs.host), "",
                    procs.running_dir(hs.workdir))
        raw = hs.conn.inner if isinstance(hs.conn, procs.TrackedConnection) else hs.conn
        run_id = self.record.id if self.record else ""
        probes.prepare(hs, b if lock[0] or not b.release else dataclasses.replace(b, release=False), self.record,
                       lock, relock=lambda: hostlock.relock(hs, raw, run_id) if raw is not None else None)

    def _release_locks(self, run_id: str) -> None:
        # One round trip per host, all hosts at once (one after the other cost ~30 ms x N at the end of a run).
        for warning in self._map(lambda hs: hostlock.release_host(hs, run_id),
                                 [hs for hs in self._locked if hs.conn is not None and not hs.released]):
            if warning:
                self.console.warn(warning)

    def _map(self, fn: Callable[[HostState], Any], states: Sequence[HostState]) -> list[Any]:
        if len(states) <= 1:
            return [fn(s) for s in states]
        with ThreadPoolExecutor(max_workers=max(1, min(self.opts.forks, len(states)))) as pool:
            try:
                return list(pool.map(fn, states))
            except KeyboardInterrupt:
                self._cancel_all()  # so the worker threads' remote commands end and the pool can close
                raise
