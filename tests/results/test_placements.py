"""Issue 43: the report names where a workload's data lived (the schema's placement a DBA asks first), from the
run's own plan.resolved.yaml, per play: +DATA on Exadata, +SLOB on the Violin LUNs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import cast

from planner.results.measure import RunData
from planner.results.settings import placements

RESOLVED = """\
plays:
- name: Exadata X2-8
  hosts:
    exadatax2-8:
      plays[0].workloads[1]:
        title: TPROC-C
        kind: hammerdb
        points:
        - {point: 1, params: {virtual_users: 8}, args: {tpcc_tablespace: TPCC, data_on: +DATA}}
        - {point: 2, params: {virtual_users: 16}, args: {tpcc_tablespace: TPCC, data_on: +DATA}}
- name: Violin 3000
  hosts:
    oel57:
      plays[1].workloads[1]:
        title: TPROC-C
        kind: hammerdb
        points:
        - {point: 1, params: {virtual_users: 8}, args: {tpcc_tablespace: TPCC, data_on: +SLOB}}
      plays[1].prep[0]:
        title: init_ora
        kind: init_ora
        args: {cpu_count: 16}
"""


def test_each_plays_data_on_is_read_from_the_resolved_plan(tmp_path: Path) -> None:
    (tmp_path / "plan.resolved.yaml").write_text(RESOLVED)
    got = placements(cast(RunData, SimpleNamespace(run_dir=tmp_path)))
    assert got == {("Exadata X2-8", "plays[0].workloads[1]"): "+DATA",
                   ("Violin 3000", "plays[1].workloads[1]"): "+SLOB"}


def test_a_run_without_its_resolved_plan_states_no_placement(tmp_path: Path) -> None:
    assert placements(cast(RunData, SimpleNamespace(run_dir=tmp_path))) == {}
