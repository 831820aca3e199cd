"""The loaded world holds every kit's schema (issue 39): SLOB's, HammerDB's TPCC and Swingbench's SOE, as a lab
where each build has run; the fresh world none. Before, ``standin_database: loaded`` preloaded SLOB's only, so
the OLTP steps always built their schemas and a rehearsal of a loaded lab never skipped a build."""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.db.segments import table_exists
from planner.rehearsal.standins import install_standins
from planner.rehearsal.standins.profile import HostProfile, StandinDatabase

TABLES = (("USER1", "CF1"), ("TPCC", "WAREHOUSE"), ("SOE", "ORDERS"))  # what each kind asks DBA_TABLES


@pytest.mark.slow
@pytest.mark.parametrize("world", list(StandinDatabase))
def test_the_stand_in_database_holds_every_kits_schema_when_loaded_none_when_fresh(
        world: StandinDatabase, tmp_path: Path) -> None:
    install_standins(tmp_path, profile=HostProfile(database=world))
    ctx = context(tmp_path)
    db = open_database(ctx, config_for(ctx))  # the stand-in sqlplus, asked as the steps ask it
    try:
        found = {f"{o}.{t}": table_exists(db, o, t) for o, t in TABLES}
    finally:
        db.close()
    assert found == {k: world is StandinDatabase.LOADED for k in found}
