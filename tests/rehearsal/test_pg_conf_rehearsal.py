"""The shipped shared_buffers study rehearses for real (issue 44): pg_conf sets shared_buffers with ALTER SYSTEM on
the real PostgreSQL the rehearsal starts and restarts it once per play, pgbench runs against each size, and each
play's restore puts postgresql.auto.conf back and restarts it once more."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from pg_rehearsal import processes_naming, rehearse_shipped

from planner.rehearsal.postgres import server_bin


@pytest.mark.slow
def test_the_shared_buffers_study_rehearses_with_real_restarts(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if server_bin() is None or shutil.which("pgbench") is None:
        pytest.skip("no PostgreSQL server programs or pgbench here")
    # run_seconds=1: the rehearsal caps a point at 3 s anyway; the plan's other values are as shipped
    code, out = rehearse_shipped("pgbench_shared_buffers", tmp_path, monkeypatch, capsys, "-e", "run_seconds=1")
    assert code == 0, out[-3000:]
    assert "pglab: pg_conf sets shared_buffers with ALTER SYSTEM; one the server reads only at start" in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = json.loads((run / "results.json").read_text())
    by_step: dict[str, list[dict[str, object]]] = {}
    for r in results:
        by_step.setdefault(str(r["step"]), []).append(r)
    # 128MB is the server's default: nothing to set, no restart; 1GB and 4GB: set, one restart, put back, one more
    assert [r["msg"] for r in by_step["plays[0].prep[0]"]] == ["parameters already set",
                                                                "parameters already as they were"]
    assert "plays[0].prep.restart" not in by_step
    for play in (1, 2):
        prep, again = by_step[f"plays[{play}].prep[0]"], by_step[f"plays[{play}].prep.restart"]
        assert "set shared_buffers with ALTER SYSTEM" in str(prep[0]["msg"])
        assert "postgresql.auto.conf put back for shared_buffers" in str(prep[1]["msg"])
        assert len(again) == 2 and all("pg_ctl -D " in str(r["msg"]) for r in again)
        assert all(r["status"] == "changed" for r in prep + again)
    tps = [m["value"] for r in results if str(r["step"]).endswith("workloads[0]")
           for m in r["data"]["metrics"] if m["name"] == "pgbench.tps"]
    assert len(tps) == 6 and min(tps) > 0  # 3 sizes x 2 client counts
    report = (run / "report.md").read_text()
    assert "| shared_buffers 128MB (the default) | shared_buffers 1GB | shared_buffers 4GB" in report
    assert "| pg_conf | changed | set shared_buffers with ALTER SYSTEM" in report
    base = re.search(r"sandboxes under (\S+)", out)
    assert base and processes_naming(base.group(1)) == []  # the rehearsal's server is gone
