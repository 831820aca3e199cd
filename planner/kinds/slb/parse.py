"""SLB (Kevin Closson's Silly Little Benchmark) console output.

Per memhammer process (label ``proc``, 1-based within its run, and ``op`` = wops/rops):
``slb.proc_tput`` ops/s, ``slb.proc_avg_nsec_per_op`` ns, ``slb.proc_secs`` s, ``slb.proc_ops``.
Per run (label ``run``, 1-based; one ``Test Summary:`` line closes a run): ``slb.users``,
``slb.total_wops``, ``slb.total_rops``, ``slb.runtime_s``, ``slb.wops_per_s``, ``slb.rops_per_s``.
Per run and op, over its processes (derived; labels ``run``, ``op``, ``stat`` = min/median/max):
``slb.avg_nsec_per_op`` ns, the per-process "Avg nsec/op" latency the seed's post discusses.

The first kit (2007, still the one run in 2009 posts) prints one line per memhammer process and no summary::

    Total ops 393216000  Avg nsec/op    32.0  gettimeofday usec 12593203 TPUT ops/sec 31224462.9

Read as op ``ops``; a run is each block of such lines (the script echoes a title between blocks, kept as the
fact ``run[N]``), with derived ``slb.ops_per_s`` (the processes' TPUT summed) and ``slb.users`` (processes).
Fact ``layout`` = ``2009 (memhammer, no Test Summary)``.
"""

from __future__ import annotations

import re
import statistics

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put

_NUM = r"(\d+(?:\.\d*)?|\.\d+)"  # not [\d.]+: '.' or '1.2.3' are not numbers
_PROC = re.compile(rf"Total\s+(wops|rops)\s+(\d+)\s+Secs\s+{_NUM}\s+Avg\s+nsec/op\s+{_NUM}\s+"
                   rf"TPUT\s+ops/sec\s+{_NUM}")
_SUMMARY = re.compile(r"Test Summary:\s*Total\s+wops\s+(\d+)\s+Total\s+rops\s+(\d+)\s+Runtime\s+seconds:\s*"
                      rf"{_NUM}\s+wops/s\s+{_NUM}\s+rops/s\s+{_NUM}")
_USERS = re.compile(r"^\s*Users:\s*(\d+)")
_PROC09 = re.compile(rf"Total\s+ops\s+(\d+)\s+Avg\s+nsec/op\s+{_NUM}\s+gettimeofday\s+usec\s+(\d+)\s+"
                     rf"TPUT\s+ops/sec\s+{_NUM}")


def looks_like(text: str) -> bool:
    return bool(_SUMMARY.search(text) or _PROC.search(text) or _PROC09.search(text))


