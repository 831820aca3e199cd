"""The stand-ins take what the inventory says a host is (planner/rehearsal/standins/profile.py), so each Oracle
behaviour is tested over a matrix of hosts, not over the one belief the seed encodes (19c, spfile, SLOB KEEP)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.errors import InputError, OracleError
from planner.rehearsal.standins import install_standins, load_state
from planner.rehearsal.standins.profile import HostProfile, SlobRelease, profile_for

HOME_11203 = "/u01/app/oracle/product/11.2.0.3/dbhome_1"


@pytest.mark.parametrize(("given", "version", "full"), [
    ({"oracle_home": HOME_11203}, "11.2.0.3.0", ""),
    ({"oracle_home": "/u01/app/oracle/product/11.2.0/dbhome_1"}, "11.2.0.0.0", ""),
    ({"oracle_version": "12.1.0.2", "oracle_home": HOME_11203}, "12.1.0.2.0", ""),  # stated beats the path
    ({"oracle_version": "19.3"}, "19.0.0.0.0", "19.3.0.0.0"),
    ({}, "19.0.0.0.0", "19.0.0.0.0"),
])
def test_the_version_comes_from_oracle_version_or_the_release_in_oracle_home(
        given: dict[str, str], version: str, full: str) -> None:
    p = profile_for(given)
    assert (p.oracle_version, p.version_full) == (version, full)


def test_21c_is_always_a_cdb_and_a_bad_release_is_an_input_error() -> None:
    assert profile_for({"oracle_version": "21.3"}).cdb is True
    assert profile_for({"oracle_version": "19.3", "oracle_pdb": "SLOBPDB"}).cdb is True
    with pytest.raises(InputError, match="slob_release '3.0'"):
        profile_for({"slob_release": "3.0"})
    assert profile_for({"slob_release": "2.4"}).slob_release is SlobRelease.V2_4_0


def _db(root: Path, profile: HostProfile):  # type: ignore[no-untyped-def]
    install_standins(root, profile=profile)
    ctx = context(root)
    return open_database(ctx, config_for(ctx))


@pytest.mark.slow
@pytest.mark.parametrize("version", ["10.2.0.5.0", "11.2.0.3.0", "12.1.0.2.0", "19.0.0.0.0"])
def test_the_standin_answers_with_the_profiles_version(tmp_path: Path, version: str) -> None:
    db = _db(tmp_path, HostProfile(oracle_version=version))
    assert [list(r) for r in db.query("select version from v$instance")] == [[version]]


@pytest.mark.slow
@pytest.mark.parametrize(("pfile", "spfile"), [("spfile", True), ("pfile", False)])
def test_a_pfile_instance_shows_no_spfile_and_refuses_scope_spfile(tmp_path: Path, pfile: str, spfile: bool) -> None:
    db = _db(tmp_path, HostProfile(parameter_file=pfile))
    (row,) = db.query("select value from v$parameter where name = 'spfile'")
    assert bool(row[0]) is spfile
    if spfile:
        db.execute("alter system set db_recycle_cache_size=64M scope=spfile")
        return
    with pytest.raises(OracleError, match="ORA-32001"):
        db.execute("alter system set db_recycle_cache_size=64M scope=spfile")
    db.execute("alter system set db_recycle_cache_size=64M scope=memory")  # memory alone is fine on a pfile


@pytest.mark.slow
def test_cdb_resource_manager_and_the_failure_modes(tmp_path: Path) -> None:
    db = _db(tmp_path, HostProfile(cdb=True, resource_manager_plan="DEFAULT_MAINTENANCE_PLAN",
                                   refused_parameters=("db_keep_cache_size",), instance_stays_down=True))
    assert [list(r) for r in db.query("select cdb from v$database")] == [["YES"]]
    assert [list(r) for r in db.query("select value from v$parameter where name = 'resource_manager_plan'")] == [
        ["DEFAULT_MAINTENANCE_PLAN"]]
    with pytest.raises(OracleError, match="ORA-02097"):
        db.execute("alter system set db_keep_cache_size=64M scope=both")
    db.run_script("shutdown immediate", "shutdown")
    with pytest.raises(OracleError, match="ORA-27102"):
        db.run_script("startup", "startup")
    assert load_state(tmp_path)["database"]["status"] == "SHUTDOWN"  # it does not come back
