"""OS statistics cut to the database report's own window, when the workload took its snapshots itself.

planner's samplers run around a whole SLOB point (runit.sh's session start-up, 2.5's warm-up, the report
generation), while SLOB's AWR or Statspack report covers its begin to end snapshot only
(planner.parsers.slob_log). Figures put side by side must cover the same seconds, so each OS series is cut to
the samples stamped inside that window; where it cannot be cut, the whole point is kept and the words say why.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

from planner.metrics import MetricTable, Parsed
from planner.parsers.slob_log import SnapWindow

KIT_LOG = "runit.log"  # what planner saves of runit.sh's output (planner.kinds.slob.step)
CUT = "cut to SLOB's own snapshots"
NO_TIMES = "whole point: the samples carry no time to cut to SLOB's snapshots by"
NONE_INSIDE = ("whole point: no sample is stamped inside SLOB's snapshots (an interval longer than the window, "
               "or another clock or time zone)")


def is_kit_log(path: str) -> bool:
    return PurePosixPath(path).name == KIT_LOG


def cut(parsed: Parsed, window: SnapWindow | None) -> tuple[Parsed, str]:
    """(the series inside ``window``, words for the report); unchanged with "" when there is no window. The
    words are the same for every repeat (the times are in the record's runit.log), so series stay together."""
    if window is None:
        return parsed, ""
    def timed(labels: tuple[tuple[str, str], ...]) -> bool:
        time = dict(labels).get("time", "")
        return bool(time) and time != "Average"

    def inside(labels: tuple[tuple[str, str], ...]) -> bool:
        return timed(labels) and window.holds(dict(labels)["time"])

    if not any(timed(m.labels) for m in parsed.metrics):
        return parsed, NO_TIMES
    # an OS sampler's columns are cut as columns (an hour of iostat is 2.5 million values)
    kept = parsed.metrics.keep_labelled(inside) if isinstance(parsed.metrics, MetricTable) \
        else tuple(m for m in parsed.metrics if inside(m.labels))
    if not kept:
        return parsed, NONE_INSIDE
    return replace(parsed, metrics=kept), CUT
