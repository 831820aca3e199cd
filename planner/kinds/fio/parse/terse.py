"""fio terse output (``--minimal``, ``--output-format=terse``, ``--terse-version=3|4|5``): one line per job.

The fields, per fio's HOWTO ("Terse output"): ``terse version; fio version; jobname; groupid; error``, then
per direction (read, write, and trim from version 4) ``io KiB; bw KiB/s; IOPS; runtime ms``, slat, clat
(min, max, mean, stdev, usec), 20 clat percentile fields ``99.000000%=6455`` (usec), lat (min, max, mean,
stdev), bw (min, max, aggregate %, mean, stdev) and, from version 5, bw samples and IOPS (min, max, mean,
stdev, samples); then cpu (``usr%; sys%; ctx; majf; minf``), 7 IO depth, 10 usec and 12 msec latency
buckets, then 9 fields per disk (``vda; read ios; write ios; ...; 93.61%``).

Same metric names and labels as the JSON parser (``job``, ``dir``; ``stat`` for latencies): ``fio.iops``,
``fio.bw_kib``, ``fio.bw_mbs``, ``fio.runtime_ms``, ``fio.slat_ms`` / ``fio.clat_ms`` / ``fio.lat_ms``,
``fio.usr_cpu_pct``, ``fio.sys_cpu_pct``, and ``fio.disk_util_pct`` (labels ``device`` and ``job``: each
terse line prints its own disk figures). Terse prints usec with 6 decimals, so these are as precise as JSON.
Version 2 (no fio version field, no percentiles) is refused by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put, read

KIND = "fio_terse"
_LINE = re.compile(r"^\s*([2-9]);(fio-[^;]*;)?")
_V3_5 = re.compile(r"^\s*[345];fio-\d[^;]*;[^;]*;\d+;\d+;")
_STATS = ("min", "max", "mean", "stddev")
_AFTER_DIRS = 5 + 7 + 10 + 12  # cpu, IO depths, usec and msec latency buckets
_DISK = 9


@dataclass(frozen=True, slots=True)
class _Layout:
    dirs: tuple[str, ...]
    width: int  # fields per direction

    @property
    def fields(self) -> int:
        return 5 + len(self.dirs) * self.width + _AFTER_DIRS


_LAYOUTS = {3: _Layout(("read", "write"), 41), 4: _Layout(("read", "write", "trim"), 41),
            5: _Layout(("read", "write", "trim"), 47)}


def looks_like(text: str) -> bool:
    return any(_LINE.match(line) and line.count(";") >= 80 for line in text[:2_000_000].splitlines())


def _num(field: str) -> float | None:
    return read(field.rstrip("%")).value


def _direction(sink: MetricSink, f: list[str], labels: dict[str, str], no: int) -> bool:
    """One direction's 41/47 fields; False when the job issued no IO that way."""
    io_kib, bw, iops, runtime = (_num(x) for x in f[0:4])
    if not io_kib and not iops:
        return False
    H, L, N = Direction.HIGHER, Direction.LOWER, Direction.NEUTRAL
    for name, value, unit, how in (("fio.iops", iops, "IO/s", H), ("fio.bw_kib", bw, "KiB/s", H),
                                   ("fio.bw_mbs", None if bw is None else bw * 1024 / 1e6, "MB/s", H),
                                   ("fio.runtime_ms", runtime, "ms", N)):
        if value is not None:
            put(sink, name, value, unit, how, no, labels)
    for name, start in (("fio.slat_ms", 4), ("fio.clat_ms", 8), ("fio.lat_ms", 32)):
        if not _num(f[start + 1]):
            continue  # max 0: not measured (sync engines print slat 0;0;0.000000;0.000000, normal output omits it)
        for stat, field in zip(_STATS, f[start:start + 4], strict=True):
            if (v := _num(field)) is not None:
                put(sink, name, v / 1000, "ms", L, no, {"stat": stat, **labels})
    for field in f[12:32]:
        pct, _, usec = field.partition("%=")
        p, v = _num(pct), _num(usec)
        if p and v is not None:  # "0%=0" pads the 20 fields
            put(sink, "fio.clat_ms", v / 1000, "ms", L, no, {"stat": "p" + f"{p:.6f}".rstrip("0").rstrip("."),
                                                              **labels})
    return True


def _disks(sink: MetricSink, rest: list[str], job: str, no: int) -> None:
    for i in range(0, len(rest) - _DISK + 1, _DISK):
        group = rest[i:i + _DISK]
        if _num(group[0]) is not None or not group[8].endswith("%"):
            break  # the error count / description fields that may follow
        if (util := _num(group[8])) is not None:
            put(sink, "fio.disk_util_pct", util, "%", Direction.NEUTRAL, no, {"device": group[0], "job": job})


def _line(sink: MetricSink, fields: list[str], no: int, seen: dict[str, int]) -> int:
    version = int(fields[0])
    layout = _LAYOUTS[version]
    if len(fields) < layout.fields:
        sink.errors.append(ParseError(KIND, "job line", f"terse version {version} line has {len(fields)} fields, "
                                      f"expected at least {layout.fields} (cut short?); line skipped",
                                      source=sink.source, line=no))
        return 0
    sink.facts.setdefault("fio_version", fields[1])
    sink.facts.setdefault("terse_version", str(version))
    name = fields[2]
    seen[name] = seen.get(name, 0) + 1
    job = name if seen[name] == 1 else f"{name}#{seen[name]}"  # the same job again later in a log
    if fields[4].strip() not in ("0", ""):
        sink.errors.append(ParseError(KIND, f"job {job}", f"fio reported error {fields[4][:20]}",
                                      source=sink.source, line=no))
    done = 0
    for k, d in enumerate(layout.dirs):
        start = 5 + k * layout.width
        done += _direction(sink, fields[start:start + layout.width], {"job": job, "dir": d}, no)
    cpu = 5 + len(layout.dirs) * layout.width
    for mname, field in (("fio.usr_cpu_pct", fields[cpu]), ("fio.sys_cpu_pct", fields[cpu + 1])):
        if (v := _num(field)) is not None:
            put(sink, mname, v, "%", Direction.NEUTRAL, no, {"job": job})
    _disks(sink, fields[layout.fields:], job, no)
    return done


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    seen: dict[str, int] = {}
    directions = 0
    for no, raw in enumerate(text.splitlines(), 1):
        if not (m := _LINE.match(raw)) or raw.count(";") < 20:
            continue
        if not _V3_5.match(raw):
            what = "terse version 2 (no fio version field)" if m.group(1) == "2" and not m.group(2) else \
                f"terse version {m.group(1)}"
            sink.errors.append(ParseError(KIND, "job line", f"{what} is not read (versions 3-5 are); line skipped",
                                          source=source, line=no))
            continue
        directions += _line(sink, raw.strip().split(";"), no, seen)
    if not directions:
        if sink.errors:
            raise sink.errors[0]
        raise ParseError(KIND, "jobs", "no terse line of a job that did IO", source=source)
    return sink.freeze(KIND)
