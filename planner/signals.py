"""What Python swallows or says by itself, taken back by planner: Ctrl-C and SIGTERM a callback lost, an exception
that ended one of planner's threads, an error at the interpreter's exit.

planner's handlers raise KeyboardInterrupt where the signal lands. When it lands inside a callback whose errors
Python ignores (a weakref callback, as importlib's module locks use; a ``__del__``), the exception is printed
as "Exception ignored in ..." and lost, and the run would go on as if nobody had asked it to stop (seen: a
SIGTERM during the report's imports gave exit 0 and a finished report). So each signal is counted here, each
KeyboardInterrupt that planner catches acknowledges them, and at the points where stopping is safe
``raise_pending`` raises again what was lost.

An exception nobody foresaw that ends a thread (its target catches what it foresees) reaches only
``threading.excepthook``: the thread is gone and the main thread goes on. planner.cli.main's hook says it and
notes it here (``thread_died``), so that it counts: the run that was going on takes it into its outcome
(``take_thread_bugs``: status ``error``, exit 250), and any other verb exits 250 as ansible-core's CLI does for an
exception it did not foresee.

The threads planner starts, and where a bug in one ends up (tests/cli/test_unexpected_errors.py holds the list whole):

- planner/engine/pool.py, planner/engine/fanout.py: the hosts' workers; a future hands the bug to the main thread,
  which stops the run as for any bug of its own (hosts put back, status ``error``, 250);
- planner/engine/provenance.py (git-provenance), planner/steps/__init__.py (plugin-import-*): handed to their
  caller, in its thread;
- planner/transport/connect.py: the connect pool hands it over; the early TCP connect and login (ssh-tcp,
  ssh-early) hand over what their login raises, and count here otherwise;
- planner/engine/console.py (live-line), planner/cli/early_imports.py (planner-early-imports),
  planner/transport/ssh/channel.py (ssh-keepalive), planner/inventory/script.py (its output readers): counted here.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

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


_thread_bugs: list[str] = []  # one line each, as said: what ended a thread of planner's that nobody foresaw
_bugs_lock = threading.Lock()  # noted in the dying thread, taken in the main one


def thread_died(what: str) -> None:
    """A thread ended on an exception nobody foresaw (``what``: its name and the exception, as said to the user)."""
    with _bugs_lock:
        _thread_bugs.append(what)


def take_thread_bugs() -> list[str]:
    """The thread bugs noted since the last take, taken: each counts once, for whoever takes it."""
    with _bugs_lock:
        taken = _thread_bugs[:]
        del _thread_bugs[:]
    return taken


def bug_line(e: BaseException, where: str = "") -> str:
    """ansible-core's words for an exception nobody foresaw (lib/ansible/cli/__init__.py, ``cli_executor``), as
    one line: its controls shown, not sent, and without any secret the verb had read (an exception's message may
    quote a value: a password in a connect string, a variable)."""
    return f"Unexpected Exception{shown(where)}, this is probably a bug: {shown(f'{type(e).__name__}: {e}')}"


def shown(text: str) -> str:
    """Text about to reach the terminal from an error: the verb's secrets masked, its controls visible."""
    from planner.redaction import noted, redact_text  # here: most verbs never say an error
    from planner.shown import visible

    return visible(redact_text(text, noted()))


_at_exit: dict[Callable[[], object], Callable[[], None]] = {}  # a handler -> what atexit runs for it


def at_exit(handler: Callable[[], object]) -> None:
    """``atexit.register(handler)``, moved last (so run first) when registered before. An error of the handler, or
    one Python ignores while it runs (a ``__del__`` of the garbage it collects), is said in one line, as any bug
    of planner's is: never Python's "Exception ignored in atexit callback" traceback. The exit code is decided by
    then (atexit cannot change it), and the output may be read by a script: one line is what it gets."""
    import atexit

    guarded = _at_exit.setdefault(handler, lambda: _run_at_exit(handler))
    atexit.unregister(guarded)
    atexit.register(guarded)


def _run_at_exit(handler: Callable[[], object]) -> None:
    name = getattr(handler, "__qualname__", repr(handler))
    before = sys.unraisablehook
    sys.unraisablehook = _ignored_at_exit
    try:
        handler()
    except KeyboardInterrupt:  # a Ctrl-C while planner exits: it was exiting anyway
        print("planner: interrupted while exiting", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - nothing is left to hand it to: said, in one line
        _say_at_exit(e, f" in exit handler {name}")
    finally:
        sys.unraisablehook = before


def _ignored_at_exit(unraisable: sys.UnraisableHookArgs) -> None:
    """An exception Python ignores while an exit handler runs (a finalizer's): a lost Ctrl-C is nothing to say."""
    if unraisable.exc_value is not None and unraisable.exc_type is not KeyboardInterrupt:
        _say_at_exit(unraisable.exc_value, f" ignored in {unraisable.object!r} at exit")


def _say_at_exit(e: BaseException, where: str) -> None:
    import contextlib

    with contextlib.suppress(OSError, ValueError):  # stderr closed or gone (its reader left): nowhere to say it
        print(f"ERROR! {bug_line(e, where)}", file=sys.stderr)
