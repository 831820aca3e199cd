"""fio's normal (human-readable) output, as people paste it into tickets and blogs (fio 2.x and 3.x).

Same metric names as the JSON parser (planner/kinds/fio/parse/json_report.py), labels ``job`` and ``dir``:
``fio.iops``, ``fio.bw_kib``, ``fio.bw_mbs``, ``fio.runtime_ms``, ``fio.lat_ms`` / ``fio.clat_ms`` /
``fio.slat_ms`` (``stat`` = min, max, mean, stddev, p1, p99 ...), ``fio.usr_cpu_pct``, ``fio.sys_cpu_pct``,
``fio.disk_util_pct`` (label ``device``).

fio 3.x: ``write: IOPS=19.8k, BW=77.3MiB/s (81.1MB/s)(1024MiB/13246msec)``; fio 2.x:
``read : io=1024.0MB, bw=104857KB/s, iops=26214, runt= 10000msec``. The text rounds (``19.8k``), so these
values are as precise as the text and no more: prefer the JSON output when there is a choice.
"""

from __future__ import annotations

import re
from dataclasses import replace

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import NUMBER, put, read, warn

KIND = "fio_text"
# pastes lose fio's indentation, some all of it: no line is told apart by its indent alone
_JOB = re.compile(r"^\s*(\S.*?): \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+)")
# fio's client mode prints its "All clients" sum with no unit and no "/s" ("BW=1692Mi (1774M)"): bytes a second,
# 1024- then 1000-based as ever (fio client.c handle_ts sums the servers' group stats without their unit_base)
_DIR3 = re.compile(rf"^\s*(read|write|trim|mixed)\s*: IOPS=({NUMBER}[kKmM]?), "
                   rf"BW=({NUMBER})((?:[KMGT]i?)?B/s|[KMGT]i(?=[ (]))"
                   rf"(?: \(({NUMBER})([kKMGT]?B/s|[kKMGT](?=\)))\))?(?:\(({NUMBER})([KMGT]i?B)/({NUMBER})msec\))?")
# fio 2.0.x pads before commas and units: "iops=79090 , runt= 53032msec", "bw=422959 B/s"
_DIR2 = re.compile(rf"^\s*(read|write|trim|mixed)\s*: io=\s*({NUMBER})\s*([KMGT]?B), "
                   rf"bw=\s*({NUMBER})\s*([KMGT]?B)/s\s*,"
                   rf"\s*iops=\s*({NUMBER})\s*,\s*runt=\s*({NUMBER})\s*msec", re.IGNORECASE)
_LAT = re.compile(rf"^\s*(slat|clat|lat)\s*\((nsec|usec|msec)\):\s*min=\s*({NUMBER}[kKmM]?)\s*,\s*max=\s*"
                  rf"({NUMBER}[kKmM]?)\s*,\s*avg=\s*({NUMBER}[kKmM]?)\s*,\s*stdev=\s*({NUMBER}[kKmM]?)")
_PCT_HEAD = re.compile(r"^\s*(clat|lat) percentiles \((nsec|usec|msec)\):")
_PCT = re.compile(rf"({NUMBER})th=\[\s*({NUMBER})\]")
_CPU = re.compile(rf"^\s*cpu\s*:\s*usr=({NUMBER})%,\s*sys=({NUMBER})%")
_DISK = re.compile(rf"^\s*(\S+): ios=.*?\butil=({NUMBER})%")  # not the aggrutil= of a dm device
_VERSION = re.compile(r"^\s*(?:fio-|fio )?(\d+\.\d+[\w.\-]*)\s*$")  # fio-3.1, "fio 2.0.7", bare 2.0.8 (2.0.x)
_BANNER = re.compile(r"^\S.*?: \(g=\d+\): rw=")
_TO_MS = {"nsec": 1e-6, "usec": 1e-3, "msec": 1.0}
_KIB = {"B": 1 / 1024, "KB": 1.0, "KiB": 1.0, "MB": 1024.0, "MiB": 1024.0, "GB": 1024.0 ** 2, "GiB": 1024.0 ** 2,
        "Ki": 1.0, "Mi": 1024.0, "Gi": 1024.0 ** 2, "Ti": 1024.0 ** 3,
        "TB": 1024.0 ** 3, "TiB": 1024.0 ** 3}
