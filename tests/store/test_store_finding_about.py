"""A finding's ``about`` (the study, or the rehearsal itself) goes into the store and comes back; a store written
before it had the column (schema v3) reads its findings as about the study."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from test_report_helpers import seed_study

from planner.results.finding import About, Finding, Severity
from planner.results.measure import read_run
from planner.store import SqliteStore
from planner.store.record import capture
from planner.store.schema import LATEST, statements
from planner.store.url import Backend


def _finding(about: About) -> Finding:
    return Finding("oltp_not_scaling", Severity.NOTE, "Throughput stopped scaling on a saturated CPU", "violin",
                   "vio", "SLOB", "readers=16", "flat", (("gain %", "1.0"),), about)


def test_what_a_finding_is_about_is_stored_and_given_back(tmp_path: Path) -> None:
    stored = replace(capture(read_run(seed_study(tmp_path))),
                     findings=(_finding(About.REHEARSAL), _finding(About.STUDY)))
    with SqliteStore(":memory:") as st:
        st.put_stored(stored)
        back = st.stored_run(stored.run_id)
    assert back is not None and [f.about for f in back.findings] == [About.REHEARSAL, About.STUDY]
    assert back.findings == stored.findings


def test_findings_stored_before_the_column_are_about_the_study(tmp_path: Path) -> None:
    db = tmp_path / "planner.sqlite"
    con = sqlite3.connect(db)
    for version in range(1, 4):  # the schema planner wrote before findings said what they are about
        for stmt in statements(version, Backend.SQLITE):
            con.execute(stmt)
    con.execute("INSERT INTO runs (id, plan, path) VALUES ('old-run', 'p', '/runs/old-run')")
    con.execute("INSERT INTO findings VALUES ('old-run', 0, 'cpu_bound', 'note', 'p', 'h', 's', '', "
                "'CPU busy in the rehearsal', 'm', '[]')")
    con.execute("PRAGMA user_version = 3")
    con.commit()
    con.close()
    with SqliteStore(db) as st:
        assert st.version == LATEST
        back = st.stored_run("old-run")
    assert back is not None and [f.about for f in back.findings] == [About.STUDY]
