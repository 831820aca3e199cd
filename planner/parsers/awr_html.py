"""AWR HTML reports (``awrrpt_*.html``, SLOB ``awr.html``), 11.2.0.4 to 19c.

Tables are found by their ``summary`` attribute, which is stable across versions (output-formats.md 2);
every metric's source line is the line of its ``<tr>``. Only the standard library's HTMLParser is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from planner.errors import ParseError
from planner.metrics import MetricSink, Parsed
from planner.parsers.awr_common import (
    HOST_CPU_COLUMNS,
    PER_COLUMNS,
    EventRow,
    H,
    L,
    N,
    add_efficiency,
    add_event,
    add_load_profile_row,
    full_wait_class,
    missing_section,
    parse_avg_wait_ms,
    parse_number,
    parse_size_mb,
    slug,
)
from planner.parsers.awr_header import record_container
from planner.parsers.awr_text import check_text
from planner.parsers.numbers import put

KIND = "awr_html"


@dataclass
class Table:
    summary: str
    line: int
    header: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[str]]] = field(default_factory=list)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.title = ""
        self._stack: list[Table] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._row_line = 0
        self._row_is_header = False
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            summary = dict(attrs).get("summary") or ""
            self._stack.append(Table(re.sub(r"\s+", " ", summary).strip().lower(), self.getpos()[0]))
        elif tag == "tr" and self._stack:
            self._row, self._row_line, self._row_is_header = [], self.getpos()[0], True
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            if tag == "td":
                self._row_is_header = False
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._stack:
            t = self._stack[-1]
            if self._row_is_header:
                t.header = self._row
            else:
                t.rows.append((self._row_line, self._row))
            self._row = None
        elif tag == "table" and self._stack:
            self.tables.append(self._stack.pop())
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data.replace("\u00a0", " "))
        elif self._in_title:
            self.title += data


def _html_start(text: str) -> int:
    """Where the HTML starts: a report spooled from SQL*Plus carries the prompt dialogue before ``<html>``."""
    m = re.search(r"<html\b", text[:2_000_000], re.I)
    return m.start() if m else 0


def read_html(text: str, kind: str, source: str) -> tuple[_Collector, int]:
    """The report's tables, and where its HTML starts (after any SQL*Plus prompt lines, whose newlines are
    kept so line numbers stay the file's); ParseError for markup HTMLParser cannot read."""
    collector = _Collector()
    start = _html_start(text)
    try:
        collector.feed("\n" * text.count("\n", 0, start) + text[start:])
        collector.close()
    except (AssertionError, ValueError) as exc:  # HTMLParser on badly broken markup
        raise ParseError(kind, "html", f"unreadable HTML: {exc}", source=source) from exc
    return collector, start


def looks_like(text: str) -> bool:
    head = text[_html_start(text):][:16384]
    if "AWR RAC Report for DB:" in head or "WORKLOAD REPOSITORY REPORT (RAC)" in head or \
            "COMPARE PERIOD REPORT" in head.upper():
        return False  # the global RAC and Compare Period reports have parsers of their own
    return ("<table" in head.lower() and "WORKLOAD REPOSITORY" in head) or "<title>AWR Report for DB:" in head


_DISPLAYS = "this table displays "
# The tables this parser reads, by summary; every other (SQL, segments, advisories, latches: most of a real
# report's megabyte) is blanked to its newlines before the HTML parser sees the page, which parses only what it
# needs in a tenth of the time (benchmarks/history). A table with no summary is kept.
_READ = ("database instance information", "pdb instance information", "host information", "snapshot information",
         "load profile", "instance efficiency", "top 10 wait events", "top 10 foreground events", "top 5 timed",
         "foreground wait events", "key instance activity", "instance activity", "wait class statistics",
         "system load statistics", "cpu usage and wait statistics", "io profile", "cache sizes")
_TABLE = re.compile(r"<table\b[^>]*>.*?</table\s*>", re.S | re.I)
_SUMMARY = re.compile(r"""\bsummary\s*=\s*["']([^"']*)""", re.I)


