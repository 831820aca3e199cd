"""Issue 45: rows wrapped by mail at 72/76 columns are read where the table's columns prove the join, refused by
name where they do not, and never give a wrong value.

No real mail-wrapped AWR or iostat paste with known values was found (list archives re-flow or strip them), so
each paste is constructed from a real file of tests/data the way a mailer wraps it: every line longer than the
width cut at the last space before it (Python's textwrap, as Thunderbird and Outlook do), quoted with "> " in a
reply, or sent quoted-printable (RFC 2045: '=' at the end of each cut line).
"""

from __future__ import annotations

import quopri
import textwrap
from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import parse_file, parse_text
from planner.parsers.mailwrap import detect
from planner.parsers.unwrap import unwrap

DATA = Path(__file__).parents[1] / "data"
REPORTS = sorted([*DATA.glob("awr/*.txt"), *DATA.glob("statspack/*.txt"), *DATA.glob("seeds_like/*.txt")])
IOSTAT = sorted(DATA.glob("ostats/iostat-*.txt"))


def mailed(text: str, width: int, quoted: bool = False) -> str:
    out: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip()
        out += [line] if len(line) <= width else textwrap.wrap(line, width, break_long_words=False,
                                                                               break_on_hyphens=False)
    return "\n".join(f"> {ln}" for ln in out) if quoted else "\n".join(out)


def values(text: str, source: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(m.name, m.labels): m.value for m in parse_text(text, source).metrics}


