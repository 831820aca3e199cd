"""iozone's result table: auto mode (``-a``) and any run without ``-t`` (``iozone -i 0 -i 2 -r 4k -s 1g``).

One row per file size x record size, one column per test::

                                                                random  random    bkwd   record   stride
                  KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read   fwrite ...
             1048576    4096  145374  244325   202032   163068  163827  221012

Tests that were not run print blank cells, so a value belongs to the column whose header word ends where
the value ends (iozone right-aligns both; the ``read`` header sits one place left of its ``%9ld`` field). A
row with every column filled is read in order instead, since a wide value can push its neighbours right.

Per cell: ``iozone.throughput`` KB/s (ops/s with ``-O``), labels ``mode`` = auto, ``run`` (1-based per
table), ``test`` (``write``, ``random read``, ``bkwd read``, ...), ``file_kb``, ``reclen_kb``; and
``iozone.iops`` (derived) = KB/s / reclen, or the ops/s value itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink
from planner.parsers.numbers import put

HEADER = re.compile(r"^\s*kB\s+reclen\s+write\b", re.IGNORECASE)
_ROW = re.compile(r"^\s*\d+\s+\d+(?:\s+\d+)*\s*$")
_ROW_START = re.compile(r"^\s*\d+\s+\d+\s+\d+")
_WORD = re.compile(r"\S+")
_TOLERANCE = 2  # columns: the header word may sit up to this far from the end of its field
_MAX_COLUMNS = 32  # a header longer than this is not iozone's


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    end: int  # 0-based index just past the header word


def columns(header: str, above: str) -> tuple[Column, ...]:
    """The test columns of a header line; ``above`` is the line of prefixes (``random``, ``bkwd`` ...)."""
    prefixes = {m.end(): m.group() for m in _WORD.finditer(above)} if not HEADER.match(above) else {}
    words = list(_WORD.finditer(header))[2:2 + _MAX_COLUMNS]  # after "KB reclen"
    out = []
    for m in words:
        prefix = next((prefixes[e] for e in range(m.end() - 1, m.end() + 2) if e in prefixes), "")
        out.append(Column(f"{prefix} {m.group()}".strip().lower(), m.end()))
    return tuple(out)


def _place(cells: list[re.Match[str]], cols: tuple[Column, ...]) -> list[tuple[Column | None, str]]:
    if len(cells) == len(cols):
        return list(zip(cols, (c.group() for c in cells), strict=True))
    placed: list[tuple[Column | None, str]] = []
    for cell in cells:
        near = [c for c in cols if abs(c.end - cell.end()) <= _TOLERANCE]
        placed.append((min(near, key=lambda c: abs(c.end - cell.end())) if near else None, cell.group()))
    return placed


def is_row(line: str) -> bool:
    return _ROW.match(line) is not None


def read_row(sink: MetricSink, line: str, no: int, cols: tuple[Column, ...], run: int, unit: str) -> int:
    """Put one table row's cells; returns how many were read. Cells under no column are warned about."""
    cells = list(_WORD.finditer(line.expandtabs()))
    file_kb, reclen = cells[0].group(), cells[1].group()
    labels = {"mode": "auto", "run": str(run), "file_kb": file_kb, "reclen_kb": reclen}
    read = 0
    for col, text in _place(cells[2:], cols):
        if col is None:
            sink.errors.append(ParseError("iozone", "auto table", f"value {text[:20]} is under no column header; "
                                          "value skipped", source=sink.source, line=no))
            continue
        value, rec = float(text), float(reclen)
        put(sink, "iozone.throughput", value, unit, Direction.HIGHER, no, {**labels, "test": col.name})
        if unit == "ops/s" or rec > 0:
            put(sink, "iozone.iops", value if unit == "ops/s" else value / rec, "IO/s", Direction.HIGHER, no,
                {**labels, "test": col.name}, derived=True)
        read += 1
    return read


def parse_tables(text: str, sink: MetricSink, unit: str) -> int:
    """Every result table in ``text``; returns the number of cells read."""
    lines = text.expandtabs().splitlines()
    run, found = 0, 0
    cols: tuple[Column, ...] = ()
    for no, line in enumerate(lines, 1):
        if HEADER.match(line):
            run += 1
            cols = columns(line, lines[no - 2] if no > 1 else "")
        elif cols and is_row(line):
            found += read_row(sink, line, no, cols, run, unit)
        elif cols and _ROW_START.match(line):  # a row with something glued on: said, never half-read
            sink.errors.append(ParseError("iozone", "auto table", "row not in the 'KB reclen value...' form; "
                                          "line skipped", source=sink.source, line=no))
        elif cols and line.strip() and not line.lstrip().startswith(("random", "iozone test complete")):
            cols = ()  # the table ended (an Excel report or prose follows)
    return found
