"""`destructive: true` is accepted on prep steps (asm_diskgroup drops what it created) but not on collect."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.plan.loader import load_plan

PLAN = """\
plan: d
plays:
  - name: p
    hosts: localhost
    prep:
      - asm_diskgroup: {{name: SLOB, disks: /dev/mapper/lun01, redundancy: external}}
        destructive: true
    {section}
"""


def test_prep_step_may_opt_in_to_destroy(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(PLAN.format(section=""))
    plan = load_plan(f)
    assert plan.plays[0].prep[0].destructive is True


def test_collect_step_may_not(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(PLAN.format(section="collect:\n      - facts: {}\n        destructive: true"))
    with pytest.raises(InputError) as e:
        load_plan(f)
    assert "p.yaml:10:" in str(e.value) and "destructive" in str(e.value)
