"""Stop 54's held-out audit of the Oracle-side parsers: 14 real public files the parsers had never seen (AWR,
Statspack, ADDM, ORION, CALIBRATE_IO; tests/data/heldout54, sources in its README), each value a DBA reads off them
written down by eye before planner read them. Every value is read, and read right; what cannot be read is said.

Counts before this work and after are in tests/data/README.md ("Held-out audit, stop 54").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.metrics import Parsed
from planner.parsers import parse_file, parse_text
from planner.parsers.unwrap import unwrap

D = Path(__file__).parents[1] / "data/heldout54"
Labels = dict[str, str]
HAND_READ: dict[str, list[tuple[str, Labels, float]]] = {  # file: [(metric, labels, value)]
    "awr_11204_rac_gfm_markdown.md": [
        ("cpus", {}, 112), ("cores", {}, 56), ("sockets", {}, 4), ("memory_gb", {}, 251.08),
        ("snap_id_begin", {}, 73343), ("snap_id_end", {}, 73349), ("elapsed_min", {}, 180.61),
        ("db_time_min", {}, 710.67),
        ("db_time_per_s", {}, 3.9), ("db_cpu_per_s", {}, 2.6), ("redo_size_per_s", {}, 516290.8),
        ("logical_reads_per_s", {}, 295008.8), ("physical_reads_per_s", {}, 67416.6),
        ("physical_reads_per_txn", {}, 1516.4), ("physical_read_io_requests_per_s", {}, 1268.1),
        ("physical_write_io_requests_per_s", {}, 30.4), ("read_io_mb_per_s", {}, 526.7),
        ("executes_per_s", {}, 1254.6), ("transactions_per_s", {}, 44.5),
        ("efficiency.buffer_nowait_pct", {}, 100.0), ("efficiency.buffer_hit_pct", {}, 99.98),
        ("efficiency.library_hit_pct", {}, 98.19), ("efficiency.pct_non_parse_cpu", {}, 99.19),
        ("wait.time_s", {"event": "DB CPU"}, 27900), ("wait.pct_db_time", {"event": "DB CPU"}, 65.5),
        ("wait.waits", {"event": "log file sync"}, 224920), ("wait.time_s", {"event": "log file sync"}, 258.1),
        ("wait.avg_ms", {"event": "log file sync"}, 1),
        ("wait.waits", {"event": "db file sequential read", "wait_class": "User I/O"}, 503183),
        ("wait.time_s", {"event": "db file sequential read"}, 202),
        ("wait.pct_db_time", {"event": "db file sequential read"}, 0.5),
        ("wait_class.time_s", {"wait_class": "User I/O"}, 212),
        ("wait_class.pct_db_time", {"wait_class": "Cluster"}, 2.0),
        ("host_cpu.load_avg_begin", {}, 3.12), ("host_cpu.load_avg_end", {}, 3.85), ("host_cpu.user_pct", {}, 2.3),
        ("host_cpu.sys_pct", {}, 0.3), ("host_cpu.wio_pct", {}, 1.1), ("host_cpu.idle_pct", {}, 97.4),
        ("instance_cpu.total_pct", {}, 2.4), ("instance_cpu.busy_pct", {}, 90.2),
        ("io_profile.total_requests", {"scope": "total"}, 1534.8),
        ("io_profile.database_requests", {"scope": "read"}, 1268.1),
        ("io_profile.total_mb", {"scope": "total"}, 532.8),
        ("buffer_cache_mb", {}, 123392), ("shared_pool_mb", {}, 20887), ("std_block_size_kb", {}, 8),
        ("log_buffer_kb", {}, 344184), ("db_time_s", {}, 42639.9), ("db_cpu_s", {}, 27929.36),
    ],
    "awr_10g_fenced_sections_ko.md": [
        ("redo_size_per_s", {}, 140839.60), ("redo_size_per_txn", {}, 5345.24),
        ("logical_reads_per_s", {}, 47768.26), ("physical_reads_per_s", {}, 736.69),
        ("physical_reads_per_txn", {}, 27.96), ("physical_writes_per_s", {}, 84.69),
        ("user_calls_per_s", {}, 2401.63), ("parses_per_s", {}, 412.66), ("hard_parses_per_s", {}, 1.49),
        ("sorts_per_s", {}, 138.94), ("logons_per_s", {}, 0.79), ("executes_per_s", {}, 1187.18),
        ("transactions_per_s", {}, 26.35),
        ("load_profile.pct_blocks_changed_per_read", {}, 1.49), ("load_profile.recursive_call_pct", {}, 35.33),
        ("efficiency.buffer_nowait_pct", {}, 99.99), ("efficiency.buffer_hit_pct", {}, 98.71),
        ("efficiency.library_hit_pct", {}, 99.67), ("efficiency.parse_cpu_to_parse_elapsed_pct", {}, 0.85),
        ("efficiency.pct_non_parse_cpu", {}, 97.96),
        ("wait.waits", {"event": "latch free"}, 2169850), ("wait.time_s", {"event": "latch free"}, 596104),
        ("wait.avg_ms", {"event": "latch free"}, 275),
        ("wait.waits", {"event": "latch: shared pool", "wait_class": "Concurrency"}, 1050870),
        ("wait.waits", {"event": "db file sequential read"}, 18869172),
        ("wait.time_s", {"event": "db file sequential read"}, 108189),
        ("wait.avg_ms", {"event": "db file sequential read", "wait_class": "User I/O"}, 6),
        ("wait.time_s", {"event": "CPU time"}, 48991),
    ],
    "statspack_11201_double_spaced_itpub.txt": [
        ("cpus", {}, 2), ("cores", {}, 2), ("sockets", {}, 1), ("memory_gb", {}, 3.0), ("snap_id_begin", {}, 31),
        ("snap_id_end", {}, 41), ("elapsed_min", {}, 2.03), ("aas", {}, 0.1), ("db_time_min", {}, 0.28),
        ("db_cpu_min", {}, 0.12),
    ],
    "statspack_load_profile_double_spaced.txt": [
        ("redo_size_per_s", {}, 120578.86), ("redo_size_per_txn", {}, 920.11), ("logical_reads_per_s", {}, 2840.52),
        ("physical_reads_per_s", {}, 13.52), ("physical_reads_per_txn", {}, 0.10),
        ("physical_writes_per_s", {}, 7.14), ("user_calls_per_s", {}, 421.10), ("hard_parses_per_s", {}, 20.19),
        ("executes_per_s", {}, 497.00), ("transactions_per_s", {}, 131.05),
    ],
    "statspack_10g_time_model_debes.txt": [
        ("snap_id_begin", {}, 83), ("snap_id_end", {}, 84), ("elapsed_min", {}, 5.80), ("db_time_s", {}, 319.3),
        ("db_cpu_s", {}, 301.4),
    ],
    "statspack_10201_nbsp_as_question_marks.txt": [
        ("cpus", {}, 2), ("memory_gb", {}, 2.0), ("snap_id_begin", {}, 1), ("snap_id_end", {}, 4),
        ("elapsed_min", {}, 38.23), ("buffer_cache_mb", {}, 404), ("shared_pool_mb", {}, 164),
        ("std_block_size_kb", {}, 8), ("log_buffer_kb", {}, 6860),
    ],
    "addm_10201_detailed_ru.md": [
        ("db_time_s", {}, 637), ("aas", {}, 0), ("addm.finding_pct", {"rank": "1"}, 100),
        ("addm.finding_s", {"rank": "1"}, 637),
    ],
    "orion_1220_storidge_md_emphasis.md": [
        ("orion.max_large_mbps", {"small": "0", "large": "2"}, 867.73),
        ("orion.max_small_iops", {"small": "5", "large": "0"}, 12679),
        ("orion.min_small_latency_ms", {"small": "5"}, 0.392499),
        ("orion.small_latency_ms", {"op": "read", "stat": "avg", "small": "5"}, 0.392499),
        ("orion.small_latency_ms", {"op": "read", "stat": "max", "small": "5"}, 38.147308),
    ],
    "orion_1220_beegfs_four_files_glued.md": [
        ("orion.max_large_mbps", {"small": "0", "large": "7"}, 155.63),
        ("orion.lun_size_bytes", {"lun": "/home/test1.img"}, 1073741824),
        ("orion.lun_size_bytes", {"lun": "/home/test4.img"}, 1073741824),
    ],
    "orion_12c_oltp_summary_book.txt": [
        ("orion.max_small_iops", {"small": "17", "large": "0"}, 9899),
        ("orion.small_latency_ms", {"stat": "avg", "small": "17"}, 1.711),
        ("orion.min_small_latency_ms", {"small": "1"}, 0.12358),
        ("orion.small_latency_ms", {"stat": "max", "small": "1"}, 4.496),
        ("orion.point_duration_s", {}, 60), ("orion.data_points", {}, 21),
    ],
    "calibrate_four_runs_in_sql_comment_pt.sql": [
        ("calibrate.max_iops", {"row": "1"}, 428), ("calibrate.max_mbps", {"row": "1"}, 176),
        ("calibrate.max_pmbps", {"row": "1"}, 77), ("calibrate.latency_ms", {"row": "1"}, 8),
        ("calibrate.num_physical_disks", {"row": "1"}, 4), ("calibrate.max_iops", {"row": "4"}, 598),
        ("calibrate.latency_ms", {"row": "4"}, 38),
    ],
    "calibrate_18c_three_runs_each_printed_twice.txt": [  # 18c+ prints each run twice: blocks 1-2, 3-4, 5-6
        ("calibrate.max_iops", {"block": "1"}, 154), ("calibrate.latency_ms", {"block": "1"}, 19),
        ("calibrate.max_mbps", {"block": "1"}, 18579), ("calibrate.max_iops", {"block": "3"}, 1353418),
        ("calibrate.latency_ms", {"block": "3"}, 0), ("calibrate.max_mbps", {"block": "3"}, 18850),
        ("calibrate.max_iops", {"block": "5"}, 1351136), ("calibrate.max_mbps", {"block": "5"}, 18738),
    ],
    "calibrate_exadata_disks_first_zh.md": [
        ("calibrate.max_iops", {}, 1022), ("calibrate.max_mbps", {}, 2885), ("calibrate.max_pmbps", {}, 289),
        ("calibrate.latency_ms", {}, 11), ("calibrate.num_physical_disks", {}, 36),
    ],
    "calibrate_exadata_output_and_listing_zh.md": [
        ("calibrate.max_iops", {"form": "dbms_output"}, 11237), ("calibrate.latency_ms", {"form": "dbms_output"}, 8),
        ("calibrate.max_mbps", {"form": "dbms_output"}, 5511),
        ("calibrate.max_iops", {"form": "dba_rsrc_io_calibrate"}, 11237),
        ("calibrate.max_pmbps", {"form": "dba_rsrc_io_calibrate"}, 400),
        ("calibrate.num_physical_disks", {"form": "dba_rsrc_io_calibrate"}, 36),
    ],
}
# Header words a DBA reads, kept by planner as facts (text)
FACTS: dict[str, dict[str, str]] = {
    "awr_11204_rac_gfm_markdown.md": {"db_name": "ORCL", "dbid": "1539058184", "instance": "orcl2", "inst_num": "2",
                                      "version": "11.2.0.4.0", "rac": "YES", "host_name": "his02"},
    "statspack_11201_double_spaced_itpub.txt": {"dbid": "2130218216", "instance": "tsid", "version": "11.2.0.1.0",
                                                "rac": "NO", "host_name": "ZZLK-3"},
    "statspack_10201_nbsp_as_question_marks.txt": {"dbid": "486494833", "instance": "dodo", "version": "10.2.0.1.0",
                                                   "host_name": "HHZ-0099"},
    "addm_10201_detailed_ru.md": {"begin_snap_id": "2821", "end_snap_id": "2835", "db_name": "TEST",
                                  "dbid": "1998456309", "instance": "test", "inst_num": "1", "host_name": "4TEST",
                                  "version": "10.2.0.1.0"},
    "orion_1220_storidge_md_emphasis.md": {"version": "12.2.0.1.0"},
    "calibrate_exadata_output_and_listing_zh.md": {"row1.start_time": "24-MAY-15 07.11.38.691358 上午"},
}


def reading(name: str) -> Parsed | ParseError:
    try:
        return parse_file(D / name)
    except ParseError as e:
        return e


def tally(name: str) -> tuple[list[object], list[object], list[object]]:
    """(right, wrong, missing) of the file's hand-read values and facts; all missing when the file is refused."""
    parsed = reading(name)
    right: list[object] = []
    wrong: list[object] = []
    missing: list[object] = []
    for metric, labels, value in HAND_READ.get(name, []):
        hits = [] if isinstance(parsed, ParseError) else [
            m.value for m in parsed.metrics if m.name == metric and all(m.label(k) == v for k, v in labels.items())]
        bucket = missing if not hits else wrong if any(abs(h - value) > 1e-6 for h in hits) else right
        bucket.append((metric, labels, value, hits))
    for fact, value in FACTS.get(name, {}).items():
        got = None if isinstance(parsed, ParseError) else parsed.fact(fact)
        (missing if not got else right if got == value else wrong).append((fact, value, got))
    return right, wrong, missing


