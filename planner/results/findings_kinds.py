"""The OLTP kinds' findings (HammerDB, Swingbench) that have not moved into their kinds' folders yet."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from planner import kindspec
from planner.metrics import display_name
from planner.results.finding import DEFAULT_THRESHOLDS, Finding, Severity, Thresholds
from planner.results.finding import index as _index
from planner.results.finding import where as _where
from planner.results.stats import Series

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
