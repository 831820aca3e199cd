"""The shipped pgbench study rehearses for real (issue 44): a real PostgreSQL started for the rehearsal, the
host's real pgbench over real sshd, TPS and latency per client count in the report, and the server gone after."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from pg_rehearsal import processes_naming, rehearse_shipped

from planner.rehearsal.postgres import server_bin


@pytest.mark.slow
def test_the_pgbench_study_rehearses_against_a_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    if server_bin() is None or shutil.which("pgbench") is None:
        pytest.skip("no PostgreSQL server programs or pgbench here")
    code, out = rehearse_shipped("pgbench_clients", tmp_path, monkeypatch, capsys)
    assert code == 0, out[-3000:]
    assert "a real PostgreSQL server (postgres (PostgreSQL)" in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["step"].endswith("workloads[0]")]
    assert len(results) == 6 and all(r["status"] == "changed" for r in results)  # 3 points x 2 repeats
    tps = [m["value"] for r in results for m in r["data"]["metrics"] if m["name"] == "pgbench.tps"]
    assert len(tps) == 6 and min(tps) > 0
    report = (run / "report.md").read_text()
    assert "a real PostgreSQL server" in report and "measured for real" in report and "pgbench x6" in report
    assert "stand-ins" not in report  # every tool of this study ran for real
    for clients in ("1 pgbench clients", "4 pgbench clients", "16 pgbench clients"):
        assert f"| {clients}" in report
    # the rehearsal caps the scale at 1 and the run at 3 s: pgbench's own good practices say both, per point
    assert "Scale below the number of clients" in report and "16 clients ran the TPC-B-like script at scale 1" in report
    assert "Run of seconds, not minutes" in report
    # collect: [pg_stat]: each point's server side in the table beside TPS and latency, and its findings (issue 44)
    assert len(list(run.rglob("pg_stat.json"))) == 6
    assert "Shared buffer hit ratio" in report and "WAL written" in report
    assert "Data set fits in shared_buffers" in report  # scale 1 (~16 MiB) in the rehearsal server's 128 MiB
    # latency_log: percentiles from pgbench's per-transaction log, in words, per point
    assert len(list(run.rglob("pgbench_log.txn"))) == 6
    assert "99th percentile" in report, report
    root = re.search(r"sandboxes under (\S+/planner-rehearsal-\w+)", out)
    assert root, out[-2000:]
    assert processes_naming("postgres", f"{root.group(1)}/") == []  # others' rehearsals may be running
