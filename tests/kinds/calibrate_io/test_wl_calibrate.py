"""calibrate_io through the database access layer and the sqlplus stand-in; AWR/Statspack bracketing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.errors import StepError
from planner.host import Host
from planner.kinds.calibrate_io.step import listing
from planner.parsers import parse_file
from planner.plan.model import SweepPoint
from planner.rehearsal.standins import install_standins, load_state, standin_vars, update_state
from planner.steps import dbreport
from planner.steps.base import StepContext
from planner.transport.connection import LocalConnection

PLAN = """\
plan: calibrate
plays:
  - name: calibrate
    hosts: lab
    workloads:
      - name: calibrate io
        calibrate_io: {num_physical_disks: 2, max_latency: 10}
"""


def project(tmp: Path) -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root)
    hostvars = " ".join(f"{k}={v}" for k, v in standin_vars(root).items())
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local {hostvars}\n")
    (tmp / "plan.yaml").write_text(PLAN)
    return root


def apply(tmp: Path) -> tuple[int, Path, dict]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report"])
    run = sorted(p for p in (tmp / "runs").iterdir() if p.is_dir())[-1]
    result = next(r for r in json.loads((run / "results.json").read_text()) if r["title"] == "calibrate io")
    return code, run, result


@pytest.mark.slow
def test_calibrate_io_returns_the_standins_values(tmp_path: Path) -> None:
    project(tmp_path)
    code, run, result = apply(tmp_path)
    assert code == 0, result["msg"]
    expected_iops = round(9000 * 2 * (1 - math.exp(-10 / 6.0)))
    assert result["data"]["max_iops"] == expected_iops
    assert result["data"]["max_mbps"] == round(220 * 2 * (1 - math.exp(-10 / 4.0)))
    art = next(a for a in result["artifacts"] if a["kind"] == "calibrate_io")
    parsed = parse_file(run / art["path"], "calibrate_io")
    assert parsed.value("calibrate.max_iops", form="dbms_output") == expected_iops
    assert parsed.value("calibrate.max_iops", form="dba_rsrc_io_calibrate") == expected_iops
    assert parsed.value("calibrate.num_physical_disks") == 2
    assert "PLANNER STAND-IN" in (run / art["path"]).read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "value", "needle"), [
    ("timed_statistics", "FALSE", "timed_statistics=TRUE"),
    ("disk_asynch_io", "FALSE", "disk_asynch_io"),
])
def test_prerequisites_are_checked_first(tmp_path: Path, name: str, value: str, needle: str) -> None:
    root = project(tmp_path)
    update_state(root, lambda s: s["memory"].update({name: value}))
    code, _run, result = apply(tmp_path)
    assert code == 2 and needle in result["msg"]
    assert not any("calibrate_io" in sql.lower() for sql in load_state(root)["history"])  # never started


@pytest.mark.slow
def test_datafiles_without_async_io_are_refused(tmp_path: Path) -> None:
    root = project(tmp_path)
    update_state(root, lambda s: s.update(diskgroups={}))  # datafiles on a filesystem, filesystemio_options=none
    code, _run, result = apply(tmp_path)
    assert code == 2 and "ASYNC_OFF" in result["msg"] and "SETALL" in result["msg"]


def test_listing_reads_back_through_the_parser() -> None:
    lines = listing([("30-NOV-26 08.06.21.414076 AM", "30-NOV-26 08.09.01.000000 AM", "24002", "175", "186",
                      "10", "1")])
    assert lines[0].split()[:3] == ["START_TIME", "END_TIME", "MAX_IOPS"]
    from planner.parsers import parse_text

    parsed = parse_text("\n".join(lines) + "\n", "x.txt", "calibrate_io")
    assert parsed.value("calibrate.max_mbps") == 175 and parsed.value("calibrate.latency_ms") == 10


def context(tmp: Path, root: Path) -> StepContext:
    v = standin_vars(root)
    host = Host("alpha", "localhost", connection="local", vars=v)
    run = tmp / "run-x"
    return StepContext(host=host, conn=LocalConnection(host), vars=v, step_path="plays[0].workloads[0]",
                       plan_dir=tmp, artifacts=run / "artifacts", run_dir=run, log=lambda *a: None,
                       point=SweepPoint(0, (), 0))


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "parser"), [("awr", "awr_text"), ("statspack", "statspack")])
def test_snapshots_bracket_a_point_and_the_report_parses(tmp_path: Path, kind: str, parser: str) -> None:
    root = tmp_path / "hosts" / "alpha"
    install_standins(root)
    ctx = context(tmp_path, root)
    token = dbreport.begin(ctx, kind)
    arts = dbreport.end(ctx, token, kind)
    assert len(arts) == 1 and arts[0].kind == parser
    parsed = parse_file(ctx.run_dir / arts[0].path, parser)
    assert not parsed.errors
    assert parsed.value("snap_id_begin") == token.begin_snap
    assert parsed.value("snap_id_end") == token.begin_snap + 1
    if parser == "awr_text":
        assert parsed.fact("db_name") == "ORCL"  # identity from the stand-in database's state
    assert "PLANNER STAND-IN" in (ctx.run_dir / arts[0].path).read_text()


def test_unknown_report_kind_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "hosts" / "alpha"
    install_standins(root)
    with pytest.raises(StepError, match="awr or statspack"):
        dbreport.begin(context(tmp_path, root), "ash")
