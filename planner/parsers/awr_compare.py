"""The AWR Compare Period report (``awrddrpt.sql``), text and HTML: two snapshot sets side by side.

Every value carries the label ``set`` = ``1st`` or ``2nd``; the report's own differences are separate
metrics ending ``_diff_pct`` (``%Diff``, can be negative). Sections read:

- header (``Snapshot Set  DB Id ... Release ...``: one row per set) -> facts ``version``, ``set1.*``, ``set2.*``;
- snapshot table -> ``snap_id_begin`` / ``snap_id_end``, ``aas``, ``elapsed_min``, ``db_time_min`` per set;
- Load Profile (``1st Per Sec  2nd Per Sec  %Diff  1st Per Txn  2nd Per Txn  %Diff``) -> the Load Profile
  metric names of the single-period report (``physical_reads_per_s`` ...) per set, plus ``..._diff_pct``.
  Some versions drop the "Load Profile" title and start the block at its ``~~~`` underline;
- Top Timed Events (two tables side by side, cut at the dashed column rules) -> ``wait.*`` per set.

Text layout verified on a 19c PDB-snapshots report (tests/data/awr_compare/README.md). HTML is read by
turning its table rows into the same text lines (``html_as_text``): no real HTML compare report was found,
so that path is proven only on a constructed sample.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers import awr_rows
from planner.parsers import awr_sections as sec
from planner.parsers.awr_common import (
    LOAD_PROFILE,
    EventRow,
    N,
    RowName,
    add_event,
    full_wait_class,
    missing_section,
    norm_label,
    parse_avg_wait_ms,
    parse_number,
    slug,
)
from planner.parsers.awr_text import check_text, demarkdown
from planner.parsers.numbers import put

KIND = "awr_compare"
_RELEASE = re.compile(r"\b(\d{1,2}(?:\.\d+){4})\b")
_SETS = (("1st", "First"), ("2nd", "Second"))


def looks_like(text: str) -> bool:
    return re.search(r"WORKLOAD REPOSITORY COMPARE PERIOD REPORT", text[:65536], re.I) is not None


class _Rows(HTMLParser):
    """HTML to the text layout: one line per ``<tr>``, cells three spaces apart, line numbers kept."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: dict[int, list[str]] = {}
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._row_line = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._row, self._row_line = [], self.getpos()[0]
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.lines.setdefault(self._row_line, []).append("   ".join(c for c in self._row if c))
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data.replace("\u00a0", " "))
        elif data.strip():
            self.lines.setdefault(self.getpos()[0], []).append(data.strip())


def html_as_text(text: str) -> str:
    """The HTML Compare Period report as text lines the text readers understand (table rows as lines; a
    caption such as "Load Profile" on its own line). UNVERIFIED on a real awrddrpt HTML file (none found)."""
    rows = _Rows()
    rows.feed(text)
    rows.close()
    n = text.count("\n") + 1
    return "\n".join("   ".join(rows.lines.get(i, [])) for i in range(1, n + 1))


def _header(lines: sec.Lines, sink: MetricSink) -> bool:
    k = sec.find(lines, r"^\s*Snapshot Set\s+(DB Name|DB Id)\b")
    if k < 0:
        return False
    head = lines[k][1]
    for lineno, row in lines[k + 1:k + 5]:
        for tag, word in _SETS:
            if not row.lstrip().startswith(word):
                continue
            rel = _RELEASE.search(row)
            if rel:
                sink.facts[f"set{tag[0]}.version"] = rel.group(1)
                sink.facts.setdefault("version", rel.group(1))
            dbid = re.search(r"\s(\d{6,})\s", row)
            if dbid:
                sink.facts.setdefault("dbid", dbid.group(1))
            if "DB Role" in head and (role := re.search(r"\b(PRIMARY|PHYSICAL STANDBY|LOGICAL STANDBY|SNAPSHOT "
                                                         r"STANDBY)\b", row)):
                sink.facts[f"set{tag[0]}.db_role"] = role.group(1)
            if rel:
                after = row[rel.end():].split()
                if after and after[0] in ("YES", "NO"):
                    sink.facts["rac"] = after[0]
                if "CDB" in head and len(after) > 1 and after[1] in ("YES", "NO"):
                    sink.facts["cdb"] = after[1]
            sink.facts.setdefault("header_line", str(lineno))
    return "version" in sink.facts


def _snapshots(lines: sec.Lines, sink: MetricSink) -> bool:
    k = sec.find(lines, r"^\s*Snapshot Set\s+Begin Snap Id")
    if k < 0:
        return False
    found = False
    for lineno, row in lines[k + 1:k + 8]:
        m = re.match(r"^\s*(1st|2nd)\s+(\d+)\s+.+?\)\s+(\d+)\s+.+?\)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", row)
        if m:
            labels = {"set": m.group(1)}
            for name, tok, unit in (("snap_id_begin", m.group(2), "id"), ("snap_id_end", m.group(3), "id"),
                                    ("aas", m.group(4), "sessions"), ("elapsed_min", m.group(5), "min"),
                                    ("db_time_min", m.group(6), "min")):
                if (v := parse_number(tok)) is not None:
                    put(sink, name, v, unit, N, lineno, labels)
                    found = True
        d = re.match(r"^\s*%Diff:\s+(\S+)%\s+(\S+)%\s+(\S+)%", row)
        if d:
            for name, tok in (("aas_diff_pct", d.group(1)), ("elapsed_min_diff_pct", d.group(2)),
                              ("db_time_min_diff_pct", d.group(3))):
                if (v := parse_number(tok)) is not None:
                    put(sink, name, v, "%", N, lineno)
    return found


