"""OS statistics cut to the workload tool's own measured window, when the tool times one itself.

planner's samplers run around a whole point, while some tools measure only part of it: a database kit's AWR or
Statspack report covers its begin to end snapshot (its session start-up, warm-up and report generation are
outside it), a TPROC-C driver counts its transactions over a timed test after its ramp-up. Figures put side
by side must cover the same seconds, so each OS series is cut to the samples stamped inside that window; where it
cannot be cut, the whole point is kept and the words say why.

Which tool times a window, and from which of the point's record files it is read, is the kind's to say
(``KindSpec.own_window``, planner.kindspec): nothing here knows a kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Protocol

from planner import kindspec
from planner.metrics import MetricTable, Parsed

CUT = "cut to {}"
NO_TIMES = "whole point: the samples carry no time to cut to {} by"
NONE_INSIDE = ("whole point: no sample is stamped inside {} (an interval longer than the window, "
               "or another clock or time zone)")


class Window(Protocol):
    """A tool's own window: whether a sample's time label is inside it, and its words (as "the tool's timed test")."""

    @property
    def within(self) -> str: ...

    def holds(self, time_label: str) -> bool: ...


def source(paths: Sequence[str]) -> tuple[str, Callable[[str], Window | None]] | None:
    """(the path of the point's file its tool's window is read from, the kind's reader), or None when no kind's
    window file is among ``paths`` (the first kind in KINDS order whose file is there)."""
    if not paths:
        return None
    named = [(p, PurePosixPath(p).name) for p in paths]  # once, not once a kind
    for own in kindspec.own_windows():
        path = next((p for p, name in named if name == own.file), None)
        if path is not None:
            return path, kindspec.load(own.read)
    return None


def cut(parsed: Parsed, window: Window | None) -> tuple[Parsed, str]:
    """(the series inside ``window``, words for the report); unchanged with "" when there is no window. The
    words are the same for every repeat (the times are in the point's record), so series stay together."""
    if window is None:
        return parsed, ""
    def timed(labels: tuple[tuple[str, str], ...]) -> bool:
        time = dict(labels).get("time", "")
        return bool(time) and time != "Average"

    def inside(labels: tuple[tuple[str, str], ...]) -> bool:
        return timed(labels) and window.holds(dict(labels)["time"])

    if not any(timed(m.labels) for m in parsed.metrics):
        return parsed, NO_TIMES.format(window.within)
    # an OS sampler's columns are cut as columns (an hour of iostat is 2.5 million values)
    kept = parsed.metrics.keep_labelled(inside) if isinstance(parsed.metrics, MetricTable) \
        else tuple(m for m in parsed.metrics if inside(m.labels))
    if not kept:
        return parsed, NONE_INSIDE.format(window.within)
    return replace(parsed, metrics=kept), CUT.format(window.within)
