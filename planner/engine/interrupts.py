"""Ctrl-C and SIGTERM while planner cleans up after an interrupt: noted, not obeyed (a third one is).

The first interrupt stops the remote work; then prep is restored and the record finished. A second signal
arriving then (an impatient Ctrl-C, a service manager's repeated SIGTERM) would leave hosts half restored,
so it only prints a warning. A third abandons the clean-up: the hosts then need ``planner restore RUN``.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from planner.engine.console import Console

ABANDON_AFTER = 3  # signals in all, counting the first one that started the clean-up


@contextlib.contextmanager
def deferred_interrupts(console: Console, interrupted: bool = True) -> Iterator[None]:
    """Hold off Ctrl-C/SIGTERM while the hosts are restored and the record finished.

    ``interrupted``: this clean-up follows an interrupt (a third signal abandons it). Otherwise (a run
    ending normally) a signal received meanwhile is raised as KeyboardInterrupt once the record is final.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; workers never see signals anyway
        return
    count = 1 if interrupted else 0

    def handler(signum: int, frame: Any) -> None:
        nonlocal count
        count += 1
        if count >= ABANDON_AFTER:
            console.warn("clean-up abandoned: restore the hosts with planner restore RUN")
            raise KeyboardInterrupt
        console.warn(f"{signal.Signals(signum).name}: finishing the restore and the run record first"
                     + ("; interrupt once more to abandon that" if interrupted else ""))

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in saved:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
    if count and not interrupted:
        raise KeyboardInterrupt  # the run had ended; what follows it (the report) is interrupted
