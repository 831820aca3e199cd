"""A text file's lines read forward, one at a time: a long sampler file (an hour of iostat is 130,000 lines) is
never held as a list of lines (planner.parsers.ostats, and the mail-wrap reader that looks one header ahead)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# str.splitlines' line boundaries
_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


class Ahead:
    """Lines read forward from an iterator, the few behind the reader dropped: a file's lines are never all held
    (an hour of iostat is 130,000 lines, and their list took more than the text)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._it = iter(lines)
        self._buf: list[str] = []
        self._base = 0  # the index of _buf[0]

    def has(self, i: int) -> bool:
        while i - self._base >= len(self._buf):
            nxt = next(self._it, None)
            if nxt is None:
                return False
            self._buf.append(nxt)
        return True

    def __getitem__(self, i: int) -> str:
        if not self.has(i):
            raise IndexError(i)
        if i - self._base > 64:  # the reader only ever looks at the line it is on and the next
            del self._buf[: i - 1 - self._base]
            self._base = i - 1
        return self._buf[i - self._base]


def each_line(text: str) -> Iterator[str]:
    """``text.splitlines()`` one line at a time: the list of an hour's lines took twice the text."""
    start = 0
    for m in _BREAK.finditer(text):
        yield text[start:m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]
