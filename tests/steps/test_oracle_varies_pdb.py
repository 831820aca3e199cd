"""SLOB in a PDB (docs/oracle-behaviour.md 25.11c): runit.sh and setup.sh connect by bequeath, which lands in
CDB$ROOT, so in the inventory's PDB they must go over SQL*Net (slob.conf ADMIN_SQLNET_SERVICE, SQLNET_SERVICE_BASE).
AWR in a PDB (25.11d): planner's snapshots are the PDB's own where it keeps its own AWR, else the CDB's, said."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.errors import OracleError, PlannerError
from planner.parsers import parse_file
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state, update_state
from planner.rehearsal.standins.profile import HostProfile
from tests.kinds.test_oracle_varies import KIT, LICENSED, project, run


def _in_a_pdb(tmp: Path, host_vars: str) -> None:
    root = project(tmp, host_vars=f"{LICENSED} oracle_pdb=PDB1 {host_vars}")
    install_standins(root, DEFAULT_HOME, profile=HostProfile(cdb=True, pdb="PDB1"))  # a 19c CDB, SLOB in PDB1


@pytest.mark.slow
def test_slob_in_a_pdb_without_a_sqlnet_service_is_refused_before_setup_sh(tmp_path: Path) -> None:
    _in_a_pdb(tmp_path, "")
    code, _out, res = run(tmp_path)
    assert code != 0 and res["status"] == "failed"
    assert "oracle_pdb PDB1: runit.sh and setup.sh connect by bequeath to CDB$ROOT" in res["msg"], res["msg"]
    assert "ADMIN_SQLNET_SERVICE and SQLNET_SERVICE_BASE" in res["msg"]
    assert not any(a["path"].endswith("setup.log") for a in res["artifacts"])  # setup.sh never ran in the root


@pytest.mark.slow
def test_slob_in_a_pdb_goes_over_the_inventorys_sqlnet_service(tmp_path: Path) -> None:
    _in_a_pdb(tmp_path, "slob_sqlnet_service=PDB1")
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    conf = (out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("slob.conf"))).read_text()
    assert "ADMIN_SQLNET_SERVICE=PDB1" in conf and "SQLNET_SERVICE_BASE=PDB1" in conf
    assert "PDB PDB1 of a CDB" in res["msg"]
    # setup.sh ran over the service too (in CDB$ROOT its CREATE USER fails ORA-65096), and the kit's own slob.conf
    # is back, without the planner backup
    assert "create user user1 identified by user1" in load_state(tmp_path / "hosts" / "alpha")["history"]
    kit = tmp_path / "hosts" / "alpha" / KIT.lstrip("/")
    assert "ADMIN_SQLNET_SERVICE" not in (kit / "slob.conf").read_text()
    assert not (kit / "slob.conf.planner-orig").exists()


# -- 25.11d: the AWR level in a PDB, across the versions --------------------------------------------------------
def _cdb(root: Path, version: str, **db: object) -> None:
    update_state(root, lambda s: s["database"].update(version=version, cdb=True, pdbs=["PDB1"], **db))


@pytest.mark.slow
def test_the_standins_snapshot_level_follows_the_sessions_container(prep_root: Path) -> None:
    """12.2+: a snapshot taken in a PDB is the PDB's own, so the CDB's DBID does not report it (ORA-20200)."""
    _cdb(prep_root, "19.0.0.0.0")
    ctx = context(prep_root, oracle_pdb="PDB1")
    db = open_database(ctx, config_for(ctx))
    snap = db.callfunc("dbms_workload_repository.create_snapshot", int)
    assert str(snap) in load_state(prep_root)["awr_pdb_snaps:PDB1"]
    dbid = int(db.query("select dbid from v$database")[0][0])
    con_dbid = int(db.query("select sys_context('USERENV', 'CON_DBID') from dual")[0][0])
    assert con_dbid != dbid
    with pytest.raises(OracleError, match="ORA-20200"):
        db.query(f"select output from table(dbms_workload_repository.awr_report_text({dbid}, 1, {snap}, {snap + 1}))")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "autoflush", "pdb_level", "why"),
    [
        ("12.1.0.2.0", None, False, "no AWR_PDB_AUTOFLUSH_ENABLED, so before 12.2"),
        ("12.2.0.1.0", None, False, "AWR_PDB_AUTOFLUSH_ENABLED=FALSE in PDB1"),
        ("19.0.0.0.0", False, False, "AWR_PDB_AUTOFLUSH_ENABLED=FALSE in PDB1"),
        ("19.0.0.0.0", True, True, ""),
        ("21.0.0.0.0", True, True, ""),
        ("23.0.0.0.0", None, True, ""),  # 23ai: TRUE by default
    ],
)
def test_awr_in_a_pdb_is_the_pdbs_own_where_it_keeps_one_else_the_cdbs_and_said(
    prep_root: Path, version: str, autoflush: bool | None, pdb_level: bool, why: str
) -> None:
    from planner.steps import dbreport

    _cdb(prep_root, version, **({} if autoflush is None else {"awr_pdb_autoflush_enabled": autoflush}))
    ctx = context(prep_root, oracle_pdb="PDB1", oracle_diagnostics_pack=True)
    token = dbreport.begin(ctx, "awr")
    arts = dbreport.end(ctx, token, "awr")
    state = load_state(prep_root)
    facts = parse_file(prep_root / arts[0].path).facts
    if pdb_level:
        assert token.level.pdb == "PDB1" and token.dbid != state["database"]["dbid"]
        assert len(state["awr_pdb_snaps:PDB1"]) == 2 and not state.get("awr_snaps")
        assert token.notes[0].startswith("AWR at PDB level: PDB1's own snapshots, reported with its DBID")
        assert dict(facts)["report_level"] == "pdb"
    else:
        assert token.level.pdb == "" and token.dbid == state["database"]["dbid"]
        assert len(state["awr_snaps"]) == 2 and not state.get("awr_pdb_snaps:PDB1")
        assert token.notes[0].startswith("AWR taken at CDB level: covers every PDB (") and why in token.notes[0]
    assert token.level.to_json()["level"] == ("pdb" if pdb_level else "cdb")


@pytest.mark.slow
def test_a_21c_cdb_root_and_a_non_cdb_say_no_awr_level(prep_root: Path) -> None:
    from planner.steps import dbreport

    ctx = context(prep_root, oracle_diagnostics_pack=True)
    for cdb in (False, True):
        update_state(
            prep_root, lambda s, cdb=cdb: s["database"].update(version="21.0.0.0.0" if cdb else "19.0.0.0.0", cdb=cdb)
        )
        token = dbreport.begin(ctx, "awr")
        assert token.notes == () and token.level.to_json()["level"] == "cdb"
        assert token.dbid == load_state(prep_root)["database"]["dbid"]


@pytest.mark.slow
def test_an_unreadable_awr_level_is_refused_with_the_reason(prep_root: Path) -> None:
    from planner.steps import dbreport

    _cdb(prep_root, "19.0.0.0.0")
    with pytest.raises(PlannerError, match="ORA-65011"):  # the licence check reads there first
        dbreport.begin(context(prep_root, oracle_pdb="SALES", oracle_diagnostics_pack=True), "awr")
    assert not load_state(prep_root).get("awr_snaps")


# -- 25.11c: the stand-in kit connects as slob.conf's SQL*Net settings say ----------------------------------
def _kit_in_a_cdb(tmp: Path, conf: str = "", loaded: int = 0) -> tuple[Path, dict[str, str]]:
    from planner.kinds.slob.standin import install_slob_kit

    root = tmp / "host"
    install_standins(root, DEFAULT_HOME, profile=HostProfile(cdb=True, pdb="PDB1"))
    kit = install_slob_kit(root / "opt/SLOB", loaded_schemas=loaded)
    if conf:
        (kit / "slob.conf").write_text((kit / "slob.conf").read_text() + conf)
    env = {
        "PATH": f"{root}{DEFAULT_HOME}/bin:/usr/bin:/bin",
        "ORACLE_HOME": DEFAULT_HOME,
        "ORACLE_SID": "orcl",
        "HOME": str(tmp),
        "NO_OS_PERF_DATA": "1",
    }
    return kit, env


def _sh(kit: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", *argv], cwd=kit, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.slow
def test_the_standin_kit_without_sqlnet_services_lands_in_cdb_root_and_fails_as_the_real_one(tmp_path: Path) -> None:
    """Bequeath, in a CDB: setup.sh's CREATE USER user1 fails ORA-65096, runit.sh's user1/user1 ORA-01017."""
    kit, env = _kit_in_a_cdb(tmp_path)
    r = _sh(kit, env, "./setup.sh", "IOPS", "1")
    assert r.returncode == 1 and "ORA-65096" in r.stdout and "CDB$ROOT" in r.stdout, r.stdout
    kit, env = _kit_in_a_cdb(tmp_path / "b", loaded=1)
    r = _sh(kit, env, "./runit.sh", "1")
    assert r.returncode == 1 and "Connect failure user1/user1." in r.stdout and "ORA-01017" in r.stdout, r.stdout


@pytest.mark.slow
def test_the_standin_kit_over_the_pdbs_service_loads_and_runs_in_the_pdb(tmp_path: Path) -> None:
    kit, env = _kit_in_a_cdb(tmp_path, "ADMIN_SQLNET_SERVICE=PDB1\nSQLNET_SERVICE_BASE=PDB1\nSYSDBA_PASSWD=x\n")
    env.pop("ORACLE_SID")  # over SQL*Net the SID is not needed
    r = _sh(kit, env, "./setup.sh", "IOPS", "1")
    assert r.returncode == 0, r.stdout
    r = _sh(kit, env, "./runit.sh", "1")
    assert r.returncode == 0 and 'Admin Connect String: "system/x@PDB1"' in r.stdout, r.stdout + r.stderr
    (kit / "slob.conf").write_text((kit / "slob.conf").read_text() + "SQLNET_SERVICE_BASE=SALES\n")
    r = _sh(kit, env, "./runit.sh", "1")
    assert r.returncode == 1 and "ORA-12514" in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "said"),
    [
        ("12.1.0.2.0", "AWR taken at CDB level: covers every PDB (PDB1: no AWR_PDB_AUTOFLUSH_ENABLED"),
        (
            "19.0.0.0.0",
            "AWR: the kit snaps in PDB1 over ADMIN_SQLNET_SERVICE; from 12.2 that can be PDB1's own AWR "
            "(AWR_PDB_AUTOFLUSH_ENABLED=FALSE there)",
        ),
    ],
)
def test_a_slob_point_in_a_pdb_says_whose_awr_its_snapshots_go_to(tmp_path: Path, version: str, said: str) -> None:
    from planner.cli.main import main

    root = project(tmp_path, host_vars=f"{LICENSED} oracle_pdb=PDB1 slob_sqlnet_service=PDB1")
    install_standins(root, DEFAULT_HOME, profile=HostProfile(oracle_version=version, cdb=True, pdb="PDB1"))
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    assert said in res["msg"] and said in res["data"]["awr_level"]
    assert main(["report", str(out), "-o", str(tmp_path / "r.md")]) == 0
    line = next(x for x in (tmp_path / "r.md").read_text().splitlines() if x.startswith("Database statistics — "))
    assert "container: PDB PDB1 of a CDB" in line and said in line
