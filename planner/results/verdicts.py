"""Reproduction verdicts: a plan's ``reproduces:`` claims held against the measured series."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from planner.plan.model import Claim
from planner.results.stats import PlayValue, Series, fmt, play_value


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
