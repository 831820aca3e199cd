"""Every column planner's pg_stat snapshot reads exists in that release's view, by PostgreSQL's own documentation.

Only PostgreSQL 15 runs here (Debian), so the other releases are held to tests/data/pg_stat/view_columns.csv: the
columns of each view planner reads, the release each came in and the last one that has it, from the "Cumulative
Statistics System" chapter of each release's documentation (sources in tests/data/pg_stat/README.md). The 15
rows of that table are checked against the real server, so the table cannot drift from what a server says.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from pg_cluster import PgCluster

from planner.steps.pg_stat import queries

TABLE = Path(__file__).parents[1] / "data" / "pg_stat" / "view_columns.csv"
RELEASES = ("9.6", "10", "11", "12", "13", "14", "15", "16", "17", "18")
# views the table lists whole (every documented column); of the others only the columns planner may read
WHOLE = frozenset({"pg_stat_database", "pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_io", "pg_stat_wal"})


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


def _table() -> list[dict[str, str]]:
    with TABLE.open(newline="") as f:
        return list(csv.DictReader(f))


def columns(view: str, release: str) -> set[str]:
    """The view's columns in that release, by the table."""
    r = _key(release)
    return {row["column"] for row in _table() if row["view"] == view and _key(row["since"]) <= r
            and (not row["until"] or r <= _key(row["until"]))}


def _version_num(release: str) -> int:
    major = _key(release)
    return major[0] * 10000 + major[1] * 100 if major[0] < 10 else major[0] * 10000


def _read(row_sql: str) -> list[tuple[str, str]]:
    """(view, column) for every word of a snapshot row that is a column of a view it selects from, in any release."""
    text = re.sub(r"'[^']*'", "''", row_sql)  # literals are values, not columns
    views = re.findall(r"\bfrom (pg_\w+)", text)
    known = {row["view"]: set() for row in _table()}
    for row in _table():
        known[row["view"]].add(row["column"])
    words = set(re.findall(r"\b[a-z_]+\b", text))
    assert all(v in known for v in views), f"a view the table does not know: {views}"
    return [(v, w) for v in views for w in sorted(words & known[v])]


@pytest.mark.parametrize("release", RELEASES)
def test_every_column_read_is_in_that_releases_view(release: str) -> None:
    missing = [f"{view}.{column}" for row in queries(_version_num(release), True).split("\nunion all\n")
               for view, column in _read(row) if column not in columns(view, release)]
    assert not missing, f"PostgreSQL {release} has no {', '.join(missing)}"


def test_18_counts_io_in_bytes_not_operations() -> None:
    # 18 counts a read or extend of many blocks as one operation (pg_stat_io's reads, extends); the bytes give blocks
    row = next(r for r in queries(180000, False).split("\nunion all\n") if r.startswith("select 'io|'"))
    assert all(f"sum({c}_bytes)" in row for c in ("read", "write", "extend")) and "sum(reads)" not in row


@pytest.mark.slow
def test_the_15_rows_of_the_table_are_what_a_real_15_server_has(pg_cluster: PgCluster) -> None:
    version = int(pg_cluster.psql("show server_version_num").strip())
    if version // 10000 != 15:
        pytest.skip(f"the table's rows are checked against PostgreSQL 15; this server is {version}")
    db = pg_cluster.new_database()
    pg_cluster.psql("create extension if not exists pg_stat_statements", db)
    for view in sorted({row["view"] for row in _table()}):
        documented = columns(view, "15")
        if not documented:  # a view of another release (pg_stat_io, pg_stat_checkpointer)
            continue
        server = set(pg_cluster.psql(f"select attname from pg_attribute where attrelid = '{view}'::regclass "
                                     "and attnum > 0 and not attisdropped", db).split())
        if view in WHOLE:
            assert server == documented, f"{view}: server {sorted(server)} table {sorted(documented)}"
        else:
            assert documented <= server, f"{view}: not on the server: {sorted(documented - server)}"
