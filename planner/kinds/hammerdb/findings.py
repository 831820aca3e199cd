"""What a DBA checks in a HammerDB TPROC-C sweep before believing its NOPM: the schema's warehouses against the
virtual users, NOPM above TPM (impossible), virtual users that failed, a timed window shorter than HammerDB's own
default.

The scaling check every transactional kind shares (throughput flat on a saturated CPU) stays generic in
planner.results.findings, reading the metrics this kind's spec names (``Oltp``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from planner.results.finding import About, Finding, Severity
from planner.results.finding import index as _index
from planner.results.measure import Measurement, RunData
from planner.results.stats import Series

TIMED_DEFAULT_MIN = 5.0  # HammerDB's timed driver default test duration (dict ``duration = 5``)


def _value(ms: Mapping[str, Series], key: str) -> float | None:
    s = ms.get(key)
    return s.summary.median if s is not None and s.values else None


def setup(all_series: Sequence[Series]) -> list[Finding]:
    """NOPM above TPM, failed virtual users (more virtual users than warehouses and a timed test shorter than
    HammerDB's default: ``run_findings``, which knows the plan's and whether the run was a rehearsal)."""
    out: list[Finding] = []
    for where, ms in _index(all_series).items():
        nopm, tpm = _value(ms, "hammerdb.nopm"), _value(ms, "hammerdb.tpm")
        if nopm is not None and tpm is not None and nopm > tpm:
            out.append(Finding(
                "nopm_over_tpm", Severity.WARNING, "NOPM above TPM", *where,
                f"{nopm:,.0f} new orders a minute from {tpm:,.0f} transactions a minute: each new order is a "
                "committed transaction, so NOPM cannot exceed TPM (TPC-C leaves new orders at most about 45% of "
                "the mix): the two were not counted over the same database and window, and neither can be trusted "
                "as it stands",
                (("NOPM", f"{nopm:,.0f}"), ("TPM", f"{tpm:,.0f}"))))
        if (failed := _value(ms, "hammerdb.vu_failed")):
            out.append(Finding(
                "vu_failed", Severity.WARNING, "Virtual users failed", *where,
                f"{failed:.0f} virtual user(s) printed FINISHED FAILED: the NOPM counts only the users that stayed "
                "(HammerDB prints the error as 'Error in Virtual User N' in the log)",
                (("failed virtual users", f"{failed:.0f}"),)))
    return out


Place = tuple[str, str, str, str]  # play, host, step title, point


def run_findings(data: RunData) -> list[Finding]:
    """More virtual users than warehouses and a timed test shorter than HammerDB's default, each point against
    what it ran on and what the plan asked."""
    planned = {w.path: w.args for p in data.plan.plays for w in p.workloads} if data.plan else {}
    return [*vu_over_warehouses(data.measurements, planned, data.meta.simulated),
            *short_timed_test(data.measurements, planned, data.meta.simulated)]


def _median(values: Sequence[float]) -> float | None:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else None


def _planned(args: Mapping[str, Any], name: str) -> float | None:
    try:
        return float(args[name])
    except (KeyError, TypeError, ValueError):
        return None  # none written, or a template: what the point ran on is all there is


_METRICS = ("hammerdb.active_vu", "hammerdb.warehouses", "hammerdb.duration_min")


def _points(measurements: Sequence[Measurement]) -> dict[tuple[Place, str], dict[str, float]]:
    """Per point (and its step's path in the plan) the median of each of ``_METRICS`` it has."""
    seen: dict[tuple[Place, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.metric in _METRICS:
            seen[((m.play, m.host, m.title, m.point_label), m.step)][m.metric].append(m.value)
    return {k: {metric: v for metric, vs in ms.items() if (v := _median(vs)) is not None} for k, ms in seen.items()}


def vu_over_warehouses(measurements: Sequence[Measurement], planned: Mapping[str, Mapping[str, Any]],
                       rehearsal: bool) -> list[Finding]:
    """A point with more virtual users than its schema's warehouses: a warning, as HammerDB calls it an error in
    configuration. In a rehearsal whose schema is smaller than the plan's (the rehearsal caps a PostgreSQL build:
    hammerdb.pg.REHEARSAL_CAPS) and the plan's would have held them, the cap made it: a note on the rehearsal,
    never the run's warning: About.REHEARSAL, never the report's lead (planner.report.study)."""
    out: list[Finding] = []
    for (place, step), got in _points(measurements).items():
        users, ware = got.get("hammerdb.active_vu"), got.get("hammerdb.warehouses")
        if users is None or ware is None or users <= ware:
            continue
        asked = _planned(planned.get(step, {}), "warehouses")
        numbers = (("virtual users", f"{users:.0f}"), ("warehouses", f"{ware:.0f}"))
        if rehearsal and asked is not None and ware < asked and users <= asked:
            out.append(Finding(
                "vu_over_warehouses", Severity.NOTE, "More virtual users than the rehearsal's warehouses", *place,
                f"{users:.0f} virtual users on the {ware:.0f} warehouses the rehearsal built: a rehearsal builds a "
                f"small schema to load in seconds, the plan's holds {asked:.0f}, enough for them; a real run is "
                "checked against the schema it runs on", (*numbers, ("the plan's warehouses", f"{asked:.0f}")),
                About.REHEARSAL))
            continue
        out.append(Finding(
            "vu_over_warehouses", Severity.WARNING, "More virtual users than warehouses", *place,
            f"{users:.0f} virtual users on {ware:.0f} warehouses share home warehouses and wait on each other's "
            "locks: HammerDB's documentation calls a 10-warehouse schema run with 100 virtual users \"an error in "
            "configuration\" (How many warehouses for the TPROC-C test, hammerdb.com/docs/ch03s07.html)", numbers))
    return out


def short_timed_test(measurements: Sequence[Measurement], planned: Mapping[str, Mapping[str, Any]],
                     rehearsal: bool) -> list[Finding]:
    """A timed window shorter than HammerDB's default; in a rehearsal that cut the plan's (REHEARSAL_CAPS: 2 min)
    when the plan's was not short, a note on the rehearsal."""
    out: list[Finding] = []
    for (place, step), got in _points(measurements).items():
        minutes = got.get("hammerdb.duration_min")
        if minutes is None or minutes >= TIMED_DEFAULT_MIN:
            continue
        asked = _planned(planned.get(step, {}), "duration")
        if rehearsal and asked is not None and asked >= TIMED_DEFAULT_MIN:
            out.append(Finding(
                "short_timed_test", Severity.NOTE, "Timed test cut short in the rehearsal", *place,
                f"the timed window was {minutes:g} min: a rehearsal cuts it to run in seconds, the plan's is "
                f"{asked:g} min, not under HammerDB's own default of {TIMED_DEFAULT_MIN:g}",
                (("timed minutes", f"{minutes:g}"), ("the plan's minutes", f"{asked:g}")), About.REHEARSAL))
            continue
        out.append(Finding(
            "short_timed_test", Severity.NOTE, "Timed test shorter than HammerDB's default", *place,
            f"the timed window was {minutes:g} min, under the {TIMED_DEFAULT_MIN:g} min of HammerDB's own timed "
            "driver default (Driver Script Options, hammerdb.com/docs/ch04s05.html): a checkpoint or a log "
            "switch weighs more in a short window",
            (("timed minutes", f"{minutes:g}"), ("default", f"{TIMED_DEFAULT_MIN:g}"))))
    return out
