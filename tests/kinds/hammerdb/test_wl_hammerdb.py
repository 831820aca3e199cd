"""The hammerdb step over the stand-in hammerdbcli: the script as written and previewed, build once, secrets
masked, a failed virtual user failing the point, HammerDB's own AWR window used for the point's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.errors import StepError
from planner.kinds.hammerdb import standin
from planner.kinds.hammerdb.step import HammerDB
from planner.kinds.hammerdb.tcl import tcl_quote
from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.rehearsal.standins.profile import profile_for

HOME = "/opt/HammerDB-4.12"
SECRET = "Tpcc$[pw]{x}\"9"
PLAN = """\
plan: tproc_c
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: tproc-c
        hammerdb: {{home: {home}, service: ORCL, virtual_users: [2, 4], warehouses: 4, rampup: 1, duration: 2{extra}}}
    collect: [awr]
"""


def headline(r: dict, name: str) -> float:
    """A headline figure of a results.json entry (its metrics are a list: docs/plugins.md)."""
    return next(m["value"] for m in r["data"]["metrics"] if m["name"] == name and not m.get("labels"))


def project(tmp: Path, extra: str = "", release: str = "4.12", host_vars: str = "",
            profile: dict[str, str] | None = None) -> Path:
    """``profile``: the inventory's words for the stand-in database (oracle_version, oracle_pdb...)."""
    root = tmp / "hosts" / "alpha"
    install_standins(root, profile=profile_for(profile) if profile else None)
    standin.write_kit(root / HOME.lstrip("/"), release)  # the stand-in as that release (its hammerdbcli says it)
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_diagnostics_pack=true"
                                   f"{host_vars}\n")
    (tmp / "vars.json").write_text(json.dumps({"hammerdb_system_password": SECRET}))
    (tmp / "plan.yaml").write_text(PLAN.format(home=HOME, extra=extra))
    return root


def apply(tmp: Path, *flags: str) -> tuple[int, Path, list[dict]]:
    """(exit code, this call's run folder, its tproc-c results): the folder this call made, not the last by name
    (two runs in one second sort by their random part, tests/FAULTS.md)."""
    before = set((tmp / "runs").iterdir()) if (tmp / "runs").exists() else set()
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", "-e", f"@{tmp / 'vars.json'}", *flags])
    runs = [p for p in (tmp / "runs").iterdir() if p.is_dir() and p not in before] if (tmp / "runs").exists() else []
    run = runs[0] if runs else tmp
    path = run / "results.json"
    results = [r for r in json.loads(path.read_text()) if r["title"] == "tproc-c"] if path.exists() else []
    return code, run, results


def test_tcl_quote_makes_one_word_of_any_value() -> None:
    assert tcl_quote('a"b$c[d]{e}\\f') == '"a\\"b\\$c\\[d\\]\\{e\\}\\\\f"'
    assert tcl_quote(True) == '"true"' and tcl_quote(8) == '"8"'
    with pytest.raises(StepError):
        tcl_quote("two\nlines")


def test_build_has_its_own_budget_and_the_run_its_minutes() -> None:
    assert HammerDB.duration({"rampup": 2, "duration": 5}).expected_s == 420
    assert HammerDB.build_budget_s({"warehouses": 100, "build_virtual_users": 4}, {}) == 25 * 120 + 600
    assert HammerDB.build_budget_s({"warehouses": 1}, {"hammerdb_build_timeout_s": 99}) == 99


@pytest.mark.slow
def test_builds_once_runs_each_point_and_masks_the_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    project(tmp_path)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert [r["status"] for r in results] == ["changed", "changed"]
    names = [[Path(a["path"]).name for a in r["artifacts"]] for r in results]
    assert "build.tcl" in names[0] and "build.tcl" not in names[1]  # the schema existed at the second point
    assert all("run.tcl" in n and any(x.startswith("awr_") for x in n) for n in names)
    assert all(headline(r, "hammerdb.nopm") > 0 for r in results)
    script = next(run / a["path"] for a in results[0]["artifacts"] if a["path"].endswith("run.tcl")).read_text()
    assert 'vuset vu "2"' in script and "diset tpcc ora_driver timed" in script
    assert 'diset connection system_password "********"' in script
    for f in run.rglob("*"):
        if f.is_file():
            assert SECRET not in f.read_text(errors="replace") and tcl_quote(SECRET) not in f.read_text(
                errors="replace"), f


