"""Findings: checks that flag a result that is not what it claims to be, and reproduction verdicts.

Every check is a pure function over ``Series`` (measurements grouped over repeats, planner.results.stats) and
returns ``Finding``s that carry the numbers that triggered them. The traps come from the seed studies'
comment threads: cached reads ("your buffer cache is 5 GB"), the flashback wait (47.5% of DB time in
"flashback buf free by RVWR"), CPU-bound hosts ("my cores max out at 20k IOPS"), noisy repeats, the
datasheet argument ("an X2-8 is rated at 1.5M IOPS, your test is wrong") and RAC reads read as IOPS.
"""

from __future__ import annotations

import enum
import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner import kindspec
from planner.metrics import Direction, display_name
from planner.plan.model import Claim
from planner.results import runfolder
from planner.results.finding import Finding, Severity, shared_index
from planner.results.finding import index as _index
from planner.results.finding import where as _where
from planner.results.findings_db import db_findings, storage_series
from planner.results.kind_findings import series_findings as kinds_series_findings
from planner.results.measure import RunData, play_name
from planner.results.point_series import PointSeries
from planner.results.stats import PlayValue, Series, fmt, play_value
from planner.status import legacy_place
from planner.timeseries import Steadiness


@dataclass(frozen=True, slots=True)
class Thresholds:
    logical_to_physical: float = 4.0  # SLOB with a small recycle pool reads ~1 logical per physical
    cache_to_working_set: float = 0.10  # buffer cache >= 10% of the data touched: cache hits inflate reads
    wait_class_share_pct: float = 20.0  # Configuration/Other class share of DB time
    cpu_busy_pct: float = 90.0
    iops_per_core: float = 18_000.0  # the seed's ~20k-30k read IOPS per core ceiling, with some margin
    cv_pct: float = 10.0
    rated_fraction: float = 0.5  # "far below" a rated figure: under half of it
    multiblock_share_pct: float = 1.0  # multi-block read waits beyond this share: blocks/s is not IOPS


def cached_reads(all_series: Sequence[Series], working_set_mb: Mapping[str, float] | None = None,
                 t: Thresholds = Thresholds()) -> list[Finding]:
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        lio, pio = ms.get("logical_reads_per_s"), ms.get("physical_reads_per_s")
        if lio and pio and pio.summary.median > 0:
            ratio = lio.summary.median / pio.summary.median
            if ratio >= t.logical_to_physical:
                out.append(Finding(
                    "cached_reads", Severity.WARNING, "Reads served from cache", *where,
                    f"logical reads ({fmt(lio.summary.median)}/s) are {ratio:.1f}x physical reads "
                    f"({fmt(pio.summary.median)}/s): most block reads were buffer cache hits, so the "
                    "read rate measures memory, not storage",
                    (("logical reads/s", fmt(lio.summary.median)), ("physical reads/s", fmt(pio.summary.median)),
                     ("ratio", f"{ratio:.1f}"), ("threshold", f"{t.logical_to_physical:g}"))))
        cache, ws = ms.get("buffer_cache_mb"), (working_set_mb or {}).get(where[0])
        if cache and ws and cache.summary.median / ws >= t.cache_to_working_set:
            share = cache.summary.median / ws
            out.append(Finding(
                "cached_reads", Severity.WARNING, "Buffer cache large against the working set", *where,
                f"buffer cache {fmt(cache.summary.median)} MB is {share:.0%} of the {fmt(ws)} MB working set: "
                "a share of the reads can be cache hits",
                (("buffer cache MB", fmt(cache.summary.median)), ("working set MB", fmt(ws)),
                 ("share", f"{share:.0%}"), ("threshold", f"{t.cache_to_working_set:.0%}"))))
    return out


