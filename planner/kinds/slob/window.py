"""SLOB's own database-statistics window, read from what runit.sh printed (planner keeps it as runit.log).

SLOB takes its own begin and end snapshots inside runit.sh, while planner's OS samplers run around the whole
script: its session start-up pause, 2.5's 30 s warm-up and the report generation included. runit.sh stamps each
message by ``f_msg`` as ``NOTIFY  : %Y.%m.%d-%H:%M:%S : text`` (the host's clock, the same shell environment the
samplers run in), and brackets the window with "Before <type> snap ID is N" (the begin snapshot is taken) and
'Executing <type> "after snap" procedure.' (the end one is about to be): SLOB 2.4.0 runit.sh, goryszewskig/SLOB-PDB
@ e8d9167 :1471, :1481, :1507, :1517; SLOB 2.5.x runit.sh (public copy, code index id 38272540123): the same
words, after "Warm-up phase" and ``sleep 30``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from planner.parsers.toolwindow import holds

_MSG = re.compile(r"^\s*[A-Z]+\s*:\s*(\d{4}\.\d{2}\.\d{2}-\d{2}:\d{2}:\d{2})\s*:\s*(.*)$", re.M)
_BEGIN = re.compile(r"^Before (awr|statspack) snap ID is (\d+)")
_END = re.compile(r'^Executing (awr|statspack) "after snap" procedure')
_AFTER = re.compile(r"^After (awr|statspack) snap ID is (\d+)")


@dataclass(frozen=True, slots=True)
class SnapWindow:
    """From the begin snapshot to the end one, on the host's clock (whole seconds, as runit.sh prints them)."""

    begin: datetime
    end: datetime
    statistics: str  # awr | statspack
    begin_snap: str
    end_snap: str

    @property
    def seconds(self) -> float:
        return (self.end - self.begin).total_seconds()

    @property
    def describe(self) -> str:
        snaps = f", snapshots {self.begin_snap}-{self.end_snap}" if self.end_snap else ""
        return (f"SLOB's {self.statistics.upper() if self.statistics == 'awr' else 'Statspack'} window "
                f"{self.begin:%H:%M:%S}-{self.end:%H:%M:%S} ({self.seconds:g} s{snaps})")

    @property
    def within(self) -> str:
        """The report's words for the window the OS series are cut to (planner.results.os_window)."""
        return "SLOB's own snapshots"

    def holds(self, time_label: str) -> bool:
        """Whether a sample stamped ``time_label`` (the end of its interval) falls inside the window
        (planner.parsers.toolwindow.holds: the time of day, modulo a day for midnight)."""
        return holds(self.begin, self.seconds, time_label)


def snap_window(text: str) -> SnapWindow | None:
    """The window runit.sh's messages give, or None when they do not bracket one (SLOB 1, a failed run)."""
    begin: tuple[datetime, str, str] | None = None
    end: datetime | None = None
    end_snap = ""
    for m in _MSG.finditer(text):
        when = datetime.strptime(m.group(1), "%Y.%m.%d-%H:%M:%S")
        said = m.group(2).strip()
        if b := _BEGIN.match(said):
            begin = (when, b.group(1), b.group(2))
        elif _END.match(said):
            end = when
        elif a := _AFTER.match(said):
            end_snap = a.group(2)
            end = end or when
    if begin is None or end is None or end < begin[0]:
        return None
    return SnapWindow(begin[0], end, begin[1], begin[2], end_snap)
