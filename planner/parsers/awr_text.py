"""AWR text reports (``awrrpt_*.txt``, SLOB ``awr.txt``), Oracle 10g to 19c, including PDB reports and
reports pulled with ``SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT(...))``."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers import awr_host, awr_rows, mailwrap
from planner.parsers import awr_sections as sec
from planner.parsers.awr_common import missing_section
from planner.parsers.awr_header import parse_header_122

KIND = "awr_text"


def looks_like(text: str) -> bool:
    head = text[:8192]
    return re.search(r"WORKLOAD REPOSITORY (PDB )?report", head, re.I) is not None and "<table" not in head.lower()


def check_text(text: object, parser: str, source: str) -> str:
    """Reject what is not report text at all: empty, binary, not a str. Raises ParseError."""
    if not isinstance(text, str):
        raise ParseError(parser, "input", "expected text", source=source)
    if not text.strip():
        raise ParseError(parser, "input", "the file is empty", source=source)
    sample = text[:4096]
    bad = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\r\n\f") or c == "\ufffd")
    if bad > max(8, len(sample) // 50):
        raise ParseError(parser, "input", "binary data, not a report", source=source)
    refuse_decimal_comma(text, parser, source)
    return text


# A number grouped with dots and a decimal comma (``138.010,5``): what SQL*Plus prints under a territory or
# NLS_NUMERIC_CHARACTERS with ',' as the decimal character (docs/oracle-behaviour.md 41.n3). Never in a report
# written under '.,': an IP address or a release has no comma.
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+,\d+(?![\d.,])")


def refuse_decimal_comma(text: str, parser: str, source: str) -> None:
    """A report written with decimal commas is refused whole, by name: in it ``1.557`` is 1557, which read as
    1.557 would be a wrong number without a word; only the ambiguous-free tokens could be read, so none are."""
    for n, line in enumerate(text.splitlines(), 1):
        m = _DECIMAL_COMMA.search(line)
        if m:
            raise ParseError(parser, "numbers", f"{m.group()!r} has a decimal comma: the report was written under "
                             "NLS_NUMERIC_CHARACTERS=',.' (a territory such as GERMANY in NLS_LANG), where '1.557' "
                             "means 1557 — regenerate it with NLS_LANG=AMERICAN_AMERICA (or "
                             "NLS_NUMERIC_CHARACTERS='.,') in the session that writes it", source=source, line=n)


def run_sections(lines: sec.Lines, sink: MetricSink, parser: str,
                 required: tuple[str, ...] = ("Load Profile", "Top Events"),
                 wrap: mailwrap.MailWrap | None = None) -> None:
    """Read every known section; record an error for each required one that cannot be read (in a paste
    wrapped by mail, by that name: the section's rows were cut, not absent)."""
    labels: dict[str, str] = {}
    if sink.facts.get("rac") == "YES" and sink.facts.get("inst_num"):
        labels["instance"] = sink.facts["inst_num"]  # RAC: values belong to one instance
    readers: list[tuple[str, Callable[[], object]]] = [
        ("Host", lambda: sec.parse_host(lines, sink)),
        ("Snapshots", lambda: sec.parse_snapshots(lines, sink)),
        ("Cache Sizes", lambda: sec.parse_cache_sizes(lines, sink)),
        ("Load Profile", lambda: awr_rows.parse_load_profile(lines, sink, parser, **labels)),
        ("Instance Efficiency", lambda: sec.parse_efficiency(lines, sink, **labels)),
        ("Top Events", lambda: sec.parse_top_events(lines, sink, wrap, **labels)),
        ("Wait Classes", lambda: sec.parse_wait_classes(lines, sink, **labels)),
        ("Host CPU", lambda: awr_host.parse_host_cpu(lines, sink, **labels)),
        ("Instance CPU", lambda: awr_host.parse_instance_cpu(lines, sink, **labels)),
        ("IO Profile", lambda: awr_host.parse_io_profile(lines, sink, **labels)),
        ("Time Model", lambda: sec.parse_db_time_s(lines, sink, **labels)),
        ("Foreground Wait Events", lambda: sec.parse_foreground_events(lines, sink, wrap, **labels)),
        ("Instance Activity Stats", lambda: sec.parse_activity(lines, sink, **labels)),
    ]
    for name, read in readers:
        try:
            ok = read()
        except (ValueError, IndexError) as exc:  # a mangled section must not hide the others
            sink.errors.append(ParseError(parser, name, f"unreadable: {exc}", source=sink.source))
            continue
        if ok or any(e.section == name for e in sink.errors):
            continue
        if name in required:
            why = wrap.refusal(f"section '{name}'") if wrap else missing_section("\n".join(t for _, t in lines[-60:]))
            sink.errors.append(ParseError(parser, name, why, source=sink.source))
        elif wrap and any(t.strip().startswith(name) for _, t in lines):  # there, but its rows were cut
            sink.errors.append(ParseError(parser, name, wrap.refusal(f"section '{name}'"), source=sink.source))


# A web page's non-breaking spaces put through a code page without them (GBK, Latin-1 "?" substitution): every one
# a "?", one for one, so the columns stay where they were. Oracle prints no "?" in the header row ("Database???
# DB Id???"), so a header row written so is the proof; then every "?" of the report was a space.
NBSP_LOST = "non-breaking spaces shown as '?'"
_NBSP_HEADER = re.compile(r"^[ \t?]*(?:DB Name|Database)\?+[ \t?]*DB Id\?", re.M)


def spaces_from_question_marks(text: str) -> tuple[str, bool]:
    """The text with its "?" back to spaces when its header row shows they were non-breaking spaces."""
    if _NBSP_HEADER.search(text[:65536]) is None:
        return text, False
    return text.replace("?", " "), True


def _is_row(line: str) -> bool:
    """A Markdown table row: ``| a | b |``, or GitHub's ``a | b | c`` without the outer pipes."""
    return line.lstrip().startswith("|") or line.count("|") >= 2


def demarkdown(text: str) -> tuple[str, bool]:
    """AWR text that went through an HTML-to-Markdown converter: ``| a | b |`` rows, ``|---|`` rules, bold.

    Pipes become column gaps, rules become dashes (the readers skip dashed lines), bold and escapes go;
    the line count is kept so every value still points at its line. Returns (text, whether it was Markdown).
    """
    lines = text.split("\n")
    piped = sum(1 for ln in lines[:400] if _is_row(ln))
    if piped < 3 and "**" not in text[:20000]:
        return text, False
    out = []
    for ln in lines:
        t = re.sub(r"\\([_*#|~\\-])", r"\1", ln).replace("**", "").replace("`", "")
        if _is_row(t):
            cells = [c.strip() for c in t.strip().strip("|").split("|")]
            t = "   ".join("-" * max(3, len(c)) if re.fullmatch(r":?-{3,}:?", c) else c for c in cells)
        out.append(re.sub(r"^#{1,6}\s+", "", t))
    return "\n".join(out), True


def parse_summary_report(text: str, source: str, kind: str, recognised: Callable[[str], bool], what: str,
                         header_problem: str) -> Parsed:
    """AWR text and Statspack share their summary page: one reader, their own header checks."""
    check_text(text, kind, source)
    if not recognised(text):
        raise ParseError(kind, "header", what, source=source)
    text, lost_nbsp = spaces_from_question_marks(text)
    text, markdown = demarkdown(text)
    lines, wrap = mailwrap.rejoin(sec.prepare(text))
    sink = MetricSink(source)
    if markdown or lost_nbsp:
        sink.facts["layout"] = "markdown" if markdown else NBSP_LOST
    if wrap:
        sink.facts["mail_wrapped"] = f"{wrap.width} columns"
    header = sec.parse_header(lines, sink)
    parse_header_122(lines, sink)
    if not header:
        sink.errors.append(ParseError(kind, "header", wrap.refusal("header") if wrap else header_problem,
                                      source=source))
    run_sections(lines, sink, kind, ("Host", "Snapshots", "Load Profile", "Top Events"), wrap)
    if not sink.metrics and not header:  # a header-only fragment is still a result: its facts
        raise ParseError(kind, "report", "no section could be read", source=source)
    return sink.freeze(kind)


def parse(text: str, source: str = "<text>") -> Parsed:
    return parse_summary_report(text, source, KIND, looks_like,
                                "not an AWR text report ('WORKLOAD REPOSITORY report for' not found)",
                                "DB Name / Release line missing or from an unknown version")