_LP_COLUMNS = ("s1", "s2", "sdiff", "t1", "t2", "tdiff")
# The compare report names two rows differently from the single-period Load Profile.
_ALIASES = {"cpu time": "db cpu(s)", "background cpu time": "background cpu(s)"}


def _load_profile(lines: sec.Lines, sink: MetricSink) -> int:
    k = awr_rows.find_block(lines)
    if k < 0:
        return 0
    _header_text, rows = awr_rows.scan(lines, k)
    n = 0
    ratios = False
    for row in rows:
        values = awr_rows.numbers_of(row, sink, KIND, "Load Profile")
        if not values:
            continue
        ratios = ratios or "%" in row.label  # "% Blocks changed per Read:  First  Second  Diff"
        if ratios:
            base = f"load_profile.{slug(row.label)}"
            for tag, v in zip(("1st", "2nd", "diff"), values, strict=False):
                if v is not None:
                    put(sink, base + ("_diff" if tag == "diff" else ""), v, "%" if "%" in row.label else "", N,
                        row.line, {} if tag == "diff" else {"set": tag})
            continue
        if len(values) > len(_LP_COLUMNS):
            sink.errors.append(ParseError(KIND, "Load Profile", f"row '{row.label}' has {len(values)} values for "
                                          f"{len(_LP_COLUMNS)} columns; row skipped", source=sink.source,
                                          line=row.line))
            continue
        label = _ALIASES.get(norm_label(row.label), norm_label(row.label))
        name = LOAD_PROFILE.get(label) or RowName(slug(row.label), "count", N)
        for col, v in zip(_LP_COLUMNS, values, strict=False):
            if v is None:
                continue
            per = "s" if col.startswith("s") else "txn"
            if col.endswith("diff"):
                put(sink, f"{name.base}_per_{per}_diff_pct", v, "%", N, row.line)
            else:
                put(sink, f"{name.base}_per_{per}", v, f"{name.unit}/{per}", name.direction, row.line,
                    {"set": "1st" if col[1] == "1" else "2nd"})
        n += 1
    return n


def _top_events(lines: sec.Lines, sink: MetricSink) -> int:
    k = sec.find(lines, r"^\s*Top Timed Events\b")
    if k < 0:
        return 0
    h = sec.find(lines, r"^\s*Event\s+Wait Class\s+Waits", k)
    if h < 0 or h - k > 8 or h + 1 >= len(lines):
        return 0
    spans = [m.span() for m in re.finditer(r"-+", lines[h + 1][1])]
    if len(spans) < 12:
        return 0
    n = 0
    ranks = {"1st": 0, "2nd": 0}
    for lineno, row in lines[h + 2:]:
        if not row.strip() or re.match(r"^\s*-{10,}\s*$", row):
            break
        for tag, cols in (("1st", spans[:6]), ("2nd", spans[6:12])):
            cells = [row[a:(cols[i + 1][0] if i + 1 < len(cols) else b + 1)].strip()
                     for i, (a, b) in enumerate(cols)]
            event = cells[0].lstrip("-").strip()
            if not event or event == "N/A":
                continue
            ranks[tag] += 1
            add_event(sink, EventRow(event, parse_number(cells[2]), parse_number(cells[3]),
                                     parse_avg_wait_ms(cells[4]), parse_number(cells[5]),
                                     full_wait_class(cells[1]), lineno), ranks[tag], "top", set=tag)
            n += 1
    return n


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    if not looks_like(text):
        raise ParseError(KIND, "header", "not an AWR Compare Period report ('WORKLOAD REPOSITORY COMPARE PERIOD "
                         "REPORT' not found)", source=source)
    html = "<table" in text[:65536].lower()
    text, markdown = (html_as_text(text), False) if html else demarkdown(text)
    lines = sec.prepare(text)
    sink = MetricSink(source)
    if markdown or html:
        sink.facts["layout"] = "html" if html else "markdown"
    if "(PDB snapshots)" in text[:4096]:
        sink.facts["scope"] = "PDB snapshots"
    for name, read in (("header", lambda: _header(lines, sink)), ("Snapshots", lambda: _snapshots(lines, sink)),
                       ("Load Profile", lambda: _load_profile(lines, sink)),
                       ("Top Timed Events", lambda: _top_events(lines, sink))):
        if not read():
            sink.errors.append(ParseError(KIND, name, missing_section(text),
                                          source=source))
    if not sink.metrics and "version" not in sink.facts:
        raise ParseError(KIND, "report", "no section could be read", source=source)
    return sink.freeze(KIND)
