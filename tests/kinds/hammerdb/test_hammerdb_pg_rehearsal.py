"""The shipped HammerDB-on-PostgreSQL study rehearses (issue 44): a real PostgreSQL started for the rehearsal, the
HammerDB stand-in (said so in the world and the report) building its schema there once and driving real
transactions at three virtual user counts, pg_stat around each point, no password on any command line or left in
a kept file, and the server gone after."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from pg_rehearsal import processes_naming, rehearse_shipped

from planner.rehearsal.postgres import server_bin


@pytest.mark.slow
def test_the_hammerdb_pg_study_rehearses_against_a_real_server(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if server_bin() is None or shutil.which("psql") is None:
        pytest.skip("no PostgreSQL server programs or psql here")
    code, out = rehearse_shipped("hammerdb_pg_vusers", tmp_path, monkeypatch, capsys)
    assert code == 0, out[-3000:]
    assert "HammerDB 4.12 (stand-ins)" in out and "a real PostgreSQL server (postgres (PostgreSQL)" in out
    assert "Oracle" not in out.split("simulated pglab:", 1)[1].split("\n", 1)[0]  # no Oracle stand-in for it
    root = re.search(r"sandboxes under (\S+/planner-rehearsal-\w+)", out)
    assert root is not None, out[-2000:]
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["step"].endswith("workloads[0]")]
    assert len(results) == 3 and all(r["status"] == "changed" for r in results)
    nopm = [m["value"] for r in results for m in r["data"]["metrics"] if m["name"] == "hammerdb.nopm"]
    assert len(nopm) == 3 and min(nopm) > 0
    commands = [json.loads(line)["command"] for line in (run / "commands.jsonl").read_text().splitlines()]
    assert sum(c.endswith("/build.tcl") and "hammerdbcli auto" in c for c in commands) == 1  # built once
    assert len(list(run.glob("artifacts/**/pg_stat.json"))) == 3
    kept = "".join(p.read_text(errors="replace") for p in run.rglob("*") if p.is_file())
    assert "pg_superuserpass \"********\"" in kept and "PGPASSWORD" not in kept
    report = (run / "report.md").read_text()
    assert "written by stand-ins: hammerdb x3" in report and "| 32 virtual users" in report
    # the rehearsal's own 4-warehouse cap is a note on the rehearsal, said once for the sweep, never the lead
    lead = next(line for line in report.splitlines() if line.startswith("- Most important finding"))
    # nor one read from the rehearsing machine's own CPU, whatever its title says (before: it led)
    assert lead.split("**")[1] == "The load generator ran on the database host", lead
    assert re.search(r"; [2-9] about this rehearsal, not the systems\.$", lead), lead
    study, about = report.split("## Findings", 1)[1].split("About this rehearsal (not the systems):", 1)
    about = about.split("\n## ", 1)[0]
    assert about.count("More virtual users than the rehearsal's warehouses** —") == 1, report
    # the machine's load decides whether these fire; wherever they do, they are about the rehearsal
    for title in ("Throughput stopped scaling on a saturated CPU", "CPU busy in the rehearsal"):
        assert title not in study and (title in about or title not in report), report
    assert "More virtual users than warehouses" not in report
    assert processes_naming("postgres", f"{root.group(1)}/") == []  # others' rehearsals may be running
