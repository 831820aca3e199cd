"""The workload kinds' own findings, one section per kind: OLTP (HammerDB, Swingbench), fio, iozone.

Each section belongs to its kind and moves with it into planner/kinds/<kind>/; what two kinds share
(the page-cache exposure of a buffered file test) stays at the top.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from planner import kindspec
from planner.metrics import display_name
from planner.results.finding import DEFAULT_THRESHOLDS, Finding, Severity, Thresholds
from planner.results.finding import index as _index
from planner.results.finding import where as _where
from planner.results.measure import RunData, play_name
from planner.results.stats import Series

# -- shared by the file tests (fio, iozone): the data against the host's memory ----------------------------

_BYTES = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.I)


def size_gb(text: Any) -> float | None:
    """A fio / iozone size (``1g``, ``512m``, ``4096k``; a bare number is bytes for fio) in GiB, else None."""
    m = _BYTES.match(str(text or ""))
    if not m:
        return None
    return (float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
            / (1 << 30))


def page_cache_exposure(data_gb: float | None, facts: Mapping[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The test's data against the host's memory: data smaller than memory can be served from the page cache."""
    try:
        memory = float(facts.get("memory_gb") or 0)
    except (TypeError, ValueError):
        memory = 0.0
    if data_gb is None or not memory:
        return "the page cache can hold part or all of the data", ()
    fits = "fits in" if data_gb <= memory else f"is {data_gb / memory:.1f}x"
    return (f"the test's data ({data_gb:g} GB) {fits} the host's {memory:g} GB of memory",
            (("data GB", f"{data_gb:g}"), ("host memory GB", f"{memory:g}")))


# -- OLTP (HammerDB TPROC-C, Swingbench SOE): what a user checks before believing a NOPM or TPS figure ------

# The throughput each OLTP kind leads with, and the users it was driven by: the scaling check reads these by
# name (each kind's spec says them, planner.kindspec.Oltp).
OLTP_THROUGHPUT = tuple(o.throughput for o in kindspec.oltp().values())
OLTP_USERS = tuple(o.users for o in kindspec.oltp().values())
OLTP_KINDS = frozenset(kindspec.oltp())
TIMED_DEFAULT_MIN = 5.0  # HammerDB's timed driver default test duration (dict ``duration = 5``)
SCALING_GAIN_PCT = 10.0  # more virtual users that add less than this are "not scaling"


def _value(ms: Mapping[str, Series], key: str) -> float | None:
    s = ms.get(key)
    return s.summary.median if s is not None and s.values else None


def _busy(ms: Mapping[str, Series]) -> float | None:
    if (idle := _value(ms, "host_cpu.idle_pct")) is not None:
        return 100 - idle
    return _value(ms, "os.cpu_busy_pct")


def hammerdb_setup(all_series: Sequence[Series]) -> list[Finding]:
    """More virtual users than warehouses, failed virtual users, a timed test shorter than HammerDB's default."""
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        users, ware = _value(ms, "hammerdb.active_vu"), _value(ms, "hammerdb.warehouses")
        if users is not None and ware is not None and users > ware:
            out.append(Finding(
                "vu_over_warehouses", Severity.WARNING, "More virtual users than warehouses", *where,
                f"{users:.0f} virtual users on {ware:.0f} warehouses share home warehouses and wait on each other's "
                "locks: HammerDB's documentation calls a 10-warehouse schema run with 100 virtual users \"an error in "
                "configuration\" (How many warehouses for the TPROC-C test, hammerdb.com/docs/ch03s07.html)",
                (("virtual users", f"{users:.0f}"), ("warehouses", f"{ware:.0f}"))))
        if (failed := _value(ms, "hammerdb.vu_failed")):
            out.append(Finding(
                "vu_failed", Severity.WARNING, "Virtual users failed", *where,
                f"{failed:.0f} virtual user(s) printed FINISHED FAILED: the NOPM counts only the users that stayed "
                "(HammerDB prints the error as 'Error in Virtual User N' in the log)",
                (("failed virtual users", f"{failed:.0f}"),)))
        if (minutes := _value(ms, "hammerdb.duration_min")) is not None and minutes < TIMED_DEFAULT_MIN:
            out.append(Finding(
                "short_timed_test", Severity.NOTE, "Timed test shorter than HammerDB's default", *where,
                f"the timed window was {minutes:g} min, under the {TIMED_DEFAULT_MIN:g} min of HammerDB's own timed "
                "driver default (Driver Script Options, hammerdb.com/docs/ch04s05.html): a checkpoint or a log "
                "switch weighs more in a short window",
                (("timed minutes", f"{minutes:g}"), ("default", f"{TIMED_DEFAULT_MIN:g}"))))
    return out


