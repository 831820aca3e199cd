"""ORION (Oracle I/O Numbers) output: the ``_summary.txt`` / console text and the ``_iops.csv``,
``_mbps.csv`` and ``_lat.csv`` matrices.

Summary metrics (labels ``small`` and ``large`` give the load point when the line names it):

- ``orion.max_large_mbps`` MB/s, ``orion.max_small_iops`` IO/s, ``orion.min_small_latency_ms`` ms.
  11.1 prints the latency without a unit, in ms; 11.2+ prints ``usecs``; both end up in ms.
- ``orion.small_latency_ms`` (labels ``op`` read/write, ``stat`` avg/min/max/stddev) from the
  11.2+ ``Small Read Latency: avg=... us`` lines.
- ``orion.latency_hist_ios`` (labels ``op``, ``bucket_us``) from the histogram 11.2+ prints.
- Test parameters from the 11.1 header: ``orion.small_io_kb``, ``orion.large_io_kb``,
  ``orion.write_pct``, ``orion.point_duration_s``, ``orion.data_points``, ``orion.lun_size_bytes``.

CSV matrices: ``orion.iops`` / ``orion.mbps`` / ``orion.latency_ms`` per cell, labelled
``small=`` (column) and ``large=`` (row); the matrix comes from the file name suffix.
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import NUMBER, put, read, warn

_NUM = rf"({NUMBER})"  # the whole token: 13,985 is read as 13985 or warned about, never as 13
_AT = r"(?:\s*@\s*Small=(\d+)\s+and\s+Large=(\d+))?"
# Tokens, not line anchors: public samples glue lines together ("...Large=0Minimum Small Latency=").
_MAX_MBPS = re.compile(rf"Maximum Large MBPS\s*=\s*{_NUM}{_AT}")
_MAX_IOPS = re.compile(rf"Maximum Small IOPS\s*=\s*{_NUM}{_AT}")
_MIN_LAT = re.compile(rf"Minimum Small Latency\s*=\s*{_NUM}\s*(usecs|us|msecs|ms)?{_AT}")
_LAT_LINE = re.compile(
    rf"Small (Read|Write) Latency:\s*avg=\s*{_NUM}\s*us,\s*min=\s*{_NUM}\s*us,\s*max=\s*{_NUM}\s*us,"
    rf"\s*std dev=\s*{_NUM}\s*us" + _AT)  # {_NUM}, not [\d.]+: a lone '.' is not a number
_HIST = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s+us:\s+(\d+)\s+\(\s*[\d.]+%\)\s+(\d+)\s+\(\s*[\d.]+%\)")
_VERSION = re.compile(r"(?:O?RION VERSION\s+(\S+))|(?:ORION: ORacle IO Numbers -- Version\s+(\S+))")
# Matched without case: 11.1 prints "Duration for each Data Point:", a 12c summary "Duration for each data point:"
# (as quoted in M. Bach, Expert Consolidation in Oracle Database 12c, ch. 3)
_HEADER_NUMS = {
    "small io size:": ("orion.small_io_kb", "KB"),
    "large io size:": ("orion.large_io_kb", "KB"),
    "write:": ("orion.write_pct", "%"),
    "duration for each data point:": ("orion.point_duration_s", "s"),
    "total data points:": ("orion.data_points", "count"),
}
_LUN = re.compile(r"Name:\s*(\S+)\s+Size:\s*(\d+)")
_CSV_HEAD = re.compile(r"^\s*Large/Small\s*,")

_MATRIX = {  # file-name suffix -> (metric, unit, direction)
    "iops": ("orion.iops", "IO/s", Direction.HIGHER),
    "mbps": ("orion.mbps", "MB/s", Direction.HIGHER),
    # 11.1 writes ms; 11.2+ is believed to write µs (unverified), so the unit is recorded as ms.
    "lat": ("orion.latency_ms", "ms", Direction.LOWER),
}


def looks_like_summary(text: str) -> bool:
    text = text.replace("*", "") if "*" in text else text  # Markdown emphasis: see demarkdown
    return bool(_MAX_IOPS.search(text) or _MAX_MBPS.search(text) or _MIN_LAT.search(text))


def looks_like_csv(text: str) -> bool:
    for line in text.splitlines():
        if line.strip():
            return bool(_CSV_HEAD.match(line))
    return False


def looks_like(text: str) -> bool:
    return looks_like_csv(text) or looks_like_summary(text)


def parse(text: str, source: str = "<text>") -> Parsed:
    """Either form; the kind of the result says which (``orion_csv`` or ``orion_summary``)."""
    return parse_csv(text, source) if looks_like_csv(text) else parse_summary(text, source)


def _num(sink: MetricSink, text: str, line: int) -> float | None:
    """A summary value read whole, or None with a warning naming the line (never a truncated number)."""
    r = read(text)
    if r.value is None:
        warn(sink, "orion", "summary", r, line)
    return r.value


def demarkdown(line: str) -> str:
    """Console text pasted through Markdown: ``\\_`` escapes and backticks removed, and every asterisk: ORION prints
    none, and emphasis can cover part of a token (Medium's bold italic, ``Maximum Large ***MBPS=867.73*** @``)."""
    return re.sub(r"\\([_#\\])", r"\1", line.replace("*", "")).replace("`", "")


def _at(sink_labels: dict[str, str], small: str | None, large: str | None) -> dict[str, str]:
    if small is not None and large is not None:
        sink_labels.update(small=small, large=large)
    return sink_labels


def parse_summary(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    seen = 0
    latency_lines: set[str] = set()
    repeated: list[str] = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = demarkdown(raw)
        if (v := _VERSION.search(line)) and "version" not in sink.facts:
            sink.facts["version"] = v.group(1) or v.group(2)
        for m in _MAX_MBPS.finditer(line):
            seen += 1
            if (mbps := _num(sink, m.group(1), no)) is not None:
                put(sink, "orion.max_large_mbps", mbps, "MB/s", Direction.HIGHER, no, _at({}, m.group(2), m.group(3)))
        for m in _MAX_IOPS.finditer(line):
            seen += 1
            if (iops := _num(sink, m.group(1), no)) is not None:
                put(sink, "orion.max_small_iops", iops, "IO/s", Direction.HIGHER, no, _at({}, m.group(2), m.group(3)))
        for m in _MIN_LAT.finditer(line):
            seen += 1
            if (lat := _num(sink, m.group(1), no)) is None:
                continue
            value, unit = lat, (m.group(2) or "")
            ms = value / 1000.0 if unit.startswith("us") else value  # 11.1 prints ms with no unit
            put(sink, "orion.min_small_latency_ms", ms, "ms", Direction.LOWER, no, _at({}, m.group(3), m.group(4)))
        for m in _LAT_LINE.finditer(line):
            if m.group() in latency_lines:  # 12c+ prints it under both the max IOPS and the min latency point:
                repeated.append(str(no))  # when they are one point, the same line twice is one measurement
                continue
            latency_lines.add(m.group())
            op = m.group(1).lower()
            for stat, tok in zip(("avg", "min", "max", "stddev"), m.groups()[1:5], strict=True):
                if (us := _num(sink, tok, no)) is None:
                    continue
                put(sink, "orion.small_latency_ms", us / 1000.0, "ms", Direction.LOWER, no,
                    _at({"op": op, "stat": stat}, m.group(6), m.group(7)))
        if h := _HIST.match(line):
            bucket = f"{h.group(1)}-{h.group(2)}"
            sink.add("orion.latency_hist_ios", int(h.group(3)), "IOs", Direction.NEUTRAL, no,
                     op="read", bucket_us=bucket)
            sink.add("orion.latency_hist_ios", int(h.group(4)), "IOs", Direction.NEUTRAL, no,
                     op="write", bucket_us=bucket)
        stripped = line.strip()
        for prefix, (name, unit) in _HEADER_NUMS.items():
            if stripped.lower().startswith(prefix) and (n := re.search(r"\d+", stripped[len(prefix):])):
                sink.add(name, int(n.group()), unit, Direction.NEUTRAL, no)
        if stripped.startswith("Test:"):
            sink.facts["test"] = stripped[5:].strip()
        if lun := _LUN.search(line):
            sink.add("orion.lun_size_bytes", int(lun.group(2)), "bytes", Direction.NEUTRAL, no,
                     lun=lun.group(1))
    if not seen:
        raise ParseError("orion", "summary", "no 'Maximum Large MBPS=', 'Maximum Small IOPS=' or "
                         "'Minimum Small Latency=' line", source=source)
    if repeated:
        sink.facts["lines_repeated"] = ",".join(repeated)
    return sink.freeze("orion_summary")


def _matrix_of(source: str) -> str | None:
    m = re.search(r"_(iops|mbps|lat)\.csv$", source, re.IGNORECASE)
    return m.group(1).lower() if m else None


def parse_csv_us(text: str, source: str = "<text>") -> Parsed:
    """A 12c+ ``_lat.csv``: latencies in microseconds (stored as ms, like every other ORION latency)."""
    return parse_csv(text, source, latency_unit="us")


def parse_csv(text: str, source: str = "<text>", matrix: str | None = None, latency_unit: str = "ms") -> Parsed:
    """A Large/Small matrix. ``matrix`` ("iops", "mbps" or "lat") defaults to the file-name suffix.
    ``latency_unit``: the unit ORION wrote ``_lat.csv`` in (ms in 11.1, us from 12c on)."""
    sink = MetricSink(source)
    matrix = matrix or _matrix_of(source)
    if matrix is None:
        sink.errors.append(ParseError("orion", "csv", "cannot tell iops/mbps/lat from the file name "
                                      "(expected *_iops.csv, *_mbps.csv or *_lat.csv); values kept "
                                      "as orion.value without a unit", source=source))
        name, unit, direction = "orion.value", "", Direction.NEUTRAL
    else:
        name, unit, direction = _MATRIX[matrix]
    lines = text.splitlines()
    head_no = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if head_no is None or not _CSV_HEAD.match(lines[head_no]):
        raise ParseError("orion", "csv header", "first line is not 'Large/Small, ...'", source=source)
    try:
        smalls = [c.strip() for c in lines[head_no].split(",")[1:] if c.strip()]
        for s in smalls:
            int(s)
    except ValueError:
        raise ParseError("orion", "csv header", "small-IO load levels are not integers",
                         source=source, line=head_no + 1) from None
    cells = 0
    for i, line in enumerate(lines[head_no + 1:], head_no + 2):
        parts = [c.strip() for c in line.split(",")]
        if not parts or not parts[0]:
            continue
        if not parts[0].isdigit() or len(parts) - 1 > len(smalls):
            sink.errors.append(ParseError("orion", "csv row", f"unreadable row {line.strip()[:40]!r}",
                                          source=source, line=i))
            continue
        for small, cell in zip(smalls, parts[1:], strict=False):
            if not cell:
                continue  # rows without data hold only the row label
            try:
                value = float(cell)
            except ValueError:
                sink.errors.append(ParseError("orion", "csv cell", f"not a number: {cell[:20]!r}",
                                              source=source, line=i))
                continue
            if matrix == "lat" and latency_unit == "us":
                value /= 1000.0
            sink.add(name, value, unit, direction, i, small=small, large=parts[0])
            cells += 1
    if matrix:
        sink.facts["matrix"] = matrix
    if matrix == "lat":
        sink.facts["latency_unit_in_file"] = latency_unit
    if not cells:
        raise ParseError("orion", "csv", "matrix holds no values", source=source)
    return sink.freeze("orion_csv")


# -- refusal (planner.parsers.refusals) --------------------------------------------------------------------------
_BANNER = re.compile(r"ORION VERSION\s+(\S+)|ORION: ORacle IO Numbers -- Version\s+(\S+)")
_RUN = re.compile(r"-run\s+(\w+)")


def _version(raw: str, parts: int = 4) -> str:
    """``11.2.0.4.0`` -> ``11.2.0.4``; ``RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417`` -> ``19.3.0.0``."""
    m = re.search(r"\d+(?:\.\d+)+", raw)
    return ".".join(m.group().split(".")[:parts]) if m else raw[:40]


def refusal(text: str) -> str | None:
    """Why an ORION banner gave nothing: no result table after it; None when there is no banner."""
    m = _BANNER.search(text)
    if not m:
        return None
    run = _RUN.search(text)
    what = f"ORION {_version(m.group(1) or m.group(2))}" + (f" ({run.group(1)} run)" if run else "")
    return f"{what}: banner only, no result table (no 'Maximum Large MBPS=' / 'Maximum Small IOPS=' line)"
