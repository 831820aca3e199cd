"""The slob step over the stand-in kit: sweeps, kit versions, slob.conf restored, errors, parse failures."""

from __future__ import annotations

import json
import statistics
import textwrap
from pathlib import Path

import pytest
from slob_helpers import KIT, PLAN, apply, physical_reads, project

from planner.cli.main import main
from planner.errors import StepError
from planner.kinds.slob.kit import KitVersion, conf_value, detect_version, render_conf
from planner.kinds.slob.standin import install_slob_kit
from planner.kinds.slob.step import Slob
from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.results.runfolder import result_from_json


@pytest.mark.slow
def test_sweep_gives_six_points_whose_physical_reads_rise_with_readers(tmp_path: Path) -> None:
    root = project(tmp_path)
    original = (root / KIT.lstrip("/") / "slob.conf").read_text()
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert [r["point"] for r in results] == [0, 1, 2, 3, 4, 5]
    assert [r["params"]["readers"] for r in results] == [1, 1, 2, 2, 4, 4]
    assert all(r["status"] == "changed" for r in results)
    kinds = {a["kind"] for a in results[0]["artifacts"]}
    assert {"awr_text", "awr_html", "iostat", "vmstat", "mpstat"} <= kinds
    by_readers = {n: statistics.fmean(physical_reads(run, r) for r in results if r["params"]["readers"] == n)
                  for n in (1, 2, 4)}
    assert by_readers[1] < by_readers[2] < by_readers[4]
    html = physical_reads(run, results[4], "awr_html")
    assert html == pytest.approx(physical_reads(run, results[4]))
    assert result_from_json(results[0]).metrics and results[0]["data"]["sessions"] == 1
    # the kit's slob.conf is back as it was, and the planner's copy of it is gone
    kit = root / KIT.lstrip("/")
    assert (kit / "slob.conf").read_text() == original
    assert not (kit / "slob.conf.planner-orig").exists()
    # the conf used for the point was kept: UPDATE_PCT follows readers/writers, RUN_TIME the step
    used = (run / next(a["path"] for a in results[2]["artifacts"] if a["path"].endswith("slob.conf"))).read_text()
    assert conf_value(used, "UPDATE_PCT") == "0" and conf_value(used, "RUN_TIME") == "30"
    assert "awr.txt" in "".join(a["path"] for a in results[5]["artifacts"])
    # setup.sh ran only when a point needed more schemas than loaded (1, 2, 4), never again for a repeat
    commands = [json.loads(line)["command"] for line in (run / "commands.jsonl").read_text().splitlines()]
    setups = [c for c in commands if "./setup.sh" in c]
    assert len(setups) == 3 and "IOPS 4" in setups[-1]


@pytest.mark.slow
def test_statspack_is_collected_when_the_kit_says_so(tmp_path: Path) -> None:
    project(tmp_path, readers="2", repeat=1, extra=", writers: 1")
    code, run, results = apply(tmp_path)
    assert code == 0, results[0]["msg"]
    kinds = {a["kind"] for a in results[0]["artifacts"]}
    assert "statspack" in kinds and "awr_text" not in kinds
    assert results[0]["data"]["update_pct"] == 33 and results[0]["data"]["statistics"] == "statspack"
    assert physical_reads(run, results[0], "statspack") > 0


@pytest.mark.slow
def test_kit_errors_fail_the_point_and_keep_the_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path, readers="1", repeat=1)
    monkeypatch.setenv("PLANNER_STANDIN_FAIL", "ora")
    code, run, results = apply(tmp_path)
    assert code == 2
    assert results[0]["status"] == "failed" and "ORA-01653" in results[0]["msg"]
    assert any(a["path"].endswith("slob_debug.out") for a in results[0]["artifacts"])


@pytest.mark.slow
def test_setup_missing_is_reported_from_the_kit(tmp_path: Path) -> None:
    project(tmp_path, readers="1", repeat=1)
    plan = (tmp_path / "plan.yaml").read_text().replace("setup: true", "setup: false")
    (tmp_path / "plan.yaml").write_text(plan)
    code, _run, results = apply(tmp_path)
    assert code == 2 and "ORA-01017" in results[0]["msg"]


