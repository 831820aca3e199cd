"""Issue 45: the findings a DBA raises at first sight (planner/results/findings_db.py), on real reports where one
was found (sources in the tests/data READMEs), else a real report with the named change, said so."""

from __future__ import annotations

from pathlib import Path

from planner.metrics import Direction
from planner.results.analyze import analyze
from planner.results.findings import all_findings
from planner.results.measure import Measurement
from planner.results.stats import series

DATA = Path(__file__).parents[1] / "data"


def _codes(*files: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in analyze(list(files)).findings:
        out.setdefault(f.code, []).append(f.title)
    return out


def test_commits_waiting_on_redo_in_a_real_19c_report() -> None:
    found = _codes(DATA / "awr/awr_19c_orclcdb.html")
    assert found["commit_wait"] == ["Commits wait on redo: log file sync 19.5% of DB time"]


def test_rac_global_cache_waits_in_a_real_10g_layout_top5() -> None:
    found = _codes(DATA / "awr/top5_10g_layout_askmaclean.txt")
    assert found["cluster_waits"] == ["RAC global cache waits take 69.3% of DB time"]


def test_a_slob_report_whose_reads_went_direct_path() -> None:
    """A real SLOB 12.2 report: a third of DB time in direct path reads, which bypass the buffer cache."""
    found = _codes(DATA / "awr/awr_122_slob2.html")
    assert found["direct_reads"] == ["32.1% of DB time in direct path reads"]


def test_more_active_sessions_than_cpus() -> None:
    found = _codes(DATA / "awr/awr_11201_orcl_fabioprado.txt")
    assert found["sessions_over_cpus"] == ["23.5 average active sessions on 2 CPUs"]


def test_no_db_finding_on_a_quiet_report() -> None:
    quiet = _codes(DATA / "statspack/sp_11204_igt.txt")
    assert not {"commit_wait", "cluster_waits", "direct_reads", "concurrency", "cpu_steal", "cpu_saturated",
                "sessions_over_cpus"} & set(quiet)


def test_concurrency_storm(tmp_path: Path) -> None:
    """Constructed: the real 10g-layout Top 5 with its gc events renamed to library cache and cursor mutexes and
    their class to Concurrency (no public report with a Concurrency storm in its Top 5 was found)."""
    real = (DATA / "awr/top5_10g_layout_askmaclean.txt").read_text()
    storm = real.replace("gc buffer busy                ", "library cache: mutex X        ") \
        .replace("gc current request            ", "cursor: pin S wait on X       ").replace("Cluster", "Concurr")
    f = tmp_path / "top5.txt"
    f.write_text(storm)
    found = analyze([f]).findings
    (c,) = [x for x in found if x.code == "concurrency"]
    assert c.title == "Concurrency waits take 69.3% of DB time"
    assert "library cache: mutex X 65.4%" in c.message and "cluster_waits" not in {x.code for x in found}


def test_cpu_steal_in_a_guest(tmp_path: Path) -> None:
    """Constructed: the real `sar -u` (sysstat 12.6.1) with its %steal set to 89.7 and %user lowered to match."""
    lines = (DATA / "ostats/sar-u-then-r-sysstat12.txt").read_text().splitlines()
    cpu = [ln.replace("0.50      0.00", "89.70      0.00").replace("87.00", " 0.00") if " all " in ln else ln
           for ln in lines[:6]]
    f = tmp_path / "sar.txt"
    f.write_text("\n".join(cpu) + "\n")
    found = [x for x in analyze([f]).findings if x.code == "cpu_steal"]
    assert found and found[0].severity.value == "warning" and "steal" in found[0].title


def _m(kind: str, metric: str, value: float) -> Measurement:
    return Measurement("run1", "play", "host", "plays[0].workloads[0]", kind, kind, "out.txt", kind, (), 0, 0,
                       False, metric, (), value, "", Direction.NEUTRAL, False, False, False, "out.txt:1")


def test_slb_gets_no_storage_finding() -> None:
    """SLB is a CPU and memory test: a busy CPU is its point, not a CPU-bound storage run (issue 39, 45)."""
    slb = series([_m("slb", "os.cpu_busy_pct", 99.0), _m("slb", "host_cpu.idle_pct", 1.0)])
    assert [f.code for f in all_findings(slb)] == []
    fio = series([_m("fio", "os.cpu_busy_pct", 99.0)])
    assert [f.code for f in all_findings(fio)] == ["cpu_bound"]


def test_exadata_single_block_reads_at_disk_latency(tmp_path: Path) -> None:
    """Constructed: the real 10g-layout Top 5 with 'gc current request' (1,221 ms) renamed to Exadata's cell
    single-block read: far above the flash cache's sub-millisecond answer."""
    real = (DATA / "awr/top5_10g_layout_askmaclean.txt").read_text()
    f = tmp_path / "top5.txt"
    f.write_text(real.replace("gc current request            ", "cell single block physical rea"))
    (x,) = [x for x in analyze([f]).findings if x.code == "cell_reads_from_disk"]
    assert x.title == "Exadata single-block reads average 1,221 ms"


def _slob(readers: int, aas: float) -> list[Measurement]:
    return [Measurement("run1", "violin", "db1", "plays[0].workloads[0]", "slob", "slob", "awr.txt", "awr_text",
                        (("readers", readers),), 0, 0, False, "db_time_per_s", (), aas, "s/s", Direction.NEUTRAL,
                        False, False, False, "awr.txt:1")]


def test_db_time_from_sessions_outside_the_slob_run() -> None:
    found = all_findings(series(_slob(16, 29.0)))
    assert [(f.code, f.title) for f in found] == [("outside_sessions", "29.0 active sessions for 16 SLOB sessions")]


def test_an_awr_window_that_misses_the_slob_run() -> None:
    assert [f.code for f in all_findings(series(_slob(64, 20.0)))] == ["window_misses_run"]
    assert all_findings(series(_slob(64, 61.5))) == []


def test_a_rehearsals_steal_is_the_rehearsing_machines_not_the_simulated_hosts() -> None:
    """The headline rehearsal's verdict read "read with care: The hypervisor took 18.3% of the CPUs (steal)" of
    Exadata X2-8: mpstat ran on the machine that rehearsed, under SLOB's stand-in, whose figures steal cannot touch.
    A real fio in a rehearsal (its artifacts not simulated) keeps the warning: its figures are this machine's."""
    from dataclasses import replace

    lab = series([replace(_m("slob", "os.cpu_steal_pct", 18.3), simulated=True)])
    (f,) = [x for x in all_findings(lab) if x.code == "cpu_steal"]
    assert f.severity.value == "note" and "rehearsing machine" in f.title
    real = series([_m("fio", "os.cpu_steal_pct", 18.3)])
    (g,) = [x for x in all_findings(real) if x.code == "cpu_steal"]
    assert g.severity.value == "warning" and g.title == "The hypervisor took 18.3% of the CPUs (steal)"