@pytest.mark.slow
def test_a_failed_virtual_user_fails_the_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    monkeypatch.setenv("PLANNER_STANDIN_HAMMERDB_FAIL", "1")
    project(tmp_path)
    code, _run, results = apply(tmp_path)
    assert code == 2
    assert results[0]["status"] == "failed" and "1 virtual user(s) FINISHED FAILED" in results[0]["msg"]
    assert "ORA-00060" in results[0]["msg"]


@pytest.mark.slow
def test_a_missing_schema_with_build_false_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    project(tmp_path, extra=", build: false")
    code, _run, results = apply(tmp_path)
    assert code == 2 and "TPROC-C schema TPCC is missing and build is false" in results[0]["msg"]


@pytest.mark.slow
def test_check_diff_shows_the_scripts_as_the_run_writes_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    project(tmp_path)
    code, _run, _results = apply(tmp_path, "-C", "-D")
    out = capsys.readouterr().out
    assert code == 0
    assert "hammerdbcli auto" in out and "build.tcl:" in out and "run.tcl:" in out
    assert '    vuset vu "2"' in out and '    vuset vu "4"' in out and "    diset tpcc count_ware \"4\"" in out
    assert SECRET not in out and '    diset connection system_password "********"' in out


@pytest.mark.slow
def test_the_oltp_example_plan_rehearses_with_nopm_per_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.002")
    root = Path(__file__).resolve().parents[3]
    for d in ("plans", "inventory"):
        shutil.copytree(root / d, tmp_path / d, ignore=shutil.ignore_patterns("reports"))
    code = main(["apply", "--rehearse", str(tmp_path / "plans" / "oltp_violin_vs_exadata.yaml"),
                 "--runs-dir", str(tmp_path / "runs")])
    capsys.readouterr()
    assert code == 0
    report = (tmp_path / "plans" / "reports" / "oltp_violin_vs_exadata.md").read_text()
    row = next(line for line in report.splitlines() if line.startswith("| TPROC-C") and "HammerDB NOPM" in line)
    assert row.count(" virtual users)") == 2  # one cell per system, each at its best point
    assert "hammerdb-nopm-by-virtual-users.svg" in report
    # the TPROC-C schema on each system's own storage (issue 43: it sat in USERS, the Violin NOPM from +DATA)
    violin = report.split("### TPROC-C, 8 to 64 virtual users (hammerdb) — Violin 3000, 8 LUNs", 1)[1]
    assert "Data on +SLOB: each point checked" in violin.split("\n### ", 1)[0]


@pytest.mark.slow
def test_the_scripts_are_0600_while_they_run_and_gone_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40 Medium: run.tcl and build.tcl, holding the system password, sat on the host at 0644 and stayed."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    root = project(tmp_path)
    cli = root / HOME.lstrip("/") / "hammerdbcli"
    cli.rename(cli.with_name("hammerdbcli.standin"))  # a wrapper notes the mode of its script, runs the stand-in
    modes = tmp_path / "modes.txt"
    cli.write_text(f'#!/bin/sh\necho "$(stat -c %a "$2") $(find {root} -name "*.tcl" | wc -l)" >> {modes}\n'
                   'exec "$0.standin" "$@"\nset hdb_version "v4.12"\n')
    cli.chmod(0o755)
    code, _run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    seen = modes.read_text().splitlines()
    # build once, run twice; each time its own script is the only one on the host
    assert seen == ["600 1"] * 3, seen
    assert not [p for p in root.rglob("*.tcl")], "the scripts must not stay on the host"