def oltp_not_scaling(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
    """Throughput that stops rising with more users while the CPU is saturated: the host, not the storage."""
    idx = _index(all_series)
    steps: dict[tuple[str, str, str], list[tuple[float, Series]]] = defaultdict(list)
    for s in all_series:
        users = next((u for k in OLTP_USERS if (u := _value(idx[_where(s)], k)) is not None), None)
        if s.metric in OLTP_THROUGHPUT and s.values and users is not None:
            steps[(s.play, s.host, s.title)].append((users, s))
    out: list[Finding] = []
    for points in steps.values():
        points.sort(key=lambda p: p[0])
        for (u0, a), (u1, b) in zip(points, points[1:], strict=False):
            gain = (b.summary.median / a.summary.median - 1) * 100 if a.summary.median else 0.0
            busy = _busy(idx[_where(b)])
            if u1 > u0 and gain < SCALING_GAIN_PCT and busy is not None and busy >= t.cpu_busy_pct:
                out.append(Finding(
                    "oltp_not_scaling", Severity.NOTE, "Throughput stopped scaling on a saturated CPU", *_where(b),
                    f"{display_name(b.metric)} rose {gain:.1f}% from {u0:.0f} to {u1:.0f} virtual users with the "
                    f"CPU {busy:.1f}% busy: each virtual user drives about one core (HammerDB, How many warehouses "
                    "for the TPROC-C test), so more users measure the CPU, not the storage",
                    (("gain %", f"{gain:.1f}"), ("CPU busy %", f"{busy:.1f}"))))
    return out


# -- fio set-up: what the job file asked for, read back from fio's own JSON (its "job options") ------------

# fio engines that keep one I/O in flight per job whatever iodepth says (fio's man page, "iodepth": "Note
# that increasing iodepth beyond 1 will not affect synchronous ioengines").
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})
_TRUE = frozenset({"1", "true", "yes", "on"})


