"""Issue 43: findings an OLTP DBA would not call impossible — a fall is not a negative rise, and more active
sessions than CPUs is not CPU queueing when most of them wait on I/O."""

from __future__ import annotations

from planner.metrics import Direction
from planner.results.finding import Severity
from planner.results.findings import all_findings, oltp_not_scaling
from planner.results.findings_db import cpu_saturation
from planner.results.stats import Series


def _s(users: int, metric: str, value: float, unit: str = "") -> Series:
    return Series("P", "h", "plays[0].workloads[0]", "TPROC-C", "hammerdb", (("virtual_users", users),), metric,
                  metric, (), unit, Direction.HIGHER, True, False, (value,), 0)


def test_throughput_that_fell_is_said_to_fall() -> None:
    ss = [_s(16, "hammerdb.nopm", 25_968), _s(16, "hammerdb.active_vu", 16), _s(16, "os.cpu_busy_pct", 99.9),
          _s(32, "hammerdb.nopm", 18_100), _s(32, "hammerdb.active_vu", 32), _s(32, "os.cpu_busy_pct", 99.9)]
    [f] = oltp_not_scaling(ss)
    assert "fell 30.3% from 16 to 32 virtual users" in f.message  # was "rose -30.3%"


def test_sessions_waiting_on_io_are_not_said_to_queue_for_cpu() -> None:
    ss = [_s(64, "cpus", 16), _s(64, "aas", 64.0), _s(64, "db_cpu_per_s", 5.1)]
    [f] = cpu_saturation(ss)
    assert "not queueing for the CPU" in f.message and "part of the DB time is queueing" not in f.message
    assert ("DB CPU per second", "5.1") in f.numbers
    busy = [_s(64, "cpus", 16), _s(64, "aas", 20.0), _s(64, "db_cpu_per_s", 12.0)]
    [g] = cpu_saturation(busy)
    assert "part of the DB time is queueing" in g.message


def test_a_rehearsals_busy_cpu_is_a_note_on_the_rehearsing_machine_not_the_runs_warning() -> None:
    """hammerdb_pg_vusers rehearsed: mpstat on the 2-core rehearsing machine read 100% busy, and "CPU-bound run"
    (a warning: "read with care") was the report's most important finding about a host it never measured."""
    ss = [_s(8, "os.cpu_busy_pct", 100.0, "%"), _s(8, "hammerdb.nopm", 20_000)]
    [f] = [f for f in all_findings(ss, rehearsal=True) if f.code == "cpu_bound"]
    assert (f.severity, f.title) == (Severity.NOTE, "CPU busy in the rehearsal")
    assert "rehearsing machine" in f.message
    [g] = [f for f in all_findings(ss) if f.code == "cpu_bound"]  # a real run: the warning it was
    assert (g.severity, g.title) == (Severity.WARNING, "CPU-bound run")


def test_the_load_generator_note_names_the_awr_only_where_there_is_one() -> None:
    """HammerDB on PostgreSQL: "… and the AWR's host CPU describe the database and its load generator" — there
    is no AWR on PostgreSQL."""
    from planner.results.findings import generator_on_db_host

    pg = [_s(8, "hammerdb.nopm", 13_473)]
    [f] = generator_on_db_host(pg)
    assert "AWR" not in f.message and "HammerDB NOPM and the CPU figures describe" in f.message
    [g] = generator_on_db_host([*pg, _s(8, "host_cpu.idle_pct", 60.0, "%")])
    assert "the CPU figures and the AWR's host CPU describe" in g.message


def test_the_load_generator_note_is_about_the_step_not_its_first_point() -> None:
    """It says "at every point" but was filed under the first ("(Exadata X2-8, 8 virtual users)")."""
    from planner.results.findings import generator_on_db_host

    [f] = generator_on_db_host([_s(8, "hammerdb.nopm", 13_473), _s(16, "hammerdb.nopm", 25_968)])
    assert f.point == "—" and "at every point" in f.message
