"""The pg_stat snapshot text is a host's answer: read strictly (bounded, typed, each row once), its delta computed
by name, and the record read back typed. Pinned on the real PostgreSQL 15 snapshots in tests/data/pg_stat."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import detect, parse_file
from planner.parsers.pg_stat import MAX_SNAPSHOT_CHARS, delta, from_record, parse_snapshot, to_record

DATA = Path(__file__).parents[2] / "data" / "pg_stat"
BEGIN = (DATA / "pg_stat_begin.txt").read_text()
END = (DATA / "pg_stat_end.txt").read_text()


def test_the_real_snapshots_give_the_points_figures() -> None:
    d = delta(parse_snapshot(BEGIN), parse_snapshot(END))
    assert (d.server_version_num, d.max_connections, d.shared_buffers_bytes) == (150018, 50, 134217728)
    assert (d.commits, d.rollbacks, d.blocks_read, d.blocks_hit) == (512, 1, 1897, 17853)
    assert (d.checkpoints_requested, d.checkpoint_buffers, d.blocks_written) == (1, 2812, 4823)
    assert (d.wal_bytes, d.temp_files, d.deadlocks, d.statement_calls) == (13142861, 4, 0, 3311)
    assert d.cache_hit_pct == pytest.approx(100 * 17853 / (17853 + 1897))
    assert from_record(to_record(d)) == d


def test_the_record_is_detected_and_read_as_metrics() -> None:
    text = (DATA / "pg_stat.json").read_text()
    assert detect(text) == "pg_stat"
    m = {x.key: x.value for x in parse_file(DATA / "pg_stat.json").metrics}
    assert m["pg_stat.checkpoints"] == 1 and m["pg_stat.wal_bytes"] == 13142861
    assert m["pg_stat.tps"] == pytest.approx(513 / 2.6903419494628906)


def test_rows_in_another_order_are_matched_by_name() -> None:
    # psql prints a UNION ALL's rows in no promised order: the delta pairs them by view and column
    reordered = "\n".join(reversed(END.splitlines()))
    assert delta(parse_snapshot(BEGIN), parse_snapshot(reordered)) == delta(parse_snapshot(BEGIN),
                                                                            parse_snapshot(END))


@pytest.mark.parametrize(("text", "says"), [
    (BEGIN.replace("database|", "database|x"), "begin:3: .*database.xact_commit is 'x\\d+', not a whole number"),
    (BEGIN.replace("wal|", "wal|1|"), "row 'wal' has 4 values, not 3"),
    (BEGIN + "wal|1|2|3\n", "row 'wal' twice"),
    (BEGIN.replace("tables|", "ERROR:  permission denied|"), "unknown row"),
    ("\n".join(x for x in BEGIN.splitlines() if not x.startswith("settings")), "no settings row"),
    (BEGIN.replace("clock|", "clock|1e999"), "not a number"),
    (BEGIN.replace("autovacuum|0", "autovacuum|" + "9" * 19), "beyond a bigint"),
    ("x" * (MAX_SNAPSHOT_CHARS + 1), "more than the"),
    (BEGIN + "\n".join(f"row{i}|1" for i in range(40)), "rows, more than"),
])
def test_a_garbled_snapshot_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(ParseError, match=says):
        parse_snapshot(text, "begin")


def test_a_reset_between_the_snapshots_is_refused() -> None:
    with pytest.raises(ParseError, match="counters went down"):
        delta(parse_snapshot(END), parse_snapshot(BEGIN))


def test_snapshots_of_different_views_are_refused() -> None:
    fewer = "\n".join(x for x in END.splitlines() if not x.startswith("wal"))
    with pytest.raises(ParseError, match="different views"):
        delta(parse_snapshot(BEGIN), parse_snapshot(fewer))


@pytest.mark.parametrize("text", ["{", "[]", '{"record": "database statistics", "format": 1}',
                                  (DATA / "pg_stat.json").read_text().replace('"commits": 512.0', '"commits": "x"'),
                                  (DATA / "pg_stat.json").read_text().replace('"deadlocks": 0.0', '"deadlocks": true')])
def test_a_record_from_elsewhere_is_read_typed(text: str) -> None:
    with pytest.raises(ParseError):
        from_record(text)


@pytest.mark.parametrize(("version", "statements", "views"), [
    (90600, False, {"bgwriter"}),  # 9.6: no pg_stat_wal, no pg_stat_io
    (120000, True, {"bgwriter", "statements:total_time"}),  # before 13 pg_stat_statements has total_time
    (140000, False, {"bgwriter", "wal"}),  # pg_stat_wal from 14
    (160000, True, {"bgwriter", "wal", "io", "statements:total_exec_time"}),  # pg_stat_io from 16
    (170000, False, {"checkpointer", "bgwriter17", "wal", "io"}),  # 17 moved checkpoints to pg_stat_checkpointer
])
def test_the_servers_release_decides_the_views(version: int, statements: bool, views: set[str]) -> None:
    from planner.steps.pg_stat import queries

    sql = queries(version, statements)
    asked = {t for t in ("bgwriter", "checkpointer", "bgwriter17", "wal", "io") if f"'{t}|'" in sql}
    if "'statements|'" in sql:
        asked.add("statements:" + ("total_exec_time" if "total_exec_time" in sql else "total_time"))
    assert asked == views
    assert all(f"'{t}|'" in sql for t in ("clock", "settings", "database", "tables", "autovacuum"))


def test_a_table_dropped_inside_the_point_is_no_reset() -> None:
    # pg_stat_all_tables' sums drop with a dropped table: that is not a reset, and its runs are not negative
    begin = BEGIN.replace("tables|0|0", "tables|5|3")
    assert delta(parse_snapshot(begin), parse_snapshot(END)).autovacuum_runs == 0
