"""The OLTP stand-ins' CPU model (issue 43): an unsaturated Swingbench run is not "more sessions than CPUs" in
the AWR around it. Users think and wait in their client; only the time in the database is DB time."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import parse_file
from tests.kinds.swingbench.test_wl_swingbench import apply, project


@pytest.mark.slow
def test_32_users_on_16_cpus_are_not_32_active_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_CPUS", "16")
    monkeypatch.setenv("PLANNER_STANDIN_MAX_IOPS", "120000")  # the Violin's 8 LUNs: the device is not the limit
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("users: [2, 8]", "users: 32") + "    collect: [awr]\n")
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    awr = parse_file(next(run.rglob("awr*.txt")), "awr_text")
    aas, cpu = awr.value("db_time_per_s") or 0, awr.value("db_cpu_per_s") or 0
    assert 0 < cpu <= aas < 16  # was 32.0: every connected user counted active, the stand-in's CPU 13 x the AWR's
    assert awr.value("cpus") == 16
