"""Paste wrappers come off before detection: the same body, wrapped or not, gives the same values.

The bodies are the project's real files (tests/data, one per kind, sources in each folder's README); the
wrappers are the ones DBAs paste through: indentation, ``> `` mail quoting (nested), an HTML page around a
``<pre>`` block with entities, Markdown fences and headings, a shell prompt and the command line, a trailing
prompt or comment line, and for the OS tools a timestamp or host name in front of every row.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.metrics import Parsed
from planner.parsers import parse_text

DATA = Path(__file__).parents[1] / "data"
BODIES = {
    "awr_text": "awr/awr_19c_racdb_pdb.txt", "awr_excerpt": "seeds_like/3par_cache_and_load_profile.txt",
    "statspack": "statspack/sp_11204_igt.txt", "awr_compare": "awr_compare/awrddrpt_19c_pdb_swingbench.txt",
    "awr_rac_text": "awr_rac/awrgrpt_11203_dd453_fragment.txt", "fio_json": "fio/fio-3.33-randread.json",
    "fio_text": "fio/fio-3.1-randwrite-normal.txt", "orion_summary": "orion/orion-19c-console.txt",
    "orion_csv": "orion/mytest_iops.csv", "calibrate_io": "calibrate/dba_rsrc_io_calibrate_19c.txt",
    "slb": "slb/slb-westmere-seed.txt", "iozone": "iozone/iozone-3.506-t4-random.txt",
    "iostat": "ostats/iostat-x-t.txt", "mpstat": "ostats/mpstat-P-ALL.txt", "vmstat": "ostats/vmstat-n.txt",
}
HTML_REPORTS = {"awr_html": "awr/awr_19c_orclcdb.html", "awr_rac_html": "awr_rac/awr_rac_122_slob2.html"}
# A harness or `ts` prefixes every row of what it captures: the OS tools and the benchmark tools' own text.
ROW_KINDS = ("iostat", "mpstat", "vmstat", "fio_text", "iozone", "slb", "orion_summary", "calibrate_io")

Wrapper = Callable[[str], str]


def _lines(text: str, fn: Callable[[str], str]) -> str:
    return "\n".join(fn(ln) for ln in text.split("\n"))


def indent(n: int) -> Wrapper:
    return lambda t: _lines(t, lambda ln: (" " * n + ln) if ln.strip() else ln)


def tab(t: str) -> str:
    return _lines(t, lambda ln: "\t" + ln if ln.strip() else ln)


def quote(depth: int, spaced: bool) -> Wrapper:
    mark = ("> " if spaced else ">") * depth
    return lambda t: "On Tue, Bob wrote:\n" + _lines(t, lambda ln: (mark + ln).rstrip()) + "\n"


def fence(info: str, prose: bool) -> Wrapper:
    def wrap(t: str) -> str:
        head = "Here is what I got on the test box:\n\n" if prose else ""
        tail = "\nAny idea why it is this slow?\n" if prose else ""
        return f"{head}```{info}\n{t.rstrip()}\n```\n{tail}"
    return wrap


def heading(t: str) -> str:
    return f"## Output\n\n{t}"


def html_pre(t: str) -> str:
    return ("<!DOCTYPE html><html><head><title>My results</title></head><body>\n<h2>Run 1</h2>\n"
            f"<p>Output below &mdash; look at the numbers.</p>\n<pre class=\"code\">{html.escape(t)}</pre>\n"
            "<p>Comments welcome.</p>\n</body></html>\n")


def prompt(style: str) -> Wrapper:
    return lambda t: f"{style} ./run_the_tool --with args 'quoted'\n{t}"


def trailing(line: str) -> Wrapper:
    return lambda t: t.rstrip("\n") + f"\n{line}\n"


def row_prefix(kind: str) -> Wrapper:
    stamp = {"ts": "Dec 01 10:00:01 ", "iso": "2026-12-01T10:00:01+00:00 ", "host": "db1: ",
             "sysstat": "09/29/25 15:22:19 ",  # the per-row stamp of sysstat PR #414's iostat -T
             # avocado-misc-tests PR #1675 pastes fio's output this way, one harness tag per row
             "avocado": "12:06:53 DEBUG| [stdout] "}[kind]
    return lambda t: _lines(t, lambda ln: stamp + ln)


_INNER: st.SearchStrategy[Wrapper] = st.one_of(
    st.builds(indent, st.integers(1, 8)), st.just(tab),
    st.builds(prompt, st.sampled_from(["$", "[oracle@db1 ~]$", "oracle@db1:~/bench$", "#", "SQL>"])),
    st.builds(trailing, st.sampled_from(["$", "[oracle@db1 ~]$ ", "# collected by hand", "-- end"])),
)
_OUTER: st.SearchStrategy[Wrapper] = st.one_of(
    st.builds(quote, st.integers(1, 3), st.booleans()),
    st.builds(fence, st.sampled_from(["", "text", "console", "properties"]), st.booleans()),
    st.just(heading), st.just(html_pre),
)


@cache
def _body(rel: str) -> str:
    return (DATA / rel).read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")


def _values(p: Parsed) -> list[tuple[str, float, bool]]:
    return sorted((m.key, m.value, m.derived) for m in p.metrics)


@cache
def _bare(kind: str) -> Parsed:
    rel = {**BODIES, **HTML_REPORTS}[kind]
    return parse_text(_body(rel), rel)


def _apply(body: str, wrappers: list[Wrapper]) -> str:
    for w in wrappers:
        body = w(body)
    return body


def _check(kind: str, wrapped: str) -> None:
    bare = _bare(kind)
    got = parse_text(wrapped, bare.source)  # the name is not a wrapper: ORION csv takes its matrix from it
    assert got.kind == bare.kind
    assert _values(got) == _values(bare)
    assert len(got.errors) == len(bare.errors), [str(e) for e in got.errors]


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BODIES))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inner=st.lists(_INNER, max_size=2), outer=st.lists(_OUTER, max_size=2))
def test_wrapped_body_reads_the_same(kind: str, inner: list[Wrapper], outer: list[Wrapper]) -> None:
    # html_pre only as the outermost layer (a web page is not quoted inside a fence); fences do not nest
    outer = [w for w in outer if w is not html_pre] + [w for w in outer if w is html_pre][:1]
    fences = [w for w in outer if getattr(w, "__qualname__", "").startswith("fence")]
    outer = [w for w in outer if w not in fences[1:]]
    _check(kind, _apply(_body(BODIES[kind]), [*inner, *outer]))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ROW_KINDS)
@settings(max_examples=40, deadline=None)
@given(prefixes=st.lists(st.sampled_from(["ts", "iso", "host", "avocado", "sysstat"]), min_size=1, max_size=2,
                         unique=True),
       outer=st.lists(_OUTER, max_size=1))
def test_row_prefixes_come_off_os_rows(kind: str, prefixes: list[str], outer: list[Wrapper]) -> None:
    wrapped = _apply(_body(BODIES[kind]), [row_prefix(p) for p in prefixes])
    _check(kind, _apply(wrapped, outer))


@pytest.mark.parametrize("kind", sorted(HTML_REPORTS))
@pytest.mark.parametrize("wrap", [prompt("$"), trailing("# collected by hand"), trailing("[oracle@db1 ~]$")],
                         ids=["prompt", "comment", "trailing-prompt"])
def test_html_reports_keep_their_html(kind: str, wrap: Wrapper) -> None:
    """An AWR HTML report is its own layout, not a <pre> wrapper: its tables still read after a prompt line."""
    _check(kind, wrap(_body(HTML_REPORTS[kind])))


@pytest.mark.parametrize("kind", sorted({**BODIES, **HTML_REPORTS}))
def test_bare_files_are_untouched_where_it_matters(kind: str) -> None:
    """Unwrapping a real bare file keeps every value where it was (line numbers included)."""
    from planner.parsers import _run

    rel = {**BODIES, **HTML_REPORTS}[kind]
    raw = _run(_bare(kind).kind, _body(rel), rel)
    assert ([(m.key, m.value, m.source) for m in raw.metrics]
            == [(m.key, m.value, m.source) for m in _bare(kind).metrics])


def test_lines_point_into_the_file_as_given() -> None:
    body = _body(BODIES["calibrate_io"])
    wrapped = fence("", True)(indent(4)(body))
    got = parse_text(wrapped, "mail.txt")
    shift = 3  # the prose line, the blank line and the opening fence
    assert [m.source.line for m in got.metrics if m.source] == \
        [m.source.line + shift for m in _bare("calibrate_io").metrics if m.source]


def test_what_was_stripped_is_a_note() -> None:
    wrapped = quote(2, True)(fence("text", False)(indent(4)(_body(BODIES["vmstat"]))))
    got = parse_text(wrapped, "mail.txt")
    note = got.fact("unwrapped")
    assert "'> ' mail quoting (2 levels)" in note and "Markdown fence" in note and "indentation (4 spaces)" in note
    from planner.parsers import describe

    assert f"unwrapped: {note}" in str(describe(got))


def test_unwrap_keeps_the_line_count() -> None:
    from planner.parsers.unwrap import unwrap  # here, so benchmarks/wrapped_reads.py runs on older planners

    text = quote(1, True)(fence("", True)(_body(BODIES["iostat"])))
    assert unwrap(text).text.count("\n") == text.count("\n")


def test_rows_of_time_only_stay_for_mpstat() -> None:
    """mpstat's own first column is a time: it is never taken for a wrapper."""
    body = "\n".join(ln for ln in _body(BODIES["mpstat"]).split("\n") if ln[:2].isdigit())
    got = parse_text(body, "mpstat.txt")
    assert got.kind == "mpstat" and {m.label("time") for m in got.metrics} - {"Average"}
    assert not got.fact("unwrapped")


