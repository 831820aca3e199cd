"""The SQLite results store: schema migrations, round trip, rebuild from run folders, CLI listing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.errors import InputError
from planner.results.measure import read_run
from planner.store import MIGRATIONS, rebuild, store_path, sync
from planner.store import SqliteStore as Store


def test_new_store_is_migrated_to_the_latest_version() -> None:
    with Store(":memory:") as st:
        assert st.version == len(MIGRATIONS)
        tables = {r[0] for r in st.db.execute("select name from sqlite_master where type='table'")}
        assert {"runs", "measurements"} <= tables


def test_store_newer_than_planner_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "planner.sqlite"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    con.close()
    with pytest.raises(InputError, match="newer than this planner"):
        Store(db)


def test_put_run_round_trips_measurements(tmp_path: Path) -> None:
    data = read_run(seed_study(tmp_path))
    with Store(":memory:") as st:
        st.put_run(data)
        st.put_run(data)  # idempotent: replaces, never duplicates
        row = st.run(data.run_id)
        assert row is not None and row.plan == "slob_violin_vs_exadata" and row.hosts == ("exa", "vio")
        assert row.git_commit == "0123456789abcdef" and row.git_dirty is False and row.status == "complete"
        back = st.measurements(data.run_id)
        assert back == list(data.measurements)
        warm = [m for m in back if m.warmup and m.metric == "physical_reads_per_s"]
        assert len(warm) == 2 and dict(warm[0].params) == {"readers": 16}
        only = st.measurements(data.run_id, "physical_read_iops")
        assert {m.host for m in only} == {"exa", "vio"} and all(m.unit == "IOPS" for m in only)


@pytest.mark.slow
def test_rebuild_and_sync_index_every_run_folder(tmp_path: Path) -> None:
    seed_study(tmp_path, "20260101T100000Z-a")
    seed_study(tmp_path, "20260102T100000Z-b", violin_iops=236_486.7)
    (tmp_path / "not-a-run").mkdir()
    assert rebuild(tmp_path) == 2
    with Store(store_path(tmp_path)) as st:
        assert [r.id for r in st.runs()] == ["20260101T100000Z-a", "20260102T100000Z-b"]
        assert st.runs("other plan") == []
    store_path(tmp_path).unlink()
    with sync(tmp_path) as st:
        assert len(st.runs("slob_violin_vs_exadata")) == 2


@pytest.mark.slow
def test_cli_runs_index_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path, simulated=True)
    assert main(["index", "--runs-dir", str(tmp_path)]) == 0
    assert "indexed 1 run" in capsys.readouterr().out
    assert main(["runs", "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert run.name in out and "SIMULATED" in out and "0123456+" not in out
    assert main(["export", run.name, "--runs-dir", str(tmp_path), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert any(r["metric"] == "physical_read_iops" and r["value"] == 159_183.9 for r in rows)
    assert main(["export", str(run), "--format", "csv"]) == 0
    csv_text = capsys.readouterr().out
    assert csv_text.startswith("run_id,play,host,") and "physical_read_iops" in csv_text
    assert main(["show", run.name, "--runs-dir", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    # show speaks in words, in an aligned table (the keys stay in export)
    row = next(line for line in shown.splitlines() if "Physical read IOPS" in line and "159,183.9" in line)
    assert "SIMULATED" in shown and "{basis=" not in shown and row.split()[-2:] == ["159,183.9", "1"]
    assert main(["show", "nope", "--runs-dir", str(tmp_path)]) == 5
