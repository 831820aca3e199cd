"""The 12.2+ AWR text header, read whole: DB role, edition, unique name, the instance table's user and
"System Data Visible" columns, and the CDB's container list.

A report from an Active Data Guard standby (21c) prints::

    DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB
    DBSDU         3442244332 DBSDU_fra2b PHYSICAL STANDBY XP      21.0.0.0.0 NO  YES

The role can hold a space and the edition is a short code (EE, SE2, XP ...), so the row is read from both
ends: DB Id is the first long number, the release is the ``n.n.n.n.n`` token, role and edition sit between.
These are facts (text); a header-only fragment is still a result: its facts are what it says.
"""

from __future__ import annotations

import re

from planner.metrics import MetricSink
from planner.parsers.awr_sections import Lines, find

_RELEASE = re.compile(r"^\d{1,2}(?:\.\d+){4}$")
_EDITIONS = frozenset({"EE", "SE", "SE1", "SE2", "XE", "XP", "PO", "EEHP", "EEXP", "EEES", "HP", "FREE"})


def _values_after(lines: Lines, k: int) -> list[tuple[int, str]]:
    """Data rows under the dashed line that follows header line k, up to the first blank line."""
    out: list[tuple[int, str]] = []
    j = k + 1
    if j < len(lines) and re.match(r"^[\s-]+$", lines[j][1]) and "-" in lines[j][1]:
        j += 1
    while j < len(lines) and lines[j][1].strip():
        out.append(lines[j])
        j += 1
    return out


def parse_header_122(lines: Lines, sink: MetricSink) -> bool:
    """Facts of the 12.2+ header tables; True when the DB Name / Unique Name table was read."""
    found = False
    k = find(lines, r"^\s*DB Name\s+DB Id\s+Unique Name\s+(DB )?Role")
    if k >= 0:
        for _lineno, row in _values_after(lines, k)[:1]:
            tokens = row.split()
            rel = next((i for i, t in enumerate(tokens) if _RELEASE.match(t)), -1)
            dbid = next((i for i, t in enumerate(tokens) if re.fullmatch(r"\d{6,}", t)), -1)
            if rel > dbid + 2 >= 2:
                sink.facts["unique_name"] = tokens[dbid + 1]
                middle = tokens[dbid + 2:rel]
                if middle and middle[-1] in _EDITIONS:
                    sink.facts["edition"] = middle.pop()
                if middle:
                    sink.facts["db_role"] = " ".join(middle)
                found = True
    k = find(lines, r"^\s*Instance\s+Inst Num\s+Startup Time")
    if k >= 0:
        head = lines[k][1]
        for _lineno, row in _values_after(lines, k)[:1]:
            m = re.match(r"^\s*(\S+)\s+(\d+)\s+(\S+ \d\d:\d\d)(?:\s+(\S+))?(?:\s+(YES|NO))?\s*$", row)
            if m:
                sink.facts.setdefault("instance", m.group(1))
                sink.facts.setdefault("inst_num", m.group(2))
                sink.facts["startup_time"] = m.group(3)
                if m.group(4) and "User Name" in head:
                    sink.facts["user_name"] = m.group(4)
                if m.group(5) and "System Data Visible" in head:
                    sink.facts["system_data_visible"] = m.group(5)
    k = find(lines, r"^\s*Container DB Id\s+Container Name")
    names = [row.split()[1] for _, row in _values_after(lines, k) if len(row.split()) >= 2
             and row.split()[0].isdigit()] if k >= 0 else []
    record_container(sink, names, find(lines[:40], r"WORKLOAD REPOSITORY PDB report") >= 0)
    return found


def record_container(sink: MetricSink, names: list[str], pdb_report: bool) -> None:
    """Which container the figures are of: ``container`` (PDB1, or CDB$ROOT for a CDB-wide report) and
    ``report_level`` (pdb / cdb). A PDB-level report ("WORKLOAD REPOSITORY PDB report") lists only its PDB."""
    if names:
        sink.facts["containers"] = ",".join(names)
    pdbs = [n for n in names if n not in ("CDB$ROOT", "PDB$SEED")]
    if pdb_report:
        sink.facts["report_level"] = "pdb"
        if pdbs:
            sink.facts["container"] = ",".join(pdbs)
    elif sink.facts.get("cdb") == "YES":
        sink.facts["report_level"] = "cdb"
        sink.facts["container"] = "CDB$ROOT"
