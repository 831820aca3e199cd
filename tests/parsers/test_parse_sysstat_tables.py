"""Issue 45: sysstat's tables as people paste them — a table ends at the next header, percentages stay within
0..100, and two runs in one file never join one series. Sources in tests/data/ostats/README.md."""

from __future__ import annotations

from pathlib import Path

from planner.parsers import parse_file

DATA = Path(__file__).parents[1] / "data/ostats"


def test_sar_memory_table_after_the_cpu_table_is_read_as_memory_not_as_cpu_rows() -> None:
    """sar -u then sar -r (sysstat 12.6.1, this machine): the memory rows were read under the CPU header."""
    p = parse_file(DATA / "sar-u-then-r-sysstat12.txt")
    assert p.kind == "mpstat" and not p.errors
    assert p.value("mpstat.usr_pct", cpu="all", time="Average") == 85.54
    assert p.value("sar.kbmemfree", time="Average") == 19548482
    assert p.get("sar.kbmemfree", time="Average").unit == "KiB"
    assert p.value("sar.memused_pct", time="01:18:55") == 2.01
    assert all(m.value <= 100 for m in p.metrics if m.unit == "%")
    assert not [m for m in p.metrics if m.name.startswith("mpstat.") and m.source and (m.source.line or 0) > 8]


def test_head_of_several_sar_logs_with_a_time_zone_column() -> None:
    """A README's `head *` of sar -u and sar -r logs ("10:04:01 PM IST"): CPU, memory, then both again."""
    p = parse_file(DATA / "sar-u-r-head-concatenated-ist.md")
    assert p.kind == "mpstat" and not p.errors
    first = p.get("mpstat.usr_pct", cpu="all", time="10:04:31 PM IST")
    assert first is not None and first.value == 1.52 and first.label("run") == ""
    again = [m for m in p.all("mpstat.usr_pct") if m.label("run") == "2"]
    assert [m.value for m in again] == [1.52, 2.42, 1.97]
    assert p.value("sar.memused_pct", time="Average") == 21.89
    assert p.value("sar.commit_pct", time="Average") == 71.21
    assert [m.value for m in p.all("sar.kbmemfree") if m.label("run") == "2"] == [17250708]


def test_seven_column_sar_memory_table_alone() -> None:
    """sysstat 9's sar -r (kbcommit, %commit; no kbavail), a Chinese time column, pasted with its prompt."""
    p = parse_file(DATA / "sar-r-7col-zh_CN.txt")
    assert not p.errors
    assert p.value("sar.kbmemused") == 1917916 and p.value("sar.memused_pct") == 24.08
    assert p.value("sar.commit_pct") == 17.73


def test_a_percentage_over_100_is_refused_not_emitted() -> None:
    """A share of CPU time over 100 % is a row read under the wrong header: skipped with a warning."""
    text = (DATA / "mpstat-two-runs.txt").read_text().replace("   95.05", "  206156")
    from planner.parsers import parse_text

    p = parse_text(text, "mpstat.txt")
    assert all(m.value <= 100 for m in p.metrics if m.unit == "%")
    assert any("outside 0-100" in str(e) for e in p.errors)


def test_two_mpstat_runs_are_two_series() -> None:
    p = parse_file(DATA / "mpstat-two-runs.txt")
    runs = {m.label("run") for m in p.all("mpstat.usr_pct")}
    assert runs == {"", "2"}
    assert [m.value for m in p.all("mpstat.usr_pct") if m.label("run") == "2"] == [92.96, 90.59, 91.77]
    assert [m.label("sample") for m in p.all("mpstat.usr_pct") if m.label("run") == "2"] == ["1", "2", "3"]


def test_two_vmstat_runs_in_a_transcript_each_start_since_boot() -> None:
    """Two `vmstat 1 3` runs pasted with their prompts: the second's first line (the since-boot average) was
    sample 4 of one series; it is sample 1 of run 2."""
    p = parse_file(DATA / "vmstat-two-runs-transcript.txt")
    assert p.kind == "vmstat" and not p.errors
    us = p.all("vmstat.us")
    assert [(m.label("run"), m.label("sample"), m.value) for m in us] == [
        ("", "1", 55), ("", "2", 92), ("", "3", 93), ("2", "1", 55), ("2", "2", 91), ("2", "3", 92)]
