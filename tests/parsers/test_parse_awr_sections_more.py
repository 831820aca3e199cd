"""AWR sections beyond the summary page, on real reports (tests/data/awr/README.md, "Added for issue 26"):
Foreground Wait Events, Instance Activity Stats, Avg Wait units down to ns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner.parsers import awr_html, awr_text, describe
from planner.parsers.awr_common import parse_avg_wait_ms
from planner.parsers.derived import derive

DATA = Path(__file__).parents[1] / "data" / "awr"


def load(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("cell", "ms"), [("792.80ns", 0.0007928), ("858.01ns", 0.00085801), (".00ns", 0.0),
                                          ("14.94us", 0.01494), ("3.82ms", 3.82), ("52.86 s", 52860.0),
                                          ("184", 184.0)])
def test_avg_wait_every_unit_awr_prints(cell: str, ms: float) -> None:
    assert parse_avg_wait_ms(cell) == pytest.approx(ms)


@pytest.mark.slow
def test_19c_html_foreground_wait_events_give_the_single_block_latency_the_top_10_lacks() -> None:
    p = awr_html.parse(load("awr_19c_orclcdb_waits_activity.html"), "awr.html")
    ev = {"event": "db file sequential read", "section": "foreground"}
    assert p.get("wait.waits", event="db file sequential read", section="top") is None  # not in its Top 10
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.avg_ms", **ev)) == \
        (7586, 16, 2.06)
    assert p.get("wait.waits", **ev).source.line == 74
    assert p.value("wait.pct_db_time", **ev) == 0.11
    lat = [m for m in derive(p) if m.name == "single_block_read_latency_ms"]
    # the printed 2.06 ms beats 16 s (rounded) / 7586 waits = 2.109 ms: printed beats recomputed
    assert len(lat) == 1 and lat[0].value == 2.06 and not lat[0].derived
    assert str(describe(p)).endswith("everything read")


def test_instance_activity_stats_read_once_each_with_per_second() -> None:
    p = awr_html.parse(load("awr_19c_orclcdb_waits_activity.html"), "awr.html")
    assert p.value("activity.physical_read_io_requests") == 8827
    assert p.value("activity.physical_read_io_requests_per_s") == 2.45
    assert p.value("activity.physical_read_io_requests_per_txn") == 0.04
    assert p.get("activity.physical_read_io_requests_per_s").source.line == 368
    assert p.value("activity.physical_read_total_io_requests_per_s") == 6.31
    keys = [(m.name, m.labels) for m in p.metrics]
    assert len(keys) == len(set(keys))  # "execute count" is in Key Instance Activity and Instance Activity
    assert p.value("activity.execute_count_per_s") == 1919.08


def test_12c_html_foreground_table_with_us_and_ms_cells() -> None:
    p = awr_html.parse(load("awr_122_aimsdb_waits_activity.html"))
    fg = {"section": "foreground"}
    assert p.value("wait.avg_ms", event="PGA memory operation", **fg) == pytest.approx(0.01494)  # 14.94us
    assert p.value("wait.avg_ms", event="acknowledge over PGA limit", **fg) == 9.77
    assert p.value("wait.waits", event="db file sequential read", **fg) == 1412
    assert p.value("activity.physical_read_io_requests_per_s") == 0.45


def test_18c_rac_instance_foreground_events_and_activity_carry_the_instance() -> None:
    p = awr_html.parse(load("awr_18c_rac_prdg_waits_activity.html"))
    m = p.get("wait.waits", event="cell single block physical read", section="foreground")
    assert m.value == 1075359 and m.label("instance") == "1"
    assert p.value("wait.avg_ms", event="cell single block physical read", section="foreground") == \
        pytest.approx(0.42051)
    assert p.get("activity.physical_read_io_requests_per_s").label("instance") == "1"
    assert p.value("activity.physical_read_io_requests_per_s") == 42.55


@pytest.mark.slow
def test_19c_text_foreground_events_blank_timeouts_and_unit_cells() -> None:
    p = awr_text.parse(load("awr_19c_racdb_pdb_waits_activity.txt"), "awr.txt")
    fg = {"section": "foreground", "instance": "1"}
    got = {m.label("event"): m.value for m in p.all("wait.waits") if m.label("section") == "foreground"}
    assert len(got) == 16 and got["db file sequential read"] == 13 and got["enq: TX - row lock content"] == 1
    assert p.value("wait.time_s", event="enq: TX - row lock content", **fg) == 53
    assert p.value("wait.avg_ms", event="enq: TX - row lock content", **fg) == pytest.approx(52860)  # 52.86 s
    assert p.value("wait.avg_ms", event="db file sequential read", **fg) == 3.23
    assert p.value("wait.avg_ms", event="control file sequential re", **fg) == pytest.approx(0.26869)
    assert p.value("wait.pct_db_time", event="db file sequential read", **fg) == 0.1
    idle = {"event": "SQL*Net message from clien", **fg}  # an idle event: no % DB time
    assert (p.value("wait.time_s", **idle), p.value("wait.avg_ms", **idle)) == (3730, pytest.approx(186480))
    assert p.get("wait.pct_db_time", **idle) is None
    assert str(describe(p)).endswith("everything read")


def test_19c_text_instance_activity_every_page_names_cut_at_32() -> None:
    p = awr_text.parse(load("awr_19c_racdb_pdb_waits_activity.txt"), "awr.txt")
    assert p.value("activity.physical_read_io_requests") == 20
    assert p.value("activity.physical_read_io_requests_per_s") == 0.0
    assert p.value("activity.physical_read_io_requests_per_txn") == 10.0
    assert p.value("activity.logical_read_bytes_from_cache_per_txn") == 30408704.0
    assert p.value("activity.physical_read_total_multi_block") == 0  # "physical read total multi block"
    assert p.value("activity.user_calls") == 163  # the third page
    assert p.get("activity.session_cursor_cache_count") is None  # Absolute Values: other columns, not read
    assert len({m.name for m in p.metrics if m.name.startswith("activity.")}) == 84 * 3


def test_11g_text_foreground_events_not_the_background_ones() -> None:
    p = awr_text.parse(load("awr_11201_orcl_fabioprado_waits.txt"), "awr.txt")
    fg = {"event": "db file sequential read", "section": "foreground"}
    assert (p.value("wait.waits", **fg), p.value("wait.time_s", **fg), p.value("wait.avg_ms", **fg),
            p.value("wait.pct_db_time", **fg)) == (35732, 6575, 184, 77.5)  # the author's "@jls" mark ignored
    assert p.value("wait.waits", event="PL/SQL lock timer", section="foreground") == 40655
    assert p.get("wait.pct_db_time", event="PL/SQL lock timer") is None
    assert not [m for m in p.all("wait.waits") if m.value == 51]  # Background Wait Events: not foreground


def test_container_of_a_pdb_level_report_and_of_a_cdb_report() -> None:
    pdb = awr_text.parse(load("awr_19c_racdb_pdb.txt"))
    assert (pdb.fact("report_level"), pdb.fact("container")) == ("pdb", "PDB1")
    cdb = awr_html.parse(load("awr_19c_orclcdb.html"))
    assert (cdb.fact("report_level"), cdb.fact("container"), cdb.fact("containers")) == \
        ("cdb", "CDB$ROOT", "PDB$SEED,CDB$ROOT,PDB1")
    assert awr_html.parse(load("awr_122_aimsdb_noncdb.html")).fact("container") == ""


@pytest.mark.slow
def test_analyze_18c_rac_instance_report_iops_rac_note_and_its_own_latency() -> None:
    """Before: no IOPS, no RAC note, and "latency cannot be computed" beside the report's own latency."""
    from planner.results.analyze import analyze
    a = analyze([DATA / "awr_18c_rac_prdg_waits_activity.html"])
    heads = {m.key: m.value for m in a.files[0].headline}
    assert heads["physical_read_iops{basis=requests,instance=1}"] == 42.6
    codes = {f.code: f for f in a.findings}
    assert "latency_missing" not in codes
    assert "rac_not_iops" in codes and "42.6 IOPS shown are this instance's own" in codes["rac_not_iops"].message


