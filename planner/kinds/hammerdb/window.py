"""HammerDB's timed test on the host's clock, read from its own log (``vuset logtotemp 1``, ``vuset timestamps 1``).

The timed driver prints, as the monitor virtual user, "Beginning rampup time of N minutes", "Rampup complete,
Taking start AWR snapshot." (or "... start Transaction Count." without AWR), "Timing test period of N in minutes"
and "Test complete, Taking end AWR snapshot." (or "... end Transaction Count.") (src/oracle/oraoltp.tcl at v4.12
lines 2539, 2553, 2565, 2586; v3.3 lines 2181, 2195, 2207, 2228; v5.0 lines 2536, 2550, 2562, 2583). None of these
lines carries a wall-clock time: the snapshot lines say "taken at DD MON YYYY HH24:MI" (the database's minute,
END_INTERVAL_TIME), too coarse for 5-second OS samples. HammerDB's log does: with ``vuset timestamps 1`` its
logtofile writes "Timestamp <vuser> @ <clock format [clock seconds]>" (Tcl's default "%a %b %d %H:%M:%S %Z %Y",
the host's clock and zone) before every virtual user line (src/generic/genvu.tcl v4.12 lines 116-123, v3.3 lines
106-114), into hammerdb.log in $TMP (findtempdir). The window runs from the line that starts the timed period to
the one that ends it: NOPM and the AWR snapshots cover it, not the ramp-up.
"""

from __future__ import annotations

import re
from datetime import datetime

from planner.parsers.toolwindow import ToolWindow

WITHIN = "HammerDB's timed test"
# "Timestamp 1 @ Mon Dec 07 14:10:03 UTC 2026": month, day, time, (zone), year
_STAMP = re.compile(r"^Timestamp\s+\d+\s+@\s+\w{3}\s+(\w{3})\s+(\d{1,2})\s+(\d{2}:\d{2}:\d{2})\s+"
                    r"(?:\S+\s+)?(\d{4})\s*$")
_BEGIN = re.compile(r"^Vuser\s+\d+:Timing test period of\s+\d")
_END = re.compile(r"^Vuser\s+\d+:Test complete, Taking end\b")


def _stamp(m: re.Match[str]) -> datetime | None:
    try:
        return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(4)} {m.group(3)}", "%b %d %Y %H:%M:%S")
    except ValueError:
        return None


def timed_window(text: str) -> ToolWindow | None:
    """The last timed test the log brackets (a log appended to by an earlier run holds others), None when the
    log carries no timestamps or no complete timed test (a failed run, the test driver)."""
    stamp: datetime | None = None
    begin: datetime | None = None
    found: ToolWindow | None = None
    for line in text.splitlines():
        if m := _STAMP.match(line):
            stamp = _stamp(m)
        elif stamp is not None and _BEGIN.match(line):
            begin = stamp
        elif stamp is not None and begin is not None and _END.match(line) and stamp >= begin:
            found, begin = ToolWindow(begin, stamp, WITHIN), None
    return found
