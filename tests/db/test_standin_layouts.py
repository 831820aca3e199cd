"""The stand-in's Statspack and AWR follow the layout of their release (issue 41; docs/oracle-behaviour.md 41.s1,
41.v5), and planner reads each: a 10.2 lab's spreport.sql page has a ``Host  Name: ... Num CPUs:`` line and a
two-column Load Profile, a 21c AWR names the user and the containers."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.db.container import read_container
from planner.errors import OracleError
from planner.parsers import parse_text
from planner.parsers.derived import derive
from planner.rehearsal.standins import awrgen, awrgen_render, install_standins, update_state
from planner.rehearsal.standins.profile import apply_profile, profile_for
from planner.steps.prep_db import InitOra

HOST = awrgen.HostInfo("labhost", cpus=16, cores=8, sockets=2, memory_gb=64.0)
IV = awrgen.Interval(101, 102, datetime(2026, 12, 7, 1, 0), 300.0)


def _statspack(release: str) -> tuple[awrgen.Figures, str]:
    db = awrgen.DbInfo(release=release)
    fig = awrgen.simulate(awrgen.Workload(sessions=8), HOST, db)
    return fig, awrgen_render.statspack(fig, HOST, db, IV, 8)


@pytest.mark.parametrize(("release", "present", "absent"), [
    ("10.2.0.5.0", ["Host  Name:   labhost          Num CPUs:   16        Phys Memory (MB):   65,536",
                    "Load Profile                            Per Second       Per Transaction",
                    "                      Sorts:", "  % Blocks changed per Read:", "Instance Efficiency Percentages",
                    "           Shared Pool Size:", "Host CPU  (CPUs: 16)\n", "% of DB time"],
     ["DB time(s):", "Platform", "Cores", "W/A MB processed", "Instance Efficiency Indicators"]),
    ("11.2.0.4.0", ["Host Name             Platform                CPUs Cores Sockets   Memory (G)",
                    "      DB time(s):", "W/A MB processed:", "Instance Efficiency Indicators"],
     ["Num CPUs:", "Sorts:"]),
    ("19.0.0.0.0", ["      DB time(s):", "W/A MB processed:", "Host CPU  (CPUs: 16  Cores: 8  Sockets: 2)"],
     ["Num CPUs:"]),
])
def test_each_release_prints_its_own_statspack_layout(release: str, present: list[str], absent: list[str]) -> None:
    _fig, text = _statspack(release)
    for want in present:
        assert want in text, want
    for unwanted in absent:
        assert unwanted not in text, unwanted


@pytest.mark.parametrize("release", ["10.2.0.5.0", "11.2.0.4.0", "12.1.0.2.0", "19.0.0.0.0"])
def test_planner_reads_every_releases_statspack(release: str) -> None:
    fig, text = _statspack(release)
    parsed = parse_text(text, f"sp-{release}", "statspack")
    assert not parsed.errors, parsed.errors
    iops = [(dict(m.labels)["basis"], round(m.value)) for m in derive(parsed) if m.name == "physical_read_iops"]
    assert iops == [("blocks", round(fig.read_blocks))]
    facts, cpus = dict(parsed.facts), [m.value for m in parsed.metrics if m.name == "cpus"]
    assert (facts["version"], facts["host_name"], cpus) == (release, "labhost", [16.0])


def _db_of(tmp_path: Path, **inventory: str) -> awrgen.DbInfo:
    """The stand-in database an inventory host describes, as the report generator reads it."""
    state = install_standins(tmp_path / "host", profile=profile_for(inventory))
    return awrgen.load_db(state.parent)


def test_a_21c_awr_names_the_user_and_the_inventorys_pdb(tmp_path: Path) -> None:
    """21c is a CDB: its header has User Name / System Data Visible and the containers, the PDB the inventory's
    (before: 19c's instance line, CDB NO and no PDB at all; tests/data/awr/awr_21c_adg_standby_header.txt)."""
    db = _db_of(tmp_path, oracle_version="21.3", oracle_pdb="salespdb")
    fig = awrgen.simulate(awrgen.Workload(sessions=8), HOST, db)
    text = awrgen_render.awr_text(fig, HOST, db, IV, 8)
    assert "Instance     Inst Num Startup Time    User Name    System Data Visible" in text
    assert " 21.0.0.0.0 NO  YES\n" in text
    names = [line.split()[1] for line in text.split("Container DB Id  Container Name")[1].splitlines()[2:5]]
    assert names == ["CDB$ROOT", "PDB$SEED", "SALESPDB"]
    facts = dict(parse_text(text, "awr21", "awr_text").facts)
    assert (facts["cdb"], facts["user_name"], facts["containers"]) == ("YES", "SYS", "CDB$ROOT,PDB$SEED,SALESPDB")
    html = dict(parse_text(awrgen_render.awr_html(fig, HOST, db, IV, 8), "awr21h", "awr_html").facts)
    assert html["cdb"] == "YES" and "SALESPDB" in html.get("containers", ""), html


def test_a_19c_non_cdb_keeps_its_header(tmp_path: Path) -> None:
    db = _db_of(tmp_path, oracle_version="19.3")
    text = awrgen_render.awr_text(awrgen.simulate(awrgen.Workload(sessions=8), HOST, db), HOST, db, IV, 8)
    assert "Instance     Inst Num Startup Time\n" in text and "Container DB Id" not in text
    assert " 19.0.0.0.0 NO  NO\n" in text


@pytest.mark.slow
def test_the_standin_cdbs_pdb_is_the_inventorys(prep_root: Path) -> None:
    """oracle_pdb: SALESPDB made a stand-in CDB whose only PDB was PDB1: ALTER SESSION SET CONTAINER = SALESPDB
    failed ORA-65011 in every rehearsal of a lab whose PDB has another name."""
    inventory = {"oracle_version": "19.3", "oracle_pdb": "SALESPDB"}
    update_state(prep_root, lambda s: apply_profile(s, profile_for(inventory)))
    ctx = context(prep_root, **inventory)
    assert read_container(open_database(ctx, config_for(ctx))).describe() == "PDB SALESPDB of a CDB"


@pytest.mark.slow
def test_sysdba_by_a_login_outside_the_dba_group_is_ora_01031_and_planner_names_oracle_user(prep_root: Path) -> None:
    """sqlplus / as sysdba run as root (the SSH user, no oracle_user) is refused ORA-01031 by the real database when
    root is not in OSDBA; the stand-in let any login in, and planner's words named no inventory variable."""
    update_state(prep_root, lambda s: s["database"].update(osdba_users=["oracle"]))
    ctx = context(prep_root)
    with pytest.raises(OracleError, match="ORA-01031") as e:
        read_container(open_database(ctx, config_for(ctx)))
    assert "as the SSH user (no oracle_user set)" in str(e.value) and "set oracle_user" in (e.value.hint or "")


@pytest.mark.slow
def test_cdb_root_does_not_see_a_pdbs_slob_tables_and_slob_cache_reads_them_in_the_pdb(prep_root: Path) -> None:
    """In CDB$ROOT DBA_SEGMENTS shows the root's objects only; the stand-in showed SLOB's USER1 tables there too,
    so slob_cache in CDB$ROOT "worked" only in rehearsal. Now the stand-in hides them and slob_cache reads the pool
    in the PDB that holds them (CDB_SEGMENTS), saying which; the KEEP pool is set in the root, for the whole CDB."""
    update_state(prep_root, lambda s: s["database"].update(cdb=True, pdb="SALES"))
    sql = "select owner, buffer_pool from dba_segments where segment_name = 'CF1'"
    root_ctx, pdb_ctx = context(prep_root), context(prep_root, oracle_pdb="SALES")
    assert open_database(root_ctx, config_for(root_ctx)).query(sql) == []
    assert open_database(pdb_ctx, config_for(pdb_ctx)).query(sql) == [("USER1", "KEEP")]
    change = InitOra({"slob_cache": "64M"}).check(root_ctx)
    assert "would set db_keep_cache_size" in change.msg, change.msg
    assert "BUFFER_POOL KEEP of USER1.CF1 in PDB SALES (CDB_SEGMENTS, read from CDB$ROOT" in change.msg, change.msg
