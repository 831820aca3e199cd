"""One run, one label; printed beats recomputed; "everything read" only when everything was.

Files are the project's real files (tests/data) or put together from them, each case says how.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers import describe, parse_text
from planner.parsers.derived import derive

DATA = Path(__file__).parents[1] / "data"


def _text(rel: str) -> str:
    return (DATA / rel).read_text(encoding="utf-8")


def _one_key_each(p: Parsed) -> None:
    dup = [k for k, n in Counter(m.key for m in p.metrics).items() if n > 1]
    assert not dup, dup[:3]


def test_fio_text_disk_utilisation_carries_its_run() -> None:
    """The real two-run log with both runs on one device (vdd renamed vdc): two values, two keys."""
    text = _text("fio/fio-3.1-randwrite-normal.txt").replace("vdd:", "vdc:")
    p = parse_text(text, "fio.log")
    util = [(m.label("device"), m.label("run"), m.value) for m in p.all("fio.disk_util_pct")]
    assert util == [("vdc", "1", 99.49), ("vdc", "2", 100.0)]
    _one_key_each(p)
    assert not p.errors


def test_fio_text_one_run_keeps_its_keys() -> None:
    text = _text("fio/fio-3.1-randwrite-normal.txt")
    one = text[:text.index("You have new mail")]
    p = parse_text(one, "fio.log")
    assert [m.key for m in p.all("fio.disk_util_pct")] == ["fio.disk_util_pct{device=vdc}"]


def test_iozone_second_run_without_its_banner_gets_its_own_number() -> None:
    """The real 3.420 run, then the same run pasted again from its first result line (banner cut off)."""
    text = _text("iozone/iozone-3.420-t1-write.txt")
    again = text[text.index("        Children see"):]
    p = parse_text(text.replace("iozone test complete.", "") + again, "iozone.txt")
    runs = Counter(m.label("run") for m in p.all("iozone.throughput"))
    assert runs == {"1": 4, "2": 4}
    _one_key_each(p)


def test_iozone_two_banners_two_runs() -> None:
    text = _text("iozone/iozone-3.506-t4-random.txt")
    p = parse_text(text + "\n" + text, "iozone.txt")
    assert {m.label("run") for m in p.all("iozone.throughput")} == {"1", "2"}
    _one_key_each(p)


def test_calibrate_two_listings_number_their_rows_on() -> None:
    text = _text("calibrate/dba_rsrc_io_calibrate_19c.txt")
    p = parse_text(text + "\n" + text.replace("24002", "23990"), "calibrate.txt")
    assert [(m.label("row"), m.value) for m in p.all("calibrate.max_iops")] == [("1", 24002), ("2", 23990)]
    _one_key_each(p)


def test_calibrate_fenced_row_cut_short_is_not_everything_read() -> None:
    """A narrow paste cut the real row after MAX_PMBPS, and the closing fence sits right under it."""
    body = _text("calibrate/dba_rsrc_io_calibrate_19c.txt").replace("     10.868                  1", "")
    p = parse_text(f"```\n{body.rstrip()}\n```\n", "mail.md")
    assert {m.name for m in p.metrics} == {"calibrate.max_iops", "calibrate.max_mbps", "calibrate.max_pmbps"}
    said = str(describe(p))
    assert "everything read" not in said
    assert "LATENCY, NUM_PHYSICAL_DISKS blank" in said and "(line 6)" in said


def test_two_values_under_one_key_is_said() -> None:
    """Two ORION summaries in one file print the same three keys: a warning, not a silent overwrite."""
    text = _text("orion/orion-seed-x25m_summary.txt")
    p = parse_text(text + "\n" + text, "orion.txt")
    assert any("two values under one key" in str(e) for e in p.errors)
    assert "everything read" not in str(describe(p))


# -- printed beats recomputed ------------------------------------------------------------------------------------


def _awr(rows: list[tuple[str, float]], rac: bool = False) -> Parsed:
    sink = MetricSink("awr.txt")
    for name, value in rows:
        sink.add(name, value, "", Direction.NEUTRAL, 10, event="db file sequential read", section="top")
    if rac:
        sink.facts["rac"] = "YES"
    return sink.freeze("awr_text")


def _latency(p: Parsed) -> tuple[float, bool]:
    m = next(m for m in derive(p) if m.name == "single_block_read_latency_ms")
    return m.value, m.derived


def test_printed_average_beats_one_from_rounded_totals() -> None:
    """The issue's case: 1 s (rounded) over 1,086 waits recomputes as 0.92 ms; the report prints 0.749 ms."""
    p = _awr([("wait.waits", 1086), ("wait.time_s", 1), ("wait.avg_ms", 0.749)])
    assert _latency(p) == (0.749, False)


