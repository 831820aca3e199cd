"""The run's hosts: their states, connecting them (facts with the lock tried in the same round trip, with the
play's batched reads, planner.engine.probes), the run's locks, one function on many hosts at once (up to
``forks``), cancelling what runs there, and releasing them at the end."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from planner.engine import batch, hostlock, probes
from planner.engine.console import Console
from planner.engine.execute import HostState
from planner.engine.fanout import on_hosts, workers
from planner.engine.options import Connector, Phase
from planner.engine.resume import Previous, controller_pids
from planner.engine.runrecord import RunRecord, utc_now
from planner.host import Host
from planner.status import Status, StepResult
from planner.transport import remote_procs as procs
from planner.transport.connection import Connection

if TYPE_CHECKING:  # loaded when hosts first run at once (planner.engine.fanout)
    from concurrent.futures import ThreadPoolExecutor

_T = TypeVar("_T")


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
        self._executor: ThreadPoolExecutor | None = None  # the run's worker threads (_shared)
        self._guard = threading.Lock()  # self.locked, appended to by the hosts' workers while they connect

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
        self._set_phase(Phase.FACTS)
        started = self.map(lambda h: self._start(h, record, plan), new)  # each host's own thread connects it
        # and runs its exec at once (as a bare script would): a host never waits for the slowest handshake
        for h in new:  # host order, whatever order they connected in
            self.states[h.name] = self.states.pop(h.name)
        if record is not None:
            order = {h.name: i for i, h in enumerate(hosts)}
            self.locked.sort(key=lambda s: order.get(s.host.name, -1))
        for h, (_, failed, _, _) in zip(new, started, strict=True):
            if failed is not None:
                self._report(StepResult("connect", "connect", h.name, Status.UNREACHABLE, failed, started=utc_now()))
        fresh = [hs for hs, failed, _, _ in started if failed is None]
        if not fresh:
            return set()
        self._console.banner("TASK", "Gathering Facts")
        batches = {hs.host.name: b for hs, failed, b, _ in started if failed is None}
        replies: dict[str, str | None] = {}
        got: dict[str, batch.Reply] = {}
        for hs, _, _, (r, reply, b) in (x for x in started if x[1] is None):
            replies[hs.host.name] = reply
            if b is not None:
                got[hs.host.name] = b
            self._report(r)
        if record is None:
            return self._wrap(fresh, batches, got, "")
        # unreachable: as before; refused at its facts (a program missing): the lock its exec took is released
        self.locked = [s for s in self.locked if s.active or s.blocked or s not in fresh]
        taking = [s for s in fresh if s.active]
        self._take(taking, record.id, replies)
        record.write_meta(remote={**record.meta.get("remote", {}), **hostlock.remote_meta(self.locked)})
        return self._wrap([hs for hs in taking if hs in self.locked], batches, got, record.id)

    def _start(self, h: Host, record: RunRecord | None, plan: Callable[[HostState], probes.Batch] | None
               ) -> tuple[HostState, str | None, probes.Batch | None, Any]:
        """One host in its worker: connect, then facts (with the lock tried, and the play's batch) in one exec:
        (its state, the connect error or None, its batch, what start_host returned)."""
        c = self._connector([h]).get(h.name)
        if not isinstance(c, Connection):
            self.states[h.name] = HostState(h, None, unreachable=True)
            return self.states[h.name], str(c), None, None
        hs = self.states[h.name] = HostState(h, c)
        if record is not None:  # the lock is tried in the facts' round trip: released even if interrupted
            with self._guard:
                self.locked.append(hs)
        b = plan(hs) if plan is not None else None
        return hs, None, b, hostlock.start_host(hs, record, b)

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
    def map(self, fn: Callable[[_T], Any], states: Sequence[_T]) -> list[Any]:
        """``fn`` on each host, ``forks`` at once: what each returned, in host order."""
        if len(states) <= 1:
            return [fn(s) for s in states]
        from concurrent.futures import wait  # here: see planner.engine.fanout

        with workers(self._shared(self._forks, len(states)), max(1, min(self._forks, len(states)))) as pool:
            futures = [pool.submit(fn, s) for s in states]
            try:
                return [f.result() for f in futures]
            except KeyboardInterrupt:
                self.cancel_all()  # so the worker threads' remote commands end and the pool can close
                raise
            finally:
                for f in futures:  # as Executor.map: after a failure, a host not started yet is not started
                    f.cancel()
                wait(futures)

    def _shared(self, forks: int, n: int) -> ThreadPoolExecutor | None:
        """The run's worker threads, started once and kept for every step: a pool per step started ``forks``
        threads each time, each start waiting for the GIL among the SSH transports' threads (~5 ms each at 30
        hosts). Only for the main thread (a worker waiting on its own pool could deadlock it) and only when the
        call's limit is the run's: then the shared threads run exactly as many at once."""
        if threading.current_thread() is not threading.main_thread() or min(forks, n) != min(self._forks, n):
            return None
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor

            self._executor = ThreadPoolExecutor(max_workers=max(1, self._forks), thread_name_prefix="host")
        return self._executor

    def on_hosts(self, fn: Callable[[HostState], StepResult], states: Sequence[HostState], forks: int) -> None:
        """A step on each host (planner.engine.fanout): each result recorded and shown as it comes."""
        on_hosts(fn, states, forks, self._report, self.cancel_all, self._shared(forks, len(states)),
                 self._console.held)

    def cancel_all(self) -> None:
        for hs in list(self.states.values()):  # hosts may still be connecting in their workers
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
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
