"""The modules an apply's end imports, imported in a thread while the hosts work.

After the last host packet a warm apply imported the store push's modules (sqlite3, the store, results.measure,
evaluate, the findings and every kind's spec: ~80 modules, ~60 ms of CPU) and, for a template step, Jinja2 (~40
ms): all of it on the controller's critical path, after the hosts were done. Imported here from the moment the
play's hosts are all connected (RunOptions.when_connected), while their execs and the hosts' work take their
round trips, the same modules are there when the end needs them. Not sooner: until then the main thread's own
work (the record's opening, paramiko's import under the first TCP connects) and the handshakes' CPU are the
critical path, and an import thread would take the GIL from them.

Imports only, of modules the run imports anyway, with nothing called: what they define does not depend on
which thread ran them, and Python's per-module import locks make the end wait for a module still being
imported rather than see it half done. planner has no import cycles (import-linter), so two threads importing
cannot deadlock on each other's locks. A failure here is ignored: the module is not left in sys.modules, and the
end imports it again and meets the same error where it always did. A KeyboardInterrupt is only ever raised in
the main thread, so none can land inside these imports and leave a module half imported. The thread is a daemon:
an early exit (bad input found by the run, an interrupt) does not wait for it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable

# what push_after_apply imports for the default SQLite store (a PostgreSQL store's module is imported before
# the run, in the main thread: cli/apply.py)
PUSH = ("sqlite3", "planner.store.sqlite", "planner.store.record", "planner.results.measure",
        "planner.results.evaluate", "planner.results.kind_findings")
# what a template step's render imports (planner.steps.generic)
TEMPLATE = ("jinja2", "planner.safejinja")


def start(names: Iterable[str], kind_findings: bool) -> threading.Thread:
    """Import ``names`` in a daemon thread, in order, then (``kind_findings``) each workload kind's findings
    modules as its spec names them (planner.results.kind_findings imports them when the run is judged);
    returned started (joined only by tests)."""
    todo = tuple(names)

    def run() -> None:
        for name in todo:
            _import(name)
        if kind_findings:
            from planner import kindspec  # its specs() is cached: the end reads the same specs

            for s in kindspec.specs():
                for where in (s.findings, s.run_findings):
                    if where:
                        _import(where.partition(":")[0])

    thread = threading.Thread(target=run, name="planner-early-imports", daemon=True)
    thread.start()
    return thread


def _import(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - the end imports it again and says what is wrong
        return


def for_apply(step_kinds: Iterable[str], push: bool) -> tuple[str, ...]:
    """The modules the end of an apply with these step kinds imports; ``push``: the run is pushed to SQLite."""
    return (*(PUSH if push else ()), *(TEMPLATE if "template" in set(step_kinds) else ()))