def wait_class_share(all_series: Sequence[Series], t: Thresholds = Thresholds()) -> list[Finding]:
    """A Configuration or Other class wait taking a large share of DB time (the flashback case)."""
    groups: dict[tuple[str, str, str, str], list[Series]] = defaultdict(list)
    for s in all_series:
        if s.metric == "wait.pct_db_time" and s.label("section", "top") == "top":
            groups[_where(s)].append(s)
    shares: dict[tuple[str, str, str, str], dict[str, tuple[float, list[Series]]]] = {}
    for where, ss in groups.items():
        per: dict[str, tuple[float, list[Series]]] = {}
        for s in ss:
            cls = s.label("wait_class")
            total, members = per.get(cls, (0.0, []))
            per[cls] = (total + s.summary.median, [*members, s])
        shares[where] = per
    for s in all_series:  # reports without %DB time per event: the derived per-class share
        if s.metric == "wait_class_share_pct" and _where(s) not in shares:
            shares.setdefault(_where(s), {})[s.label("wait_class")] = (s.summary.median, [])
    out: list[Finding] = []
    for where, per in shares.items():
        for cls, (share, members) in per.items():
            if cls not in ("Configuration", "Other") or share < t.wait_class_share_pct:
                continue
            top = max(members, key=lambda m: m.summary.median, default=None)
            event = f"; top event '{top.label('event')}' {fmt(top.summary.median)}% of DB time" if top else ""
            out.append(Finding(
                "wait_class", Severity.WARNING, f"{cls} waits take {share:.1f}% of DB time", *where,
                f"the {cls} wait class takes {share:.1f}% of DB time{event}: the run measured a configuration "
                "bottleneck (e.g. flashback logging, free buffer waits), not the storage",
                (("wait class", cls), ("% DB time", f"{share:.1f}"),
                 *((("event", top.label("event")),) if top else ()),
                 ("threshold %", f"{t.wait_class_share_pct:g}"))))
    return out


def cpu_bound(all_series: Sequence[Series], t: Thresholds = Thresholds()) -> list[Finding]:
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        busy: tuple[str, float] | None = None
        if (idle := ms.get("host_cpu.idle_pct")) is not None:
            busy = ("AWR Host CPU busy %", 100 - idle.summary.median)
        elif (os_busy := ms.get("os.cpu_busy_pct")) is not None:
            busy = ("OS CPU busy %", os_busy.summary.median)
        if busy and busy[1] >= t.cpu_busy_pct:
            out.append(Finding(
                "cpu_bound", Severity.WARNING, "CPU-bound run", *where,
                f"host CPU was {busy[1]:.1f}% busy: the hosts' CPUs, not the storage, limited the result",
                ((busy[0], f"{busy[1]:.1f}"), ("threshold %", f"{t.cpu_busy_pct:g}"))))
        per_core = ms.get("read_iops_per_core")
        if per_core and per_core.summary.median >= t.iops_per_core:
            v = per_core.summary.median
            out.append(Finding(
                "cpu_bound", Severity.WARNING, "Read IOPS per core at the CPU ceiling", *where,
                f"{fmt(v)} read IOPS per core is near the 20-30k per core that SLOB-style reads reach "
                "before the CPU saturates: more storage will not show without more cores",
                (("read IOPS/core", fmt(v)), ("threshold", fmt(t.iops_per_core)))))
    return out


