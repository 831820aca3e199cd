"""Findings over the measured series: results that are not what they claim to be (storage, wait classes, CPU,
noisy repeats, rated figures, RAC) and ``all_findings``, every series-only family at once.

Every check is a pure function over ``Series`` (measurements grouped over repeats, planner.results.stats) and
returns ``Finding``s that carry the numbers that triggered them. The traps come from the seed studies'
comment threads: cached reads ("your buffer cache is 5 GB"), the flashback wait (47.5% of DB time in
"flashback buf free by RVWR"), CPU-bound hosts ("my cores max out at 20k IOPS"), noisy repeats, the
datasheet argument ("an X2-8 is rated at 1.5M IOPS, your test is wrong") and RAC reads read as IOPS.
The workload kinds' own checks are in their folders (planner/kinds/<kind>/findings.py), the database's in
findings_db, those that read the run folder beyond its series in findings_run; planner.results.evaluate runs
them all for a run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from planner import kindspec
from planner.metrics import Direction, display_name
from planner.results.finding import DEFAULT_THRESHOLDS, About, Finding, Severity, Thresholds, shared_index
from planner.results.finding import index as _index
from planner.results.finding import where as _where
from planner.results.findings_db import db_findings, storage_series
from planner.results.kind_findings import series_findings as kinds_series_findings
from planner.results.stats import Series, fmt, play_value

__all__ = ["Finding", "Severity", "Thresholds", "all_findings"]


def cached_reads(all_series: Sequence[Series], working_set_mb: Mapping[str, float] | None = None,
                 t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
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


def wait_class_share(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
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


# In a rehearsal the busy CPU is not the lab host's: the OS samplers ran on the rehearsing machine (shared, a
# few cores), AWR's host CPU is the stand-in's model. Said as a note on that machine, never the run's warning.
_REHEARSAL_CPU = {"AWR Host CPU busy %": "the stand-in's model of the host, not a measurement",
                  "OS CPU busy %": "the rehearsing machine's own CPUs, which the rehearsal's every process shares"}


def cpu_bound(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS,
              rehearsal: bool = False) -> list[Finding]:
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        busy: tuple[str, float] | None = None
        if (idle := ms.get("host_cpu.idle_pct")) is not None:
            busy = ("AWR Host CPU busy %", 100 - idle.summary.median)
        elif (os_busy := ms.get("os.cpu_busy_pct")) is not None:
            busy = ("OS CPU busy %", os_busy.summary.median)
        numbers = ((busy[0], f"{busy[1]:.1f}"), ("threshold %", f"{t.cpu_busy_pct:g}")) if busy else ()
        if busy and busy[1] >= t.cpu_busy_pct and rehearsal:
            out.append(Finding(
                "cpu_bound", Severity.NOTE, "CPU busy in the rehearsal", *where,
                f"CPU was {busy[1]:.1f}% busy, but this is {_REHEARSAL_CPU[busy[0]]}: it says nothing of whether "
                "the lab host's CPU or its storage limits the result", numbers, About.REHEARSAL))
        elif busy and busy[1] >= t.cpu_busy_pct:
            out.append(Finding(
                "cpu_bound", Severity.WARNING, "CPU-bound run", *where,
                f"host CPU was {busy[1]:.1f}% busy: the hosts' CPUs, not the storage, limited the result", numbers))
        per_core = ms.get("read_iops_per_core")
        if per_core and per_core.summary.median >= t.iops_per_core:
            v = per_core.summary.median
            out.append(Finding(
                "cpu_bound", Severity.WARNING, "Read IOPS per core at the CPU ceiling", *where,
                f"{fmt(v)} read IOPS per core is near the 20-30k per core that SLOB-style reads reach "
                "before the CPU saturates: more storage will not show without more cores",
                (("read IOPS/core", fmt(v)), ("threshold", fmt(t.iops_per_core)))))
    return out


def noisy_repeats(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
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
                t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
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


def blocks_not_requests(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS) -> list[Finding]:
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


# -- OLTP (the transactional kinds): what a user checks before believing their throughput -------------------

# The throughput each OLTP kind leads with, and the users it was driven by: the scaling check reads these by
# name (each kind's spec says them, planner.kindspec.Oltp).
OLTP_THROUGHPUT = tuple(o.throughput for o in kindspec.oltp().values())
OLTP_USERS = tuple(o.users for o in kindspec.oltp().values())
OLTP_KINDS = frozenset(kindspec.oltp())
SCALING_GAIN_PCT = 10.0  # more virtual users that add less than this are "not scaling"


def _value(ms: Mapping[str, Series], key: str) -> float | None:
    s = ms.get(key)
    return s.summary.median if s is not None and s.values else None


def _busy(ms: Mapping[str, Series]) -> float | None:
    if (idle := _value(ms, "host_cpu.idle_pct")) is not None:
        return 100 - idle
    return _value(ms, "os.cpu_busy_pct")


def _one_core_source(kind: str) -> str:
    """The kind's own documentation on a user's cost, as the scaling check cites it (its spec's Oltp)."""
    oltp = kindspec.oltp().get(kind)
    return f" ({oltp.one_core_source})" if oltp is not None and oltp.one_core_source else ""


def oltp_not_scaling(all_series: Sequence[Series], t: Thresholds = DEFAULT_THRESHOLDS,
                     rehearsal: bool = False) -> list[Finding]:
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
                    f"{display_name(b.metric)} {_moved(gain)} from {u0:.0f} to {u1:.0f} virtual users with the "
                    f"CPU {busy:.1f}% busy: each virtual user drives about one core{_one_core_source(b.kind)}, so "
                    "more users measure the CPU, not the storage"
                    + (" (in this rehearsal, the rehearsing machine's CPU or the stand-in's model, not the lab "
                       "host's)" if rehearsal else ""),
                    (("gain %", f"{gain:.1f}"), ("CPU busy %", f"{busy:.1f}")),
                    About.REHEARSAL if rehearsal else About.STUDY))
    return out