def _only_read_tables(html: str) -> str:
    def blank(m: re.Match[str]) -> str:
        whole = m.group(0)
        tag = whole[:whole.find(">") + 1]
        found = _SUMMARY.search(tag)
        summary = " ".join(found.group(1).split()).lower().removeprefix(_DISPLAYS) if found else ""
        return whole if not summary or summary.startswith(_READ) else "\n" * whole.count("\n")
    return _TABLE.sub(blank, html)


def _tables(tables: list[Table], summary_prefix: str) -> list[Table]:
    """Tables whose summary starts with the prefix, with or without the "This table displays" that most
    versions put first (an 11.2.0.3 report's Top 5 says only "Top 5 Timed Foreground Events")."""
    want = summary_prefix.removeprefix(_DISPLAYS)
    return [t for t in tables if t.summary.removeprefix(_DISPLAYS).startswith(want)]


def _col(t: Table, *names: str) -> int:
    lowered = [h.lower() for h in t.header]
    for n in names:
        if n.lower() in lowered:
            return lowered.index(n.lower())
    return -1


def _header(tables: list[Table], sink: MetricSink) -> bool:
    for t in _tables(tables, "this table displays database instance information"):
        for _, cells in t.rows[:1]:
            get = {h.lower(): c for h, c in zip(t.header, cells, strict=False)}
            for key, fact in (("db name", "db_name"), ("db id", "dbid"), ("instance", "instance"),
                              ("inst num", "inst_num"), ("release", "version"), ("rac", "rac"), ("cdb", "cdb"),
                              ("unique name", "unique_name"), ("role", "db_role"), ("db role", "db_role"),
                              ("edition", "edition"), ("startup time", "startup_time"),
                              ("user name", "user_name"), ("system data visible", "system_data_visible")):
                if get.get(key):
                    sink.facts[fact] = get[key]
    return "version" in sink.facts


def _containers(tables: list[Table], sink: MetricSink, pdb_report: bool) -> None:
    names = [c for t in _tables(tables, "this table displays pdb instance information")
             for _, cells in t.rows if 0 <= (i := _col(t, "Container Name")) < len(cells) and (c := cells[i])]
    record_container(sink, names, pdb_report)


def _host(tables: list[Table], sink: MetricSink) -> bool:
    for t in _tables(tables, "this table displays host information"):
        for line, cells in t.rows[:1]:
            get = {h.lower(): c for h, c in zip(t.header, cells, strict=False)}
            sink.facts["host_name"] = get.get("host name", "")
            sink.facts["platform"] = get.get("platform", "")
            for key, name, unit in (("cpus", "cpus", "cpus"), ("cores", "cores", "cores"),
                                    ("sockets", "sockets", "sockets"), ("memory (gb)", "memory_gb", "GB")):
                v = parse_number(get.get(key, ""))
                if v is not None:
                    sink.add(name, v, unit, N, line)
            return True
    return False


def _snapshots(tables: list[Table], sink: MetricSink) -> bool:
    found = False
    for t in _tables(tables, "this table displays snapshot information"):
        for line, cells in t.rows:
            label = cells[0].rstrip(":").lower() if cells else ""
            if label in ("begin snap", "end snap") and len(cells) > 2:
                point = label.split()[0]
                sink.facts[f"{point}_snap_id"] = cells[1]
                sink.facts[f"{point}_snap_time"] = cells[2]
                if (v := parse_number(cells[1])) is not None:
                    sink.add(f"snap_id_{point}", v, "id", N, line)
                    found = True
            elif label in ("elapsed", "db time"):
                m = re.search(r"([\d,.]+)\s*\(mins\)", " ".join(cells))
                if m and (v := parse_number(m.group(1))) is not None:
                    sink.add("elapsed_min" if label == "elapsed" else "db_time_min", v, "min", N, line)
                    found = True
    return found