def test_analyze_19c_cdb_report_has_the_latency_only_its_foreground_events_hold() -> None:
    from planner.results.analyze import analyze
    a = analyze([DATA / "awr_19c_orclcdb_waits_activity.html"])
    assert "latency_missing" not in {f.code for f in a.findings}
    assert any(m.name == "single_block_read_latency_ms" for m in a.files[0].headline)


def _gfm(text: str) -> str:
    """What a Markdown renderer without outer pipes makes of a text report: ``a | b | c`` rows, ``---|---``."""
    out = []
    for line in text.splitlines():
        if re.match(r"^\s*[-~ ]+$", line) and "-" in line:
            out.append("|".join("---" for _ in line.split()))
        elif re.search(r"\S\s{2,}\S", line):
            out.append(" | ".join(re.split(r"\s{2,}", line.strip())))
        else:
            out.append(line)
    return "\n".join(out)


def test_markdown_rendered_rac_report_is_never_headlined_as_a_single_instance() -> None:
    """Constructed from the real 19c RAC text report (no real Markdown-rendered RAC report was kept)."""
    from planner.parsers import parse_text, summarise
    p = parse_text(_gfm(load("awr_19c_racdb_pdb_waits_activity.txt")), "awr.md")
    assert p.fact("layout") == "markdown" and p.fact("rac") == "YES" and p.fact("version") == "19.0.0.0.0"
    iops = [m for m in summarise(p) if m.name.endswith("_iops")]
    assert all(m.label("instance") for m in iops)  # an instance's figure, or none: never the database's


def test_text_instance_activity_indented_paste() -> None:
    text = "\n".join("    " + line for line in load("awr_19c_racdb_pdb_waits_activity.txt").splitlines())
    p = awr_text.parse(text, "awr.txt")
    assert p.value("activity.physical_read_io_requests_per_txn") == 10.0 and p.value("activity.user_calls") == 163
    assert p.get("activity.session_cursor_cache_count") is None


def test_foreground_wait_events_pasted_alone_give_the_latency() -> None:
    """A blog or ticket pastes only this section (the real 11.2.0.1 one here)."""
    from planner.parsers import parse_text
    text = load("awr_11201_orcl_fabioprado_waits.txt")
    p = parse_text(text[text.index("Foreground Wait Events"):text.index("Background Wait Events")], "paste.txt")
    assert p.kind == "awr_excerpt" and p.value("wait.waits", event="db file sequential read") == 35732
    lat = [m for m in derive(p) if m.name == "single_block_read_latency_ms"]
    assert len(lat) == 1 and lat[0].value == pytest.approx(6575 / 35732 * 1000)
