"""The swingbench step through the engine on the stand-in Swingbench and database (planner/rehearsal/standins)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.swingbench.standin import install_home as install_swingbench
from planner.kinds.swingbench.step import Swingbench, build_budget_s, run_time_text
from planner.rehearsal.standins import install_standins, load_state, standin_vars, update_state

HOME = "/opt/swingbench"
SECRET, DBA_SECRET = "s0e-Pa55word", "Sys7em-Pa55"
PLAN = """\
plan: swingbench
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: soe
        swingbench:
          home: /opt/swingbench
          config: configs/SOE_Server_Side_V2.xml
          connect: //labhost/orcl
          users: [2, 8]
          run_time: 60
{build}"""


def headline(r: dict, name: str) -> float:
    """A headline figure of a results.json entry (its metrics are a list: docs/plugins.md)."""
    return next(m["value"] for m in r["data"]["metrics"] if m["name"] == name and not m.get("labels"))


def project(tmp: Path, build: bool = True) -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root)
    install_swingbench(root, HOME)
    hostvars = " ".join(f"{k}={v}" for k, v in standin_vars(root).items())
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local {hostvars} "
                                   f"swingbench_password={SECRET} swingbench_dba_password={DBA_SECRET}\n")
    (tmp / "plan.yaml").write_text(PLAN.format(build="          build: {scale: 1, tablespace: SOE}\n" if build else ""))
    return root


def apply(tmp: Path, *extra: str) -> tuple[int, Path, list[dict]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", *extra])
    run = sorted(p for p in (tmp / "runs").iterdir() if p.is_dir())[-1]
    return code, run, [r for r in json.loads((run / "results.json").read_text()) if "soe" in r["title"]]


@pytest.mark.slow
def test_builds_once_then_runs_each_point_and_reads_its_results(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert len(results) == 2 and all(r["status"] == "changed" for r in results)
    tps = [headline(r, "swingbench.tps") for r in results]
    assert 0 < tps[0] < tps[1]  # more users, more transactions on an unsaturated stand-in
    assert "SOE.ORDERS" in load_state(root)["segments"]
    logs = [p.name for p in run.rglob("oewizard.log")]
    assert logs == ["oewizard.log"]  # the build ran once for both points
    assert len(list(run.rglob("results.xml"))) == 2


@pytest.mark.slow
def test_passwords_never_reach_the_record(tmp_path: Path) -> None:
    project(tmp_path)
    code, run, _results = apply(tmp_path)
    assert code == 0
    commands = (run / "commands.jsonl").read_text()
    assert "charbench" in commands and "oewizard" in commands
    for f in run.rglob("*"):
        if f.is_file():
            text = f.read_text(errors="replace")
            assert SECRET not in text and DBA_SECRET not in text, f


@pytest.mark.slow
def test_a_missing_schema_without_build_fails_the_point_before_charbench(tmp_path: Path) -> None:
    project(tmp_path, build=False)
    code, run, results = apply(tmp_path)
    assert code != 0
    assert "has no ORDERS table" in results[0]["msg"] and "build:" in results[0]["msg"]
    assert "charbench -c" not in (run / "commands.jsonl").read_text()


@pytest.mark.slow
def test_an_existing_schema_is_never_rebuilt(tmp_path: Path) -> None:
    root = project(tmp_path)
    update_state(root, lambda s: s["segments"].update(
        {"SOE.ORDERS": {"tablespace": "SOE", "buffer_pool": "DEFAULT", "segment_type": "TABLE"}}))
    code, run, _results = apply(tmp_path)
    assert code == 0
    assert "oewizard" not in (run / "commands.jsonl").read_text()


@pytest.mark.slow
def test_check_diff_shows_the_command_lines_with_the_password_masked(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path)
    main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
          str(tmp_path / "runs"), "--no-report", "-C", "-D"])
    out = capsys.readouterr().out
    assert "bin/charbench -c" in out and "-uc 2" in out and "-uc 8" in out and "-rt 0:01" in out
    assert "bin/oewizard -cl -create" in out
    assert SECRET not in out and DBA_SECRET not in out


def test_run_time_as_charbench_reads_it() -> None:
    assert [run_time_text(s) for s in (60, 300, 90, 3600, 5430)] == ["0:01", "0:05", "0:01.30", "1:00", "1:30.30"]


def test_build_budget_is_its_own_and_overridable() -> None:
    assert build_budget_s({}, 0.1) == 1800.0  # at least half an hour
    assert build_budget_s({}, 1) == 3600 + 600
    assert build_budget_s({}, 10) == 10 * 3600 + 600
    assert build_budget_s({"swingbench_build_timeout_s": 42}, 10) == 42.0
    assert Swingbench.duration({"run_time": 300}).expected_s == 300


@pytest.mark.parametrize(("args", "needle"), [
    ({"home": "opt/sb"}, "absolute"),
    ({"min_think_ms": 50, "max_think_ms": 10}, "more than max_think_ms"),
])
def test_bad_arguments_are_refused(args: dict, needle: str) -> None:
    base = {"home": "/opt/sb", "config": "configs/x.xml", "connect": "//h/s", "users": 1, "run_time": 60}
    with pytest.raises(Exception, match=needle):
        Swingbench({**base, **args}).validate()


@pytest.mark.slow
def test_passwords_from_files_beside_the_plan_are_read_and_masked(tmp_path: Path) -> None:
    project(tmp_path)
    ini = tmp_path / "hosts.ini"
    ini.write_text(ini.read_text().replace(f"swingbench_password={SECRET} swingbench_dba_password={DBA_SECRET}",
                                           "swingbench_password_file=soe.pass swingbench_dba_password_file=dba.pass"))
    (tmp_path / "soe.pass").write_text(SECRET + "\n")
    (tmp_path / "dba.pass").write_text(DBA_SECRET + "\n")
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    for f in run.rglob("*"):
        if f.is_file():
            text = f.read_text(errors="replace")
            assert SECRET not in text and DBA_SECRET not in text, f


@pytest.mark.slow
def test_awr_around_a_point_shows_its_load_and_more_users_more_reads(tmp_path: Path) -> None:
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text() + "    collect: [awr]\n")
    code, run, _results = apply(tmp_path)
    assert code == 0
    from planner.parsers import parse_file

    iops = [parse_file(p, "awr_text").value("physical_reads_per_s") or 0 for p in sorted(run.rglob("awr*.txt"))]
    assert len(iops) == 2 and 0 < iops[0] < iops[1]  # not an idle database's AWR around charbench


def test_validate_names_every_bad_argument_with_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("users: [2, 8]", "users: [0, 8]").replace("run_time: 60",
                                                                                     "run_time: soon"))
    code = main(["validate", str(plan), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5
    assert f"{plan}:11:19:" in err and "users" in err
    assert f"{plan}:12:" in err and "run_time" in err


@pytest.mark.slow
def test_the_standin_console_reads_as_charbench_console(tmp_path: Path) -> None:
    import subprocess
    import sys

    from planner.parsers import parse_text

    root = tmp_path / "h"
    install_standins(root)
    home = install_swingbench(root, HOME)
    update_state(root, lambda s: s["segments"].update(
        {"SOE.ORDERS": {"tablespace": "SOE", "buffer_pool": "DEFAULT", "segment_type": "TABLE"}}))
    out = subprocess.run([sys.executable, str(home / "bin" / "charbench"), "-c", str(home / "configs" /
                          "SOE_Server_Side_V2.xml"), "-cs", "//h/s", "-u", "soe", "-p", "x", "-uc", "4", "-rt", "0:01",
                          "-a", "-r", str(tmp_path / "r.xml")], capture_output=True, text=True, check=True,
                         env={"PLANNER_STANDIN_TIME_SCALE": "0"}).stdout
    console = parse_text(out, "charbench.log")
    xml = parse_text((tmp_path / "r.xml").read_text(), "r.xml")
    assert console.kind == "swingbench_console" and xml.kind == "swingbench"
    assert console.value("swingbench.users") == xml.value("swingbench.users") == 4
    assert console.value("swingbench.console_tps", stat="max") == int(xml.value("swingbench.tps") or 0)


@pytest.mark.slow
def test_check_diff_masks_passwords_read_from_files_beside_the_plan(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # planner run from another folder: the files are found beside the plan, and masked as such in the preview
    project(tmp_path)
    ini = tmp_path / "hosts.ini"
    ini.write_text(ini.read_text().replace(f"swingbench_password={SECRET} swingbench_dba_password={DBA_SECRET}",
                                           "swingbench_password_file=soe.pass swingbench_dba_password_file=dba.pass"))
    (tmp_path / "soe.pass").write_text(SECRET + "\n")
    (tmp_path / "dba.pass").write_text(DBA_SECRET + "\n")
    assert Path.cwd() != tmp_path
    main(["apply", str(tmp_path / "plan.yaml"), "-i", str(ini), "--runs-dir", str(tmp_path / "runs"), "--no-report",
          "-C", "-D"])
    out = capsys.readouterr().out
    assert "bin/charbench -c" in out and "-p ********" in out
    assert SECRET not in out and DBA_SECRET not in out


@pytest.mark.slow
def test_failed_transactions_fail_the_point_and_keep_its_figures(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path)
    monkeypatch.setenv("PLANNER_STANDIN_FAILED_TXNS", "12")
    code, _run, results = apply(tmp_path)
    assert code != 0
    assert all(r["status"] == "failed" and "12 failed transactions" in r["msg"] for r in results)
    assert all(headline(r, "swingbench.failed_txns") == 12 for r in results)
    assert all(headline(r, "swingbench.tps") > 0 for r in results)
