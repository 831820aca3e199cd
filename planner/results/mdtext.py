"""The Markdown escape for text from outside (hosts, tool output, records): one function, used by the report
(through planner.report.escape's autoescape) and by every other Markdown planner writes (``planner analyze``).

``md_text(x)`` renders, in CommonMark and GFM tables, as exactly the characters of ``x``: never an image, a
link, raw HTML, a code span, emphasis, a table cell break, a heading or a list. It imports only the
foundation's planner.shown, so the report (above results/) and results/ share it.
"""

from __future__ import annotations

import re

from planner.shown import bidi_shown

__all__ = ["md_text", "one_line"]

# C0/C1 controls, DEL and the Unicode line/paragraph separators: a newline in a table cell ends the row, a
# newline in a paragraph can start a heading or a list; ESC/OSC bytes are for terminals, not a page
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# What CommonMark/GFM give a meaning to inside a line: backslash, code, emphasis, links and images, raw HTML
# (`<` opens both), entities, table cells, strikethrough. `_` only where it can open or close emphasis (not
# between two letters: db_file_sequential stays readable in the .md).
_SPECIAL = re.compile(r"[\\`*\[\]<!|~&]|(?<![^\W_])_|_(?![^\W_])")
# What means something only where a line starts (a value may be printed there): heading, quote, list item,
# thematic break or setext underline, ordered list item
_LEADING = re.compile(r"^(\s*)(?:([#>])|([-+=])(?=[\s=-]|$)|(\d+)([.)])(?=\s|$))")


def _lead(m: re.Match[str]) -> str:
    if m.group(4):
        return f"{m.group(1)}{m.group(4)}\\{m.group(5)}"
    return f"{m.group(1)}\\{m.group(2) or m.group(3)}"


def one_line(value: object) -> str:
    """``value`` as one line of printable text: controls (newlines, ESC, C1) as spaces, bidirectional
    controls shown as ``\\uNNNN`` (planner.shown: they would reorder the page's text)."""
    return bidi_shown(_CONTROLS.sub(" ", str(value)))


def md_text(value: object) -> str:
    """``value`` as Markdown text that renders as exactly its characters (controls as spaces)."""
    text = _SPECIAL.sub(r"\\\g<0>", one_line(value))
    return _LEADING.sub(_lead, text, count=1)
