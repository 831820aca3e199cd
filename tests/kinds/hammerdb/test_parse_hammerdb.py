"""HammerDB parser on real public hammerdbcli transcripts and logs (tests/data/hammerdb/, README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.hammerdb import parse as hammerdb
from planner.metrics import Direction
from planner.parsers import detect, parse_file, parse_text

DATA = Path(__file__).resolve().parents[2] / "data" / "hammerdb"

# file -> (NOPM, TPM, database, active VUs, rampup, duration, finished, failed)
PINNED = {
    "oracle_awr_11g_console.txt": (8043, 16365, "Oracle", 2, 2, 5, 3, 0),
    "pkb_hammerdbcli_tpcc_mysql.log": (8153, 24772, "MySQL", 4, 5, 10, 5, 0),
    "siddhsql_hammerdb_pg_10vu.txt": (2602, 6190, "PostgreSQL", 10, 2, 30, 11, 0),
    "siddhsql_hammerdb_pg_100vu.txt": (2891, 6888, "PostgreSQL", 100, 2, 30, 6, 95),
    "siddhsql_hammerdb_mysql_100vu.txt": (2335, 5432, "MySQL", 100, 2, 30, 101, 0),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_real_outputs_read_value_by_value(name: str) -> None:
    nopm, tpm, db, active, rampup, duration, finished, failed = PINNED[name]
    p = parse_file(DATA / name)
    assert p.kind == "hammerdb"
    assert p.value("hammerdb.nopm") == nopm
    assert p.value("hammerdb.tpm") == tpm
    assert p.fact("database") == db
    assert p.value("hammerdb.active_vu") == active
    assert p.value("hammerdb.rampup_min") == rampup
    assert p.value("hammerdb.duration_min") == duration
    assert p.value("hammerdb.vu_finished") == finished
    assert p.value("hammerdb.vu_failed") == failed
    assert p.get("hammerdb.nopm").direction is Direction.HIGHER
    assert p.errors == ()


def test_oracle_awr_snapshot_ids_jobid_and_prompt_in_front_of_a_line() -> None:
    # "hammerdb>Vuser 1:End Snapshot 94 ..." : the prompt came back before the monitor's last lines
    p = parse_file(DATA / "oracle_awr_11g_console.txt")
    assert p.value("hammerdb.awr_begin_snap") == 93
    assert p.value("hammerdb.awr_end_snap") == 94
    assert p.fact("awr_instance") == "EE"
    assert p.fact("jobid") == "6556CF0D60A403E213331363"


def test_snapshot_lines_alone_in_a_fenced_paste() -> None:
    p = parse_file(DATA / "hammerdb_pr190_oracle19c_pdb_snapshots.md")
    assert (p.value("hammerdb.awr_begin_snap"), p.value("hammerdb.awr_end_snap")) == (94, 95)
    assert p.fact("awr_instance") == "DEMO19C"
    assert p.get("hammerdb.nopm") is None


def test_hammerdb_3_word_order_tpm_at_nopm() -> None:
    p = parse_file(DATA / "pkb_hammerdb_v3_sqlserver_line.txt")
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.fact("database")) == (13122, 60301, "SQL Server")


def test_version_and_first_error_of_a_failed_run() -> None:
    p = parse_file(DATA / "siddhsql_hammerdb_pg_100vu.txt")
    assert p.fact("version") == "4.7"
    assert p.fact("first_error").startswith("virtual user 7: ERROR:  invalid transaction termination")
    assert p.fact("jobid") == "644325C75F9E03E273135333"


@pytest.mark.parametrize("db", ["Oracle", "PostgreSQL", "SQL Server", "MySQL", "MariaDB", "Db2"])
def test_every_database_hammerdb_drives(db: str) -> None:
    p = hammerdb.parse(f"Vuser 1:TEST RESULT : System achieved 1234 NOPM from 5678 {db} TPM\n", "x")
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.fact("database")) == (1234, 5678, db)


def test_jobs_listing_is_read_only_when_the_transcript_has_no_result() -> None:
    # Constructed from HammerDB 4's `jobs <id> result` layout (a quoted list of the monitor's lines).
    listing = ('hammerdb>jobs 6556CF0D60A403E213331363 result\n[\n"6556CF0D60A403E213331363",\n'
               '"2023-11-17 02:25:11",\n"2 Active Virtual Users configured",\n'
               '"TEST RESULT : System achieved 8043 NOPM from 16365 Oracle TPM"\n]\n')
    alone = parse_text(listing, "jobs.txt")
    assert alone.value("hammerdb.nopm") == 8043
    both = parse_text((DATA / "oracle_awr_11g_console.txt").read_text() + listing, "both.txt")
    assert len(both.all("hammerdb.nopm")) == 1 and both.errors == ()


def test_several_results_in_one_log_are_runs() -> None:
    text = ("Vuser 1:TEST RESULT : System achieved 100 NOPM from 200 MySQL TPM\n"
            "Vuser 1:TEST RESULT : System achieved 300 NOPM from 600 MySQL TPM\n")
    p = hammerdb.parse(text, "x")
    assert p.value("hammerdb.nopm", run="1") == 100 and p.value("hammerdb.nopm", run="2") == 300


def test_wrapped_paste_reads_the_same() -> None:
    body = (DATA / "pkb_hammerdbcli_tpcc_mysql.log").read_text()
    quoted = "".join(f"> {line}\n" for line in body.splitlines())
    assert parse_text(quoted, "mail.txt").value("hammerdb.nopm") == 8153


def test_no_result_is_refused_and_other_kinds_are_not_taken() -> None:
    with pytest.raises(ParseError):
        hammerdb.parse("Vuser 1:RUNNING\n", "x")
    assert detect("Total wops 1 Secs 2 Avg nsec/op 3 TPUT ops/sec 4\n") != "hammerdb"


def test_warehouses_from_the_assignment_lines_and_print_dict() -> None:
    assert parse_file(DATA / "siddhsql_hammerdb_pg_100vu.txt").value("hammerdb.warehouses") == 400
    # HammerDB 4.0 docs (ch04s08, Use All Warehouses) and `print dict` (the Oracle note's listing)
    text = ("Vuser 2:Assigned 10 WIDs = 1 4 7 10 13 16 19 22 25 28 based on VU count 3, Warehouses = 10 out of 30\n"
            "Vuser 1:FINISHED SUCCESS\n")
    assert hammerdb.parse(text, "x").value("hammerdb.warehouses") == 30
    assert hammerdb.parse(" count_ware       = 10\nVuser 1:FINISHED SUCCESS\n", "x").value("hammerdb.warehouses") == 10
    assert parse_file(DATA / "siddhsql_hammerdb_pg_10vu.txt").value("hammerdb.warehouses") == 400


def test_time_profile_summary_per_stored_procedure() -> None:
    p = parse_file(DATA / "pkb_hammerdbcli_tpcc_timeprofile_4_3_summary.log")
    assert p.kind == "hammerdb" and p.errors == ()
    assert p.value("hammerdb.proc_calls", proc="NEWORD") == 322104
    assert p.value("hammerdb.proc_avg_ms", proc="NEWORD") == 9.236
    assert p.value("hammerdb.proc_p99_ms", proc="NEWORD") == 14.197
    assert p.value("hammerdb.proc_p50_ms", proc="OSTAT") == 2.033
    assert p.value("hammerdb.proc_max_ms", proc="DELIVERY") == 83.076
    assert len(p.all("hammerdb.proc_avg_ms")) == 5


def test_hammerdb_web_service_job_result_names_its_active_virtual_users() -> None:
    """HammerDB 4.x's `jobs?jobid=…&resultdata` answer, a JSON list of strings: the active virtual users line
    has no "Vuser 1:" before it (tests/data/hammerdb/README.md)."""
    p = parse_file(DATA / "jobs_resultdata_oracle_readme.md")
    assert p.kind == "hammerdb"
    assert (p.value("hammerdb.nopm"), p.value("hammerdb.tpm"), p.value("hammerdb.active_vu")) == (3290, 6828, 1)


def test_the_refusal_of_an_unknown_file_names_hammerdb_among_what_is_read() -> None:
    """"not a recognised benchmark output" lists what planner reads: it left HammerDB out, which it reads."""
    with pytest.raises(ParseError) as e:
        parse_text("nothing any tool printed\n", "notes.txt")
    assert "HammerDB" in str(e.value) and "Swingbench" in str(e.value)


def test_the_dbid_and_instance_number_the_snapshots_are_filed_under() -> None:
    """HammerDB prints them with each snapshot; the AWR report over its window must ask for these (a PDB's own
    DBID for a 12.2+ PDB-level snapshot), not the session's V$DATABASE."""
    p = parse_file(DATA / "oracle_awr_11g_console.txt", "hammerdb")
    assert (p.fact("awr_dbid"), p.fact("awr_inst_num"), p.fact("awr_instance")) == ("2066100034", "1", "EE")
    text = (DATA / "hammerdb_pr190_oracle19c_pdb_snapshots.md").read_text().replace("```", "")
    assert hammerdb.parse(text, "x").fact("awr_dbid") == "908248820"
