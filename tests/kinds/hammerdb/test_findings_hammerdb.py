"""The HammerDB findings: one case that triggers each, and one that does not."""

from __future__ import annotations

from pathlib import Path

from planner.kinds.hammerdb.findings import run_findings, short_timed_test, vu_over_warehouses
from planner.kinds.hammerdb.findings import setup as hammerdb_setup
from planner.metrics import Direction
from planner.results.finding import About
from planner.results.findings import Severity, all_findings, generator_on_db_host, oltp_not_scaling
from planner.results.measure import Measurement, RunData
from planner.results.runfolder import RunMeta
from planner.results.stats import Series, series

H, N = Direction.HIGHER, Direction.NEUTRAL
STEP = "plays[0].workloads[1]"


def m(metric: str, value: float, vu: int = 8, direction: Direction = N) -> Measurement:
    return Measurement("run1", "violin", "oel57", STEP, "tproc-c", "hammerdb", "run_console.txt",
                       "hammerdb", (("virtual_users", vu),), 0, 0, False, metric, (), value, "", direction, False,
                       False, metric == "hammerdb.nopm", "run_console.txt:1")


def point(vu: int, nopm: float, busy: float, *, ware: int = 64, failed: int = 0,
          minutes: float = 5) -> list[Measurement]:
    return [m("hammerdb.nopm", nopm, vu, H), m("hammerdb.active_vu", vu, vu), m("hammerdb.warehouses", ware, vu),
            m("hammerdb.vu_failed", failed, vu), m("hammerdb.duration_min", minutes, vu),
            m("os.cpu_busy_pct", busy, vu)]


def s(*points: list[Measurement]) -> list[Series]:
    return series([x for p in points for x in p])


def test_a_clean_sweep_has_no_hammerdb_finding() -> None:
    clean = s(point(8, 10_000, 40), point(16, 19_000, 60), point(32, 35_000, 80))
    assert hammerdb_setup(clean) == [] and oltp_not_scaling(clean) == []


def test_more_virtual_users_than_warehouses(tmp_path: Path) -> None:
    found = vu_over_warehouses(point(100, 2891, 50, ware=10), {}, rehearsal=False)
    assert [f.code for f in found] == ["vu_over_warehouses"] and found[0].severity is Severity.WARNING
    assert ("warehouses", "10") in found[0].numbers and "ch03s07" in found[0].message
    # the kind's findings reach every run through its spec (planner.results.kind_findings)
    data = RunData(tmp_path, RunMeta.from_mapping({"plays": [{"name": "violin"}]}), (),
                   tuple(point(100, 2891, 50, ware=10)), (), {}, ())
    assert "vu_over_warehouses" in {f.code for f in run_findings(data)}


def test_more_users_than_the_rehearsals_capped_warehouses_is_a_note_on_the_rehearsal() -> None:
    """Before: the pg rehearsal's report led with "More virtual users than warehouses" (8 on 4), a warning the
    rehearsal's own cap made (hammerdb.pg.REHEARSAL_CAPS: 4 warehouses), while the plan builds 160."""
    sweep, planned = [*point(8, 9_000, 40, ware=4), *point(32, 20_000, 60, ware=4)], {STEP: {"warehouses": 160}}
    found = vu_over_warehouses(sweep, planned, rehearsal=True)
    assert [(f.severity, f.title) for f in found] == [(Severity.NOTE, "More virtual users than the rehearsal's "
                                                                      "warehouses")] * 2
    assert ("the plan's warehouses", "160") in found[0].numbers
    assert {f.about for f in found} == {About.REHEARSAL}
    # a real run, or a plan whose own schema is too small for its users, keeps the warning
    assert {f.severity for f in vu_over_warehouses(sweep, planned, rehearsal=False)} == {Severity.WARNING}
    small = {STEP: {"warehouses": 16}}
    assert [f.severity for f in vu_over_warehouses(sweep, small, rehearsal=True)] == [Severity.NOTE,
                                                                                       Severity.WARNING]


