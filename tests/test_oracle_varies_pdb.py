"""SLOB in a PDB (docs/oracle-behaviour.md 25.11c): runit.sh and setup.sh connect by bequeath, which lands in
CDB$ROOT, so in the inventory's PDB they must go over SQL*Net (slob.conf ADMIN_SQLNET_SERVICE, SQLNET_SERVICE_BASE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.rehearsal.standins.profile import HostProfile
from tests.test_oracle_varies import LICENSED, project, run


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