def noisy_repeats(all_series: Sequence[Series], t: Thresholds = Thresholds()) -> list[Finding]:
    """One warning per workload step, not one per metric and point (a sweep's eleven would bury the rest):
    the noisiest series is named, the others are counted."""
    groups: dict[tuple[str, str, str], list[tuple[float, Series]]] = defaultdict(list)
    for s in all_series:
        if not s.headline or len(s.values) < 2:
            continue
        cv = s.summary.cv_pct
        if cv is not None and cv > t.cv_pct:
            groups[(s.play, s.host, s.title)].append((cv, s))
    out: list[Finding] = []
    for found in groups.values():
        cv, s = max(found, key=lambda f: f[0])
        sm = s.summary
        points = len({f[1].point_label for f in found})
        others = len(found) - 1
        more = (f"; {others} more metric/point pair(s) of this step over CV {t.cv_pct:g}% too, at {points} "
                f"point(s)" if others else "")
        name = display_name(s.metric, s.labels, s.unit, frozenset())
        out.append(Finding(
            "noisy_repeats", Severity.WARNING, "Noisy repeats", *_where(s),
            f"{name} varies by CV {cv:.1f}% over {sm.n} repeats (min {fmt(sm.min)}, median "
            f"{fmt(sm.median)}, max {fmt(sm.max)} {s.unit}): a single run of this point is not a result{more}",
            (("metric", s.key), ("repeats", str(sm.n)), ("CV %", f"{cv:.1f}"), ("min", fmt(sm.min)),
             ("max", fmt(sm.max)), ("threshold %", f"{t.cv_pct:g}"), ("noisy series", str(len(found))))))
    return out


def below_rated(all_series: Sequence[Series], rated: Mapping[str, Mapping[str, float]],
                t: Thresholds = Thresholds()) -> list[Finding]:
    """A result far below the rated figure the plan states for the play's system (Play.rated)."""
    out: list[Finding] = []
    for play, figures in rated.items():
        for metric, rating in figures.items():
            for pv in play_value(all_series, play, metric):
                lower = pv.direction is Direction.LOWER
                far = pv.value > rating / t.rated_fraction if lower else pv.value < rating * t.rated_fraction
                if not far or rating == 0:
                    continue
                share = pv.value / rating
                out.append(Finding(
                    "below_rated", Severity.NOTE, f"Far from the rated {metric}", play, "", "", pv.point,
                    f"measured {fmt(pv.value)} {pv.unit} ({pv.how}, best point {pv.point}) is {share:.1%} of "
                    f"the rated {fmt(rating)}: a rating is the maximum of a full configuration under its own "
                    "workload; the measurement stands for this setup — compare hosts, cells, block size and "
                    "read mix with what the rating assumes before calling either number wrong",
                    (("measured", fmt(pv.value)), ("rated", fmt(rating)), ("share", f"{share:.1%}"),
                     ("threshold", f"{t.rated_fraction:.0%}"))))
    return out


def rac_not_iops(all_series: Sequence[Series]) -> list[Finding]:
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        if any("instance=all" in k for k in ms if k.startswith("physical_read_iops{")):
            continue  # the global report gave the cluster's IOPS (planner.parsers.awr_rac_text): nothing to warn
        if "awr.rac" in ms and (pr := ms.get("physical_reads_per_s")) is not None:
            own = next((v for k, v in ms.items() if k.startswith("physical_read_iops{") and "instance=" in k), None)
            what = (f"the {fmt(own.summary.median)} IOPS shown are this instance's own read IO requests/s, not the "
                    "cluster's" if own else "it is not the storage's IOPS, so planner reports no IOPS from it")
            out.append(Finding(
                "rac_not_iops", Severity.NOTE, "RAC figures are not IOPS", *where,
                f"this is a RAC report: 'Physical reads' {fmt(pr.summary.median)}/s counts one instance's "
                f"blocks per second; {what} — add up per-instance IO requests over all instances (or read the "
                "global report, awrgrpt) for the cluster's figure",
                (("physical reads/s (blocks)", fmt(pr.summary.median)), ("RAC", "YES"),
                 *((("instance read IOPS", fmt(own.summary.median)),) if own else ()))))
    return out


_SINGLE_BLOCK_EVENTS = ("db file sequential read", "cell single block physical read")
_AWR_SIGNS = ("physical_reads_per_s", "physical_read_io_requests_per_s", "logical_reads_per_s", "db_time_min",
              "wait.time_s")