def test_a_timed_test_the_rehearsal_cut_is_said_as_the_rehearsals() -> None:
    """The rehearsal cuts a PostgreSQL timed test to 2 min (REHEARSAL_CAPS): the plan's 5 min is not short."""
    cut = point(8, 9_000, 40, minutes=2)
    [f] = short_timed_test(cut, {STEP: {"duration": 5}}, rehearsal=True)
    assert (f.severity, f.title, f.about) == (Severity.NOTE, "Timed test cut short in the rehearsal", About.REHEARSAL)
    assert [g.title for g in short_timed_test(cut, {STEP: {"duration": 5}}, rehearsal=False)] == \
        ["Timed test shorter than HammerDB's default"]
    assert [g.title for g in short_timed_test(cut, {STEP: {"duration": 3}}, rehearsal=True)] == \
        ["Timed test shorter than HammerDB's default"]  # the plan's own window is short: said as before
    assert {g.about for g in short_timed_test(cut, {STEP: {"duration": 3}}, rehearsal=True)} == {About.STUDY}


def test_failed_virtual_users_and_a_short_timed_test() -> None:
    found = hammerdb_setup(s(point(100, 2891, 50, ware=400, failed=95, minutes=1)))
    found += short_timed_test(point(100, 2891, 50, ware=400, failed=95, minutes=1), {}, rehearsal=False)
    assert sorted(f.code for f in found) == ["short_timed_test", "vu_failed"]
    assert ("failed virtual users", "95") in next(f for f in found if f.code == "vu_failed").numbers


def test_nopm_that_stops_scaling_on_a_saturated_cpu() -> None:
    found = oltp_not_scaling(s(point(16, 20_000, 70), point(32, 20_500, 97)))
    assert [f.code for f in found] == ["oltp_not_scaling"] and found[0].point == "virtual_users=32"
    assert ("gain %", "2.5") in found[0].numbers
    assert "(HammerDB, How many warehouses for the TPROC-C test)" in found[0].message  # the kind's spec cites it
    assert oltp_not_scaling(s(point(16, 20_000, 70), point(32, 20_500, 60))) == []  # flat, but the CPU had room
    assert "oltp_not_scaling" in {f.code for f in all_findings(s(point(16, 20_000, 70), point(32, 20_500, 97)))}


def test_an_oltp_point_from_the_cache_is_not_the_io_tests_trap() -> None:
    cached = s([m("logical_reads_per_s", 2_644_674.5), m("physical_reads_per_s", 52_893.5)])
    assert "cached_reads" not in {f.code for f in all_findings(cached)}


def test_the_load_generator_on_the_database_host_is_said_once_per_step() -> None:
    """Issue 43: hammerdbcli runs on the step's host, the database's; the report says so as a caveat, citing
    HammerDB's own documentation (docs/oracle-behaviour.md 43.h11)."""
    sweep = s(point(8, 10_000, 40), point(16, 19_000, 60))
    found = generator_on_db_host(sweep)
    assert [f.code for f in found] == ["generator_on_db_host"] and found[0].severity is Severity.NOTE
    assert ("load generator", "hammerdbcli") in found[0].numbers and "Test Network Configuration" in found[0].message
    assert "generator_on_db_host" in {f.code for f in all_findings(sweep)}


def test_nopm_above_tpm_is_called_impossible() -> None:
    """Issue 43: a DBA calls NOPM > TPM impossible (each new order is a committed transaction); no check said so."""
    bad = s([*point(8, 50_000, 40), m("hammerdb.tpm", 30_000, 8, H)])
    [f] = [f for f in hammerdb_setup(bad) if f.code == "nopm_over_tpm"]
    assert f.severity is Severity.WARNING and ("TPM", "30,000") in f.numbers
    fine = s([*point(8, 50_000, 40), m("hammerdb.tpm", 111_000, 8, H)])
    assert "nopm_over_tpm" not in {f.code for f in hammerdb_setup(fine)}
