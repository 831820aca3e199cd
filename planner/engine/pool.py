"""The run's hosts: their states, connecting them (facts with the lock tried in the same round trip, with the
play's batched reads, planner.engine.probes), the run's locks, one function on many hosts at once (up to
``forks``), cancelling what runs there, and releasing them at the end."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from planner.engine import batch, hostlock, probes
from planner.engine.console import Console
from planner.engine.execute import HostState
from planner.engine.fanout import on_hosts
from planner.engine.options import Connector, Phase
from planner.engine.resume import Previous, controller_pids
from planner.engine.runrecord import RunRecord, utc_now
from planner.host import Host
from planner.status import Status, StepResult
from planner.transport import remote_procs as procs
from planner.transport.connection import Connection


class HostPool:
    """Every host the run has connected, by inventory name, and the ones whose lock this run holds."""

    def __init__(self, connector: Connector, console: Console, *, forks: int, break_stale_lock: bool,
                 previous: Previous | None, add: Callable[[StepResult], None],
                 set_phase: Callable[[Phase], None]) -> None:
        self.states: dict[str, HostState] = {}
        self.locked: list[HostState] = []  # released at the end, also when interrupted
        self._connector = connector
        self._console = console
        self._forks = forks
        self._break_stale = break_stale_lock
        self._previous = previous  # --resume: the run being resumed (its dead controllers' locks)
        self._add = add  # the run's results: a host's state follows what its steps ended as
        self._set_phase = set_phase  # where an interrupt lands

    def _report(self, r: StepResult) -> None:
        self._add(r)
        self._console.result(r)

    # -- connect -------------------------------------------------------------------------------------------
    def connect(self, hosts: Sequence[Host], record: RunRecord | None,
                plan: Callable[[HostState], probes.Batch] | None = None) -> set[str]:
        """Connect the hosts not connected yet, facts and lock in one exec each, with ``plan``'s batch of the
        play's reads (planner.engine.probes) in it too; returns the hosts whose batch ran there."""
        new = [h for h in hosts if h.name not in self.states]
        if not new:
            return set()
        conns = self._connector(new)
        for h in new:
            c = conns.get(h.name)
            if isinstance(c, Connection):
                self.states[h.name] = HostState(h, c)
            else:
                self.states[h.name] = HostState(h, None, unreachable=True)
                r = StepResult("connect", "connect", h.name, Status.UNREACHABLE, str(c), started=utc_now())
                self._report(r)
        fresh = [self.states[h.name] for h in new if self.states[h.name].active]
        if not fresh:
            return set()
        self._set_phase(Phase.FACTS)
        self._console.banner("TASK", "Gathering Facts")
        if record is not None:  # the lock is tried in the facts' round trip: released even if interrupted
            self.locked += fresh
        batches = {hs.host.name: plan(hs) if plan is not None else None for hs in fresh}
        replies, got = self._gather(fresh, record, batches)
        if record is None:
            return self._wrap(fresh, batches, got, "")
        self.locked = [s for s in self.locked if s.active or s not in fresh]  # unreachable: as before
        taking = [s for s in fresh if s.active]
        self._take(taking, record.id, replies)
        record.write_meta(remote={**record.meta.get("remote", {}), **hostlock.remote_meta(self.locked)})
        return self._wrap([hs for hs in taking if hs in self.locked], batches, got, record.id)

    def _gather(self, fresh: Sequence[HostState], record: RunRecord | None,
                batches: Mapping[str, probes.Batch | None]) -> tuple[dict[str, str | None], dict[str, batch.Reply]]:
        """Facts (and the lock's first try, and the batch) on each fresh host: (the lock's replies, the batches'
        replies). Check mode (no record) takes no lock."""
        replies: dict[str, str | None] = {}
        got: dict[str, batch.Reply] = {}
        for hs, (r, reply, b) in zip(fresh, self.map(lambda hs: hostlock.start_host(
                hs, record, batches[hs.host.name]), fresh), strict=True):
            replies[hs.host.name] = reply
            if b is not None:
                got[hs.host.name] = b
            self._report(r)
        return replies, got

    def _take(self, taking: Sequence[HostState], run_id: str, replies: Mapping[str, str | None]) -> None:
        dead = controller_pids(self._previous.meta) if self._previous else None  # --resume: its controllers

        def take(hs: HostState) -> tuple[StepResult | None, str, bool]:
            return hostlock.take_host(hs, run_id, break_stale=self._break_stale, resumes_pids=dead,
                                      reply=replies.get(hs.host.name))

        for hs, (r, note, locked) in zip(taking, self.map(take, taking), strict=True):
            if not locked:  # another run's lock: never ours to release
                self.locked.remove(hs)
            if note:
                self._console.warn(f"{hs.host.name}: {note}")
            if r is not None:
                self._report(r)

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

    # -- many hosts at once --------------------------------------------------------------------------------
    def map(self, fn: Callable[[HostState], Any], states: Sequence[HostState]) -> list[Any]:
        """``fn`` on each host, ``forks`` at once: what each returned, in host order."""
        if len(states) <= 1:
            return [fn(s) for s in states]
        with ThreadPoolExecutor(max_workers=max(1, min(self._forks, len(states)))) as pool:
            try:
                return list(pool.map(fn, states))
            except KeyboardInterrupt:
                self.cancel_all()  # so the worker threads' remote commands end and the pool can close
                raise

    def on_hosts(self, fn: Callable[[HostState], StepResult], states: Sequence[HostState], forks: int) -> None:
        """A step on each host (planner.engine.fanout): each result recorded and shown as it comes."""
        on_hosts(fn, states, forks, self._report, self.cancel_all)

    def cancel_all(self) -> None:
        for hs in self.states.values():
            if hs.conn is not None:
                hs.conn.cancel()

    # -- the end -------------------------------------------------------------------------------------------
    def release(self, run_id: str, clean: Callable[[HostState], bool] = lambda hs: False) -> None:
        """The run's locks: one round trip per host, all hosts at once (one after the other cost ~30 ms x N at
        the end of a run); on the hosts ``clean`` says are done with, the run's work folder goes too."""
        for warning in self.map(lambda hs: hostlock.release_host(hs, run_id, clean=clean(hs)),
                                [hs for hs in self.locked if hs.conn is not None and not hs.released]):
            if warning:
                self._console.warn(warning)

    def close(self) -> None:
        for hs in self.states.values():
            if hs.conn is not None:
                hs.conn.close()
