"""Statspack reports (``spreport.sql``; SLOB's statspack.txt when AWR is not licensed), 9i to 19c.

The summary page mirrors the AWR one (Load Profile, Top 5 Timed Events, Host CPU...), so the AWR section
readers are reused; only the header differs (``Database  DB Id  Instance ...`` with a blank DB name).
"""

from __future__ import annotations

import re

from planner.metrics import Parsed
from planner.parsers.awr_text import parse_summary_report

KIND = "statspack"


def looks_like(text: str) -> bool:
    return re.search(r"^[ \t]*STATSPACK (Statistics )?report for", text[:8192], re.M | re.I) is not None


def parse(text: str, source: str = "<text>") -> Parsed:
    return parse_summary_report(text, source, KIND, looks_like,
                                "not a Statspack report ('STATSPACK report for' not found)",
                                "Database / Release line missing or unknown version")
