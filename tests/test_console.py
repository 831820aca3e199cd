"""Ansible-style result lines (planner/engine/console.py)."""

from __future__ import annotations

import io

from planner.engine.console import Console
from planner.status import Status, StepResult


def _line(r: StepResult) -> str:
    out = io.StringIO()
    Console(out, colour=False).result(r)
    return out.getvalue().strip()


def test_a_point_line_names_its_sweep_values_or_only_its_number() -> None:
    swept = StepResult("plays[0].workloads[0]", "slob", "exa", Status.CHANGED, point=2,
                       params=(("readers", 256),), repeat=0)
    assert _line(swept) == "changed: [exa] (point 2: readers=256, repeat 1)"
    plain = StepResult("plays[1].workloads[0]", "slob", "oel57", Status.CHANGED, point=0, repeat=2)
    assert _line(plain) == "changed: [oel57] (point 0, repeat 3)"
    warm = StepResult("plays[1].workloads[0]", "slob", "oel57", Status.OK, point=0, warmup=True)
    assert _line(warm) == "ok: [oel57] (point 0, warmup 1)"
