"""HammerDB per release (issue 43): the stand-in hammerdbcli behaves as 3.3, 4.0-4.5 and 4.6+ do (gencli.tcl,
config/oracle.xml at those tags: docs/oracle-behaviour.md 43.h*), and the kind reads the release from the install,
writes the script that release needs, gives Oratcl its client environment and refuses what it does not know."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_wl_hammerdb import HOME, apply, headline, project

from planner.errors import StepError
from planner.kinds.hammerdb import standin
from planner.kinds.hammerdb.release import WAIT_LOOP, read_release
from planner.parsers import parse_file
from planner.rehearsal.standins import DEFAULT_HOME, install_standins

CONNECT = 'dbset db ora\ndiset connection system_password "manager"\n'
BUILD = CONNECT + 'diset tpcc count_ware "2"\nbuildschema\n'
RUN = CONNECT + 'diset tpcc rampup "0"\ndiset tpcc duration "1"\nloadscript\nvuset vu "2"\nvucreate\nvurun\n'


def hammerdbcli(tmp: Path, release: str, script: str, client: bool = True) -> subprocess.CompletedProcess[str]:
    """The stand-in as ``release`` on one script, in a sandbox of its own (the state stays between calls)."""
    root = tmp / "host"
    if not root.exists():
        install_standins(root)
    program = standin.write_kit(root / "opt" / f"HammerDB-{release}", release)
    (tmp / "t.tcl").write_text(script)
    env = {k: v for k, v in os.environ.items() if k not in ("ORACLE_HOME", "LD_LIBRARY_PATH", "ORACLE_LIBRARY")}
    env["PLANNER_STANDIN_TIME_SCALE"] = "0.0005"
    if client:
        env |= {"ORACLE_HOME": DEFAULT_HOME, "LD_LIBRARY_PATH": f"{DEFAULT_HOME}/lib"}
    return subprocess.run([str(program), "auto", str(tmp / "t.tcl")], capture_output=True, text=True, env=env,
                          timeout=60, check=False)


def test_the_release_is_read_from_the_install_and_an_unknown_one_refused_by_name() -> None:
    assert read_release('#!/bin/sh\nglobal hdb_version\nset hdb_version "v4.5"\n', "h").name == "4.5"
    assert not read_release('set hdb_version "v3.3"', "h").blocking
    assert read_release('set hdb_version "v4.12"', "h").blocking
    assert read_release('set hdb_version "v5.0"', "h").blocking and read_release('set hdb_version "v6.0"', "h").blocking
    for text, words in (('set hdb_version "v7.0"', "HammerDB 7.0 is not supported"),
                        ('set hdb_version "v5.1"', "HammerDB 5.1 is not supported"),
                        ('set hdb_version "v3.2"', "HammerDB 3.2 is not supported"),
                        ("#!/bin/sh\nexec tclsh", "no `set hdb_version` line"), (None, "no hammerdbcli at h")):
        with pytest.raises(StepError, match=words):
            read_release(text, "h")
    assert read_release('set hdb_version "v4.5"', "h").run_tail() == ["vucreate", "vurun", WAIT_LOOP, "vudestroy"]
    assert read_release('set hdb_version "v4.6"', "h").build_tail() == ["buildschema"]


@pytest.mark.slow
def test_the_standin_behaves_as_each_release(tmp_path: Path) -> None:
    """3.3: no waittocomplete (Tcl's error, exit 1); 4.5: vurun returns and vudestroy kills the users (no result);
    4.5 with the wait loop and 4.12 as written: a result; the driver's default is test before 4.6."""
    r = hammerdbcli(tmp_path, "3.3", BUILD + "waittocomplete\n")
    assert r.returncode == 1 and 'invalid command name "waittocomplete"' in r.stderr
    assert "SCHEMA COMPLETE" not in r.stdout  # the build never ran: the script ended first
    assert "SCHEMA COMPLETE" in hammerdbcli(tmp_path, "3.3", BUILD + WAIT_LOOP + "\n").stdout
    timed = RUN.replace("loadscript", 'diset tpcc ora_driver "timed"\nloadscript')
    r = hammerdbcli(tmp_path, "4.5", timed + "vudestroy\n")
    assert r.returncode == 0 and "TEST RESULT" not in r.stdout and "vudestroy success" in r.stdout
    assert "TEST RESULT : System achieved" in hammerdbcli(tmp_path, "4.5", timed + WAIT_LOOP + "\nvudestroy\n").stdout
    assert "TEST RESULT : System achieved" in hammerdbcli(tmp_path, "4.12", RUN + "vudestroy\n").stdout
    r = hammerdbcli(tmp_path, "4.5", RUN + WAIT_LOOP + "\n")  # no ora_driver: 4.5's default is the test driver
    assert "TEST RESULT" not in r.stdout and "FINISHED SUCCESS" in r.stdout
    r = hammerdbcli(tmp_path, "4.12", RUN, client=False)
    assert "Failed to load Oratcl - can't read \"env(ORACLE_HOME)\"" in r.stdout and "TEST RESULT" not in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("release", ["3.3", "4.5"])
def test_the_kind_rehearses_on_releases_before_4_6(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   release: str) -> None:
    """Before: the build script's waittocomplete failed on 3.3, and 4.5's vudestroy killed the users (no TEST
    RESULT); and hammerdbcli ran with no ORACLE_HOME, so Oratcl could not load on any release."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    monkeypatch.delenv("ORACLE_HOME", raising=False)
    project(tmp_path, release=release)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert all(headline(r, "hammerdb.nopm") > 0 for r in results)
    arts = [run / a["path"] for a in results[0]["artifacts"]]
    build, script = (next(p for p in arts if p.name == n).read_text() for n in ("build.tcl", "run.tcl"))
    assert f"(HammerDB {release})" in script and WAIT_LOOP in script and "waittocomplete" not in build


@pytest.mark.slow
@pytest.mark.parametrize("release", ["5.0"])  # 6.0: the same scripts (43.h10), read_release above
def test_the_kind_rehearses_on_hammerdb_5_and_6_as_on_4_12(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           release: str) -> None:
    """Before: 5.0 and 6.0 were refused by name, their sources unread. They drive Oracle as 4.12 does
    (docs/oracle-behaviour.md 43.h10): blocking vurun and buildschema, no wait loop, the same timed driver."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    project(tmp_path, release=release)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    assert all(headline(r, "hammerdb.nopm") > 0 for r in results)
    script = next(run / a["path"] for a in results[0]["artifacts"] if a["path"].endswith("run.tcl")).read_text()
    assert f"(HammerDB {release})" in script and WAIT_LOOP not in script


@pytest.mark.slow
def test_an_unsupported_install_is_refused_by_name_before_it_runs(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    cli = root / HOME.lstrip("/") / "hammerdbcli"
    cli.write_text(cli.read_text().replace('"v4.12"', '"v7.0"'))
    code, run, results = apply(tmp_path)
    assert code == 2 and "HammerDB 7.0 is not supported" in results[0]["msg"]
    assert not list(run.rglob("*_console.txt"))  # hammerdbcli never ran


@pytest.mark.slow
def test_the_preview_runs_it_as_oracle_user_with_the_client_environment(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, release="4.5", host_vars=" oracle_user=dbowner tns_admin=/etc/tns")
    code, _run, _results = apply(tmp_path, "-C", "-D")
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert "-u dbowner" in out and f"ORACLE_HOME={DEFAULT_HOME}" in out and f"LD_LIBRARY_PATH={DEFAULT_HOME}/lib" in out
    assert "TNS_ADMIN=/etc/tns" in out and "ORACLE_SID=orcl" in out and f"    {WAIT_LOOP}" in out


@pytest.mark.parametrize("stated", ["", " oracle_diagnostics_pack=false"])
def test_a_timed_test_without_the_diagnostics_pack_is_refused_at_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stated: str) -> None:
    """Before: validate passed and each point took AWR snapshots (HammerDB's timed driver) on a host whose
    licence nobody stated; planner refuses AWR there everywhere else."""
    from planner.cli.main import main

    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local oracle_home={DEFAULT_HOME} "
                                        f"oracle_sid=orcl{stated}\n")
    (tmp_path / "plan.yaml").write_text(PLAN_NO_AWR)
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr()
    out = err.out + err.err
    assert code == 5, out
    assert f"{tmp_path / 'plan.yaml'}:7:" in out and "AWR snapshots" in out and "oraoltp.tcl" in out
    assert "oracle_diagnostics_pack" in out and "Traceback" not in out