def _job_options(facts: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """job name -> its effective options ([global] first, then the job's own), from the fio parser's facts."""
    glob = {k[len("global."):]: v for k, v in facts.items() if k.startswith("global.")}
    jobs: dict[str, dict[str, str]] = defaultdict(lambda: dict(glob))
    for k, v in facts.items():
        if k.startswith("job[") and "]." in k:
            name, _, opt = k[4:].partition("].")
            jobs[name][opt] = v
    return dict(jobs) or {"": glob}


def _is_device(path: str) -> bool:
    # a sandboxed host maps /dev/x under its root: the /dev/ segment still says it is a device
    return path.startswith("/dev/") or "/dev/" in path


def fio_setup(data: RunData) -> list[Finding]:
    """A device benchmark run buffered (no direct=1: the page cache is measured, e.g. 314k IOPS of randwrite
    "to a disk") and an iodepth sweep on a synchronous engine (every point has the same queue depth)."""
    plays = data.play_names()
    out: list[Finding] = []
    by_path = {a.path: a for a in data.artifacts if a.kind == "fio_json"}
    swept_sync: set[tuple[str, str, str]] = set()
    for r in data.results:
        for art in r.artifacts:
            a = by_path.get(art.path)
            if a is None:
                continue
            params = dict(r.params)
            label = " ".join(f"{k}={v}" for k, v in r.params) or "—"
            where = (play_name(r.play, plays), r.host, r.title, label)
            for job, opts in _job_options(dict(a.facts)).items():
                files = [f for f in opts.get("filename", "").split(":") if f]
                devices = [f for f in files if _is_device(f)]
                direct = opts.get("direct", "0").strip().lower() in _TRUE
                if devices and not direct and opts.get("buffered", "").strip().lower() not in ("0", "false"):
                    out.append(Finding(
                        "fio_buffered", Severity.WARNING, "Device benchmark ran buffered", *where,
                        f"fio job {job or '?'} on {', '.join(devices)} ran without direct=1: reads and writes "
                        "went through the page cache, so the figures measure memory, not the device — "
                        "add direct: 1 to the step",
                        (("job", job), ("device", ", ".join(devices)), ("direct", opts.get("direct", "unset")))))
                engine = opts.get("ioengine", "psync").strip().lower()  # fio's default engine on Linux: psync
                if files and not devices and not direct and engine == "libaio":
                    out.append(_buffered_aio(where, job, opts, data.facts.get(r.host, {})))
                key = (where[0], r.host, r.step)
                if "iodepth" in params and engine in SYNC_ENGINES and key not in swept_sync:
                    swept_sync.add(key)
                    out.append(Finding(
                        "fio_sync_iodepth", Severity.WARNING, "iodepth swept with a synchronous engine",
                        where[0], r.host, r.title, "",
                        f"iodepth is swept but ioengine={engine} issues one I/O at a time per job: every point "
                        "ran at queue depth 1, so the sweep shows noise, not queue depth — use ioengine: libaio "
                        "(or io_uring) with direct: 1, or sweep numjobs instead",
                        (("ioengine", engine), ("iodepth", str(params["iodepth"])))))
    return out


def _buffered_aio(where: tuple[str, str, str, str], job: str, opts: Mapping[str, str],
                  facts: Mapping[str, Any]) -> Finding:
    """fio's man page, ioengine libaio: "Linux native asynchronous I/O. Note that Linux may only support queued
    behavior with non-buffered I/O (set direct=1 or buffered=0)" - buffered libaio is not async."""
    size = size_gb(opts.get("size"))
    numjobs = int(opts.get("numjobs", "1") or 1) if str(opts.get("numjobs", "1")).isdigit() else 1
    exposure, numbers = page_cache_exposure(size * numjobs if size is not None else None, facts)
    return Finding(
        "buffered_io", Severity.WARNING, "File job on libaio ran buffered", *where,
        f"fio job {job or '?'} uses ioengine=libaio on files without direct=1: buffered I/O is not async (libaio "
        f"queues only non-buffered I/O), so iodepth does not apply and the page cache is measured; {exposure} — "
        "add direct: 1",
        (("job", job), ("ioengine", "libaio"), ("direct", opts.get("direct", "unset")), *numbers))


# -- iozone ----------------------------------------------------------------------------------------------

def iozone_buffered(data: RunData) -> list[Finding]:
    """iozone without -I (O_DIRECT, iozone's documentation: "-I Use DIRECT I/O for all file operations") reads
    and writes through the page cache, on files the same run just wrote or copied."""
    if data.plan is None:
        return []
    out: list[Finding] = []
    for p in data.plan.plays:
        for spec in p.workloads:
            flags = [str(f) for f in spec.args.get("flags") or ()] if spec.kind == "iozone" else ["-I"]
            if "-I" in flags:
                continue
            for host in sorted({r.host for r in data.results if r.step == spec.path}):
                size = size_gb(spec.args.get("file_size"))
                threads = spec.args.get("threads", 1)
                total = size * threads if size is not None and isinstance(threads, int) else None
                exposure, numbers = page_cache_exposure(total, data.facts.get(host, {}))
                out.append(Finding(
                    "buffered_io", Severity.WARNING, "iozone ran buffered", p.name, host,
                    spec.name or spec.kind, "",
                    f"iozone ran without -I (O_DIRECT): reads and writes went through the page cache; {exposure} — "
                    "add -I to flags to measure the storage", (("flags", " ".join(flags) or "none"), *numbers)))
    return out
