"""Derived metrics computed from a parsed AWR / Statspack report; every one has derived=True.

Formulas (per second unless stated; ``P`` is the parsed report):

- ``physical_read_iops``  = P.physical_read_io_requests_per_s (Read IO requests, 11.2.0.4+).
  Without that row (11.2.0.3 and older, Statspack) = P.physical_reads_per_s, labelled
  ``basis=blocks``: blocks/s equal IOPS only for single-block reads (SLOB), an upper bound otherwise.
- ``physical_write_iops`` = P.physical_write_io_requests_per_s, else P.physical_writes_per_s (basis=blocks).
- ``read_iops_per_core``  = physical_read_iops / cores (the seed's "20k IOPS per core").
- ``single_block_read_latency_ms`` = wait.time_s / wait.waits * 1000 for "db file sequential read"
  and "cell single block physical read" (Exadata), from the first table that has both values.
- ``redo_mb_per_s``       = P.redo_size_per_s / 1048576.
- ``wait_class_share_pct{wait_class}`` = sum of wait.time_s of the Top events in that class / DB time (s)
  * 100, where DB time (s) = db_time_min * 60 (or db_time_s from the Time Model). CPU counts as "DB CPU".
- ``logical_to_physical_ratio`` = P.logical_reads_per_s / P.physical_reads_per_s.

- ``physical_read_iops`` (basis=requests) falls back on Instance Activity Stats' ``physical read IO requests``
  per second when the Load Profile lacks the row.

A RAC instance report (fact rac=YES) gets its own instance's IOPS only from IO requests (``basis=requests``,
label ``instance=<n>``; none when the instance number is not printed): "Physical Reads/s" counts blocks, and one instance is not the cluster, whose total
the global report gives (``instance=all``, planner.parsers.awr_rac_text). Every derived metric of a RAC
instance report carries its ``instance`` label, so it sits with the values it was computed from.
"""

from __future__ import annotations

from collections import defaultdict

from planner.metrics import Direction, Metric, MetricSink, Parsed
from planner.parsers.numbers import put

_SINGLE_BLOCK = ("db file sequential read", "cell single block physical read")


def _is_event(printed: str, full: str) -> bool:
    """AWR text cuts event names to 30 (Top 5) or 26 (detail tables) characters: "cell single block physical rea"."""
    return printed == full or (len(printed) >= 20 and full.startswith(printed))


def derive(parsed: Parsed) -> list[Metric]:
    sink = MetricSink(parsed.source)
    rac = parsed.fact("rac") == "YES"
    H, L, N = Direction.HIGHER, Direction.LOWER, Direction.NEUTRAL

    def line_of(name: str) -> int | None:
        m = parsed.get(name)
        return m.source.line if m and m.source else None

    inst = {"instance": parsed.fact("inst_num")} if rac and parsed.fact("inst_num") else {}
    read_iops = None
    for name, basis in (("physical_read_io_requests_per_s", "requests"),
                        ("activity.physical_read_io_requests_per_s", "requests"), ("physical_reads_per_s", "blocks")):
        v = parsed.value(name)
        if v is not None and not (rac and (basis == "blocks" or not inst)):
            read_iops = v
            put(sink, "physical_read_iops", v, "IOPS", H, line_of(name), {"basis": basis, **inst}, derived=True)
            break
    for name, basis in (("physical_write_io_requests_per_s", "requests"),
                        ("activity.physical_write_io_requests_per_s", "requests"), ("physical_writes_per_s", "blocks")):
        v = parsed.value(name)
        if v is not None and not (rac and (basis == "blocks" or not inst)):
            put(sink, "physical_write_iops", v, "IOPS", H, line_of(name), {"basis": basis, **inst}, derived=True)
            break
    cores = parsed.value("cores")
    if read_iops is not None and cores:
        put(sink, "read_iops_per_core", read_iops / cores, "IOPS/core", H, line_of("cores"), inst, derived=True)
    for event in _SINGLE_BLOCK:
        printed = next((m.label("event") for m in parsed.all("wait.waits") if _is_event(m.label("event"), event)),
                       event)
        waits_m = parsed.get("wait.waits", event=printed)
        time_s = parsed.value("wait.time_s", event=printed)
        if waits_m and waits_m.value and time_s is not None:
            put(sink, "single_block_read_latency_ms", time_s / waits_m.value * 1000, "ms", L,
                waits_m.source.line if waits_m.source else None, {"event": event, **inst}, derived=True)
            break
    redo = parsed.value("redo_size_per_s")
    if redo is not None:
        put(sink, "redo_mb_per_s", redo / 1048576, "MB/s", H, line_of("redo_size_per_s"), inst, derived=True)
    db_time_s = parsed.value("db_time_s")
    if db_time_s is None and (mins := parsed.value("db_time_min")) is not None:
        db_time_s = mins * 60
    if db_time_s:
        per_class: dict[str, float] = defaultdict(float)
        tops = [m for m in parsed.all("wait.time_s") if m.label("section") == "top"]
        if any(m.label("instance") == "*" for m in tops):  # RAC global report: the cluster rows only
            tops = [m for m in tops if m.label("instance") == "*"]
        for m in tops:
            cls = m.label("wait_class") or ("DB CPU" if m.label("event").lower() in ("db cpu", "cpu time") else "")
            if cls:
                per_class[cls] += m.value
        for cls, seconds in per_class.items():
            put(sink, "wait_class_share_pct", seconds / db_time_s * 100, "%", N, None, {"wait_class": cls, **inst},
                derived=True)
    lio, pio = parsed.value("logical_reads_per_s"), parsed.value("physical_reads_per_s")
    if lio is not None and pio:
        put(sink, "logical_to_physical_ratio", lio / pio, "ratio", N, line_of("logical_reads_per_s"), inst,
            derived=True)
    return sink.metrics