@pytest.mark.parametrize("name", sorted(HAND_READ))
def test_every_hand_read_value_is_read_right(name: str) -> None:
    _right, wrong, missing = tally(name)
    assert not wrong, wrong
    assert not missing, missing


def test_the_audit_holds_every_file_and_every_one_is_hand_read() -> None:
    assert sorted(p.name for p in D.iterdir() if p.name != "README.md") == sorted(HAND_READ)
    assert sum(len(v) for v in HAND_READ.values()) + sum(len(v) for v in FACTS.values()) >= 150


def test_orion_prints_one_points_latency_twice_and_it_is_read_once() -> None:
    """12.2's console prints "Small Read Latency ... @ Small=5" under the max IOPS and again under the min latency
    when both are one point (docs/oracle-behaviour.md 54.o2). Before: "two values under one key" for each figure."""
    parsed = parse_file(D / "orion_1220_storidge_md_emphasis.md")
    assert not parsed.errors, parsed.errors
    assert len([m for m in parsed.metrics if m.name == "orion.small_latency_ms"]) == 4  # avg, min, max, std dev


def test_a_report_whose_spaces_were_lost_to_question_marks_says_so() -> None:
    parsed = parse_file(D / "statspack_10201_nbsp_as_question_marks.txt")
    assert parsed.fact("layout") == "non-breaking spaces shown as '?'"


