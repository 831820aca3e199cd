"""Pastes whose rows a mail client wrapped at 72-76 columns: told apart from natural rows, or refused by name.

A mail client (or a list archive) cuts every line longer than its width at the last space before it, so a
table row's last cells land at column 0 of the next line: ``User I/O`` under an event row, ``0.03`` under a
Load Profile row, ``wkB/s wrqm/s`` under an iostat header. Read as they are, those fragments become wrong
values (an event named "User I/O log file sync", a device named "2427.95"). AWR, Statspack and sysstat write
rows up to 80 columns and wider, so a text none of whose lines passes 76 columns, with such fragments after
lines that reach its width, was wrapped. A reader rejoins a fragment only where its table's column count
proves it belongs to the row above; any other row of the table is refused with ``MailWrap.refusal``.
A quoted-printable body (``=`` at the end of a cut line) is undone losslessly by ``soft_breaks``.
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Container
from dataclasses import dataclass

from planner.parsers.awr_common import WAIT_CLASSES
from planner.parsers.lines import Ahead

MAX_MAIL_WIDTH = 76  # Outlook's 76, Thunderbird's 72, RFC 2045's 76 for quoted-printable
_REACH = 16  # a cut line ends within this many columns of the width (the cut is at the last space)
_NUMBER = re.compile(r"^-?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[Ee][+-]?\d+)?(?:[%a-zA-Z]{0,2})$")
_RULE = re.compile(r"^[-=]{3,}$")  # not '~': ADDM wraps its own rules of tildes
_RELEASE = re.compile(r"^\d{1,2}(?:\.\d+){3,4}$")  # 11.2.0.3.0, the header's last cells
_CLASSES = {c.lower() for c in WAIT_CLASSES}
# header words that end a cut header line: "Per Call", "%Total Call Time", iostat's and AWR's unit columns
_HEADER_WORD = re.compile(r"^(?:[%\w]*[/%(][\w/%()-]*|Call|Exec|Time|Class|Wait|Waits|Txn|WCPU|Idle|"
                          r"Sockets|Memory|RAC|CDB|Release|util|await|svctm)$", re.I)


@dataclass(frozen=True, slots=True)
class MailWrap:
    """A paste wrapped by mail at ``width`` columns; ``lines`` are the fragments that prove it (1-based)."""

    width: int
    lines: tuple[int, ...]

    def refusal(self, table: str) -> str:
        shown = ", ".join(str(n) for n in self.lines[:4]) + (" ..." if len(self.lines) > 4 else "")
        return (f"{table} not read: rows wrapped by mail at {self.width} columns (a row's last cells on the "
                f"next line, e.g. line {shown}) — paste the report as an attachment")


def is_fragment(line: str) -> bool:
    """A line that can only be the cut-off end of the line above: numbers, a rule, a wait class, header words."""
    if not line or line[0].isspace() or len(line.rstrip()) > 24:
        return False
    t = line.strip()
    if t.lower() in _CLASSES or (len(t) >= 5 and any(c.startswith(t.lower()) for c in _CLASSES)):
        return True  # 19c text cuts the class to 8 characters ("Applicat")
    toks = t.split()
    if len(toks) > 3:
        return False
    return all(_NUMBER.match(x) or _RULE.match(x) or _RELEASE.match(x) or x in ("YES", "NO") for x in toks) or \
        all(_HEADER_WORD.match(x) and not x[0].isdigit() for x in toks)


# titles a report starts a section with at column 0: never the cut-off end of a header line
_TITLE = re.compile(r"^(?:Load Profile|Instance (?:CPU|Efficiency)|Host CPU|Cache Sizes|Memory Statistics|Shared Pool|"
                    r"Time Model|IO Profile|Wait Classes|Top \d+|Event|Statistic|Snapshot|Host Name)\b", re.I)
_WORD = re.compile(r"^[A-Za-z][\w/%().-]{0,11}$")


def _continues(prev: str, line: str, width: int) -> bool:
    """``line`` is the end of ``prev`` cut by the mailer: ``prev`` reaches the width and ``line`` is a fragment,
    or a few words under a header line (no digits in it: "Ela Time" under "Event  Waits  Time (s)")."""
    if len(prev.rstrip()) < width - _REACH or not line.strip():
        return False
    if is_fragment(line):
        return True
    toks = line.split()
    return not line[0].isspace() and len(toks) <= 3 and len(line.rstrip()) <= 24 and \
        all(_WORD.match(x) for x in toks) and not any(c.isdigit() for c in prev) and not _TITLE.match(line)


def detect(lines: list[str]) -> MailWrap | None:
    """The mail wrap of ``lines`` (the text as given, one string a line), or None for a text not wrapped."""
    width = max((len(ln.rstrip()) for ln in lines), default=0)
    if not 40 <= width <= MAX_MAIL_WIDTH:
        return None
    cut = [i + 1 for i in range(1, len(lines)) if _continues(lines[i - 1], lines[i], width)]
    return MailWrap(width, tuple(cut)) if len(cut) >= 2 else None


_SOFT = re.compile(r"(?<!=)=[ \t]*$")
_SOFT_BREAK = re.compile(r"(?<!=)=[ \t]*\r?\n")


def soft_breaks(text: str) -> str | None:
    """A quoted-printable body decoded (``=`` line ends joined, ``=3D``/``=20`` decoded), or None when the text
    is not one. The joined lines' breaks move to the next gap of two blank lines (a gap between sections, so no
    table or block is split by more blanks than it had), and the line numbers after it are the file's own."""
    if len(_SOFT_BREAK.findall(text, 0, 1_000_000)) < 2:  # the common case, without splitting a large file
        return None
    lines = text.split("\n")
    soft = [i for i, ln in enumerate(lines) if _SOFT.search(ln) and len(ln.rstrip()) <= MAX_MAIL_WIDTH + 1]
    if len(soft) < 2 or any(len(ln.rstrip()) > MAX_MAIL_WIDTH + 1 for ln in lines):
        return None
    out: list[str] = []
    owed, joining = 0, False
    for ln in lines:
        piece = _SOFT.sub("", ln)
        if joining:
            out[-1] += piece
            owed += 1
        else:
            if not ln.strip() and owed and out and not out[-1].strip():
                out += [""] * owed
                owed = 0
            out.append(piece)
        joining = _SOFT.search(ln) is not None
    # =XX escapes are bytes of the charset (UTF-8 here): decoded per line, after the joins
    return "\n".join(quopri.decodestring(ln.encode()).decode("utf-8", "replace") if "=" in ln else ln
                     for ln in out + [""] * owed)


