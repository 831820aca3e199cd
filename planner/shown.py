"""Outside text (records, store rows, hosts' output) as a user is shown it: on a terminal, in Markdown and HTML,
in a spreadsheet. One place for what must never pass through as it is. Foundation: imports nothing of planner.

- Terminal controls: C0 but tab and newline, DEL, C1 (8-bit CSI/OSC: U+0080-U+009F) could move the cursor,
  retitle the terminal, hide text or ring the bell: shown as ``\\xNN``.
- Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C) reorder what follows them on
  screen and in a page: "U+202E" makes ``exe.txt`` read as ``txt.exe`` (Trojan Source, CVE-2021-42574): shown
  as ``\\uNNNN``.
- A spreadsheet cell starting with ``=``, ``+``, ``-``, ``@`` (or tab, carriage return) is a formula to
  Excel and LibreOffice (OWASP's CSV injection): text cells get a leading ``'``; numbers stay numbers.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def bidi_shown(text: str) -> str:
    """``text`` with its bidirectional controls shown as ``\\uNNNN``."""
    return BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def visible(text: str) -> str:
    """``text`` with terminal and bidirectional controls shown as ``\\xNN`` / ``\\uNNNN`` (tab, newline kept)."""
    return bidi_shown(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text))


def csv_cell(value: object) -> object:
    """A CSV cell: text visible and never a formula; anything else (numbers, booleans, None) as it is."""
    if not isinstance(value, str):
        return value
    text = visible(value)
    return "'" + text if text.startswith(_FORMULA) else text
