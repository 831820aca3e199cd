"""The shipped sysbench study rehearses for real (issue 44): a real PostgreSQL started for the rehearsal, Debian's
real sysbench over real sshd, the tables prepared once for the three thread counts, TPS per thread count and each
point's --report-interval series in the run, the report saying sysbench was real, and the server gone after."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from pg_rehearsal import processes_naming, rehearse_shipped

from planner.rehearsal.postgres import server_bin
from planner.timeseries import read


@pytest.mark.slow
def test_the_sysbench_study_rehearses_against_a_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if server_bin() is None or shutil.which("sysbench") is None:
        pytest.skip("no PostgreSQL server programs or sysbench here")
    code, out = rehearse_shipped("sysbench_pg_threads", tmp_path, monkeypatch, capsys)
    assert code == 0, out[-3000:]
    assert "a real PostgreSQL server (postgres (PostgreSQL)" in out
    root = re.search(r"sandboxes under (\S+/planner-rehearsal-\w+)", out)
    assert root is not None, out[-2000:]
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["step"].endswith("workloads[0]")]
    assert len(results) == 3 and all(r["status"] == "changed" for r in results)
    tps = [m["value"] for r in results for m in r["data"]["metrics"] if m["name"] == "sysbench.tps"]
    assert len(tps) == 3 and min(tps) > 0
    commands = [json.loads(line)["command"] for line in (run / "commands.jsonl").read_text().splitlines()]
    assert sum("sysbench oltp_read_write" in c and c.endswith(" prepare") for c in commands) == 1
    assert not any("--pgsql-password" in c for c in commands)
    series = sorted(run.glob("artifacts/**/point*/series.json"))
    assert len(series) == 3 and all("sysbench.tps" in {s.metric for s in read(p)} for p in series)
    report = (run / "report.md").read_text()
    assert "a real PostgreSQL server" in report and "measured for real" in report and "sysbench x3" in report
    assert "stand-ins" not in report  # every tool of this study ran for real
    for threads in ("1 sysbench threads", "4 sysbench threads", "16 sysbench threads"):
        assert f"| {threads}" in report
    assert processes_naming("postgres", f"{root.group(1)}/") == []  # others' rehearsals may be running