def _load_profile(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    n = 0
    for t in _tables(tables, "this table displays load profile"):
        for line, cells in t.rows:
            if len(cells) >= 2:
                n += bool(add_load_profile_row(sink, cells[0], [parse_number(c) for c in cells[1:]], line,
                                               PER_COLUMNS, **labels))
    return n


def _efficiency(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    n = 0
    for t in _tables(tables, "this table displays instance efficiency"):
        for line, cells in t.rows:
            for label, value in zip(cells[0::2], cells[1::2], strict=False):
                if (v := parse_number(value)) is not None:
                    add_efficiency(sink, label.rstrip(":"), v, line, **labels)
                    n += 1
    return n


_EVENT_COLUMNS = (("waits", ("Waits",)),
                  ("time", ("Total Wait Time (sec)", "Total Wait Time (s)", "Time(s)", "Time (s)")),
                  ("avg", ("Avg Wait", "Wait Avg(ms)", "Avg wait (ms)")), ("pct", ("% DB time", "%Total Call Time")),
                  ("class", ("Wait Class",)))


def _events(tables: list[Table], summaries: tuple[str, ...], section: str, sink: MetricSink,
            **labels: str) -> int:
    """Rows of the wait-event tables whose summary starts with one of ``summaries``, as ``section``."""
    rank = 0
    for t in [t for prefix in summaries for t in _tables(tables, prefix)]:
        ci = {k: _col(t, *names) for k, names in _EVENT_COLUMNS}
        for line, cells in t.rows:
            def cell(key: str, cells: list[str] = cells, ci: dict[str, int] = ci) -> str:
                i = ci[key]
                return cells[i] if 0 <= i < len(cells) else ""
            rank += 1
            add_event(sink, EventRow(cells[0], parse_number(cell("waits")), parse_number(cell("time")),
                                     parse_avg_wait_ms(cell("avg")), parse_number(cell("pct")),
                                     full_wait_class(cell("class")), line), rank, section, **labels)
    return rank


def _top_events(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    return _events(tables, ("top 10 wait events", "top 10 foreground events", "top 5 timed"), "top",
                   sink, **labels)


def _foreground_events(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    """Foreground Wait Events: every foreground event, where db file sequential read is when the Top 10 lacks it."""
    return _events(tables, ("this table displays foreground wait events",), "foreground", sink, **labels)


_ACTIVITY_PER = (("", "count"), ("_per_s", "count/s"), ("_per_txn", "count/txn"))


def _activity(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    """Instance Activity Stats (and its Key subset, read once): ``activity.<statistic>`` total, per s, per txn."""
    seen: set[str] = set()
    for t in _tables(tables, "this table displays key instance activity") + \
            _tables(tables, "this table displays instance activity"):
        for line, cells in t.rows:
            name = slug(cells[0]) if cells else ""
            if not name or name in seen or len(cells) < 4:
                continue
            seen.add(name)
            for (suffix, unit), cell in zip(_ACTIVITY_PER, cells[1:4], strict=True):
                if (v := parse_number(cell)) is not None:
                    put(sink, f"activity.{name}{suffix}", v, unit, N, line, labels)
    return len(seen)


def _wait_classes(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    n = 0
    for t in _tables(tables, "this table displays wait class statistics"):
        it, ia, ip = (_col(t, "Total Wait Time (sec)"), _col(t, "Avg Wait", "Avg Wait (ms)", "Avg Wait Time"),
                      _col(t, "% DB time"))
        for line, cells in t.rows:
            lab = dict(labels, wait_class=cells[0])
            for idx, name, unit, d, conv in ((it, "wait_class.time_s", "s", L, parse_number),
                                             (ia, "wait_class.avg_ms", "ms", L, parse_avg_wait_ms),
                                             (ip, "wait_class.pct_db_time", "%", N, parse_number)):
                if 0 <= idx < len(cells) and (v := conv(cells[idx])) is not None:
                    put(sink, name, v, unit, d, line, lab)
            n += 1
    return n


def _host_cpu(tables: list[Table], sink: MetricSink, **labels: str) -> bool:
    for t in _tables(tables, "this table displays system load statistics"):
        for line, cells in t.rows[:1]:
            for h, c in zip(t.header, cells, strict=False):
                key = h.lower().replace("load average ", "").lstrip("%")
                if key in ("cpus", "cores", "sockets") or (v := parse_number(c)) is None:
                    continue
                metric, unit = HOST_CPU_COLUMNS.get(key, (f"host_cpu.{slug(key)}", ""))
                put(sink, metric, v, unit, L if key in ("wio", "user", "system") else N, line, labels)
            return True
    return False


def _instance_cpu(tables: list[Table], sink: MetricSink, **labels: str) -> bool:
    """Instance CPU (%Total / %Busy / Resource Manager wait), same names as the text reader."""
    names = {"%total cpu": "instance_cpu.total_pct", "%busy cpu": "instance_cpu.busy_pct"}
    for t in _tables(tables, "this table displays cpu usage and wait statistics"):
        for line, cells in t.rows[:1]:
            for h, c in zip(t.header, cells, strict=False):
                key = h.lower()
                name = names.get(key) or ("instance_cpu.rsrc_mgr_wait_pct" if "resource manager" in key else "")
                if name and (v := parse_number(c)) is not None:
                    put(sink, name, v, "%", N, line, labels)
            return True
    return False


def _io_profile(tables: list[Table], sink: MetricSink, **labels: str) -> int:
    n = 0
    for t in _tables(tables, "this table displays io profile"):
        for line, cells in t.rows:
            label = cells[0].rstrip(":")
            unit = "MB/s" if "(MB)" in label else ("blocks/s" if "blocks" in label else "requests/s")
            for scope, c in zip(("total", "read", "write"), cells[1:], strict=False):
                if (v := parse_number(c)) is not None:
                    put(sink, f"io_profile.{slug(label)}", v, unit, H, line, {"scope": scope, **labels})
            n += 1
    return n


def _cache_sizes(tables: list[Table], sink: MetricSink) -> bool:
    names = {"buffer cache": ("buffer_cache_mb", "MB"), "shared pool size": ("shared_pool_mb", "MB"),
             "std block size": ("std_block_size_kb", "KB"), "log buffer": ("log_buffer_kb", "KB")}
    found = False
    for t in _tables(tables, "this table displays cache sizes"):
        for line, cells in t.rows:
            for i, c in enumerate(cells):
                key = c.rstrip(":").lower()
                if key in names and i + 1 < len(cells) and (mb := parse_size_mb(cells[i + 1])) is not None:
                    name, unit = names[key]
                    sink.add(name, mb * 1024 if unit == "KB" else mb, unit, N, line)
                    found = True
    return found


def parse(text: str, source: str = "<text>") -> Parsed:
    check_text(text, KIND, source)
    if not looks_like(text):
        raise ParseError(KIND, "header", "not an AWR HTML report", source=source)
    collector, start = read_html(_only_read_tables(text), KIND, source)
    tables, sink = collector.tables, MetricSink(source)
    if collector.title:
        sink.facts["title"] = collector.title.strip()
    if start:  # SQL*Plus prompt dialogue before <html>: said, so a reader knows it was not read
        sink.facts["lines_skipped"] = f"1-{text.count(chr(10), 0, start)} (text before <html>)"
    if not _header(tables, sink):
        sink.errors.append(ParseError(KIND, "header", "database instance table missing or unknown version",
                                      source=source))
    _containers(tables, sink, re.search(r"WORKLOAD REPOSITORY PDB report", text[start:start + 65536]) is not None)
    labels = {"instance": sink.facts["inst_num"]} if sink.facts.get("rac") == "YES" and \
        sink.facts.get("inst_num") else {}
    required = {"Host": lambda: _host(tables, sink), "Snapshots": lambda: _snapshots(tables, sink),
                "Load Profile": lambda: _load_profile(tables, sink, **labels),
                "Top Events": lambda: _top_events(tables, sink, **labels)}
    optional = (lambda: _efficiency(tables, sink, **labels), lambda: _wait_classes(tables, sink, **labels),
                lambda: _host_cpu(tables, sink, **labels), lambda: _instance_cpu(tables, sink, **labels),
                lambda: _io_profile(tables, sink, **labels),
                lambda: _foreground_events(tables, sink, **labels), lambda: _activity(tables, sink, **labels),
                lambda: _cache_sizes(tables, sink))
    for name, read in required.items():
        if not read():
            sink.errors.append(ParseError(KIND, name, missing_section(text), source=source))
    for read in optional:
        read()
    if not sink.metrics:
        raise ParseError(KIND, "report", "no table could be read", source=source)
    return sink.freeze(KIND)
