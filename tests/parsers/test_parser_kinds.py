"""A parser kind is described once (planner.parsers.PARSER_KINDS): the tables of the parse registry, the
measure step, analyze and the parse verb derive from its records."""

from __future__ import annotations

from planner import parsers
from planner.cli.parse import _AWR_FAMILY
from planner.parsers import KIND_NAMES, KINDS, PARSER_KINDS, DbReport, ParserKind
from planner.results import analyze, measure


def test_every_kind_is_one_record_and_the_tables_derive_from_it() -> None:
    assert tuple(k.kind for k in PARSER_KINDS) == KINDS and len(set(KINDS)) == len(KINDS)
    assert all(isinstance(k, ParserKind) and k.display_name for k in PARSER_KINDS)
    assert {k.kind: k.display_name for k in PARSER_KINDS} == KIND_NAMES
    assert {"awr_text", "awr_html", "statspack"} == measure.ONE_REPORT_KINDS
    assert measure.ONE_REPORT_KINDS | {"awr_excerpt"} == measure.AWR_KINDS
    assert {"awr_rac_text", "awr_rac_html"} == measure.GLOBAL_KINDS
    assert {"iostat", "mpstat", "vmstat"} == measure.OS_KINDS
    assert measure.KIND_OF_ARTIFACT == {"fio_json": "fio", "orion_summary": "orion", "orion_csv": "orion",
                                        "orion_csv_us": "orion", "slb": "slb", "iozone": "iozone",
                                        "calibrate_io": "calibrate_io", "swingbench": "swingbench",
                                        "hammerdb": "hammerdb", "pgbench": "pgbench",
                                        "sysbench": "sysbench", "pgbench_log": "pgbench"}
    assert {k.kind for k in PARSER_KINDS if k.db_report is not DbReport.NONE} == analyze.AWR_FAMILY
    assert analyze.AWR_FAMILY - {"awr_compare"} == _AWR_FAMILY


def test_headline_and_result_lines_come_from_the_record() -> None:
    fio = next(k for k in PARSER_KINDS if k.kind == "fio_text")
    assert fio.headline and fio.headline[0] == ("fio.iops", {})
    assert set(parsers._RESULT_LINES) == {k.kind for k in PARSER_KINDS if k.result_lines}
    assert {k.kind for k in PARSER_KINDS if k.one_figure} == {"calibrate_io"}