def _moved(gain: float) -> str:
    """A change in words: "fell 30.3%", never "rose -30.3%"."""
    return f"rose {gain:.1f}%" if gain > 0 else f"fell {-gain:.1f}%" if gain < 0 else "did not change"


def _step_wide(s: Series) -> tuple[str, str, str, str]:
    """Where a finding about every point of a step is: its step, no point (it was said as the first point's)."""
    play, host, title, _point = _where(s)
    return play, host, title, "—"


def _awr_cpu(s: Series, awr: set[tuple[str, str, str]]) -> str:
    return " and the AWR's host CPU" if (s.play, s.host, s.title) in awr else ""


def generator_on_db_host(all_series: Sequence[Series],
                         elsewhere: Mapping[tuple[str, str], str] | None = None) -> list[Finding]:
    """The caveat every OLTP sweep whose kind names its load generator carries, once per step and host:
    planner runs the generator on the step's host, the database's, so its users' CPU is the database's.
    ``elsewhere``: (host, step) -> the client host the generator ran on (load_generator_host): no caveat, and
    the report names that host."""
    out: list[Finding] = []
    seen: set[tuple[str, str, str]] = set()
    # the AWR's host CPU is named only where the step has one (PostgreSQL, or Oracle without AWR, has none)
    awr = {(s.play, s.host, s.title) for s in all_series if s.metric == "host_cpu.idle_pct"}
    for s in all_series:
        oltp = kindspec.oltp().get(s.kind)
        if oltp is None or not oltp.generator or s.metric != oltp.throughput or not s.values:
            continue
        if (s.play, s.host, s.title) in seen:
            continue
        seen.add((s.play, s.host, s.title))
        said = f" ({oltp.generator_source})" if oltp.generator_source else ""
        if client := (elsewhere or {}).get((s.host, s.step)):
            out.append(Finding(
                "generator_on_client", Severity.NOTE, "The load generator ran on its own host", *_step_wide(s),
                f"{oltp.generator} ran on {client}, not on {s.host}, the database's host (load_generator_host): "
                f"the CPU figures{_awr_cpu(s, awr)} describe the database alone",
                (("load generator", oltp.generator), ("host", client))))
            continue
        out.append(Finding(
            "generator_on_db_host", Severity.NOTE, "The load generator ran on the database host", *_step_wide(s),
            f"{oltp.generator} ran on {s.host}, the database's host, at every point: its users' threads take CPU "
            f"the database would otherwise have, so {display_name(s.metric)} and the CPU figures{_awr_cpu(s, awr)} "
            f"describe the database and its load generator together; a separate load generation host is "
            f"the usual set-up{said}",
            (("load generator", oltp.generator), ("host", s.host))))
    return out


def all_findings(all_series: Sequence[Series], rated: Mapping[str, Mapping[str, float]] | None = None,
                 working_set_mb: Mapping[str, float] | None = None,
                 t: Thresholds = DEFAULT_THRESHOLDS, elsewhere: Mapping[tuple[str, str], str] | None = None,
                 rehearsal: bool = False) -> list[Finding]:
    """``rehearsal``: the run was rehearsed (meta simulated), so a busy CPU is the rehearsing machine's or the
    stand-in's model, said as such (cpu_bound, oltp_not_scaling)."""
    # an OLTP workload runs from the cache by design: "served from cache" is a trap for I/O tests (SLOB) only
    storage = storage_series(all_series)  # a CPU and memory test: no storage finding judges it
    io_tests = [s for s in storage if s.kind not in OLTP_KINDS]
    with shared_index():
        return [*cached_reads(io_tests, working_set_mb, t), *wait_class_share(all_series, t),
                *cpu_bound(storage, t, rehearsal), *noisy_repeats(all_series, t), *below_rated(storage, rated or {}, t),
                *rac_not_iops(storage), *blocks_not_requests(storage, t),
                *oltp_not_scaling(all_series, t, rehearsal), *generator_on_db_host(all_series, elsewhere),
                *db_findings(all_series), *kinds_series_findings(all_series)]