def latency_missing(all_series: Sequence[Series]) -> list[Finding]:
    """An AWR result without the single-block read waits: its read latency cannot be computed (the seed's
    "we need to see the number of waits and total wait time for db file sequential read")."""
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        if not any(k in ms for k in _AWR_SIGNS) or "single_block_read_latency_ms" in ms:
            continue
        waits = [s for s in all_series if _where(s) == where and s.metric in ("wait.waits", "wait.time_s")
                 and any(e.startswith(s.label("event")) and len(s.label("event")) >= 20 for e in _SINGLE_BLOCK_EVENTS)]
        have = {s.metric for s in waits}
        missing = "waits" if "wait.waits" not in have else "total wait time"
        pr = ms.get("physical_reads_per_s") or ms.get("physical_read_io_requests_per_s")
        out.append(Finding(
            "latency_missing", Severity.NOTE, "Latency cannot be computed", *where,
            f"latency cannot be computed: no db file sequential read {missing} (nor cell single block physical "
            "read) in this report — post the Top 5 / foreground wait events with their Waits and Time(s) to "
            "get the average single-block read latency",
            (("missing", f"db file sequential read {missing}"),
             *((("physical reads/s", fmt(pr.summary.median)),) if pr else ()))))
    return out


_MULTIBLOCK_EVENTS = ("db file parallel read", "db file scattered read")


def _waits_of(all_series: Sequence[Series], where: tuple[str, str, str, str], events: Sequence[str]) -> float:
    """Median waits of ``events`` at one point, whichever wait table gave them (cut names matched, 20+ chars)."""
    seen: dict[str, float] = {}
    for s in all_series:
        if s.metric != "wait.waits" or _where(s) != where:
            continue
        event = s.label("event")
        full = next((e for e in events if e == event or (len(event) >= 20 and e.startswith(event))), None)
        if full is not None:
            seen[full] = max(seen.get(full, 0.0), s.summary.median)
    return sum(seen.values())


def blocks_not_requests(all_series: Sequence[Series], t: Thresholds = Thresholds()) -> list[Finding]:
    """Read IOPS taken from blocks/s (no "physical read IO requests" in the report) while multi-block reads
    were not trivial: each db file parallel read / scattered read wait reads several blocks in one request, so
    blocks/s overstates IOPS. SLOB's simple.ora sets the _db_block_prefetch / _db_file_noncontig_mblock_read_count
    parameters to 0 "to force db file sequential read" for that reason."""
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        iops = next((v for k, v in ms.items() if v.metric == "physical_read_iops" and v.label("basis") == "blocks"),
                    None)
        if iops is None:
            continue
        multi = _waits_of(all_series, where, _MULTIBLOCK_EVENTS)
        single = _waits_of(all_series, where, _SINGLE_BLOCK_EVENTS)
        share = 100.0 * multi / (multi + single) if multi + single else 0.0
        if share >= t.multiblock_share_pct:
            out.append(Finding(
                "blocks_not_requests", Severity.WARNING, "Read IOPS counted in blocks while reads were batched",
                *where, f"read IOPS {fmt(iops.summary.median)} is blocks per second (this report has no 'physical "
                f"read IO requests'), but {share:.1f}% of the read waits were multi-block (db file parallel read / "
                "scattered read), each one request for several blocks: the figure overstates IOPS — use a report "
                "with physical read IO requests (11.2.0.4+ Load Profile, or Instance Activity Stats) or set SLOB's "
                "prefetch parameters to 0",
                (("read IOPS (blocks/s)", fmt(iops.summary.median)), ("multi-block waits %", f"{share:.1f}"),
                 ("threshold %", f"{t.multiblock_share_pct:g}"))))
    return out


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


def oltp_not_scaling(all_series: Sequence[Series], t: Thresholds = Thresholds()) -> list[Finding]:
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


