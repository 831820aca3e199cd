"""HammerDB on PostgreSQL: the result line in both orders, read by planner/kinds/hammerdb/parse.py."""

from __future__ import annotations

from pathlib import Path

from planner.kinds.hammerdb import parse as hammerdb
from planner.parsers.unwrap import unwrap

DATA = Path(__file__).parents[2] / "data" / "hammerdb"


def test_postgresql_tpm_first_order_from_a_real_log() -> None:
    p = hammerdb.parse(unwrap((DATA / "hammerdb_pg_tpm_at_nopm_ja.md").read_text()).text)
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.fact("database")) == (6461, 14999, "PostgreSQL")


def test_postgresql_nopm_first_order_from_a_real_log() -> None:
    p = hammerdb.parse((DATA / "siddhsql_hammerdb_pg_10vu.txt").read_text())
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.fact("database")) == (2602, 6190, "PostgreSQL")