PLAN_NO_AWR = """\
plan: tproc_c
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: tproc-c
        hammerdb: {home: /opt/HammerDB-4.12, service: ORCL, virtual_users: 2}
"""


def older_schema(root: Path, warehouses: int) -> None:
    """A TPROC-C schema an earlier study left in the stand-in database: ``warehouses`` of them (its max(w_id))."""
    import json

    state = root / "var" / "lib" / "planner-standin" / "db.json"
    data = json.loads(state.read_text())
    data["tables"] = [*data.get("tables", []), *({"owner": "TPCC", "table_name": t} for t in ("WAREHOUSE", "STOCK"))]
    data.setdefault("tpcc", {})["TPCC"] = warehouses
    state.write_text(json.dumps(data))


@pytest.mark.slow
def test_the_schemas_warehouses_are_recorded_and_a_contradiction_refused(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: an older 2-warehouse schema ran silently and the record said the plan's 4 (print dict's count_ware,
    which HammerDB's driver ignores: it reads max(w_id))."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    older_schema(project(tmp_path), 2)
    code, _run, results = apply(tmp_path)
    assert code == 2 and "holds 2 warehouses (max(w_id)" in results[0]["msg"] and "plan says 4" in results[0]["msg"]
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace(" warehouses: 4,", "").replace("[2, 4]", "[2]"))
    code, _run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    console = next(_run / a["path"] for a in results[0]["artifacts"] if a["path"].endswith("run_console.txt"))
    assert parse_file(console, "hammerdb").value("hammerdb.warehouses") == 2  # what the report and findings read


