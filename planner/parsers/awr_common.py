"""Shared vocabulary of the AWR / Statspack parsers: number formats, canonical row names, wait events.

Everything here is pure and works on already-split values; the format-specific modules (awr_text,
awr_html, statspack, excerpt) find the values, this module names them and adds them to a MetricSink.
Formats and their version differences: shared/reference/output-formats.md sections 1-2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.metrics import Direction, MetricSink
from planner.parsers.numbers import NUMBER, put, read
from planner.units import MIB, suffix_bytes

H, L, N = Direction.HIGHER, Direction.LOWER, Direction.NEUTRAL

NUMERIC_TOKEN = re.compile(rf"^{NUMBER}(?:K|M|G|ms|us|ns|s)?$")
# An Avg Wait cell with its unit (12.2+): AWR prints ns, us, ms or s, whichever keeps the figure readable.
TIMED_TOKEN = re.compile(rf"^{NUMBER}(?:ms|us|ns|s)$")
_WAIT_UNITS = (("ms", 1.0), ("us", 1e-3), ("ns", 1e-6), ("s", 1e3))
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def parse_number(text: str) -> float | None:
    """``1,368.27`` ``.7`` ``-30.52`` ``1.69E+05`` ``26.4K`` (K = thousand, AWR 12.2+) -> float.

    Returns None for blanks, ``N/A``, SQL*Plus overflow (``######``) and anything that cannot be read
    whole (``1,23``, ``1.2.3``): a missing value, never 0 and never a truncated number (planner.parsers.numbers).
    """
    r = read(text)
    if r.value is None or r.unit not in _SCALE:
        return None
    return r.value * _SCALE[r.unit]


def parse_avg_wait_ms(text: str) -> float | None:
    """AWR 12.2+ Avg Wait cells carry a unit (``3.82ms``, ``749.07us``, ``792.80ns``, ``52.86 s``); older
    ones are ms."""
    s = text.strip().replace(" ", "")
    for suffix, factor in _WAIT_UNITS:
        if s.endswith(suffix):
            v = parse_number(s[: -len(suffix)])
            return None if v is None else v * factor
    return parse_number(s)


def parse_size_mb(text: str) -> float | None:
    """Cache Sizes cells: ``20,480M`` -> 20480 MB, ``288,028K`` -> 281.3 MB, ``1G`` -> 1024 MB."""
    m = re.match(r"^\s*([\d,.]+)\s*([KMG]?)\s*$", text)
    if not m:
        return None
    v = parse_number(m.group(1))
    if v is None:
        return None
    return v * suffix_bytes(m.group(2)) / MIB


def slug(label: str) -> str:
    """``Rows per Sort`` -> ``rows_per_sort``; ``%`` becomes ``pct``."""
    s = label.lower().replace("%", " pct ").replace("+", " plus ")
    s = re.sub(r"[^a-z0-9]+", "_", s).strip("_")
    return s or "unnamed"


def norm_label(label: str) -> str:
    return re.sub(r"\s+", " ", label.strip().rstrip(":").strip()).lower()


@dataclass(frozen=True, slots=True)
class RowName:
    """Canonical name of a Load Profile row: metric base name, what is counted, direction."""

    base: str
    unit: str
    direction: Direction


# Row names across versions (output-formats.md 1.4) -> one canonical metric, so 11.2.0.3 "Physical reads"
# and 19c "Physical read (blocks)" compare as the same physical_reads_per_s.
LOAD_PROFILE: dict[str, RowName] = {}
for _names, _row in (
    (("db time(s)", "db time"), RowName("db_time", "s", N)),
    (("db cpu(s)", "db cpu"), RowName("db_cpu", "s", N)),
    (("background cpu(s)",), RowName("background_cpu", "s", N)),
    (("redo size", "redo size (bytes)"), RowName("redo_size", "bytes", H)),
    (("logical reads", "logical read (blocks)"), RowName("logical_reads", "blocks", H)),
    (("block changes",), RowName("block_changes", "blocks", H)),
    (("physical reads", "physical read (blocks)"), RowName("physical_reads", "blocks", H)),
    (("physical writes", "physical write (blocks)"), RowName("physical_writes", "blocks", H)),
    (("read io requests", "physical read io requests"), RowName("physical_read_io_requests", "requests", H)),
    (("write io requests", "physical write io requests"), RowName("physical_write_io_requests", "requests", H)),
    (("read io (mb)", "physical read bytes (mb)"), RowName("read_io_mb", "MB", H)),
    (("write io (mb)", "physical write bytes (mb)"), RowName("write_io_mb", "MB", H)),
    (("global cache blocks received", "rac gc blocks received"), RowName("gc_blocks_received", "blocks", N)),
    (("global cache blocks served", "rac gc blocks served"), RowName("gc_blocks_served", "blocks", N)),
    (("im scan rows",), RowName("im_scan_rows", "rows", H)),
    (("session logical read im",), RowName("session_logical_read_im", "blocks", H)),
    (("user calls",), RowName("user_calls", "calls", H)),
    (("parses", "parses (sql)"), RowName("parses", "parses", N)),
    (("hard parses", "hard parses (sql)"), RowName("hard_parses", "parses", N)),
    (("w/a mb processed", "sql work area (mb)"), RowName("workarea_mb", "MB", N)),
    (("logons",), RowName("logons", "logons", N)),
    (("user logons",), RowName("user_logons", "logons", N)),
    (("executes", "executes (sql)"), RowName("executes", "executions", H)),
    (("rollbacks",), RowName("rollbacks", "rollbacks", N)),
    (("transactions",), RowName("transactions", "transactions", H)),
    (("sorts",), RowName("sorts", "sorts", N)),
):
    for _n in _names:
        LOAD_PROFILE[_n] = _row

# Column order of the Load Profile table; 10g and Statspack excerpts may carry fewer columns.
PER_COLUMNS = ("s", "txn", "exec", "call")


def add_load_profile_row(sink: MetricSink, label: str, values: list[float | None], line: int | None,
                         columns: tuple[str, ...] = PER_COLUMNS, **labels: str) -> int:
    """Add one Load Profile row (every present column); unknown rows are kept under a slug. Returns count."""
    row = LOAD_PROFILE.get(norm_label(label)) or RowName(slug(label), "count", N)
    added = 0
    for per, value in zip(columns, values, strict=False):
        if value is None:
            continue
        unit = f"{row.unit}/{per}"  # "s/s" for DB Time per second = average active sessions
        put(sink, f"{row.base}_per_{per}", value, unit, row.direction, line, labels)
        added += 1
    return added


WAIT_CLASSES = ("User I/O", "System I/O", "Commit", "Concurrency", "Configuration", "Application",
                "Administrative", "Network", "Cluster", "Scheduler", "Other", "Queueing", "Idle")
CPU_EVENTS = ("db cpu", "cpu time")


def full_wait_class(printed: str) -> str:
    """Wait Class is truncated to 10 (11g) or 8 (19c text) characters: ``Configurat``, ``System I``."""
    p = printed.strip()
    if not p:
        return ""
    for full in WAIT_CLASSES:
        if full.lower().startswith(p.lower()):
            return full
    return p


@dataclass(frozen=True, slots=True)
class EventRow:
    """One row of a Top N / wait event table, values already normalised (time s, avg ms)."""

    event: str
    waits: float | None
    time_s: float | None
    avg_ms: float | None
    pct: float | None
    wait_class: str
    line: int | None
    pct_unnamed: bool = False  # a % cell under no header word: of DB time, call time or elapsed, not read


def add_event(sink: MetricSink, row: EventRow, rank: int, section: str, **labels: str) -> None:
    """Top timed events as metrics labelled event=..., section=top; CPU rows carry only time and %."""
    lab = dict(labels, event=row.event, section=section, rank=str(rank))
    if row.wait_class:
        lab["wait_class"] = row.wait_class
    if row.waits is not None:
        put(sink, "wait.waits", row.waits, "waits", N, row.line, lab)
    if row.time_s is not None:
        put(sink, "wait.time_s", row.time_s, "s", L, row.line, lab)
    if row.avg_ms is not None:
        put(sink, "wait.avg_ms", row.avg_ms, "ms", L, row.line, lab)
    elif row.waits and row.time_s is not None:  # 9i's Top 5 prints no average: time / waits, marked derived
        put(sink, "wait.avg_ms", round(row.time_s * 1000 / row.waits, 2), "ms", L, row.line, lab, derived=True)
    if row.pct is not None:
        put(sink, "wait.pct_db_time", row.pct, "%", N, row.line, lab)


def event_columns(header: str) -> list[str]:
    """Value columns of a wait-event table, in order, from its (joined) header text.

    Top N tables: waits, time, avg, pct. Detail tables add %Time-outs after waits and Waits/txn after avg.
    """
    h = header.lower()
    cols = ["waits"]
    if "-outs" in h or "%tim" in h or "%time" in h:
        cols.append("timeouts")
    cols.append("time")
    # Only a header that names an average has one: 9i's Top 5 is "Waits  Time (s)  % Total Ela Time", and its
    # last column read as an average gave latch free "25.68 ms" where time / waits is 15.97.
    if re.search(r"\bavg\b|\(ms\)|\bms\b", h):
        cols.append("avg")
    if "/txn" in h:
        cols.append("per_txn")
    # "% DB time" (11g+) ends its header with a lowercase "time" column word, even when the "% DB" line above
    # it was not pasted; "%Total Call Time" (10g) and "% Total Ela Time" (9i) say '%' on their own lines
    if "%" in h.replace("%time", "").replace("%tim", "") or re.search(r"(?<![A-Za-z%])time(?![A-Za-z(])", header):
        cols.append("pct")
    return cols


def event_from_tokens(tokens: list[str], cols: list[str], line: int | None) -> EventRow | None:
    """Split ``name... numbers... [wait class]`` tokens; the longest run of numeric tokens holds the values."""
    best: tuple[int, int] = (0, 0)
    i = 0
    while i < len(tokens):
        if NUMERIC_TOKEN.match(tokens[i]) and i > 0:
            j = i
            while j < len(tokens) and NUMERIC_TOKEN.match(tokens[j]):
                j += 1
            if j - i > best[1] - best[0]:
                best = (i, j)
            i = j
        else:
            i += 1
    start, end = best
    if start == end:
        return None
    named = cols
    name = " ".join(tokens[:start])
    nums = tokens[start:end]
    wclass = full_wait_class(" ".join(tokens[end:]))
    if name.lower() in CPU_EVENTS or len(nums) < min(3, len(cols)):
        # CPU rows have no waits and no average: time [% DB time]
        mapping = dict(zip(["time", "pct"], nums, strict=False)) if len(nums) > 1 else {"time": nums[0]}
    else:
        if len(nums) == len(cols) + 1 and "pct" not in cols:
            cols = [*cols, "pct"]  # a last % cell whose header line ("% DB time", "%Total Call Time") is gone
        mapping = dict(zip(cols, nums, strict=False))
    # 11g+ prints % of DB time, 10g % of total call time, 9i % of total elapsed wait time: without the header
    # line that says which, the number is not read (docs/oracle-behaviour.md 45.p1)
    unnamed = "pct" in mapping and "pct" not in named
    return EventRow(
        event=name,
        waits=parse_number(mapping["waits"]) if "waits" in mapping else None,
        time_s=parse_number(mapping["time"]) if "time" in mapping else None,
        avg_ms=parse_avg_wait_ms(mapping["avg"]) if "avg" in mapping else None,
        pct=parse_number(mapping["pct"]) if "pct" in mapping and not unnamed else None,
        wait_class=wclass, line=line, pct_unnamed=unnamed)


def event_tokens(text: str) -> list[str]:
    """Tokenise an event row; ``52.86 s`` (19c Avg Wait with a space) stays one token."""
    return re.sub(r"(\d) s\b", r"\1s", text.strip()).split()


def add_efficiency(sink: MetricSink, label: str, value: float, line: int | None, **labels: str) -> None:
    """Instance Efficiency Percentages: higher is better (target 100%); values may exceed 100 or be negative."""
    put(sink, f"efficiency.{slug(label)}", value, "%", H, line, labels)


HOST_CPU_COLUMNS = {"begin": ("host_cpu.load_avg_begin", ""), "end": ("host_cpu.load_avg_end", ""),
                    "user": ("host_cpu.user_pct", "%"), "system": ("host_cpu.sys_pct", "%"),
                    "wio": ("host_cpu.wio_pct", "%"), "idle": ("host_cpu.idle_pct", "%"),
                    "wcpu": ("host_cpu.wcpu_pct", "%")}


# AWR and Statspack print this last ("End of Report" / "End of Report ( sp_1_2.lst )"; the HTML report's last
# paragraph): a report that has it is whole, and a section planner cannot find is a layout it does not know.
_END_OF_REPORT = re.compile(r"End of Report\b", re.I)


def missing_section(text: str) -> str:
    """The words for a required section that was not found: "truncated report?" only of a report without its
    last line; a whole report's missing section is a layout planner does not know, and says so."""
    if _END_OF_REPORT.search(text[-4096:]):
        return "section not found in this report's layout (the report is whole: it ends with 'End of Report')"
    return "section missing or unreadable (truncated report?)"

