"""Statspack reports (``spreport.sql``; SLOB's statspack.txt when AWR is not licensed), 9i to 19c.

The summary page mirrors the AWR one (Load Profile, Top 5 Timed Events, Host CPU...), so the AWR section
readers are reused; only the header differs (``Database  DB Id  Instance ...`` with a blank DB name).
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers import awr_sections as sec
from planner.parsers.awr_text import check_text, run_sections

KIND = "statspack"


def looks_like(text: str) -> bool:
    return re.search(r"^\s*STATSPACK (Statistics )?report for", text[:8192], re.M | re.I) is not None


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    if not looks_like(text):
        raise ParseError(KIND, "header", "not a Statspack report ('STATSPACK report for' not found)",
                         source=source)
    lines = sec.prepare(text)
    sink = MetricSink(source)
    if not sec.parse_header(lines, sink):
        sink.errors.append(ParseError(KIND, "header", "Database / Release line missing or unknown version",
                                      source=source))
    run_sections(lines, sink, KIND, ("Host", "Snapshots", "Load Profile", "Top Events"))
    if not sink.metrics:
        raise ParseError(KIND, "report", "no section could be read", source=source)
    return sink.freeze(KIND)