_SI = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "": 1.0}
_MB = {"B": 1e-6, "kB": 1e-3, "KB": 1e-3, "MB": 1.0, "GB": 1e3, "TB": 1e6, "k": 1e-3, "K": 1e-3, "M": 1.0, "G": 1e3,
       "T": 1e6}


def looks_like(text: str) -> bool:
    if re.search(r"\{\s*\"fio version\"", text[:200_000]):
        return False  # --output-format=json,normal: the JSON is the precise copy (parse/json_report.py)
    if re.search(r"^[ \t]*[345];fio-\d[^;\n]*;[^\n]{200}", text[:2_000_000], re.M):
        return False  # terse,normal: the terse line is the precise copy (parse/terse.py)
    return bool(re.search(r"\(groupid=\d+, jobs=\d+\): err=", text)) and \
        bool(re.search(r"^[ \t]*(read|write|trim|mixed)\s*: (IOPS=|io=)", text, re.M))


def _val(sink: MetricSink, tok: str, line: int) -> float | None:
    """``19.8k`` -> 19800 (fio's k is 1000 for counts); warned when it cannot be read whole."""
    r = read(tok)
    if r.value is None or r.unit not in _SI:
        warn(sink, "fio_text", "job", r, line)
        return None
    return r.value * _SI[r.unit]


def _unread(sink: MetricSink, line: str, no: int) -> None:
    """A result line fio printed that this reader could not take whole: said by line, never silently gone."""
    sink.errors.append(ParseError("fio_text", "job", f"line not read: {line.strip()[:80]!r}", source=sink.source,
                                  line=no))


def _direction(sink: MetricSink, d: re.Match[str] | None, d2: re.Match[str] | None, no: int,
               labels: dict[str, str]) -> None:
    """One ``read:``/``write:`` line: fio 3.x (``d``) or 2.x (``d2``) layout."""
    H, N = Direction.HIGHER, Direction.NEUTRAL
    if d:
        iops, bw = _val(sink, d.group(2), no), _val(sink, d.group(3), no)
        bw_kib = None if bw is None else bw * _KIB[d.group(4).removesuffix("/s")]
        mbs = _val(sink, d.group(5), no) if d.group(5) else None
        bw_mbs = mbs * _MB[d.group(6).removesuffix("/s")] if mbs is not None else \
            (bw_kib * 1024 / 1e6 if bw_kib is not None else None)
        runtime = _val(sink, d.group(9), no) if d.group(9) else None
    else:
        assert d2 is not None  # the caller matched one of the two layouts
        iops, bw = _val(sink, d2.group(6), no), _val(sink, d2.group(4), no)
        bw_kib = None if bw is None else bw * _KIB[d2.group(5).upper()]  # 2.0.x may print kb/s
        bw_mbs = None if bw_kib is None else bw_kib * 1024 / 1e6
        runtime = _val(sink, d2.group(7), no)
    for name, value, unit, direction in (("fio.iops", iops, "IO/s", H), ("fio.bw_kib", bw_kib, "KiB/s", H),
                                         ("fio.bw_mbs", bw_mbs, "MB/s", H),
                                         ("fio.runtime_ms", runtime, "ms", N)):
        if value is not None:
            put(sink, name, value, unit, direction, no, labels)