def _parse_2009(text: str, sink: MetricSink) -> int:
    """The 2007/2009 kit: blocks of per-process lines, a title line between blocks."""
    run, proc, title, found = 0, 0, "", 0
    in_block = False
    for no, line in enumerate(text.splitlines(), 1):
        m = _PROC09.search(line)
        if not m:
            if line.strip():
                in_block, title = False, line.strip()
            continue
        if not in_block:
            run, proc, in_block = run + 1, 0, True
            if title:
                sink.facts[f"run[{run}]"] = title[:80]
        proc += 1
        labels = {"run": str(run), "op": "ops", "proc": str(proc)}
        put(sink, "slb.proc_ops", int(m.group(1)), "ops", Direction.NEUTRAL, no, labels)
        put(sink, "slb.proc_secs", int(m.group(3)) / 1e6, "s", Direction.NEUTRAL, no, labels)
        put(sink, "slb.proc_avg_nsec_per_op", float(m.group(2)), "ns", Direction.LOWER, no, labels)
        put(sink, "slb.proc_tput", float(m.group(4)), "ops/s", Direction.HIGHER, no, labels)
        found += 1
    runs: dict[str, list[float]] = {}
    for m2 in sink.metrics:
        if m2.name == "slb.proc_tput":
            runs.setdefault(m2.label("run"), []).append(m2.value)
    for r, tputs in runs.items():
        sink.add("slb.ops_per_s", sum(tputs), "ops/s", Direction.HIGHER, None, True, run=r)
        sink.add("slb.users", len(tputs), "processes", Direction.NEUTRAL, None, True, run=r)
    sink.facts["layout"] = "2009 (memhammer, no Test Summary)"
    return found


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    if not (_SUMMARY.search(text) or _PROC.search(text)) and _parse_2009(text, sink):
        _latency_spread(sink)
        return sink.freeze("slb")
    run, counts, found = 1, {"wops": 0, "rops": 0}, 0
    open_run = False  # per-process lines seen since the last Test Summary
    for no, line in enumerate(text.splitlines(), 1):
        if u := _USERS.match(line):
            sink.add("slb.users", int(u.group(1)), "processes", Direction.NEUTRAL, no, run=str(run))
        for m in _PROC.finditer(line):
            op = m.group(1)
            counts[op] += 1
            labels = {"run": str(run), "op": op, "proc": str(counts[op])}
            put(sink, "slb.proc_ops", int(m.group(2)), "ops", Direction.NEUTRAL, no, labels)
            put(sink, "slb.proc_secs", float(m.group(3)), "s", Direction.NEUTRAL, no, labels)
            put(sink, "slb.proc_avg_nsec_per_op", float(m.group(4)), "ns", Direction.LOWER, no, labels)
            put(sink, "slb.proc_tput", float(m.group(5)), "ops/s", Direction.HIGHER, no, labels)
            found += 1
            open_run = True
        if s := _SUMMARY.search(line):
            r = str(run)
            sink.add("slb.total_wops", int(s.group(1)), "ops", Direction.NEUTRAL, no, run=r)
            sink.add("slb.total_rops", int(s.group(2)), "ops", Direction.NEUTRAL, no, run=r)
            sink.add("slb.runtime_s", float(s.group(3)), "s", Direction.NEUTRAL, no, run=r)
            sink.add("slb.wops_per_s", float(s.group(4)), "ops/s", Direction.HIGHER, no, run=r)
            sink.add("slb.rops_per_s", float(s.group(5)), "ops/s", Direction.HIGHER, no, run=r)
            found += 1
            run, counts, open_run = run + 1, {"wops": 0, "rops": 0}, False
        elif "Test Summary:" in line:
            sink.errors.append(ParseError("slb", "Test Summary", "line not in the expected form "
                                          "'Test Summary: Total wops N Total rops N Runtime seconds: S "
                                          "wops/s N rops/s N'", source=source, line=no))
    if not found:
        raise ParseError("slb", "output", "no 'Total wops/rops' or 'Test Summary:' line", source=source)
    if open_run:
        sink.errors.append(ParseError("slb", "Test Summary", f"run {run} has per-process lines but no "
                                      "'Test Summary:' line (truncated output?)", source=source))
    _latency_spread(sink)
    return sink.freeze("slb")


def _latency_spread(sink: MetricSink) -> None:
    """min/median/max of the per-process Avg nsec/op, per run and op: one number per point for a report."""
    groups: dict[tuple[str, str], list[float]] = {}
    for m in sink.metrics:
        if m.name == "slb.proc_avg_nsec_per_op":
            groups.setdefault((m.label("run"), m.label("op")), []).append(m.value)
    for (run, op), values in groups.items():
        for stat, v in (("min", min(values)), ("median", statistics.median(values)), ("max", max(values))):
            sink.add("slb.avg_nsec_per_op", v, "ns", Direction.LOWER, None, True, run=run, op=op, stat=stat)


# -- refusal (planner.parsers.refusals) --------------------------------------------------------------------------
_OLD = re.compile(r"Total\s+ops\s+\d+\s+.*Avg\s+nsec/op", re.I)
_ANY = re.compile(r"nsec/op|TPUT ops/sec|memhammer", re.I)


def refusal(text: str) -> str | None:
    """Why SLB-like output gave nothing: the 2009 memhammer layout, or another this planner does not read."""
    if _OLD.search(text):
        return ("SLB 2009 output (memhammer 'Total ops ... Avg nsec/op' lines, before the 2010 kit's wops/rops "
                "split): a layout this planner does not read")
    if _ANY.search(text):
        return "SLB output in a layout this planner does not read (no 'Total wops/rops' or 'Test Summary:' line)"
    return None
