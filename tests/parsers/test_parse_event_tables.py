"""Issue 45: wait-event tables mapped by their header's words, never by position. Real pastes (sources in
tests/data/statspack/README.md)."""

from __future__ import annotations

from pathlib import Path

from planner.parsers import excerpt

DATA = Path(__file__).parents[1] / "data/statspack"


def _events(name: str) -> dict[str, dict[str, tuple[float, bool]]]:
    p = excerpt.parse((DATA / name).read_text(), name)
    assert not p.errors
    out: dict[str, dict[str, tuple[float, bool]]] = {}
    for m in p.metrics:
        out.setdefault(m.label("event"), {})[m.name] = (m.value, m.derived)
    return out


def test_9204_top5_has_no_average_column_and_its_percent_is_not_read_as_one() -> None:
    """AskTom's 9.2.0.4 Statspack: "Waits  Time (s)  % Total Ela Time". The last column was read as the
    average wait (latch free 25.68 ms); it is the share of time, and the average is time / waits, derived."""
    ev = _events("top5_9204_asktom.txt")
    assert list(ev) == ["CPU time", "latch free", "db file scattered read", "SQL*Net message from dblink",
                        "direct path write"]
    latch = ev["latch free"]
    assert latch["wait.waits"] == (899688, False) and latch["wait.time_s"] == (14371, False)
    assert latch["wait.pct_db_time"] == (25.68, False)
    assert latch["wait.avg_ms"] == (15.97, True)
    assert ev["CPU time"] == {"wait.time_s": (19612, False), "wait.pct_db_time": (35.04, False)}
    assert ev["direct path write"]["wait.avg_ms"] == (3.72, True)


def test_a_web_pages_top5_with_one_field_per_line() -> None:
    """A Burleson page's 9i Top 5: every field on a line of its own, the rule split over two lines, a
    percentage's leading zero gone (".99")."""
    ev = _events("top5_9i_one_field_per_line_burleson.txt")
    assert list(ev) == ["db file sequential read", "CPU time", "db file scattered read", "log file sync",
                        "log buffer space"]
    assert ev["db file sequential read"]["wait.waits"] == (568948, False)
    assert ev["db file sequential read"]["wait.time_s"] == (4375, False)
    assert ev["db file sequential read"]["wait.pct_db_time"] == (66.15, False)
    assert ev["CPU time"] == {"wait.time_s": (1983, False), "wait.pct_db_time": (29.99, False)}
    assert ev["db file scattered read"]["wait.pct_db_time"] == (0.99, False)
    assert ev["log buffer space"]["wait.avg_ms"] == (27.37, True)


def test_html_top5_whose_summary_is_only_its_title() -> None:
    """Constructed from the real 12.2 report (no public 11.2.0.3 HTML report was found): its Top 10 table's
    summary set to what an 11.2.0.3 report prints, "Top 5 Timed Foreground Events", with no "This table
    displays" before it. The same events must be read."""
    from planner.parsers import parse_text

    real = (Path(__file__).parents[1] / "data/awr/awr_122_aimsdb_noncdb.html").read_text()
    old = 'summary="This table displays top 10 wait events by total wait time"'
    assert old in real
    want = parse_text(real, "awr.html")
    got = parse_text(real.replace(old, 'summary="Top 5 Timed Foreground Events"'), "awr.html")
    top = [(m.label("event"), m.value) for m in want.all("wait.time_s") if m.label("section") == "top"]
    assert top and [(m.label("event"), m.value) for m in got.all("wait.time_s") if m.label("section") == "top"] == top


HOST_CPU_11204 = """\
Host CPU
~~~~~~~~                  Load Average
 CPUs Cores Sockets     Begin       End     %User   %System      %WIO     %Idle
----- ----- ------- --------- --------- --------- --------- --------- ---------
   16     8       2      0.92      1.40       3.4       1.3       0.2      95.1
"""


def test_11204_host_cpu_row_with_blank_cores_and_sockets() -> None:
    """Constructed in 11.2.0.4's text layout (Host CPU with CPUs/Cores/Sockets columns): with Cores and Sockets
    left blank (a VM), the load average was read as cores and sockets and every later column shifted."""
    from planner.parsers import excerpt

    full = excerpt.parse("Load Profile\n\n" + HOST_CPU_11204, "x")
    assert full.value("host_cpu.idle_pct") == 95.1 and full.value("host_cpu.cores") == 8
    blank = HOST_CPU_11204.replace("   16     8       2", "   16               ")
    p = excerpt.parse("Load Profile\n\n" + blank, "x")
    assert p.value("host_cpu.cpus") == 16 and p.get("host_cpu.cores") is None and p.get("host_cpu.sockets") is None
    assert (p.value("host_cpu.load_avg_begin"), p.value("host_cpu.load_avg_end")) == (0.92, 1.40)
    assert (p.value("host_cpu.user_pct"), p.value("host_cpu.idle_pct")) == (3.4, 95.1)


def test_statspack_db_cpu_minutes_and_average_active_sessions() -> None:
    """Statspack 10g+ prints DB CPU and Av Act Sess beside Elapsed and DB time (both real reports)."""
    from planner.parsers import parse_file

    igt = parse_file(Path(__file__).parents[1] / "data/statspack/sp_11204_igt.txt")
    assert (igt.value("db_time_min"), igt.value("db_cpu_min"), igt.value("aas")) == (10.30, 19.78, 0.0)
    getperf = parse_file(Path(__file__).parents[1] / "data/statspack/sp_12102_getperf.txt")
    assert getperf.value("db_cpu_min") == 0.15 and getperf.value("aas") == 0.1


def test_a_whole_report_is_never_called_truncated() -> None:
    """A report that ends with AWR's last line ("End of Report") is whole: a section planner cannot find there is a
    layout it does not know. Constructed: the real 11.2.0.3 RAC report (its Top 5 kept apart) with that line."""
    from planner.parsers import parse_text

    real = (Path(__file__).parents[1] / "data/awr/awr_11203_rac_askmaclean.txt").read_text()
    cut = [str(e) for e in parse_text(real, "awr.txt").errors if "Top Events" in str(e)]
    whole = [str(e) for e in parse_text(real + "\nEnd of Report\n", "awr.txt").errors if "Top Events" in str(e)]
    assert cut and "truncated report?" in cut[0]
    assert whole and "truncated" not in whole[0] and "the report is whole" in whole[0]
