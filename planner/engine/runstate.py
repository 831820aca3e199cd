"""What a run keeps while it runs, beside its record: its results (results.json their copy on disk, appended
point by point) and each play's variables per host (resolved once)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from planner.engine.execute import HostState
from planner.engine.runrecord import RunRecord
from planner.plan.model import Plan, Play
from planner.plan.templating import variables_for
from planner.results import runfolder
from planner.results.runfolder import result_to_json
from planner.status import StepResult


class PlayVars:
    """Each play's variables per host: the plan's, the inventory's, the play's and ``-e``, resolved once (Jinja2
    in the variables is rendered at that one time); the host's facts are joined at each ask, as they arrive
    with the play's first exec. Worker threads ask for their own host."""

    def __init__(self, plan: Plan, extra_vars: Mapping[str, Any]) -> None:
        self._plan, self._extra = plan, extra_vars
        self._resolved: dict[tuple[str, str], dict[str, Any]] = {}  # (play, host) -> variables without facts
        self._lock = threading.Lock()

    def of(self, play: Play, hs: HostState) -> dict[str, Any]:
        """The variables a step of ``play`` on the host sees: a fresh dict, the caller's to change."""
        key = (play.name, hs.host.name)
        with self._lock:
            resolved = self._resolved.get(key)
        if resolved is None:  # resolved outside the lock: one host's render never waits for another's
            resolved = variables_for(self._plan, play, hs.host, self._extra)
            with self._lock:
                self._resolved.setdefault(key, resolved)
        return {**resolved, "planner_facts": hs.facts}


class ResultLog:
    """The run's results in order, and results.json as their copy on disk: the first results make the file,
    every later save appends only what is new (a resumed run appends to the file of the run it resumes). The
    file is written whole again only when appending is refused (a damaged file) or when results it already
    holds are dropped."""

    def __init__(self, previous: Sequence[Mapping[str, Any]] = (), *, resumed: bool = False,
                 warn: Callable[[str], None] = lambda _m: None) -> None:
        self.results: list[StepResult] = []
        self.record: RunRecord | None = None  # attached once the run's record is open
        self.failures: list[str] = []  # writes that failed (e.g. the controller's disk full)
        self.whole_writes = 0  # how often results.json was written whole (the first is its creation)
        self._previous = previous  # a resumed run's file starts with what the run before it recorded
        self._on_disk = resumed  # the file holds a list that the new results may be appended to
        self._stale = False  # the file holds results dropped since: the next save writes it whole
        self._saved = 0  # how many of ``results`` the file holds
        self._warn = warn
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()

    def append(self, r: StepResult) -> None:
        with self._lock:
            self.results.append(r)

    def drop(self, dropped: Callable[[StepResult], bool]) -> None:
        """Results leave the run (a late synchronised start's); when the file already holds one of them, the
        next save writes it whole."""
        with self._lock:
            kept_saved = [r for r in self.results[:self._saved] if not dropped(r)]
            if len(kept_saved) < self._saved:
                self._stale = True
            self.results[:] = kept_saved + [r for r in self.results[self._saved:] if not dropped(r)]
            self._saved = len(kept_saved)

    def save(self, *, final: bool = False) -> None:
        """results.json as the results so far; ``final``: the run ends, the file exists even with no result."""
        if self.record is None:
            return
        with self._save_lock:
            with self._lock:
                fresh, n = self.results[self._saved:], len(self.results)
            if not fresh and not self._stale and (self._on_disk or not final):
                return  # nothing new; a new run's file waits for its first result
            try:
                appendable = self._on_disk and not self._stale
                if not (appendable and self.record.append(runfolder.RESULTS, [result_to_json(r) for r in fresh])):
                    with self._lock:
                        whole = runfolder.results_json(self.results[:n], self._previous)
                    self.record.write(runfolder.RESULTS, whole)
                    self.whole_writes += 1
                self._saved, self._on_disk, self._stale = n, True, False
            except OSError as e:  # e.g. the controller's disk is full: warn, keep going, restore prep
                self._warn(f"run record: {e}")
                self.failures.append(str(e))
