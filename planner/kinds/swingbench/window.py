"""charbench's run with every user logged on, on the host's clock, read from its console (``-v users,tpm,tps``).

charbench prints a line about every second, the host's time of day first and the users as ``[active/total]``
(``10:58:35 [0/4] 0 0 0``, then ``10:58:37 [4/4] ...``: whhaicheng/DB-BenchMind's adapter test,
tests/data/swingbench/charbench_console_4users.txt). Before every user has logged on, the load is still ramping
(the results XML says how long as TotalLogonTime), and the JVM's start comes before the first line: the window
runs from the first line with every user active to the last line. charbench's ``-bs``/``-be`` (statistics
recorded from/until a second of the run) are not applied here: which instant the run's seconds count from is
not shown by a source, so a run using them is cut to the logged-on run, a little wider than its statistics.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from planner.parsers.toolwindow import ToolWindow

WITHIN = "charbench's run with every user logged on"
_LINE = re.compile(r"^\s*(\d{1,2}):(\d{2}):(\d{2})\s+\[(\d+)/(\d+)\]", re.M)


def logged_on_window(text: str) -> ToolWindow | None:
    """From the first console line with every user active to the last line; None without two such instants
    (no ``-v`` lines, a run that never logged every user on). Only times of day are printed: a line earlier
    than the one before it is taken as past midnight."""
    begin: datetime | None = None
    last: datetime | None = None
    for m in _LINE.finditer(text):
        when = datetime(2000, 1, 1, int(m.group(1)) % 24, int(m.group(2)) % 60, int(m.group(3)) % 60)
        if last is not None:
            while when < last:
                when += timedelta(days=1)
        last = when
        if begin is None and int(m.group(5)) > 0 and m.group(4) == m.group(5):
            begin = when
    if begin is None or last is None or last <= begin:
        return None
    return ToolWindow(begin, last, WITHIN)
