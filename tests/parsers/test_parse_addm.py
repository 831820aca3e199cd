"""Issue 45: ADDM's DB time and average active sessions, and its findings, read from real reports (sources in
tests/data/addm/README.md)."""

from __future__ import annotations

from pathlib import Path

from planner.parsers import parse_file

DATA = Path(__file__).parents[1] / "data/addm"


def test_11201_addm_with_findings() -> None:
    p = parse_file(DATA / "addm_11201_dbtest.txt")
    assert p.kind == "addm" and not p.errors
    assert (p.value("db_time_s"), p.value("aas")) == (2303, 0.96)
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("version")) == ("DBTEST", "1193549399", "11.2.0.1.0")
    assert (p.fact("instance"), p.fact("inst_num"), p.fact("host_name")) == ("DBTEST", "1", "oradb.egolife.com")
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id"), p.fact("findings")) == ("4219", "4220", "2")
    assert p.value("addm.finding_aas", finding="Top SQL Statements") == 0.96
    assert p.value("addm.finding_pct", finding='"User I/O" wait Class') == 2.35


def test_12102_addm_with_no_findings_after_its_prompts() -> None:
    p = parse_file(DATA / "addm_12102_testing.txt")
    assert p.kind == "addm" and not p.errors
    assert (p.value("db_time_s"), p.value("aas"), p.fact("findings")) == (231, 0.02, "0")
    assert (p.fact("instance"), p.fact("host_name"), p.fact("version")) == ("testing", "oracle11g", "12.1.0.2.0")


def test_19c_addm_in_a_pdb_wrapped_lines() -> None:
    p = parse_file(DATA / "addm_19c_pdb_livelabs.md")
    assert p.kind == "addm" and not p.errors
    assert (p.value("db_time_s"), p.value("aas")) == (14, 0.11)
    assert (p.fact("container"), p.fact("db_name"), p.fact("instance")) == ("PDB", "CDB1", "CDB1")
    assert p.fact("host_name") == "workshop-installed.livelabs.oraclevcn.com"


def test_two_reports_in_one_file_read_the_first_and_say_so() -> None:
    from planner.parsers import parse_text

    one = (DATA / "addm_12102_testing.txt").read_text()
    p = parse_text(one + "\n" + (DATA / "addm_11201_dbtest.txt").read_text(), "addm.txt")
    assert p.value("db_time_s") == 231 and any("2 ADDM reports" in str(e) for e in p.errors)