def all_findings(all_series: Sequence[Series], rated: Mapping[str, Mapping[str, float]] | None = None,
                 working_set_mb: Mapping[str, float] | None = None, t: Thresholds = Thresholds()) -> list[Finding]:
    # an OLTP workload runs from the cache by design: "served from cache" is a trap for I/O tests (SLOB) only
    storage = storage_series(all_series)  # a CPU and memory test: no storage finding judges it
    io_tests = [s for s in storage if s.kind not in OLTP_KINDS]
    with shared_index():
        return [*cached_reads(io_tests, working_set_mb, t), *wait_class_share(all_series, t),
                *cpu_bound(storage, t), *noisy_repeats(all_series, t), *below_rated(storage, rated or {}, t),
                *rac_not_iops(storage), *blocks_not_requests(storage, t), *hammerdb_setup(all_series),
                *oltp_not_scaling(all_series, t), *db_findings(all_series), *kinds_series_findings(all_series)]


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


_SYNC_LOG_MAX = 4 << 20  # sync_start.json of a received folder is input: a bounded read


def late_starts(data: RunData) -> list[Finding]:
    """A synchronised point where a host started later than the play's tolerance (sync_start.json "late")."""
    path = data.run_dir / runfolder.SYNC_START
    try:
        entries = json.loads(path.read_text()) if path.is_file() and path.stat().st_size <= _SYNC_LOG_MAX else []
    except (OSError, ValueError):
        return []
    out = []
    for e in entries if isinstance(entries, list) else []:
        late = [h for h in e.get("late") or [] if isinstance(h, str)] if isinstance(e, dict) else []
        if not late:
            continue
        hosts = e.get("hosts") if isinstance(e.get("hosts"), dict) else {}
        worst = max((_num(h.get("start_ms")) for n, h in hosts.items() if n in late and isinstance(h, dict)),
                    default=0.0)
        rerun = bool(e.get("rerun"))
        out.append(Finding(
            "late_sync_start", Severity.NOTE if rerun else Severity.WARNING, "Synchronised start was late",
            play_name(_sync_play(e), data.play_names()), ", ".join(late), str(e.get("title", "")),
            str(e.get("name", "")),
            f"{', '.join(late)} started {worst:.1f} ms after the common start time, later than the tolerance of "
            f"{fmt(_num(e.get('tolerance_ms')))} ms: for that time the hosts did not run together"
            + ("; the point was run again and its figures are the second run's" if rerun else ""),
            (("latest start after the start time", f"{worst:.1f} ms"), ("re-run", "yes" if rerun else "no"))))
    return out


def _sync_play(e: Any) -> int | None:
    """The play of a sync_start.json entry; an entry from before it said (no "play") has it in its step path."""
    play = e.get("play")
    return play if isinstance(play, int) else legacy_place(str(e.get("step", "")))[0]


def _num(value: object) -> float:
    """A number of a record file (input): 0 when it is none."""
    try:
        return float(value) if isinstance(value, int | float | str) else 0.0
    except ValueError:
        return 0.0


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


# -- reproduction verdicts ---------------------------------------------------------------------------------

class Verdict(enum.Enum):
    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not reproduced"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    source: str
    play: str
    metric: str
    expected: float
    tolerance_pct: float
    measured: float | None
    diff_pct: float | None
    unit: str
    point: str
    verdict: Verdict
    reason: str


