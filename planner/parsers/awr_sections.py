"""Section readers for the text forms of AWR / Statspack reports (and pasted excerpts of them).

Each reader takes the report as numbered lines, finds its section by keyword (never by fixed offset:
column widths shift, see output-formats.md 1.2) and adds metrics to the sink. It returns False when the
section is absent or unreadable, so the caller decides which absences are errors.
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import MetricSink
from planner.parsers.awr_common import (
    CPU_EVENTS,
    NUMERIC_TOKEN,
    TIMED_TOKEN,
    WAIT_CLASSES,
    EventRow,
    L,
    N,
    add_efficiency,
    add_event,
    event_columns,
    event_from_tokens,
    event_tokens,
    full_wait_class,
    parse_avg_wait_ms,
    parse_number,
    parse_size_mb,
    slug,
)
from planner.parsers.mailwrap import MailWrap
from planner.parsers.numbers import put

Lines = list[tuple[int, str]]

_RELEASE = re.compile(r"\b(\d{1,2}(?:\.\d+){4})\b")
_DASHES = re.compile(r"^[\s~-]*-{3,}[\s~-]*$")
# Unambiguous on purpose: digits split one way only, numbers separated by whitespace. The former
# `(?:NUM\s*)+` could split a long digit run in exponentially many ways (a hang on a damaged line).
_NUMTXT = r"-?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[Ee][+-]?\d+)?"
_PAIR = re.compile(rf"([A-Za-z%][A-Za-z%/()+ \-]*?)\s*:\s+({_NUMTXT})(?=\s|$)")
_HOST = re.compile(r"^\s*(?P<host>\S+)\s+(?P<plat>.*?)\s+(?P<cpus>\d+)\s+(?P<cores>\d+)"
                   r"(?:\s+(?P<sockets>\d+))?\s+(?P<mem>[\d,]*\.\d+)\s*$")
_PLATFORM_START = ("linux", "aix", "solaris", "hp-ux", "microsoft", "ibm", "windows")


def prepare(text: str) -> Lines:
    """Numbered lines; CR/FF removed; SQL*Plus ``OUTPUT`` page headings (AWR_REPORT_TEXT) dropped."""
    out: Lines = []
    for i, raw in enumerate(text.split("\n"), start=1):
        line = raw.replace("\r", "").replace("\f", "")
        if line.strip() == "OUTPUT":
            continue
        out.append((i, line))
    return out


def find(lines: Lines, pattern: str, start: int = 0, flags: int = re.I) -> int:
    rx = re.compile(pattern, flags)
    for k in range(start, len(lines)):
        if rx.search(lines[k][1]):
            return k
    return -1


def _next_values_line(lines: Lines, k: int, limit: int = 4) -> int:
    """Index of the first non-blank, non-dash line after k (the data row under a dashed header)."""
    for j in range(k + 1, min(k + 1 + limit, len(lines))):
        t = lines[j][1].strip()
        if t and not _DASHES.match(t):
            return j
    return -1


def parse_header(lines: Lines, sink: MetricSink) -> bool:
    """DB Name / DB Id / Instance / Inst Num / Release / RAC; 12.2+ splits instance into its own table."""
    k = find(lines, r"^\s*(DB Name|Database)\s+DB Id\s+")
    if k < 0:
        return False
    j = _next_values_line(lines, k)
    if j < 0:
        return False
    lineno, row = lines[j]
    tokens = row.split()
    idx = next((n for n, t in enumerate(tokens) if re.fullmatch(r"\d{6,}", t)), -1)
    if idx < 0:
        return False
    if idx > 0:
        sink.facts["db_name"] = tokens[0]
    sink.facts["dbid"] = tokens[idx]
    rel = _RELEASE.search(row)
    if rel:
        sink.facts["version"] = rel.group(1)
        after = row[rel.end():].split()
        if after and after[0] in ("YES", "NO"):
            sink.facts["rac"] = after[0]
        if len(after) > 1 and after[1] in ("YES", "NO"):
            sink.facts["cdb"] = after[1]
    if "Unique Name" in lines[k][1]:
        ki = find(lines, r"^\s*Instance\s+Inst Num\s+Startup", k)
        jj = _next_values_line(lines, ki) if ki >= 0 else -1
        if jj >= 0:
            t = lines[jj][1].split()
            if len(t) >= 2 and t[1].isdigit():
                sink.facts["instance"], sink.facts["inst_num"] = t[0], t[1]
    elif len(tokens) > idx + 2 and tokens[idx + 2].isdigit():
        sink.facts["instance"], sink.facts["inst_num"] = tokens[idx + 1], tokens[idx + 2]
    sink.facts.setdefault("header_line", str(lineno))
    return "version" in sink.facts


def parse_host_values(rest: str, lineno: int | None, sink: MetricSink) -> bool:
    """``host platform cpus cores [sockets] memory``: sockets can be blank (AIX), host can be missing."""
    text = rest.strip()
    if text.lower().startswith(_PLATFORM_START):
        text = "- " + text  # a pasted line without the host name
    m = _HOST.match(text)
    if not m:
        return False
    if m.group("host") != "-":
        sink.facts["host_name"] = m.group("host")
    sink.facts["platform"] = m.group("plat").strip()
    sink.add("cpus", float(m.group("cpus")), "cpus", N, lineno)
    sink.add("cores", float(m.group("cores")), "cores", N, lineno)
    if m.group("sockets"):
        sink.add("sockets", float(m.group("sockets")), "sockets", N, lineno)
    mem = parse_number(m.group("mem"))
    if mem is not None:
        sink.add("memory_gb", mem, "GB", N, lineno)
    return True


# Statspack before 11 (sprepins.sql 10gR2): one line, no platform, cores or sockets (docs/oracle-behaviour.md 41.s1)
_HOST_10G = re.compile(r"^\s*Host\s+Name:\s+(?P<host>\S+)\s+Num CPUs:\s+(?P<cpus>\d+)"
                       r"(?:\s+Phys Memory \(MB\):\s+(?P<mb>[\d,]+))?")


def _parse_host_10g(lines: Lines, sink: MetricSink) -> bool:
    k = find(lines, _HOST_10G.pattern)
    m = _HOST_10G.match(lines[k][1]) if k >= 0 else None
    if m is None:
        return False
    sink.facts["host_name"] = m["host"]
    sink.add("cpus", float(m["cpus"]), "cpus", N, lines[k][0])
    if m["mb"]:
        sink.add("memory_gb", round(float(m["mb"].replace(",", "")) / 1024, 2), "GB", N, lines[k][0])
    return True


def parse_host(lines: Lines, sink: MetricSink) -> bool:
    k = find(lines, r"Host\s+Name\s+Platform\s+CPUs\s+Cores\s+Sockets\s+Memory\s*\((GB|G)\)")
    if k < 0:
        return _parse_host_10g(lines, sink)
    lineno, row = lines[k]
    tail = re.split(r"Memory\s*\((?:GB|G)\)", row, maxsplit=1)[1]
    tail = re.sub(r"^[\s~-]*", "", tail)  # header and data flattened onto one line (blog paste)
    if tail and parse_host_values(tail, lineno, sink):
        return True
    j = _next_values_line(lines, k)
    return j >= 0 and parse_host_values(re.sub(r"^~+", "", lines[j][1]), lines[j][0], sink)


def parse_snapshots(lines: Lines, sink: MetricSink) -> bool:
    found = False
    for point in ("Begin", "End"):
        k = find(lines, rf"^\s*{point} Snap:\s+\d+")
        if k >= 0:
            lineno, row = lines[k]
            m = re.search(rf"{point} Snap:\s+(\d+)\s+(\S+\s+\d\d:\d\d:\d\d)?", row)
            if m:
                sink.facts[f"{point.lower()}_snap_id"] = m.group(1)
                sink.add(f"snap_id_{point.lower()}", float(m.group(1)), "id", N, lineno)
                if m.group(2):
                    sink.facts[f"{point.lower()}_snap_time"] = m.group(2)
                found = True
    for label, name in (("Elapsed", "elapsed_min"), ("DB Time", "db_time_min")):
        k = find(lines, rf"^\s*{label}:\s+[\d,.]+\s*\(mins\)")
        if k >= 0:
            m = re.search(rf"{label}:\s+([\d,.]+)", lines[k][1], re.I)
            v = parse_number(m.group(1)) if m else None
            if v is not None:
                sink.add(name, v, "min", N, lines[k][0])
                found = True
    return _statspack_minutes(lines, sink) or found


def _statspack_minutes(lines: Lines, sink: MetricSink) -> bool:
    """Statspack 10g+ prints DB CPU and the average active sessions beside Elapsed and DB time:
    ``Elapsed: 1,439.98 (mins) Av Act Sess: 0.0`` / ``DB time: 10.30 (mins) DB CPU: 19.78 (mins)``."""
    found = False
    for label, name, unit in (("DB CPU", "db_cpu_min", "min"), ("Av Act Sess", "aas", "sessions")):
        k = find(lines, rf"\b{label}:\s+[\d,.]+")
        if k >= 0 and (m := re.search(rf"\b{label}:\s+([\d,.]+)", lines[k][1], re.I)) \
                and (v := parse_number(m.group(1))) is not None:
            sink.add(name, v, unit, N, lines[k][0])
            found = True
    return found


def parse_cache_sizes(lines: Lines, sink: MetricSink) -> bool:
    found = False
    for label, name, unit in (("Buffer Cache", "buffer_cache_mb", "MB"),
                              ("Shared Pool(?: Size)?", "shared_pool_mb", "MB"),
                              ("Std Block Size", "std_block_size_kb", "KB"),
                              ("Log Buffer", "log_buffer_kb", "KB")):
        k = find(lines, rf"{label}:\s+[\d,.]+[KMG]\b")
        if k < 0:
            continue
        m = re.search(rf"{label}:\s+([\d,.]+[KMG])\b", lines[k][1], re.I)
        mb = parse_size_mb(m.group(1)) if m else None
        if mb is not None:
            sink.add(name, mb * 1024 if unit == "KB" else mb, unit, N, lines[k][0])
            found = True
    return found


def parse_pairs_line(text: str) -> list[tuple[str, float]]:
    out = []
    for label, num in _PAIR.findall(text):
        v = parse_number(num)
        if v is not None:
            out.append((label.strip(), v))
    return out


def parse_efficiency(lines: Lines, sink: MetricSink, **labels: str) -> int:
    k = find(lines, r"^\s*Instance Efficiency (Percentages|Indicators)")
    if k < 0:
        return 0
    n = 0
    for i, (lineno, text) in enumerate(lines[k + 1:]):
        # the title's ~~~ underline; the HTML table pasted as text: a blank line under the title, a rule
        if text.strip().startswith("~") or _DASHES.match(text) or (not text.strip() and not n and i < 2):
            continue
        pairs = parse_pairs_line(text)
        if not pairs:
            break
        for label, v in pairs:
            if "%" in label and re.search(r"[A-Za-z]", label):  # every indicator is a percentage; a
                add_efficiency(sink, label, v, lineno, **labels)  # label without '%' is a cut-off piece
                n += 1
    return n


def _table_after(lines: Lines, k: int, first_col: str, within: int = 8) -> tuple[str, int]:
    """(joined header text, index of first data row) of a dashed table whose header starts ``first_col``."""
    h = find(lines, rf"^\s*{first_col}\b", k)
    if h < 0 or h - k > within:
        return "", -1
    header = " ".join(t for _, t in lines[k + 1:h + 1])
    start = h + 1
    if start < len(lines) and _DASHES.match(lines[start][1]):
        start += 1
    return header, start


def parse_top_events(lines: Lines, sink: MetricSink, wrap: MailWrap | None = None, **labels: str) -> int:
    """Top 5 Timed Events (10g/Statspack), Top 5 Timed Foreground Events (11.2.0.1-3), Top 10 (11.2.0.4+).
    In a paste wrapped by mail every row must be whole (each column the header names), or none is read."""
    k = find(lines, r"^\s*Top (5|10) (Timed|Foreground)\b.*Events")
    if k < 0:
        return 0
    header, start = _table_after(lines, k, "Event")
    if start < 0:
        return 0
    # Statspack and 10g print "Avg %Total" at the end of the title line: part of the header
    header = re.split(r"Events", lines[k][1], maxsplit=1)[-1] + " " + header
    cols = event_columns(header)
    if wrap is None and _one_field_per_line(lines[start:start + 3]):
        return _parse_streamed_top(lines, k, sink, **labels)
    rows: list[EventRow] = []
    for lineno, text in lines[start:]:
        t = text.strip()
        if not t or _DASHES.match(t) or re.match(r"(Host CPU|Wait Classes|Instance CPU)", t):
            if rows:
                break
            continue
        row = event_from_tokens(event_tokens(text), cols, lineno)
        if row is None:
            break
        rows.append(row)
    if wrap is not None and (not rows or not all(_whole(r, cols, header) for r in rows)):
        if not any(e.section == "Top Events" for e in sink.errors):
            sink.errors.append(ParseError("awr", "Top Events", wrap.refusal("Top Events table"),
                                          source=sink.source, line=lines[k][0]))
        return 0
    for rank, row in enumerate(rows, 1):
        add_event(sink, row, rank, "top", **labels)
    if (unnamed := next((r for r in rows if r.pct_unnamed), None)) is not None:
        sink.errors.append(ParseError("awr", "Top Events", "a % column with no header word over it: % of DB time "
                                      "(11g+), of total call time (10g) or of total elapsed time (9i) cannot be told "
                                      "apart, so it is not read — paste the table with its header lines",
                                      source=sink.source, line=unnamed.line))
    return len(rows)


def _whole(row: EventRow, cols: list[str], header: str) -> bool:
    """Every cell the header names is in the row: a mail-cut row lacks its last ones (or its class)."""
    if row.event.lower() in CPU_EVENTS:
        return row.time_s is not None
    values = {"waits": row.waits, "time": row.time_s, "avg": row.avg_ms, "pct": row.pct}
    cells = all(values[c] is not None for c in cols if c in values)
    return cells and ("class" not in header.lower() or row.wait_class in WAIT_CLASSES)


def _one_field_per_line(first: Lines) -> bool:
    """A web page's copy of the table: the event's name on lines of its own, its numbers on the next lines."""
    return bool(first) and not any(NUMERIC_TOKEN.match(t) for t in event_tokens(first[0][1])[1:]) \
        and not _DASHES.match(first[0][1]) and bool(first[0][1].strip())


def _parse_streamed_top(lines: Lines, k: int, sink: MetricSink, **labels: str) -> int:
    """The Top N read as one stream of tokens: header up to the last rule, then name words and the numbers
    after them, a new row at each word that follows a number (a page that wrapped every field)."""
    body = lines[k + 1:k + 80]
    rules = [i for i, (_, t) in enumerate(body[:10]) if _DASHES.match(t)]
    if not rules:
        return 0
    cols = event_columns(" ".join(t for _, t in body[:rules[-1]]))
    rows: list[tuple[int, list[str]]] = []
    for lineno, text in body[rules[-1] + 1:]:
        if not text.strip() or _DASHES.match(text) or re.match(r"\s*(Host CPU|Wait Classes|Instance CPU)", text):
            break
        for tok in event_tokens(text):
            starts = not NUMERIC_TOKEN.match(tok) and (not rows or NUMERIC_TOKEN.match(rows[-1][1][-1]))
            if starts:
                rows.append((lineno, []))
            if rows:
                rows[-1][1].append(tok)
    rank = 0
    for lineno, tokens in rows:
        row = event_from_tokens(tokens, cols, lineno)
        if row is None:
            break
        rank += 1
        add_event(sink, row, rank, "top", **labels)
    return rank


def parse_wait_classes(lines: Lines, sink: MetricSink, **labels: str) -> int:
    """``Wait Classes by Total Wait Time`` (12c+) or ``Foreground Wait Class`` (11g): time and % DB time."""
    k = find(lines, r"^\s*(Wait Classes by Total Wait Time|Foreground Wait Class)\b")
    if k < 0:
        return 0
    header, start = _table_after(lines, k, "Wait Class")
    if start < 0:
        return 0
    n = 0
    for lineno, text in lines[start:]:
        t = text.strip()
        if not t or _DASHES.match(t):
            if n:
                break
            continue
        toks = [x for x in event_tokens(text) if x != "@jls"]
        idx = next((i for i, x in enumerate(toks) if NUMERIC_TOKEN.match(x)), -1)
        if idx <= 0:
            break
        name, nums = " ".join(toks[:idx]), toks[idx:]
        wclass = "DB CPU" if name == "DB CPU" else full_wait_class(name)
        h = header.lower()
        if name == "DB CPU":
            time_s, pct = parse_number(nums[0]), parse_number(nums[1]) if len(nums) > 1 else None
            avg = None
        elif "-outs" in h:  # 11g: Waits %Time-outs Time Avg %DB
            time_s, avg, pct = (parse_number(nums[2]), parse_avg_wait_ms(nums[3]), parse_number(nums[4])) \
                if len(nums) >= 5 else (None, None, None)
        else:  # 12c+: Waits Time Avg %DB AAS
            time_s, avg, pct = (parse_number(nums[1]), parse_avg_wait_ms(nums[2]), parse_number(nums[3])) \
                if len(nums) >= 4 else (None, None, None)
        lab = dict(labels, wait_class=wclass)
        if time_s is not None:
            put(sink, "wait_class.time_s", time_s, "s", L, lineno, lab)
        if avg is not None:
            put(sink, "wait_class.avg_ms", avg, "ms", L, lineno, lab)
        if pct is not None:
            put(sink, "wait_class.pct_db_time", pct, "%", N, lineno, lab)
        n += 1
    return n


# "% of DB Time" may lose its last word to the next line in a mail-wrapped copy (a 75-column header)
_TIME_MODEL_HEAD = r"^\s*Statistic\s+(Name\s+)?Time \(s\)\s+% (of )?DB(?:\s+[Tt]ime|\s*$)"
_TIME_MODEL_ROW = re.compile(rf"^\s*(DB time|DB CPU)\s+({_NUMTXT})(?:\s+{_NUMTXT})?\s*$")


def parse_db_time_s(lines: Lines, sink: MetricSink, **labels: str) -> bool:
    """DB time in seconds: "Total time in database user-calls (DB Time)" (Statspack, and AWR above its Time Model
    table), else the Time Model Statistics table's "DB time" row; DB CPU from the table's "DB CPU" row."""
    k = find(lines, r"Total time in database user-calls \(DB Time\):\s*[\d.,]+s")
    if k < 0:
        return _parse_time_model(lines, sink, _TIME_MODEL_ROWS, **labels)
    _parse_time_model(lines, sink, ("DB CPU",), **labels)  # DB time: the line's, which the table's row repeats
    m = re.search(r"\(DB Time\):\s*([\d.,]+)s", lines[k][1])
    v = parse_number(m.group(1)) if m else None
    if v is None:
        return False
    put(sink, "db_time_s", v, "s", N, lines[k][0], labels)
    return True


_TIME_MODEL_ROWS = ("DB time", "DB CPU")


def _parse_time_model(lines: Lines, sink: MetricSink, rows: tuple[str, ...], /, **labels: str) -> bool:
    """The Time Model Statistics table (AWR 10g+ text, a pasted excerpt of it): its DB time and DB CPU rows."""
    k = find(lines, _TIME_MODEL_HEAD)
    found = False
    for lineno, text in lines[k + 1:k + 40] if k >= 0 else ():
        if not text.strip():
            break
        if (m := _TIME_MODEL_ROW.match(text)) and m.group(1) in rows and (v := parse_number(m.group(2))) is not None:
            put(sink, "db_time_s" if m.group(1) == "DB time" else "db_cpu_s", v, "s", N, lineno, labels)
            found = True
    return found


def _detail_event(tokens: list[str], line: int) -> EventRow | None:
    """A Foreground Wait Events row: ``name waits [%timeouts] time avg [waits/txn] [%DB time]``.

    11g prints every column (``184`` ms); 12.2+ leaves %Time-outs blank when null and prints Avg wait with its
    unit (``3.23ms``, ``268.69us``, ``52.86 s``), so the unit cell anchors the row: time is just before it,
    waits first. Idle events have no % DB time.
    """
    start = next((i for i, t in enumerate(tokens) if i and all(NUMERIC_TOKEN.match(x) for x in tokens[i:])), -1)
    if start <= 0:
        return None
    name, nums = " ".join(tokens[:start]), tokens[start:]
    avg = next((i for i, t in enumerate(nums) if TIMED_TOKEN.match(t)), -1)
    if avg < 0:  # 11g, all in ms: waits timeouts time avg txn [pct]
        avg = 3 if len(nums) >= 4 else -1
    if avg < 2:
        return None
    pct = nums[avg + 2] if len(nums) > avg + 2 else ""
    return EventRow(name, parse_number(nums[0]), parse_number(nums[avg - 1]), parse_avg_wait_ms(nums[avg]),
                    parse_number(pct) if pct else None, "", line)


def parse_foreground_events(lines: Lines, sink: MetricSink, wrap: MailWrap | None = None, **labels: str) -> int:
    """Foreground Wait Events (11g+): every foreground event, section=foreground; db file sequential read is
    here when the Top 5/10 lacks it. In a mail-wrapped paste a table that stops on a cut row is not read."""
    k = find(lines, r"^\s*Foreground Wait Events\b")
    if k < 0:
        return 0
    _header, start = _table_after(lines, k, "Event", 14)  # five "->" notes and a 3-line header
    if start < 0:
        return 0
    rows: list[EventRow] = []
    for lineno, text in lines[start:]:
        t = text.strip()
        if not t:
            continue
        if _DASHES.match(t):
            break
        row = _detail_event([x for x in event_tokens(text) if x != "@jls"], lineno)
        if row is None:
            if wrap is not None:  # the table's own end is a rule: this row was cut by the mailer
                sink.errors.append(ParseError("awr", "Foreground Wait Events", wrap.refusal(
                    "Foreground Wait Events table"), source=sink.source, line=lineno))
                return 0
            break
        rows.append(row)
    for rank, row in enumerate(rows, 1):
        add_event(sink, row, rank, "foreground", **labels)
    return len(rows)


_ACTIVITY_TITLE = re.compile(r"^\s*(Key )?Instance Activity Stats(?!\s*-)\b", re.I)
_ACTIVITY_ROW = re.compile(rf"^\s*(\S.*?)\s+({_NUMTXT})\s+({_NUMTXT})\s+({_NUMTXT})\s*$")


def parse_activity(lines: Lines, sink: MetricSink, **labels: str) -> int:
    """Instance Activity Stats (every page of it, Key Instance Activity Stats read once): ``activity.<name>``
    total, ``_per_s``, ``_per_txn``. Text cuts names to 32 characters (``physical read total multi block``)."""
    seen: set[str] = set()
    inside = header = False
    for lineno, text in lines:
        if _ACTIVITY_TITLE.match(text):
            inside = True
            continue
        t = text.strip()
        if not inside or not t or t.startswith("->"):
            continue
        if t.startswith("Statistic"):
            header = True
            continue
        if _DASHES.match(t):
            inside, header = header, False  # the rule under the header; any other rule ends the page
            continue
        m = _ACTIVITY_ROW.match(text)
        if not m:
            inside = False
            continue
        name = slug(m.group(1))
        if name in seen:
            continue
        seen.add(name)
        for suffix, unit, cell in (("", "count", m.group(2)), ("_per_s", "count/s", m.group(3)),
                                   ("_per_txn", "count/txn", m.group(4))):
            if (v := parse_number(cell)) is not None:
                put(sink, f"activity.{name}{suffix}", v, unit, N, lineno, labels)
    return len(seen)
