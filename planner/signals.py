"""Ctrl-C and SIGTERM that Python swallowed: remembered, so planner still stops.

planner's handlers raise KeyboardInterrupt where the signal lands. When it lands inside a callback whose errors
Python ignores (a weakref callback, as importlib's module locks use; a ``__del__``), the exception is printed
as "Exception ignored in ..." and lost, and the run would go on as if nobody had asked it to stop (seen: a
SIGTERM during the report's imports gave exit 0 and a finished report). So each signal is counted here, each
KeyboardInterrupt that planner catches acknowledges them, and at the points where stopping is safe
``raise_pending`` raises again what was lost.
"""

from __future__ import annotations

_received = 0


def received() -> None:
    """A signal handler is about to raise KeyboardInterrupt."""
    global _received
    _received += 1


def acknowledged() -> None:
    """planner caught a KeyboardInterrupt: every signal so far has been obeyed."""
    global _received
    _received = 0


def pending() -> bool:
    return _received > 0


def raise_pending() -> None:
    """Raise KeyboardInterrupt if a signal arrived and its KeyboardInterrupt never reached planner."""
    if _received:
        raise KeyboardInterrupt
