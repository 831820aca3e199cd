"""Issue 45: many AWR reports of one database read as a history (planner analyze DIR), its page and JSON.

Constructed from the real 19c report (tests/data/awr/awr_19c_orclcdb.html): eight copies, one an hour apart,
snapshot ids and times rewritten, one copy's DB time raised tenfold so that it stands out."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from planner.cli.analyze import expand
from planner.report.history_html import history_page
from planner.results.analyze import analyze, to_json, to_markdown

REAL = Path(__file__).parents[1] / "data/awr/awr_19c_orclcdb.html"


def _copies(folder: Path, n: int = 8, busy: int = 5) -> list[Path]:
    real = REAL.read_text()
    out = []
    for i in range(n):
        text = real.replace(">156<", f">{156 + i}<", 1).replace(">155<", f">{155 + i}<", 1)
        text = text.replace("03-Oct-23 21:00:48", f"04-Oct-23 {i:02d}:00:48")
        text = text.replace("03-Oct-23 22:00:57", f"04-Oct-23 {i + 1:02d}:00:57")
        if i == busy:
            text = re.sub(r"(DB Time\(s\):</td><td align=\"right\" class='awrc'>\s*)4\.1", r"\g<1>41.0", text)
        f = folder / f"awrrpt_{i:03d}.html"
        f.write_text(text)
        out.append(f)
    return out


def test_a_folder_of_reports_is_one_history_in_time_order(tmp_path: Path) -> None:
    _copies(tmp_path)
    files = expand([tmp_path])
    assert len(files) == 8
    a = analyze(files)
    (h,) = a.histories
    assert h.database == "ORCLCDB (DBID 2910421788), instance 1"
    assert [s.begin_id for s in h.snapshots] == list(range(155, 163))
    assert [s.aas for s in h.snapshots] == [4.1] * 5 + [41.0] + [4.1] * 2
    assert [(x.what, x.value) for x in h.anomalies] == [("Average active sessions", 41.0)]
    assert len(h.mostly_waits) == 8  # DB CPU 0.4 of 4.1 active sessions: the rest was waits
    assert "log file sync" in h.top_events[:3]
    md = to_markdown(a)
    assert "## History: ORCLCDB (DBID 2910421788), instance 1" in md and "anomaly: Average active sessions 41" in md
    doc = to_json(a)["histories"][0]
    assert doc["snapshots"][5]["active_sessions"] == 41.0 and doc["anomalies"][0]["value"] == 41.0


def test_the_history_page_is_self_contained_and_escapes_report_text(tmp_path: Path) -> None:
    files = _copies(tmp_path, 3)
    # an entity in the report's HTML is a "<" in the event's name, which the page must escape again
    evil = files[0].read_text().replace("log file sync", "log file sync&lt;script&gt;alert(1)&lt;/script&gt;")
    files[0].write_text(evil)
    page = history_page(analyze(files).histories)
    assert page.startswith("<!doctype html>") and page.count("<svg") >= 2
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "<title>04-Oct-23 00:00:48 (snaps 155-156): active sessions 4.1</title>" in page


def test_one_report_makes_no_history() -> None:
    assert analyze([REAL]).histories == ()


@pytest.mark.slow
def test_analyze_a_folder_from_the_command_line(tmp_path: Path) -> None:
    """Enough files for the worker processes (PARALLEL_FROM) to read them: the same history as serially."""
    import subprocess
    import sys

    folder = tmp_path / "awr"
    folder.mkdir()
    _copies(folder, 20, busy=7)
    page = tmp_path / "history.html"
    done = subprocess.run([sys.executable, "-m", "planner", "analyze", str(folder), "--format", "json",
                           "--html", str(page)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    doc = json.load(io.StringIO(done.stdout))
    (h,) = doc["histories"]
    assert [s["begin_snap_id"] for s in h["snapshots"]] == list(range(155, 175))
    assert [x["value"] for x in h["anomalies"]] == [41.0]
    assert page.read_text().count("<svg") >= 2


def test_tables_the_parser_does_not_read_are_skipped_with_their_lines_kept() -> None:
    """A real report's bulk is tables planner never reads (SQL, segments): they are blanked before parsing, and a
    value after them still points at its own line."""
    from planner.parsers import parse_text

    real = REAL.read_text()
    k = real.index("<table", real.index("load profile") - 2000 if "load profile" in real else 0)
    unread = '<table border="0" summary="This table displays SQL ordered by Elapsed Time">\n' + \
        "<tr><td>select 1 from dual</td><td>1</td></tr>\n" * 500 + "</table>\n"
    before = parse_text(real, "awr.html")
    after = parse_text(real[:k] + unread + real[k:], "awr.html")
    one = before.get("db_time_per_s")
    two = after.get("db_time_per_s")
    assert one is not None and two is not None and one.value == two.value
    assert one.source and two.source and two.source.line == (one.source.line or 0) + unread.count("\n")
    assert len(after.metrics) == len(before.metrics)