@pytest.mark.slow
def test_the_schema_is_built_on_data_on_and_checked_there_at_every_point(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the schema went to HammerDB's default tablespace and nothing checked it sat on the prepared storage.
    Now tpcc_tablespace is made on data_on before the build, and a point whose STOCK is elsewhere is refused."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    project(tmp_path, extra=", tpcc_tablespace: TPCC, create_tablespace: 1G, data_on: /u02/violin")
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("[2, 4]", "[2]"))
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    build = next(run.rglob("build.tcl")).read_text()
    assert 'diset tpcc tpcc_def_tab "TPCC"' in build and 'diset tpcc tpcc_ol_tab "TPCC"' in build
    plan.write_text(plan.read_text().replace("data_on: /u02/violin", "data_on: +DATA"))
    code, _run, results = apply(tmp_path)
    assert code == 2 and "TPCC.STOCK is in tablespace TPCC, whose files are /u02/violin/tpcc01.dbf" in results[0]["msg"]
    assert "not on +DATA" in results[0]["msg"]


@pytest.mark.slow
def test_the_awr_report_in_a_pdb_uses_the_dbid_hammerdb_printed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the report over HammerDB's window asked for the CDB's DBID (V$DATABASE), while HammerDB's manual
    snapshots in a 19c PDB are the PDB's, filed under its own DBID: ORA-20200, no AWR report for the point."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    pdb = {"oracle_version": "19.0.0", "oracle_cdb": "true", "oracle_pdb": "PDB1"}
    project(tmp_path, host_vars=" oracle_cdb=true oracle_pdb=PDB1", profile=pdb)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("[2, 4]", "[2]").replace("service: ORCL", "service: db1/PDB1"))
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    awr = next(run.rglob("awr_*.txt")).read_text()
    assert "WORKLOAD REPOSITORY PDB report for" in awr
