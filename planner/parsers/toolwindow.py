"""A workload tool's own measured window on the host's clock, and whether an OS sample falls inside it.

planner's OS samplers run around a whole point, while a tool that times its own window (a kit's begin and end
snapshots, a TPROC-C driver's timed test after its ramp-up) measures only part of it. Samplers stamp their
intervals with the host's time of day (iostat ISO, vmstat -t, mpstat's 12- or 24-hour clock), so a sample is
inside the window when the end of its interval is: only the time of day is compared (mpstat prints no date; a
window is minutes long), modulo a day for midnight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

_TIME_OF_DAY = re.compile(r"(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AP]M))?")
DAY_S = 86400


def holds(begin: datetime, seconds: float, time_label: str) -> bool:
    """Whether a sample stamped ``time_label`` (the end of its interval) falls in (begin, begin + seconds]."""
    m = _TIME_OF_DAY.search(time_label)
    if not m:
        return False
    h, mi, s, half = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
    if half:
        h = h % 12 + (12 if half == "PM" else 0)
    start = begin.hour * 3600 + begin.minute * 60 + begin.second
    offset = (h * 3600 + mi * 60 + s - start) % DAY_S
    return 0 < offset <= seconds


@dataclass(frozen=True, slots=True)
class ToolWindow:
    """From ``begin`` to ``end`` (whole seconds, as the tool stamps them); ``within`` names it in the report's
    words (e.g. "cut to the kit's own snapshots", as the kind says it)."""

    begin: datetime
    end: datetime
    within: str

    @property
    def seconds(self) -> float:
        return (self.end - self.begin).total_seconds()

    @property
    def describe(self) -> str:
        return f"{self.within} {self.begin:%H:%M:%S}-{self.end:%H:%M:%S} ({self.seconds:g} s)"

    def holds(self, time_label: str) -> bool:
        return holds(self.begin, self.seconds, time_label)
