"""Stand-in figures obey the rules a DBA checks (issue 41): foreground waits and DB CPU within DB time, the CPU
a SLOB read costs (the seed: about 20k IOPS per core, mostly DB CPU), the AWR host line the inventory's host."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.host import Host
from planner.rehearsal import sandbox
from planner.rehearsal.standins import awrgen, load_state

HOST = awrgen.HostInfo("labhost", cpus=16, cores=8, sockets=2)


@pytest.mark.slow
def test_an_awr_report_through_sqlplus_prints_the_inventorys_host_not_this_machines(tmp_path: Path) -> None:
    host = Host(name="bigiron", address="127.0.0.1", connection="local",
                vars={"cpus": 128, "cores": 64, "sockets": 8, "memory_gb": 1009.4})
    sandbox.populate(tmp_path, host, devices=(), kits={}, oracle=True)
    ctx = context(tmp_path)
    db = open_database(ctx, config_for(ctx))
    dbid = load_state(tmp_path)["database"]["dbid"]
    b = db.callfunc("dbms_workload_repository.create_snapshot", int)
    e = db.callfunc("dbms_workload_repository.create_snapshot", int)
    text = db.execute(f"select output from table(dbms_workload_repository.awr_report_text({dbid}, 1, {b}, {e}))")
    [line] = [ln for ln in text.splitlines() if ln.startswith("bigiron")]
    assert line.split()[-4:] == ["128", "64", "8", "1009.40"]
    assert "Host CPU (CPUs:  128 Cores:   64 Sockets:    8)" in text


IV = awrgen.Interval(1, 2, datetime(2026, 12, 7, 1, 0), 300.0)


@pytest.mark.parametrize(("sessions", "update_pct", "redo"), [
    (1, 0, "LITE"), (8, 0, "LITE"), (16, 0, "LITE"), (64, 0, "LITE"), (256, 0, "LITE"), (32, 25, "HEAVY"),
    (8, 100, "HEAVY"), (0, 0, "LITE")])
def test_foreground_waits_and_db_cpu_stay_within_db_time(sessions: int, update_pct: int, redo: str) -> None:
    from planner.parsers import parse_text
    from planner.rehearsal.standins import awrgen_render

    fig = awrgen.simulate(awrgen.Workload(sessions=sessions, update_pct=update_pct, redo_stress=redo), HOST,
                          awrgen.DbInfo())
    assert sum(e.time_s for e in fig.events) <= fig.db_time * IV.elapsed_s * 1.0001
    parsed = parse_text(awrgen_render.awr_text(fig, HOST, awrgen.DbInfo(), IV, sessions), "a.txt", "awr_text")
    shares = [m.value for m in parsed.metrics if m.name == "wait.pct_db_time"
              and dict(m.labels).get("section") == "top"]
    assert shares and sum(shares) <= 100.05, shares  # as printed: the Top 10's % DB time


def test_a_slob_read_costs_the_seeds_cpu_mostly_db_cpu() -> None:
    """The seed: about 20k SLOB IOPS per core, and its saturated host 79.7% user / 19.7% system: DB CPU follows
    the reads, and %System is the foreground's share of that CPU, not IOPS x 0.012."""
    big = awrgen.Workload(sessions=16, scale_blocks=1_000_000, schemas=16)  # far more data than cache: SLOB
    fig = awrgen.simulate(big, HOST, awrgen.DbInfo())
    assert fig.db_cpu == pytest.approx(fig.read_reqs / awrgen.IOPS_PER_CORE, rel=0.1)
    assert fig.user_pct > 3 * fig.sys_pct
    assert fig.sys_pct < fig.read_reqs * 0.012 / HOST.cpus  # the old model's %System


@pytest.mark.slow
def test_the_kits_log_names_the_snapshots_its_report_shows(tmp_path: Path) -> None:
    import re

    from test_oracle_kit import _apply, _slob_project

    from planner.rehearsal.standins import DEFAULT_HOME

    _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                  "oracle_diagnostics_pack=true")
    code, run, res = _apply(tmp_path)
    assert code == 0, res["msg"]
    [log] = run.rglob("runit.log")
    [report] = [p for p in (log.parent / "awr.txt", log.parent / "statspack.txt") if p.is_file()]
    logged = re.findall(r"(?:Before|After) (?:awr|statspack) snap ID is (\d+)", log.read_text())
    shown = re.findall(r"^\s*(?:Begin|End) Snap:\s+(\d+)", report.read_text(), re.M)
    assert len(logged) == 2 and logged == shown
