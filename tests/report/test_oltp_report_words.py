"""Issue 43: an OLTP report read as a DBA reads it — points in the kind's own words, the winner and its margin
first, units said once, no average wait AWR's whole seconds cannot give."""

from __future__ import annotations

from planner.metrics import Direction
from planner.report.context import _os, _waits
from planner.report.finding_groups import finding_rows as _finding_rows
from planner.report.study import Row, result
from planner.results.finding import Finding, Severity
from planner.results.stats import Series


def _s(play: str, kind: str, params: tuple[tuple[str, object], ...], metric: str, value: float, unit: str = "",
       labels: tuple[tuple[str, str], ...] = (), direction: Direction = Direction.HIGHER,
       title: str = "SOE") -> Series:
    return Series(play, "h", "plays[0].workloads[0]", title, kind, params, metric, metric, labels, unit,
                  direction, True, False, (value,), 0)


def test_a_swingbench_point_is_said_in_swingbench_words_not_slbs() -> None:
    users = (("users", 8),)
    waits = _waits([_s("V", "swingbench", users, "wait.waits", 10, labels=(("event", "db file sequential read"),)),
                    _s("V", "swingbench", users, "wait.time_s", 1, labels=(("event", "db file sequential read"),))])
    os_ = _os([_s("V", "swingbench", users, "os.cpu_busy_pct", 50.0, "%")], lab=False)
    assert waits[0]["point_words"] == "8 Swingbench users"  # was "SLB processes 8"
    assert os_[0]["point_words"] == "8 Swingbench users"


def test_a_finding_names_its_point_in_words_not_the_record_key() -> None:
    f = Finding("generator_on_db_host", Severity.NOTE, "The load generator ran on the database host", "V", "h",
                "TPROC-C", "virtual_users=8", "m", ())
    rows = _finding_rows([f], [_s("V", "hammerdb", (("virtual_users", 8),), "hammerdb.nopm", 1, title="TPROC-C")])
    assert rows[0]["point_words"] == "8 virtual users"  # was said as "virtual_users=8"
    assert rows[0]["point"] == "virtual_users=8"  # the record's key, as the store holds it


def _nopm(play: str, by_users: dict[int, float]) -> list[Series]:
    return [_s(play, "hammerdb", (("virtual_users", u),), "hammerdb.nopm", v, "NOPM", title="TPROC-C")
            for u, v in by_users.items()]


def test_the_result_says_which_system_won_and_by_how_much() -> None:
    row = Row("TPROC-C", "hammerdb.nopm")
    ss = _nopm("Exadata", {8: 143_701, 64: 392_840}) + _nopm("Violin", {8: 159_352, 64: 669_598})
    got = result({row: ss}, {"hammerdb.nopm": "HammerDB NOPM"}, ["Exadata", "Violin"], [], [])
    assert got["compared"] == [{"what": "HammerDB NOPM, TPROC-C", "lead": "Violin",
                                "text": "669,598 at 64 virtual users, 70% more than Exadata (392,840 at 64 virtual "
                                        "users)"}]


def test_the_result_does_not_say_a_unit_its_words_already_say() -> None:
    row = Row("SOE", "swingbench.tps")
    ss = [_s("V", "swingbench", (("users", u),), "swingbench.tps", v, "transactions/s")
          for u, v in ((8, 2_095.1), (32, 8_380.2))]
    got = result({row: ss}, {"swingbench.tps": "Swingbench transactions per second"}, ["V"], [], [])
    assert got["systems"][0]["lines"][0]["text"] == ("8,380.2 Swingbench transactions per second at 32 Swingbench "
                                                     "users (best of 2 points)")  # was "... transactions/s Swingbench"
    assert got["compared"] == []


def test_an_awr_time_of_0_s_over_real_waits_is_a_bound_not_0_ms() -> None:
    ev = (("event", "db file parallel read"),)
    got = _waits([_s("V", "hammerdb", (), "wait.waits", 255, labels=ev),
                  _s("V", "hammerdb", (), "wait.time_s", 0, labels=ev)])
    assert got[0]["events"][0]["avg_ms"] == "under 1.96"  # was "0.00": AWR prints whole seconds


def test_a_hammerdb_point_shows_the_schemas_warehouses_and_whole_counts() -> None:
    """The sweep table said "HammerDB virtual users failed 0.0" and never the warehouses NOPM ran on."""
    from planner.report.context import _sweep_table, table_metrics

    ss = [_s("V", "hammerdb", (("virtual_users", 8),), m, v, u, title="TPROC-C") for m, v, u in
          (("hammerdb.nopm", 143_701, "NOPM"), ("hammerdb.warehouses", 320, "warehouses"),
           ("hammerdb.vu_failed", 0, "users"))]
    t = _sweep_table(ss, table_metrics("hammerdb", ("hammerdb.nopm", "hammerdb.vu_failed")))
    assert t["columns"][1:] == ["HammerDB warehouses in the schema", "HammerDB virtual users failed"]
    assert t["rows"][0]["cells"] == ["143,701", "320", "0"]


def test_the_summarys_supporting_rows_print_whole_counts_too() -> None:
    """The Summary's rows below the headline said "HammerDB warehouses in the schema 320.0", "failed 0.0"."""
    from planner.report.study import summary

    head, ware = Row("TPROC-C", "hammerdb.nopm"), Row("TPROC-C", "hammerdb.warehouses")
    nopm = _nopm("V", {8: 143_701, 64: 392_840})
    wh = [_s("V", "hammerdb", (("virtual_users", u),), "hammerdb.warehouses", 320, "warehouses", title="TPROC-C")
          for u in (8, 64)]
    got = summary({head: nopm}, {"hammerdb.nopm": "HammerDB NOPM", "hammerdb.warehouses": "HammerDB warehouses"},
                  [("V", "")], {ware: wh})
    assert [r for r in got["rows"] if "warehouses" in str(r)][0]["cells"] == ["320"]


def test_a_metric_left_uncharted_names_the_workload_it_says_nothing_for() -> None:
    """The OLTP study: "Not charted …: Physical write IOPS (at most 0.5 …)" — SLOB's read-only write IOPS, while
    TPROC-C's 16,645 write IOPS were charted just above: the line must say which workload it means."""
    from pathlib import Path

    import planner.report
    from planner.report.render import environment

    env = environment([Path(planner.report.__file__).parent / "templates"])
    macro = env.get_template("_macros.md.j2").module.charts_section  # type: ignore[attr-defined]
    text = str(macro({"charts": [], "silent": [{"name": "Physical write IOPS", "max": "0.5",
                                                "against": "Physical read IOPS", "workload": "SLOB read-only"}]}))
    assert "Physical write IOPS of SLOB read-only (at most 0.5, under 1% of Physical read IOPS)" in text