def verdict_for(claim: Claim, all_series: Sequence[Series], simulated: bool = False) -> ClaimVerdict:
    values = play_value(all_series, claim.play, claim.metric)

    def result(v: Verdict, reason: str, pv: PlayValue | None = None) -> ClaimVerdict:
        if pv is None:
            return ClaimVerdict(claim.source, claim.play, claim.metric, claim.expected, claim.tolerance_pct,
                                None, None, "", "", v, reason)
        diff = (pv.value - claim.expected) / abs(claim.expected) * 100 if claim.expected else None
        return ClaimVerdict(claim.source, claim.play, claim.metric, claim.expected, claim.tolerance_pct,
                            pv.value, diff, pv.unit, pv.point, v, reason)

    if not values:
        return result(Verdict.INCONCLUSIVE, f"play '{claim.play}' has no measured {claim.metric}")
    if len(values) > 1 and max(v.value for v in values) - min(v.value for v in values) > 1e-9 * abs(values[0].value):
        keys = ", ".join(sorted(v.key for v in values)[:4])
        return result(Verdict.INCONCLUSIVE, f"{len(values)} series match; name one with its labels: {keys}")
    pv = values[0]
    lo_band = claim.expected * (1 - claim.tolerance_pct / 100)
    hi_band = claim.expected * (1 + claim.tolerance_pct / 100)
    if simulated or pv.simulated:
        return result(Verdict.INCONCLUSIVE, "the run was simulated: stand-in numbers reproduce nothing", pv)
    if lo_band <= pv.value <= hi_band:
        return result(Verdict.REPRODUCED, f"within ±{claim.tolerance_pct:g}% of {fmt(claim.expected)}", pv)
    if pv.low <= hi_band and pv.high >= lo_band:
        return result(Verdict.INCONCLUSIVE, f"the median is outside ±{claim.tolerance_pct:g}% but the repeats "
                      f"({fmt(pv.low)} to {fmt(pv.high)}) reach into it: more repeats needed", pv)
    return result(Verdict.NOT_REPRODUCED, f"outside ±{claim.tolerance_pct:g}% of {fmt(claim.expected)}", pv)


def verdicts(claims: Sequence[Claim], all_series: Sequence[Series], simulated: bool = False) -> list[ClaimVerdict]:
    return [verdict_for(c, all_series, simulated) for c in claims]


# -- steady state: every point judged from its series (planner.results.point_series, docs/series.md) --------

TREND_PCT = 20.0  # a best-fit rise or fall across the whole run beyond this, without a steady_state: spec
SERIES_WORDS = {"fio.iops": "IOPS", "fio.bw_mbs": "bandwidth", "fio.clat_ms": "completion latency",
                "iostat.iops": "device IOPS (iostat)"}


def steady_words(p: PointSeries) -> tuple[str, Steadiness] | None:
    """How the point's headline series moved, as a reader says it, and the verdict; None without a series."""
    s, v = p.headline, p.steadiness()
    if s is None or v is None:
        return None
    what = SERIES_WORDS.get(s.metric, display_name(s.metric))
    if abs(v.trend_pct) < 0.5:  # "fell 0%" reads as a fall
        return f"{what} held level over the run", v
    moved = "fell" if v.trend_pct < 0 else "rose"
    return f"{what} {moved} {abs(v.trend_pct):.0f}% over the run", v


def not_steady(points: Sequence[PointSeries], trend_pct: float = TREND_PCT) -> list[Finding]:
    """A finding for every measured point whose series did not settle: with a steady_state: spec, no window
    met it; without one, the whole run's best-fit line rose or fell by more than ``trend_pct``."""
    out: list[Finding] = []
    for p in points:
        said = None if p.warmup or p.too_short() else steady_words(p)
        if said is None:
            continue
        words, v = said
        if (v.reached if p.spec else abs(v.trend_pct) <= trend_pct):
            continue
        spec = p.spec
        why = (f"no {v.window_s:g}s window stayed within ±{spec.max_range_pct:g}% and a slope of "
               f"{spec.max_slope_pct:g}%" if spec else f"more than {trend_pct:g}% is a trend, not noise")
        out.append(Finding("not_steady", Severity.WARNING, "not in steady state", p.play, p.host, p.title,
                           p.point_label, f"{words} — not steady ({why}); the point's average mixes two states",
                           (("trend over the run", f"{v.trend_pct:+.0f}%"),
                            ("range in the last window", f"±{v.range_pct:.0f}%"),
                            ("slope in the last window", f"{v.slope_pct:+.0f}%"),
                            ("measured", f"{v.run_s:g}s"))))
    return out