def _unlabelled(key: tuple[str, tuple[tuple[str, str], ...]]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The key without the labels a cut header can take away (RAC instance, an event's class): not a value."""
    gone = ("instance", "wait_class") if key[0].startswith("wait.") else ("instance",)
    return key[0], tuple(kv for kv in key[1] if kv[0] not in gone)


@pytest.mark.parametrize("width", [72, 76])
def test_top_events_wrapped_by_mail_keep_their_event_names(width: int) -> None:
    """Before: the wait class cut onto the next line was read as the start of the next event's name
    ("User I/O log file sync", "Commit db file parallel read") in the 11.2.0.1 report."""
    path = DATA / "awr/awr_11201_orcl_fabioprado.txt"
    bare = values(path.read_text(), str(path))
    wrapped = values(mailed(path.read_text(), width, quoted=True), str(path))
    assert wrapped == bare


def test_a_mail_wrapped_rac_report_reads_its_header_host_and_instance() -> None:
    """Before: the header's 'RAC' and '11.2.0.3.0  YES' on lines of their own lost the release, the RAC flag and
    so the instance label of every value, and the host line's memory; each read 'truncated report?'."""
    path = DATA / "awr/awr_11203_rac_askmaclean.txt"
    p = parse_text(mailed(path.read_text(), 72), str(path))
    assert (p.fact("version"), p.fact("rac"), p.fact("mail_wrapped")) == ("11.2.0.3.0", "YES", "72 columns")
    assert {(m.name, m.labels): m.value for m in p.metrics} == values(path.read_text(), str(path))


@pytest.mark.parametrize("width", [60, 64, 68, 72, 76])
def test_no_wrong_value_from_any_report_wrapped_at_any_width(width: int) -> None:
    """Every value read from a wrapped copy of a real report is that report's value for the same figure.
    Before: events renamed by a class cut onto the next line, 'efficiency.cpu' from a cut label."""
    for path in REPORTS:
        bare = {_unlabelled(k): v for k, v in values(path.read_text(), str(path)).items()}
        try:
            wrapped = values(mailed(path.read_text(), width, quoted=True), str(path))
        except ParseError as e:
            assert "wrapped by mail" in str(e) and "attachment" in str(e), (path.name, str(e))
            continue
        wrong = {k: v for k, v in wrapped.items() if bare.get(_unlabelled(k)) != v}
        assert not wrong, (path.name, width, list(wrong.items())[:4])


def test_a_top_5_the_columns_cannot_prove_is_refused_by_name() -> None:
    """At 60 columns the 10g Top 5 loses '923 65.4 Cluster' to the next line: three cells no column count can
    place. Before: 'Cluster enq: TX - row lock contention' was an event, 'Applicatio CPU time' another."""
    path = DATA / "awr/top5_10g_layout_askmaclean.txt"
    with pytest.raises(ParseError) as e:
        parse_text(mailed(path.read_text(), 60, quoted=True), str(path))
    assert "Top Events table not read: rows wrapped by mail" in str(e.value) or \
        "excerpt not read: rows wrapped by mail" in str(e.value)
    assert "paste the report as an attachment" in str(e.value)


def test_a_report_cut_by_mail_says_so_for_the_sections_it_lost() -> None:
    """A section the wrap made unreadable is named with the wrap, not 'truncated report?'."""
    path = DATA / "awr/awr_19c_racdb_pdb.txt"
    p = parse_text(mailed(path.read_text(), 64), str(path))
    assert p.fact("mail_wrapped")
    assert not any("truncated report" in str(e) for e in p.errors)


def test_no_real_file_is_taken_for_a_mail_wrapped_one() -> None:
    """Natural rows are never joined: no file of tests/data, as it is, is detected as wrapped."""
    files = [f for f in DATA.rglob("*") if f.is_file() and f.suffix in (".txt", ".md", ".out", ".log", ".lst")]
    assert len(files) > 100
    assert [f.name for f in files if detect(unwrap(f.read_text(errors="replace")).text.split("\n"))] == []


@pytest.mark.parametrize("path", IOSTAT, ids=lambda p: p.name)
def test_iostat_rows_wrapped_by_mail_are_rejoined_by_the_header_column_count(path: Path) -> None:
    """Before: the cut-off end of each device row was read as a device named '2427.95', its %rrqm 139%."""
    bare = values(path.read_text(), str(path))
    try:
        wrapped = values(mailed(path.read_text(), 72), str(path))
    except ParseError as e:  # --pretty -h: the cut header no longer ends in "Device"; nothing read, no value
        assert "wrapped by mail" in str(e) or "no iostat / mpstat report rows" in str(e)
        return
    assert all(bare.get(k) == v for k, v in wrapped.items()), [k for k in wrapped if bare.get(k) != wrapped[k]][:3]
    assert wrapped == bare


def test_an_iostat_row_cut_where_no_column_count_proves_it_is_refused() -> None:
    """A header that fits but a row cut: the row's end, a number where the device name stands, is refused."""
    path = DATA / "ostats/iostat-x-t.txt"
    lines = path.read_text().split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith("vda"))
    row = lines[at]
    cut = row.rfind(" ", 0, 60)
    text = "\n".join([*lines[:at], row[:cut], row[cut:].strip(), *lines[at + 1:]])
    p = parse_text(text, str(path))
    assert not any(("device", "2427.95") in m.labels or any(lab[1][:1].isdigit() for lab in m.labels
                                                              if lab[0] == "device") for m in p.metrics)
    assert any("wrapped by mail" in str(e) for e in p.errors)


@pytest.mark.parametrize("path", [DATA / "awr/awr_19c_racdb_pdb.txt", DATA / "statspack/sp_11204_igt.txt",
                                  DATA / "ostats/iostat-xt-locale-ja_JP.txt"], ids=lambda p: p.name)
def test_a_quoted_printable_paste_reads_as_the_file(path: Path) -> None:
    """'=' soft line breaks and =XX escapes (UTF-8 bytes too) are undone: the same values as the file.
    Before: the 19c report lost its header and host; the ja_JP iostat's timestamps were bytes."""
    text = path.read_text()
    assert values(quopri.encodestring(text.encode()).decode(), str(path)) == values(text, str(path))


def test_the_bare_files_read_as_before() -> None:
    """The wrap handling adds nothing to a file that was not wrapped (spot check beside the sweep above)."""
    p = parse_file(DATA / "statspack/sp_11204_igt.txt")
    assert not p.fact("mail_wrapped") and not p.errors


def test_a_wide_section_whose_rows_the_mailer_cut_is_refused_by_name() -> None:
    """11.2.0.1's Foreground Wait Events rows are 80+ columns: at 72 the first row's "4.0 77.5" lands on the next
    line with the file's own "@jls" mark, so no column count can put it back. Before: the first row was read
    without its last cells and the rest of the table dropped without a word."""
    path = DATA / "awr/awr_11201_orcl_fabioprado_waits.txt"
    p = parse_text(mailed(path.read_text(), 72, quoted=True), str(path))
    assert not [m for m in p.metrics if ("section", "foreground") in m.labels]
    assert any(e.section == "Foreground Wait Events" and "wrapped by mail" in str(e) for e in p.errors)