# The shapes real pastes come in, seen in public threads (the body is the project's own real file, so the values
# are known): avocado-misc-tests PR #1675 logs fio's output one harness tag per row; red-hat-storage/ocs-ci
# PR #283 quotes it indented by 57 spaces inside a log; koverstreet/bcachefs issue #478 fences it with the bare
# command line (no prompt) on top; WordPress turns a paste into <br/> lines with &nbsp; indentation.
REAL_SHAPES: dict[str, Wrapper] = {
    "avocado harness tag": lambda t: _lines(t, lambda ln: "12:06:53 DEBUG| [stdout] " + ln),
    "57-space log indentation": indent(57),
    "fence, bare command line": lambda t: "```\n" + t.replace("[root@vm10-34-16-20 ~]# ", "", 1) + "```\n",
    "WordPress <br/> lines": lambda t: "<div>" + "<br/>\n".join(html.escape(ln).replace(" ", "&nbsp;")
                                                                for ln in t.split("\n")) + "</div>",
    "tilde fence under prose": lambda t: f"Output:\n\n~~~\n{t}\n~~~\n\nthanks",
}


@pytest.mark.parametrize("shape", sorted(REAL_SHAPES))
@pytest.mark.parametrize("kind", ["fio_text", "iostat", "calibrate_io"])
def test_real_paste_shapes(kind: str, shape: str) -> None:
    _check(kind, REAL_SHAPES[shape](_body(BODIES[kind])))


def test_cli_reads_a_mailed_vmstat_completely(tmp_path: Path) -> None:
    """A vmstat read completely exited 2 over its trailing fence or comment line; now it is 0 and says so."""
    import io

    from planner.cli.parse import run_parse

    f = tmp_path / "vmstat_mail.txt"
    f.write_text(quote(1, True)(fence("", True)(trailing("# collected by hand")(_body(BODIES["vmstat"])))))
    out = io.StringIO()
    assert run_parse([f], "table", out) == 0
    first = out.getvalue().splitlines()[0]
    assert "read as vmstat" in first and "unwrapped: '> ' mail quoting" in first and first.endswith("everything read")


def test_blog_page_with_a_layout_table_around_a_pre_report() -> None:
    """A blog's layout <table> and the report title inside its <pre> look like AWR HTML: read as the <pre> text."""
    page = ("<html><head><title>blog</title></head><body><table class='layout'><tr><td>menu</td></tr></table>\n"
            f"<pre>{html.escape(_body(BODIES['awr_text']))}</pre></body></html>\n")
    got = parse_text(page, "blog.html")
    assert got.kind == "awr_text" and _values(got) == _values(_bare("awr_text"))
    assert "HTML page around a <pre> block" in got.fact("unwrapped")
