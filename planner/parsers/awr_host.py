"""The Host CPU, Instance CPU and IO Profile sections of AWR / Statspack text, in both the layouts they reach a
reader in: the text report's (``Host CPU (CPUs: 2 Cores: 2 Sockets: 1)`` over a two-line header, ``% of busy CPU
for Instance:``, ``IO Profile  Read+Write Per Second ...`` on the title line) and the HTML report's tables pasted as
text (a Markdown converter's ``Load Average Begin| Load Average End| %User``, ``%Total CPU| %Busy CPU``, the IO
Profile's header under its title): the same cells under the HTML report's column names (awr_html reads those).
"""

from __future__ import annotations

import re

from planner.errors import ParseError
from planner.metrics import MetricSink
from planner.parsers.awr_common import HOST_CPU_COLUMNS, H, L, N, parse_number, slug
from planner.parsers.awr_sections import _DASHES, _NUMTXT, Lines, _next_values_line, find
from planner.parsers.numbers import put

# The HTML report's Host CPU columns "Load Average Begin" / "Load Average End" are the text report's Begin / End
_LOAD_AVERAGE = re.compile(r"Load\s+Average\s+(Begin|End)\b", re.I)


def parse_host_cpu(lines: Lines, sink: MetricSink, **labels: str) -> bool:
    """Host CPU: load average begin/end and %User %System %WIO %Idle (Statspack: User System Idle WIO WCPU)."""
    k = find(lines, r"^\s*Host CPU\b")
    if k < 0:
        return False
    m = re.search(r"CPUs:\s*(\d+)\s+Cores:\s*(\d+)\s+Sockets:\s*(\d+)?", lines[k][1])
    if m:
        sink.facts.setdefault("host_cpu_line", f"{m.group(1)}/{m.group(2)}/{m.group(3) or ''}")
    h = find(lines, r"\bBegin\s+(?:Load\s+Average\s+)?End\s+%?User", k)
    if h < 0 or h - k > 4:
        return False
    header = _LOAD_AVERAGE.sub(lambda w: w.group(1).ljust(len(w.group())), lines[h][1])  # columns stay put
    names = [w.lstrip("%").lower() for w in header.split()]
    j = _next_values_line(lines, h)
    if j < 0:
        return False
    values = [parse_number(v) for v in lines[j][1].split()]
    if any(v is None for v in values):
        return False
    pairs = list(zip(names, values, strict=False)) if len(values) >= len(names) else \
        _by_position(header, lines[j][1])
    if pairs is None:
        sink.errors.append(ParseError("awr", "Host CPU", "fewer values than columns and they do not line up "
                                      "under the header: not read", source=sink.source, line=lines[j][0]))
        return False
    for name, v in pairs:
        metric, unit = HOST_CPU_COLUMNS.get(name, (f"host_cpu.{slug(name)}", ""))
        if v is None:
            continue
        put(sink, metric, v, unit, L if name in ("wio", "user", "system") else N, lines[j][0], labels)
    return True


def _by_position(header: str, row: str) -> list[tuple[str, float | None]] | None:
    """A row with blank cells (11.2.0.4+'s "CPUs Cores Sockets" left blank on a VM or AIX): each value goes
    to the header word its right edge lines up under, as the report right-aligns numbers; None where a
    value lines up under no word (a paste that lost the alignment), rather than a guess."""
    heads = [(m.group().lstrip("%").lower(), m.end()) for m in re.finditer(r"\S+", header)]
    out: list[tuple[str, float | None]] = []
    for m in re.finditer(r"\S+", row):
        name = next((n for n, end in heads if abs(end - m.end()) <= 1), None)
        if name is None or any(n == name for n, _ in out):
            return None
        out.append((name, parse_number(m.group())))
    return out


_INSTANCE_CPU = ((r"% of total CPU for Instance:", "instance_cpu.total_pct"),
                 (r"% of busy\s+CPU for Instance:", "instance_cpu.busy_pct"),
                 (r"%DB time waiting for CPU - Resource Mgr:", "instance_cpu.rsrc_mgr_wait_pct"))
# The HTML report's table: "%Total CPU  %Busy CPU  %DB time waiting for CPU (Resource Manager)", one row
_INSTANCE_CPU_TABLE = re.compile(r"^\s*%Total CPU\s+%Busy CPU(\s+%DB time waiting for CPU)?", re.I)


def parse_instance_cpu(lines: Lines, sink: MetricSink, **labels: str) -> bool:
    found = False
    for pattern, name in _INSTANCE_CPU:
        k = find(lines, pattern)
        if k >= 0:
            m = re.search(pattern + rf"\s*({_NUMTXT})", lines[k][1], re.I)
            if m and (v := parse_number(m.group(1))) is not None:
                put(sink, name, v, "%", N, lines[k][0], labels)
                found = True
    return found or _instance_cpu_table(lines, sink, **labels)


def _instance_cpu_table(lines: Lines, sink: MetricSink, **labels: str) -> bool:
    h = find(lines, _INSTANCE_CPU_TABLE.pattern)
    j = _next_values_line(lines, h) if h >= 0 else -1
    if j < 0:
        return False
    m = _INSTANCE_CPU_TABLE.match(lines[h][1])
    names = [name for _, name in _INSTANCE_CPU][:3 if m and m.group(1) else 2]
    values = [parse_number(v) for v in lines[j][1].split()]
    if len(values) != len(names) or any(v is None for v in values):
        return False
    for name, v in zip(names, values, strict=True):
        if v is not None:
            put(sink, name, v, "%", N, lines[j][0], labels)
    return True


def parse_io_profile(lines: Lines, sink: MetricSink, **labels: str) -> int:
    """IO Profile (11.2.0.4+): Read+Write / Read / Write per second; rows may be blank (PDB report). The column
    header is on the title line in text, on a line of its own under it in the HTML table pasted as text."""
    k = find(lines, r"^\s*IO Profile\b")
    h = find(lines, r"Read\+Write", k) if k >= 0 else -1
    if h < 0 or h - k > 3:
        return 0
    n = 0
    for lineno, text in lines[h + 1:]:
        t = text.strip()
        if not t or t.startswith("~") or _DASHES.match(t):
            if n and not t:
                break
            continue
        m = re.match(rf"^\s*([A-Za-z][^:]*):\s*((?:{_NUMTXT}(?:\s+{_NUMTXT})*)?)\s*$", text)
        if not m:
            break
        values = [parse_number(v) for v in m.group(2).split()]
        unit = "MB/s" if "(MB)" in m.group(1) else ("blocks/s" if "blocks" in m.group(1) else "requests/s")
        for scope, v in zip(("total", "read", "write"), values, strict=False):
            if v is not None:
                put(sink, f"io_profile.{slug(m.group(1))}", v, unit, H, lineno, {"scope": scope, **labels})
        n += 1
    return n
