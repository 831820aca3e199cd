"""SOE on the storage the play prepared: oewizard -ts/-df on data_on, and each point's check of ORDERS's data files
(docs/oracle-behaviour.md 43.s2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.rehearsal.standins import load_state, update_state
from tests.kinds.swingbench.test_wl_swingbench import apply, project

ON_SOE = "          data_on: +SOE\n          build: {scale: 1}\n"


def _plan(tmp: Path, build: str) -> Path:
    root = project(tmp, build=False)
    plan = tmp / "plan.yaml"
    plan.write_text(plan.read_text() + build)
    return root


@pytest.mark.slow
def test_oewizard_puts_soe_on_data_on_and_each_point_finds_it_there(tmp_path: Path) -> None:
    root = _plan(tmp_path, ON_SOE)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert "-ts SOE -df +SOE" in (run / "commands.jsonl").read_text()
    state = load_state(root)
    assert state["segments"]["SOE.ORDERS"]["tablespace"] == "SOE"
    assert all(f.startswith("+SOE/") for f in state["tablespaces"]["SOE"]["files"])


@pytest.mark.slow
def test_a_schema_elsewhere_fails_the_point_before_charbench(tmp_path: Path) -> None:
    root = _plan(tmp_path, ON_SOE)
    update_state(root, lambda s: (s["segments"].update(
        {"SOE.ORDERS": {"tablespace": "USERS", "buffer_pool": "DEFAULT", "segment_type": "TABLE"}}),
        s.setdefault("tablespaces", {}).setdefault("USERS", {"files": ["+DATA/ORCL/DATAFILE/users.259.1"]})))
    code, run, results = apply(tmp_path)
    assert code != 0 and results
    assert all(r["status"] == "failed" and "not on +SOE" in r["msg"] and "+DATA/ORCL" in r["msg"] for r in results)
    assert "charbench -c" not in (run / "commands.jsonl").read_text()
