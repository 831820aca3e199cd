"""Progress of a run's workload points: their names ("point 2/4, repeat 1/3"), and the time left.

One naming everywhere on the console (banners, result lines, "done before the resume", progress): a point
is one combination of the swept values, counted 1-based over the step's points; a repeat (or warm-up) is
counted 1-based over that point's repeats. A SweepPoint's ``index`` counts every execution and stays the
record's key (results.json, artifact folders); people never see it.

The time left: each remaining execution costs its expected length (the step kind's duration model,
StepType.duration) scaled by what the points so far really took against theirs (set-up,
fetching and parsing add to a tool's own runtime); an execution of unknown length costs the mean of the
measured ones. Executions done before a ``--resume`` are never counted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.plan.model import SweepPoint


def point_names(points: Sequence[SweepPoint]) -> dict[int, str]:
    """SweepPoint.index -> "point 2/4, repeat 1/3" (or "warmup 1/1"), for one step's points on one host."""
    combos = list(dict.fromkeys(p.params for p in points))
    runs: dict[tuple[object, bool], int] = {}
    for p in points:
        key = (p.params, p.warmup)
        runs[key] = runs.get(key, 0) + 1
    out = {}
    for p in points:
        word = "warmup" if p.warmup else "repeat"
        out[p.index] = (f"point {combos.index(p.params) + 1}/{len(combos)}, "
                        f"{word} {p.repeat + 1}/{runs[(p.params, p.warmup)]}")
    return out


def point_label(point: SweepPoint, names: dict[int, str]) -> str:
    """The name with its swept values: "point 2/4, repeat 1/3: readers=256"."""
    name = names.get(point.index, f"point {point.index + 1}")
    values = " ".join(f"{k}={v}" for k, v in point.params)
    return f"{name}: {values}" if values else name


def duration(seconds: float | None) -> str:
    """12s, 3m05s, 1h02m: what a progress line shows."""
    if seconds is None:
        return "?"
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


@dataclass
class _Step:
    """One workload's executions left and the durations of those done."""

    left: int  # executions still to run (on the slowest host: hosts run a point together)
    expected_s: float | None
    taken: list[float] = field(default_factory=list)


class Progress:
    """What is left of the run's workloads; thread-safe (the live line reads it while workers run)."""

    def __init__(self) -> None:
        self._steps: dict[str, _Step] = {}
        self._lock = threading.Lock()
        self._ratio: list[tuple[float, float]] = []  # (taken, expected) of points with a known length

    def plan(self, step: str, executions: int, expected_s: float | None) -> None:
        """Declare (or re-declare, once its points are known for the live hosts) a step's executions left."""
        with self._lock:
            old = self._steps.get(step)
            self._steps[step] = _Step(executions, expected_s, old.taken if old else [])

    def done(self, step: str, taken_s: float) -> None:
        with self._lock:
            st = self._steps.get(step)
            if st is None:
                return
            st.left = max(0, st.left - 1)
            st.taken.append(taken_s)
            if st.expected_s:
                self._ratio.append((taken_s, st.expected_s))

    def skipped(self, step: str) -> None:
        """An execution that will not run (done before the resume, or its host left the play)."""
        with self._lock:
            st = self._steps.get(step)
            if st is not None:
                st.left = max(0, st.left - 1)

    def _estimate(self, st: _Step | None) -> float | None:
        """What one execution of ``st`` should take, overheads included."""
        if st is None:
            return None
        if st.expected_s:
            ratio = (sum(t for t, _ in self._ratio) / sum(e for _, e in self._ratio)) if self._ratio else 1.0
            return st.expected_s * max(ratio, 1.0)
        taken = st.taken or [t for s in self._steps.values() for t in s.taken]
        return sum(taken) / len(taken) if taken else None  # a mean: the statistics module costs start-up

    def left_s(self, running_step: str | None = None, running_elapsed_s: float = 0.0) -> float | None:
        """Seconds left in the run; None while an execution's length cannot be guessed at all."""
        with self._lock:
            total = 0.0
            for path, st in self._steps.items():
                if not st.left:
                    continue
                each = self._estimate(st)
                if each is None:
                    return None
                total += each * st.left
                if path == running_step:
                    total -= min(running_elapsed_s, each)  # the running one is partly done
            return total
