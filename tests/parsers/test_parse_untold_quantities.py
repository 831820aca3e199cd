"""Issue 45: a quantity a paste cannot tell apart is refused for that quantity, by name, never guessed.

Each paste is a real file of tests/data with the named damage (the header line a person left out of the copy):
no public paste was found with exactly that damage and known values.
"""

from __future__ import annotations

from pathlib import Path

from planner.errors import ParseError
from planner.parsers import parse_text

DATA = Path(__file__).parents[1] / "data"


def _without(path: Path, *starts: str) -> str:
    """The file without its lines that start with any of ``starts`` (after leading blanks)."""
    return "\n".join(ln for ln in path.read_text().split("\n") if not ln.strip().startswith(starts))


def test_a_top_5_percent_with_no_header_word_over_it_is_not_read_as_percent_of_db_time() -> None:
    """10g's "%Total Call Time" with the title's "Avg %Total" and the "wait Call" line left out: the last cell
    could be % of DB time (11g+), of call time (10g) or of elapsed wait time (9i). Before: read as % DB time."""
    path = DATA / "awr/top5_10g_layout_askmaclean.txt"
    text = _without(path, "wait   Call").replace("Avg %Total", "")
    p = parse_text(text, str(path))
    assert not [m for m in p.metrics if m.name == "wait.pct_db_time"]
    assert p.value("wait.time_s", event="gc buffer busy") == 73024  # the cells the header names still read
    assert any("cannot be told apart" in str(e) and "% column" in str(e) for e in p.errors)


def test_a_9i_top_5_without_its_ela_time_line_is_not_read_as_percent_of_db_time() -> None:
    """9.2.0.4's "% Total Ela Time" (of total elapsed wait + CPU time, not DB time: 9i has none) pasted without
    its header lines above "Event". Before: every row's last cell became wait.pct_db_time."""
    path = DATA / "statspack/top5_9204_asktom.txt"
    text = "\n".join(ln.replace("% Total", "").replace("Ela Time", "").replace("%", "")
                     for ln in path.read_text().split("\n"))
    p = parse_text(text, str(path))
    assert not [m for m in p.metrics if m.name == "wait.pct_db_time"]
    assert p.value("wait.waits", event="latch free") == 899688


def test_an_11g_top_5_without_its_percent_db_line_still_reads_percent_of_db_time() -> None:
    """11g+ prints "% DB" over a lowercase "time": the column word left in the paste still names it (a real
    dotted paste, seeds_like/exadata_x28_writers_flashback.txt, has no "% DB" line)."""
    path = DATA / "awr/awr_11201_orcl_fabioprado.txt"
    text = path.read_text().replace("wait   % DB", "wait")
    p = parse_text(text, str(path))
    assert p.value("wait.pct_db_time", event="db file sequential read") == 77.5


def test_sar_cpu_rows_without_their_header_are_refused_by_name() -> None:
    """sysstat 12's sar -u rows (tests/data/ostats/sar-u-then-r-sysstat12.txt) pasted without the header line:
    -u prints 6 figures, -u ALL 9, mpstat 10, in orders that changed across releases. Before: "sysstat banner
    only ... no iostat / mpstat report rows", as if no rows were there."""
    path = DATA / "ostats/sar-u-then-r-sysstat12.txt"
    lines = path.read_text().split("\n")
    end = lines.index("", 3)
    text = "\n".join(ln for ln in lines[:end] if "%user" not in ln)
    try:
        parse_text(text, str(path))
    except ParseError as e:
        assert "without their header line" in str(e) and "cannot be told apart" in str(e)
    else:
        raise AssertionError("read CPU rows without a header")


def test_a_load_profile_row_left_with_one_of_its_two_values_is_not_read() -> None:
    """Every Load Profile row but Transactions prints per second and per transaction; a paste that lost one
    (sp_11204_igt.txt's "Logical reads: 302.2 529.3" without its 302.2) leaves a number that could be either.
    Before: 529.3 was read as logical reads per second."""
    path = DATA / "statspack/sp_11204_igt.txt"
    text = path.read_text().replace("Logical reads:              302.2", "Logical reads:              ")
    p = parse_text(text, str(path))
    assert p.value("logical_reads_per_s") is None and p.value("logical_reads_per_txn") is None
    assert p.value("redo_size_per_s") == 11431.3 and p.value("transactions_per_s") == 0.6
    assert any("Logical reads" in str(e) and "cannot be told apart" in str(e) for e in p.errors)
