"""What a DBA checks in a HammerDB TPROC-C sweep before believing its NOPM: the schema's warehouses against the
virtual users, NOPM above TPM (impossible), virtual users that failed, a timed window shorter than HammerDB's own
default.

The scaling check every transactional kind shares (throughput flat on a saturated CPU) stays generic in
planner.results.findings, reading the metrics this kind's spec names (``Oltp``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from planner.results.finding import Finding, Severity
from planner.results.finding import index as _index
from planner.results.stats import Series

TIMED_DEFAULT_MIN = 5.0  # HammerDB's timed driver default test duration (dict ``duration = 5``)


def _value(ms: Mapping[str, Series], key: str) -> float | None:
    s = ms.get(key)
    return s.summary.median if s is not None and s.values else None


def setup(all_series: Sequence[Series]) -> list[Finding]:
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
        if (minutes := _value(ms, "hammerdb.duration_min")) is not None and minutes < TIMED_DEFAULT_MIN:
            out.append(Finding(
                "short_timed_test", Severity.NOTE, "Timed test shorter than HammerDB's default", *where,
                f"the timed window was {minutes:g} min, under the {TIMED_DEFAULT_MIN:g} min of HammerDB's own timed "
                "driver default (Driver Script Options, hammerdb.com/docs/ch04s05.html): a checkpoint or a log "
                "switch weighs more in a short window",
                (("timed minutes", f"{minutes:g}"), ("default", f"{TIMED_DEFAULT_MIN:g}"))))
    return out