def test_real_19c_report_prints_3_23_ms_where_totals_say_0() -> None:
    """awr_19c_racdb_pdb.txt: 13 waits, 0 s (rounded), 3.23 ms printed; the recomputed figure was 0.0 ms."""
    p = parse_text(_text("awr/awr_19c_racdb_pdb.txt"), "awr_19c_racdb_pdb.txt")
    assert _latency(p) == (3.23, False)


def test_rounder_printed_figure_loses_to_precise_totals() -> None:
    """Exadata 11g Top 5 prints avg 1 ms beside 1,238 s over 2,003,269 waits: 0.618 ms, flagged derived."""
    p = parse_text(_text("seeds_like/exadata_x28_writers_flashback.txt"), "exadata.txt")
    value, derived = _latency(p)
    assert derived and value == pytest.approx(1238 / 2003269 * 1000)


def test_only_a_printed_average_is_taken_as_printed() -> None:
    p = _awr([("wait.avg_ms", 41.38)])
    assert _latency(p) == (41.38, False)


# -- "everything read" is checked against a count ------------------------------------------------------------------

# Real files read completely today, and the line-oriented kinds whose every number on a data line is a value.
COUNTED = ["calibrate/dba_rsrc_io_calibrate_19c.txt", "ostats/vmstat-n.txt", "ostats/iostat-x-t.txt",
           "ostats/mpstat-P-ALL.txt", "orion/orion-11.1.0.7-sdb_summary.txt", "iozone/iozone-3.506-t4-random.txt",
           "slb/slb-westmere-seed.txt", "fio/fio-3.1-randwrite-normal.txt", "orion/mytest_iops.csv",
           "ostats/iostat-xz-sysstat10.txt", "ostats/vmstat-t.txt", "fio/fio-3.33-randread.json"]
_SPOILERS = ("", "n/a", "1,2345", "1.2.3", "12abc")


def _value_lines(p: Parsed) -> list[int]:
    return sorted({m.source.line for m in p.metrics if m.source and m.source.line and not m.derived})


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(rel=st.sampled_from(COUNTED), pick=st.integers(0, 10_000), spoil=st.sampled_from(_SPOILERS))
def test_everything_read_only_when_the_count_says_so(rel: str, pick: int, spoil: str) -> None:
    """Spoil one number on a line that gave values; the claim must follow the count of values read."""
    name = Path(rel).name
    if rel.endswith(".csv") and not spoil:
        return  # an empty ORION matrix cell is a point not measured, not a value lost
    bare = parse_text(_text(rel), name)
    assert str(describe(bare)).endswith("everything read")
    lines = _text(rel).split("\n")
    line_no = _value_lines(bare)[pick % len(_value_lines(bare))]
    numbers = list(re.finditer(r"(?<![\w.:/-])\d+(?:\.\d+)?(?![\w.:/-])", lines[line_no - 1]))  # not times
    if not numbers:
        return
    tok = numbers[pick % len(numbers)]
    lines[line_no - 1] = lines[line_no - 1][:tok.start()] + spoil + lines[line_no - 1][tok.end():]
    try:
        p = parse_text("\n".join(lines), name)
    except Exception:  # noqa: BLE001 - a refusal is an honest answer too
        return
    def counted(q: Parsed) -> tuple[int, Counter[tuple[str, float]]]:  # values read; those off the spoiled line
        own = [m for m in q.metrics if not m.derived]
        return len(own), Counter((m.key, m.value) for m in own if m.source and m.source.line != line_no)

    complete = counted(p) == counted(bare)  # "1,2345" may be a decimal comma: a value, read
    if str(describe(p)).endswith("everything read"):
        assert complete, f"{rel}:{line_no}: {tok.group()!r} -> {spoil!r} dropped a value yet 'everything read'"


def test_analyze_and_parse_say_what_was_dropped(tmp_path: Path) -> None:
    """The cut CALIBRATE_IO row through both commands: neither says "everything read"."""
    import io

    from planner.cli.parse import run_parse
    from planner.results.analyze import analyze, to_markdown

    body = _text("calibrate/dba_rsrc_io_calibrate_19c.txt").replace("     10.868                  1", "")
    f = tmp_path / "calibrate_mail.md"
    f.write_text(f"```\n{body.rstrip()}\n```\n")
    out = io.StringIO()
    assert run_parse([f], "table", out) == 2
    md = to_markdown(analyze([f]))
    for said in (out.getvalue(), md):
        assert "everything read" not in said and "LATENCY, NUM_PHYSICAL_DISKS blank" in said
