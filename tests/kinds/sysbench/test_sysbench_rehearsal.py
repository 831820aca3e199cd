"""The shipped sysbench study rehearses for real (issue 44): a real PostgreSQL started for the rehearsal, Debian's
real sysbench over real sshd, the tables prepared once for the three thread counts, TPS per thread count and each
point's --report-interval series in the run, the report saying sysbench was real, and the server gone after."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.postgres import server_bin
from planner.timeseries import read

ROOT = Path(__file__).resolve().parents[3]


def _rehearsal_servers(root: str) -> list[str]:
    """postgres processes serving a data folder under this rehearsal's root (others' rehearsals may be running on
    the machine: /proc shows them all)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "postgres" in text and f"{root}/" in text:
            found.append(text)
    return found


@pytest.mark.slow
def test_the_sysbench_study_rehearses_against_a_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if server_bin() is None or shutil.which("sysbench") is None:
        pytest.skip("no PostgreSQL server programs or sysbench here")
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    (tmp_path / "plans").mkdir()
    shutil.copy(ROOT / "plans" / "sysbench_pg_threads.yaml", tmp_path / "plans")
    monkeypatch.chdir(tmp_path)
    code = main(["apply", "--rehearse", "plans/sysbench_pg_threads.yaml", "--runs-dir", str(tmp_path / "runs")])
    out = "".join(capsys.readouterr())
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
    assert _rehearsal_servers(root.group(1)) == []