def test_statspack_10g_host_underline_is_the_reports_own_line_not_a_fence() -> None:
    """10g Statspack underlines "Host  Name:" with "~~~~", the length of a Markdown tilde fence. Before: everything
    above it was taken for prose around a fenced block and dropped, header and all (constructed: the real 10.2.0.1
    report above with its spaces back)."""
    text = (D / "statspack_10201_nbsp_as_question_marks.txt").read_text().replace("?", " ")
    parsed = parse_text(text, "sp_1_4.lst")
    assert parsed.kind == "statspack" and not parsed.fact("unwrapped")
    assert (parsed.fact("dbid"), parsed.fact("host_name"), parsed.value("cpus")) == ("486494833", "HHZ-0099", 2)


def test_a_tilde_fence_under_prose_is_still_a_fence() -> None:
    fenced = "The output:\n~~~\nMaximum Small IOPS=9899 @ Small=17 and Large=0\n~~~\n"
    assert unwrap(fenced).notes == ("Markdown fence and the text around it (lines 2, 4)",)
    closed_by_a_word = "~~~\ncat <<EOF\nEOF\n~~~\n"  # a fence open is closed by its '~' line whatever is above it
    assert unwrap(closed_by_a_word).notes == ("Markdown fence (lines 1, 4)",)
