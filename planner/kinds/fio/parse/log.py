"""fio's per-interval log files (``write_iops_log``, ``write_bw_log``, ``write_lat_log``), read as rows.

The format (fio's HOWTO, "Log File Formats", fio 3.x): one line per sample,
``time (msec), value, data direction, block size (bytes), offset (bytes)[, command priority]``; fio 2.x wrote
four columns (offset only with ``log_offset=1``). Direction 0 is read, 1 write, 2 trim. Values: the IOPS log
counts I/Os per second, the bandwidth log KiB/s, the latency logs (``_lat``, ``_clat``, ``_slat``) nanoseconds
in fio 3.x (microseconds in 2.x). With ``log_avg_msec`` a row is the interval's average and its time the
interval's end. A pure, streaming reader: rows are yielded one at a time, never held (a long run's log is big).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from planner.errors import ParseError


class LogKind(enum.Enum):
    IOPS = "iops"
    BW = "bw"
    LAT = "lat"
    CLAT = "clat"
    SLAT = "slat"


# fio names a job's logs <prefix>_<kind>.<job number>.log (fio 3.x; 2.x: <prefix>_<kind>.log)
_NAME = re.compile(r"^(?P<prefix>.+)_(?P<kind>iops|bw|lat|clat|slat)(?:\.(?P<job>\d+))?\.log$")
DIRECTIONS = ("read", "write", "trim")
MAX_LINE = 256  # a row is five or six short numbers


@dataclass(frozen=True, slots=True)
class LogRow:
    time_ms: int
    value: int
    direction: str  # read, write, trim
    block_size: int


def log_kind(file_name: str) -> tuple[LogKind, int] | None:
    """(what the log holds, fio's job number) from fio's own file name, or None when it is not a fio log."""
    m = _NAME.match(file_name)
    if m is None:
        return None
    return LogKind(m.group("kind")), int(m.group("job") or 1)


def _bad(source: str, no: int, message: str) -> ParseError:
    return ParseError("fio log", "rows", message, source=source, line=no)


def rows(lines: Iterable[str], source: str = "") -> Iterator[LogRow]:
    """Each sample of one log file, in file order; a malformed line is a ParseError naming its line."""
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if len(line) > MAX_LINE:
            raise _bad(source, no, f"a line of {len(line)} characters: not a fio log row")
        cols = [c.strip() for c in line.split(",")]
        if not 4 <= len(cols) <= 6 or not all(c.isdigit() for c in cols):
            raise _bad(source, no, f"expected 'time, value, direction, block size[, offset[, priority]]', "
                                   f"got {line[:80]!r}")
        direction = int(cols[2])
        if direction >= len(DIRECTIONS):
            raise _bad(source, no, f"data direction {direction} is not 0 (read), 1 (write) or 2 (trim)")
        yield LogRow(int(cols[0]), int(cols[1]), DIRECTIONS[direction], int(cols[3]))