Lines = list[tuple[int, str]]


def rejoin(lines: Lines) -> tuple[Lines, MailWrap | None]:
    """Numbered report lines with each mail fragment put back at the end of the line it was cut from (the
    line keeps its number), and the wrap; ``lines`` unchanged when the text was not wrapped. Each reader
    still checks its own table's columns, and refuses it (``MailWrap.refusal``) where they do not add up."""
    wrap = detect([t for _, t in lines])
    if wrap is None:
        return lines, None
    out: Lines = []
    for no, text in lines:
        if out and _continues(out[-1][1], text, wrap.width):
            out[-1] = (out[-1][0], f"{out[-1][1].rstrip()}  {text.strip()}")
        else:
            out.append((no, text))
    return out, wrap


_NUM = re.compile(r"^-?(\d+(?:[.,]\d+)?|[.,]\d+)$")


def column_words(toks: list[str], known: Container[str]) -> bool:
    """A line of a sysstat table's column names only (the cut-off end of its header), never a data row."""
    return bool(toks) and (len(toks) > 1 or toks[0] in known) and all(
        not _NUM.match(t) and (t in known or "/" in t or t.startswith("%") or t == "Device") for t in toks)


def cut_header(head: list[str], lines: Ahead, i: int, known: Container[str]
               ) -> tuple[list[str], int, MailWrap | None]:
    """A header a mailer cut (``wkB/s wrqm/s ...`` on the lines after it) made whole again, the line its rows
    start on, and the wrap (None for a header that was not cut)."""
    cut: list[int] = []
    while lines.has(i) and column_words(more := lines[i].split(), known):
        head, i = head + more, i + 1
        cut.append(i)
    if not cut:
        return head, i, None
    return head, i, MailWrap(max(len(lines[n - 1].rstrip()) for n in range(cut[0] - 1, cut[-1] + 1)), tuple(cut))
