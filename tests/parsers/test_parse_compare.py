"""AWR Compare Period report (awrddrpt), pinned value by value on a real 19c report (tests/data/awr_compare)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import awr_compare, detect, parse_file

FILE = Path(__file__).parents[1] / "data/awr_compare/awrddrpt_19c_pdb_swingbench.txt"


@pytest.fixture(scope="module")
def report():  # noqa: ANN201
    return parse_file(FILE)


def test_detected_and_header(report) -> None:  # noqa: ANN001
    assert detect(FILE.read_text(), "report.txt") == "awr_compare" and report.kind == "awr_compare"
    assert not report.errors
    assert (report.fact("version"), report.fact("set1.version"), report.fact("set2.version")) == \
        ("19.0.0.0.0", "19.0.0.0.0", "19.0.0.0.0")
    assert (report.fact("dbid"), report.fact("set1.db_role"), report.fact("rac"), report.fact("cdb")) == \
        ("909607496", "PRIMARY", "NO", "YES")
    assert report.fact("scope") == "PDB snapshots"


def test_both_snapshot_sets(report) -> None:  # noqa: ANN001
    one, two = {"set": "1st"}, {"set": "2nd"}
    assert (report.value("snap_id_begin", **one), report.value("snap_id_end", **one)) == (91, 92)
    assert (report.value("snap_id_begin", **two), report.value("snap_id_end", **two)) == (88, 89)
    assert (report.value("aas", **one), report.value("elapsed_min", **one), report.value("db_time_min", **one)) == \
        (7.0, 5.0, 35.2)
    assert (report.value("aas", **two), report.value("db_time_min", **two)) == (7.1, 35.5)
    assert (report.value("aas_diff_pct"), report.value("elapsed_min_diff_pct"), report.value("db_time_min_diff_pct")) \
        == (0.6, 0.0, 0.6)


def test_title_less_load_profile_both_sets_and_negative_diff(report) -> None:  # noqa: ANN001
    """The block starts at its ~~~ underline: no "Load Profile" title in this version."""
    v = report.value
    assert (v("db_time_per_s", set="1st"), v("db_time_per_s", set="2nd"), v("db_time_per_s_diff_pct")) == \
        (7.0, 7.1, 0.6)
    assert (v("db_cpu_per_s", set="1st"), v("db_cpu_per_s", set="2nd"), v("db_cpu_per_s_diff_pct")) == (5.8, 5.7, -1.7)
    assert (v("redo_size_per_s", set="1st"), v("redo_size_per_s", set="2nd")) == (5362725.0, 4971434.4)
    assert (v("redo_size_per_txn", set="1st"), v("redo_size_per_txn_diff_pct")) == (4835.4, -2.2)
    assert (v("logical_reads_per_s", set="1st"), v("logical_reads_per_s", set="2nd"),
            v("logical_reads_per_s_diff_pct")) == (590645.5, 505760.4, -14.4)
    assert (v("physical_reads_per_s", set="2nd"), v("physical_reads_per_s_diff_pct")) == (0.3, 52.4)
    assert (v("user_calls_per_s", set="1st"), v("user_calls_per_txn", set="2nd")) == (53379.8, 48.2)
    assert (v("hard_parses_per_s_diff_pct"), v("logons_per_s_diff_pct")) == (-60.0, -100.0)
    assert (v("transactions_per_s", set="1st"), v("transactions_per_s", set="2nd"),
            v("transactions_per_s_diff_pct")) == (1109.1, 1051.7, -5.2)
    assert report.get("transactions_per_txn", set="1st") is None
    assert report.get("logical_reads_per_s", set="1st").source.line == 21
    assert (v("load_profile.rows_per_sort", set="1st"), v("load_profile.rows_per_sort", set="2nd"),
            v("load_profile.rows_per_sort_diff")) == (242.0, 248.4, 6.4)


def test_top_timed_events_side_by_side(report) -> None:  # noqa: ANN001
    v = report.value
    assert v("wait.time_s", event="CPU time", set="1st") == 1752.2 and v("wait.pct_db_time", event="CPU time",
                                                                         set="2nd") == 80.9
    assert report.get("wait.waits", event="CPU time", set="1st") is None  # N/A: none invented
    lfs1, lfs2 = dict(event="log file sync", set="1st"), dict(event="log file sync", set="2nd")
    assert (v("wait.waits", **lfs1), v("wait.time_s", **lfs1), v("wait.avg_ms", **lfs1), v("wait.pct_db_time", **lfs1))\
        == (332963, 711.7, 2.14, 33.7)
    assert (v("wait.waits", **lfs2), v("wait.avg_ms", **lfs2)) == (315745, 2.39)
    assert v("wait.avg_ms", event="WCR: capture file IO write", set="2nd") == pytest.approx(0.03248)
    assert v("wait.avg_ms", event="resmgr:internal state change", set="1st") == 100.07
    assert report.get("wait.waits", **lfs1).label("wait_class") == "Commit"
    # "-library cache: mutex X": outside the 1st set's top list, still shown; the 2nd set's "-" row is empty
    assert v("wait.waits", event="library cache: mutex X", set="1st") == 74
    assert v("wait.waits", event="library cache: mutex X", set="2nd") == 90
    assert len(report.all("wait.time_s")) == 21  # 11 rows in the 1st set, 10 in the 2nd


def test_not_a_compare_report() -> None:
    with pytest.raises(ParseError):
        awr_compare.parse("WORKLOAD REPOSITORY report for\n")


def _as_html(text: str) -> str:
    """Constructed HTML form (no real awrddrpt HTML was found): every text row a <tr>, runs of 2+ spaces cut
    into cells, the dashed rules dropped, CRLF endings as SQL*Plus on Windows writes them."""
    import html
    import re

    rows = []
    for line in text.splitlines():
        if not line.strip() or re.fullmatch(r"[\s-]+", line):
            rows.append("")
            continue
        cells = re.split(r"\s{2,}", line.strip())
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    return "<html><head><title>AWR Compare Period Report</title></head><body><table>\r\n" + \
        "\r\n".join(rows) + "\r\n</table></body></html>\r\n"


def test_html_form_reads_the_same_sets_and_load_profile(tmp_path: Path) -> None:
    text = FILE.read_text()
    f = tmp_path / "awrdiff_1_91_1_88.html"
    f.write_bytes(_as_html(text).encode())
    want, got = parse_file(FILE), parse_file(f)
    assert got.kind == "awr_compare" and got.fact("layout") == "html" and got.fact("version") == "19.0.0.0.0"
    keys = [m.key for m in want.metrics if not m.name.startswith("wait.")]
    by_key = {m.key: m.value for m in got.metrics}
    assert {k: by_key.get(k) for k in keys} == {m.key: m.value for m in want.metrics if not m.name.startswith("wait.")}
    assert [e.section for e in got.errors] == ["Top Timed Events"]  # side-by-side tables: text form only
