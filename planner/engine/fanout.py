"""One step (or one workload point) on many hosts at once, in worker threads, interrupt-safe.

Always in worker threads, even for one host: on Ctrl-C/SIGTERM the main thread cancels the remote
commands, the workers' steps return their (interrupted) results, and those are recorded before the
interrupt goes on. The results land in the record whichever way the step ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from planner.engine.execute import HostState
from planner.status import StepResult

if TYPE_CHECKING:  # concurrent.futures (and the logging it imports, ~7 ms) loads when a step first fans out: a
    # run's first host command (its lock, on the main thread for one host) goes before it
    from concurrent.futures import Future, ThreadPoolExecutor


@contextlib.contextmanager
def workers(shared: ThreadPoolExecutor | None, n: int) -> Iterator[ThreadPoolExecutor]:
    """``shared`` (the run's threads, started once) when given, else ``n`` threads of their own. The caller waits
    for every future it submitted before leaving, as leaving a pool of its own would."""
    if shared is not None:
        yield shared
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=n) as pool:
        yield pool


def on_hosts(fn: Callable[[HostState], StepResult], states: Sequence[HostState], forks: int,
             record: Callable[[StepResult], None], cancel_all: Callable[[], None],
             shared: ThreadPoolExecutor | None = None,
             together: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext) -> None:
    """Run ``fn`` on each host (``forks`` at once); ``record`` each result in host order as it comes.
    ``shared``: an executor whose worker count is that same limit, to use instead of starting threads.
    ``together``: held around the results recorded at once (those ready when one arrives: the console writes
    their lines in one go)."""
    if not states:
        return
    from concurrent.futures import wait

    with workers(shared, max(1, min(forks, len(states)))) as pool:
        futures = [pool.submit(fn, hs) for hs in states]
        recorded = 0
        try:
            while recorded < len(futures):
                futures[recorded].result()  # waited for outside the block: a line never waits on a host
                with together():
                    while recorded < len(futures) and futures[recorded].done():
                        record(futures[recorded].result())
                        recorded += 1
        except KeyboardInterrupt:
            cancel_all()  # stop the remote commands; the worker threads then end quickly
            wait(futures, timeout=60)
            _record_finished(futures[recorded:], record)
            raise
        except Exception:  # a bug in one host's worker: the others ran their step, and what they measured is kept
            wait(futures)
            _record_finished(futures[recorded + 1:], record)
            raise
        finally:
            wait(futures)


def _record_finished(futures: Sequence[Future[StepResult]], record: Callable[[StepResult], None]) -> None:
    """The results of the hosts that finished their step, after the fan-out was cut short on another host."""
    for f in futures:
        if f.done() and not f.cancelled() and f.exception() is None:
            record(f.result())