def parse(text: str, source: str = "<text>") -> Parsed:
    sink = MetricSink(source)
    job, pct_scale, pct_name = "", 0.0, ""
    labels: dict[str, str] = {}
    seen: dict[str, int] = {}
    directions = 0
    run, closed = 1, False  # one fio invocation per run: its disk stats come last, a job banner opens the next
    disks: list[tuple[int, int]] = []  # (index in sink.metrics, run)
    L, N = Direction.LOWER, Direction.NEUTRAL
    # lines end at "\n" alone, as the registry numbers them: fio's eta line rewrites itself with "\r"
    lines = [*text.split("\n"), ""]
    for no, line in enumerate(lines[:-1], 1):
        v = _VERSION.match(line)
        version = bool(v) and (line.lstrip().startswith("fio") or lines[no].lstrip().lower().startswith("starting "))
        if v and version and "fio_version" not in sink.facts:
            sink.facts["fio_version"] = "fio-" + v.group(1)
        # a new invocation's banner, or (client mode: each server's report ends with its own disk stats) a job line
        if closed and (_BANNER.match(line) or version or _JOB.match(line)):
            run, closed = run + 1, False
        if m := _JOB.match(line):
            name = m.group(1).strip()
            seen[name] = seen.get(name, 0) + 1
            job = name if seen[name] == 1 else f"{name}#{seen[name]}"  # the same job run again later in a log
            labels, pct_name = {}, ""
            if m.group(4) != "0":
                sink.errors.append(ParseError("fio_text", f"job {job}", f"fio reported error {m.group(4)}",
                                              source=source, line=no))
            continue
        if not job:
            continue
        d = _DIR3.match(line)
        d2 = None if d else _DIR2.match(line)
        if d or d2:
            labels = {"job": job, "dir": line.split(":")[0].strip()}
            _direction(sink, d, d2, no, labels)
            directions += 1
        elif (lat := _LAT.match(line)) and labels:
            scale = _TO_MS[lat.group(2)]
            for stat, tok in zip(("min", "max", "mean", "stddev"), lat.groups()[2:6], strict=True):
                if (value := _val(sink, tok, no)) is not None:
                    put(sink, f"fio.{lat.group(1)}_ms", value * scale, "ms", L, no, dict(labels, stat=stat))
        elif (ph := _PCT_HEAD.match(line)) and labels:
            pct_name, pct_scale = f"fio.{ph.group(1)}_ms", _TO_MS[ph.group(2)]
        elif pct_name and line.lstrip().startswith("|"):
            if len(_PCT.findall(line)) < line.count("th=["):
                _unread(sink, line, no)
            for p in _PCT.finditer(line):
                pv, value = read(p.group(1)).value, _val(sink, p.group(2), no)
                if pv is not None and value is not None:
                    stat = "p" + f"{pv:.6f}".rstrip("0").rstrip(".")
                    put(sink, pct_name, value * pct_scale, "ms", L, no, dict(labels, stat=stat))
        elif cpu := _CPU.match(line):
            pct_name = ""
            for name, tok in (("fio.usr_cpu_pct", cpu.group(1)), ("fio.sys_cpu_pct", cpu.group(2))):
                if (value := _val(sink, tok, no)) is not None:
                    put(sink, name, value, "%", N, no, {"job": job})
        elif disk := _DISK.match(line):
            closed = True
            if (value := _val(sink, disk.group(2), no)) is not None:
                disks.append((len(sink.metrics), run))
                put(sink, "fio.disk_util_pct", value, "%", N, no, {"device": disk.group(1)})
        elif not line.lstrip().startswith("|"):
            pct_name = ""  # the percentile table ends at its first line without a '|'

    if run > 1:  # several runs in one log: a device's utilisation once per run, so each carries its run
        for i, r in disks:
            sink.metrics[i] = replace(sink.metrics[i], labels=(*sink.metrics[i].labels, ("run", str(r))))
    if not directions:
        raise ParseError("fio_text", "jobs", "no 'read: IOPS=' / 'write: IOPS=' line under a "
                         "'(groupid=N, jobs=N)' job line", source=source)
    return sink.freeze(KIND)


_FIO_VERSION = re.compile(r"^(fio-\d[\w.\-]*)\s*$", re.M)
_FIO_TERSE = re.compile(r"^(?:3|4|5);fio-[\w.\-]+;[^;\n]*;\d+;\d+;", re.M)
_FIO_JOB = re.compile(r"^\S.*?: \(g=\d+\): rw=\w+", re.M)


def refusal(text: str) -> str | None:
    """Why recognisable fio output gave no results (planner.parsers.refusals): a job banner alone (the run was
    cut short), or a terse line no reader took."""
    if m := _FIO_TERSE.search(text):
        return (f"fio terse output (--minimal, format {m.group()[0]}): a layout this planner does not read - "
                "it reads --output-format=json and normal output")
    v = _FIO_VERSION.search(text)
    if not (v or _FIO_JOB.search(text)):
        return None
    what = v.group(1) if v else "fio"
    return f"{what}: job banner only, no results (no 'read: IOPS=' / 'write: IOPS=' line; the run was cut short?)"