@pytest.mark.slow
def test_a_malformed_report_fails_the_point_with_the_parser_named(tmp_path: Path) -> None:
    root = project(tmp_path, readers="1", repeat=1)
    kit = root / KIT.lstrip("/")
    (kit / "runit.sh").write_text("#!/bin/sh\n# -s <schemas> -t <threads>\n"
                                  "printf 'WORKLOAD REPOSITORY report for\\n\\nnothing else\\n' > awr.txt\n")
    code, run, results = apply(tmp_path)
    assert code == 2
    assert "awr_text parser" in results[0]["msg"]
    kept = next(a for a in results[0]["artifacts"] if a["kind"] == "awr_text")
    assert (run / kept["path"]).read_text().startswith("WORKLOAD REPOSITORY")


def test_version_detection_heuristics() -> None:
    assert detect_version("runit", None) is KitVersion.SLOB1
    assert detect_version("sh runit", "#### SLOB 2.5.4.0 slob.conf\nUPDATE_PCT=0\n") is KitVersion.SLOB24
    assert detect_version("while getopts s:t: opt", "UPDATE_PCT=0\n") is KitVersion.SLOB24
    assert detect_version("echo usage: runit.sh <n>", "UPDATE_PCT=0\n") is KitVersion.SLOB2
    assert detect_version("x", "UPDATE_PCT=0\n", notes="SLOB 2.4.2 README") is KitVersion.SLOB24


def test_readers_and_writers_map_onto_each_version() -> None:
    step = Slob({"kit": KIT, "readers": 3, "writers": 1})
    assert step.command(KitVersion.SLOB1)[0] == ["sh", "./runit.sh", "1", "3"]
    assert step.command(KitVersion.SLOB2) == (["sh", "./runit.sh", "4"], 4, 25)
    threaded = Slob({"kit": KIT, "readers": 4, "threads_per_schema": 8})
    assert threaded.command(KitVersion.SLOB24) == (["sh", "./runit.sh", "-s", "4", "-t", "8"], 32, 0)
    with pytest.raises(StepError, match="0-50 or 100"):
        Slob({"kit": KIT, "readers": 1, "writers": 2}).command(KitVersion.SLOB2)
    assert Slob({"kit": KIT, "writers": 2, "update_pct": 100}).command(KitVersion.SLOB2)[2] == 100
    with pytest.raises(StepError, match="2.4"):
        threaded.command(KitVersion.SLOB2)


def test_render_conf_replaces_keys_and_keeps_the_rest() -> None:
    original = textwrap.dedent("""\
        #### SLOB 2.5 slob.conf
        UPDATE_PCT=25
        RUN_TIME=300   # seconds
        SQLNET_SERVICE_BASE=""
        """)
    out = render_conf(original, {"UPDATE_PCT": "0", "REDO_STRESS": "HEAVY", "SCALE": "80M"})
    assert conf_value(out, "UPDATE_PCT") == "0" and conf_value(out, "RUN_TIME") == "300"
    assert conf_value(out, "REDO_STRESS") == "HEAVY" and out.startswith("#### SLOB 2.5")
    assert 'SQLNET_SERVICE_BASE=""' in out
    assert render_conf("A=1\n", {"A": "x; rm -rf /"}).startswith("A='x; rm -rf /'")


@pytest.mark.slow
@pytest.mark.ssh
def test_sweep_over_the_ssh_lab(lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    host = lab.hosts[0]
    root = Path(host.vars["planner_root"])
    kit = f"/home/oracle/SLOB-{tmp_path.name}"  # the lab is shared: a kit of our own
    install_standins(root)
    install_slob_kit(root / kit.lstrip("/"))
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    plan = PLAN.format(kit=kit, readers="[1, 2, 4]", repeat=2, extra=", database_statistics_type: awr")
    plan = plan.replace("plays:", f"vars: {{oracle_home: {DEFAULT_HOME}, oracle_sid: orcl, slob_max_cache_pct: 100, "
                                         "oracle_diagnostics_pack: true}"
                                  "\nplays:")
    (tmp_path / "plan.yaml").write_text(plan.replace("hosts: lab", f"hosts: {host.name}"))
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"),
                 "--no-report"])
    run = sorted(p for p in (tmp_path / "runs").iterdir() if p.is_dir())[-1]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "slob readers"]
    assert code == 0, [r["msg"] for r in results]
    assert [r["params"]["readers"] for r in results] == [1, 1, 2, 2, 4, 4]
    reads = [physical_reads(run, r) for r in results]
    assert reads[0] < reads[2] < reads[4] and reads[1] < reads[3] < reads[5]
