"""Excerpts of AWR / Statspack reports as users paste them into blogs, mails and tickets.

Handles a Load Profile or Top 5 section on its own, a host table flattened onto one line, dots used
instead of spaces (WordPress comments), em/en dashes instead of dashes, curly ellipses.
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers import awr_sections as sec
from planner.parsers import mailwrap
from planner.parsers.awr_text import NBSP_LOST, check_text, demarkdown, run_sections, spaces_from_question_marks

KIND = "awr_excerpt"
_MARKERS = re.compile(r"Load(?:.|\n)Profile|Top.(5|10).(Timed|Foreground)|Host.Name.+Platform|Event.+Waits|Cache.Sizes|"
                      r"Begin Snap:\s+\d+|^\s*Statistic\s+(Name\s+)?Time \(s\)\s+% (of )?DB time", re.I | re.M)
# A web page that broke a Load Profile label over two lines: "Logical" / "reads: 39.21 411.30", "Load" / "Profile"
_SPLIT_LABEL = re.compile(r"^([A-Z][A-Za-z/]{1,15})[ \t]*\n[ \t]*((?:[a-z][\w()/]*[ \t]?){1,3}:[ \t]+[\d.,])", re.M)
_SPLIT_TITLE = re.compile(r"^(\s*Load)[ \t]*\n([ \t]*Profile\b)", re.M | re.I)


def _rejoin_split_labels(text: str) -> str:
    """A label a web page broke over two lines put back on one, on the line of its values; the line its first
    word was on is left blank, so every value keeps its line number."""
    text = _SPLIT_TITLE.sub(lambda m: f"\n{m.group(1)} {m.group(2).strip()}", text)
    return _SPLIT_LABEL.sub(lambda m: f"\n{m.group(1)} {m.group(2)}", text)


def normalise(text: str) -> str:
    """Undo blog damage: dashes, ellipses, dot padding, labels broken over two lines. Dots inside numbers and
    host names survive."""
    text = _rejoin_split_labels(text)
    out = []
    for line in text.replace("\u2014", "-").replace("\u2013", "-").replace("\u2026", "...").split("\n"):
        if re.search(r"\.{3,}", line) and line.strip(". "):  # only dot-padded lines: "exadataX2-8.vmem" keeps its
            # dot, and a line of dots alone is a "rows cut here" mark, not padding: a blank would end its table
            line = re.sub(r"\.{2,}", lambda m: " " * len(m.group()), line)
            line = re.sub(r"(?<=[^\d\s])\.|\.(?=[^\d\s])", " ", line)
            line = re.sub(r"~+-", "~ -", line)
        out.append(line)
    return "\n".join(out)


def looks_like(text: str) -> bool:
    return _MARKERS.search(text[:16384]) is not None


def _split_glued(text: str) -> str:
    """``Event Waits ... Wait Class------ ------``: a header glued to its rule (same line count kept)."""
    return re.sub(r"(Class|Transaction|Second|Call)([-~]{3,})", r"\1 \2", text)


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    text, lost_nbsp = spaces_from_question_marks(text)
    md, markdown = demarkdown(text)
    norm = _split_glued(normalise(md))
    if not looks_like(norm):
        raise ParseError(KIND, "excerpt", "no AWR section (Load Profile, Top 5, host line) found", source=source)
    lines, wrap = mailwrap.rejoin(sec.prepare(norm))
    sink = MetricSink(source)
    if markdown or lost_nbsp:
        sink.facts["layout"] = "markdown" if markdown else NBSP_LOST
    if wrap:
        sink.facts["mail_wrapped"] = f"{wrap.width} columns"
    sec.parse_header(lines, sink)
    run_sections(lines, sink, KIND, (), wrap)
    _parse_bare_top(lines, sink, wrap)
    if not sink.metrics:
        raise ParseError(KIND, "excerpt", wrap.refusal("the excerpt") if wrap else
                         "a section header was found but no value could be read", source=source)
    return sink.freeze(KIND)


def _parse_bare_top(lines: sec.Lines, sink: MetricSink, wrap: mailwrap.MailWrap | None) -> None:
    """A Top 5 table pasted without its title: starts at the ``Event  Waits`` header line."""
    if any(m.name.startswith("wait.") for m in sink.metrics):
        return
    k = sec.find(lines, r"^\s*Event\s+Waits\b")
    if k < 0:
        return
    title = (lines[k][0], "Top 5 Timed Events")  # synthetic title; header lines keep their numbers
    sec.parse_top_events([title, *lines[max(0, k - 3):k], *lines[k:]], sink, wrap)
