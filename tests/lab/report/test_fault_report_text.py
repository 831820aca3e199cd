"""Report text from outside (hosts, tool output, received folders) cannot become an image, a link or raw HTML,
and the HTML page inlines only the run's own charts (issue 24 row 2).

The three ways in that put a controller file into report.html: a host's /etc/os-release PRETTY_NAME (read over
the real loopback sshd), a received run folder's plan description, an AWR wait-event name.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from test_report_helpers import Exec, awr_excerpt, seed_study, write_run

from planner.rehearsal.lab import Lab
from planner.report.escape import md_code, md_text
from planner.report.html import MAX_INLINE_BYTES
from planner.report.render import render_run_report
from planner.transport import facts
from planner.transport.ssh.client import SSHConnection

SECRET = "TOPSECRET-controller-file"


def _secret_file(where: Path) -> Path:
    where.write_text(SECRET + "\n")
    return where


def _leaks(text: str) -> bool:
    return SECRET in text or base64.b64encode((SECRET + "\n").encode()).decode()[:16] in text


def _images(md_text_: str) -> list[str]:
    """Every image and raw HTML a Markdown viewer (markdown-it, CommonMark + tables, HTML on) would make."""
    md = MarkdownIt("commonmark").enable("table")
    found = []
    for tok in md.parse(md_text_):
        if tok.type == "html_block":
            found.append(tok.content)
        for c in tok.children or ():
            if c.type in ("image", "html_inline", "link_open"):
                found.append(str(c.attrGet("src") or c.attrGet("href") or c.content))
    return [f for f in found if f != "commands.jsonl"]  # the template's own link


def _both(run: Path) -> tuple[str, str]:
    md = render_run_report(run).read_text()
    page = render_run_report(run, fmt="html").read_text()
    return md, page


def _vio(tmp_path: Path, *, facts_of: dict[str, object] | None = None, events: str = "",
         description: str | None = None) -> Path:
    run = write_run(tmp_path / "runs", "r1", [Exec("plays[0].workloads[0]", "slob", "vio", {
        "awr.txt": (awr_excerpt(1000.0, events=events), "awr_excerpt")}, {}, 0, 0)],
        [{"name": "violin", "hosts": ["vio"]}], facts={"vio": facts_of} if facts_of else None)
    if description is not None:
        meta = json.loads((run / "meta.json").read_text())
        meta["description"] = description
        (run / "meta.json").write_text(json.dumps(meta))
    return run


@pytest.mark.slow
@pytest.mark.ssh
def test_a_hosts_os_release_pretty_name_cannot_inline_a_controller_file(lab: Lab, tmp_path: Path) -> None:
    secret = _secret_file(tmp_path / "shadow")
    root = tmp_path / "hostroot"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text(
        f'PRETTY_NAME="Linux ![x]({secret}) <img src=http://127.0.0.1:9/x.png> | cell"\n')
    conn = SSHConnection(lab.hosts[0])
    conn.connect()
    try:
        got, _ = facts.gather(conn, str(root))
    finally:
        conn.close()
    assert f"![x]({secret})" in got.distribution  # what the host said, as it said it
    run = _vio(tmp_path, facts_of=got.to_json())
    md, page = _both(run)
    assert not _leaks(page) and ";base64," not in page
    assert _images(md) == [] and "<img" not in page
    assert f"\\!\\[x\\]({secret}) \\<img src=http://127.0.0.1:9/x.png> \\| cell" in md
    assert f"![x]({secret}) &lt;img src=http://127.0.0.1:9/x.png&gt; | cell" in page  # shown, as text


@pytest.mark.slow
def test_a_received_plan_description_cannot_inline_a_controller_file(tmp_path: Path) -> None:
    secret = _secret_file(tmp_path / "environ")
    run = _vio(tmp_path, description=f"Fast ![d]({secret})\n# Heading\n<script>x</script> [l](http://127.0.0.1:9/)")
    md, page = _both(run)
    assert not _leaks(page) and "<script>" not in page
    assert _images(md) == []
    assert f"Fast ![d]({secret}) # Heading &lt;script&gt;x&lt;/script&gt; [l](http://127.0.0.1:9/)" in page


@pytest.mark.slow
def test_an_awr_wait_event_name_cannot_inline_a_file_beside_the_page(tmp_path: Path) -> None:
    events = ("![a](../secret.txt)                 177,142,915       4,804      0   60.0 User I/O\n"
              "DB CPU                                            1,573          20.8\n")
    run = _vio(tmp_path, events=events)
    _secret_file(run.parent / "secret.txt")
    _secret_file(run / "secret.txt")
    md, page = _both(run)
    assert "| \\!\\[a\\](../secret.txt) | User I/O |" in md and _images(md) == []
    assert not _leaks(page) and "<td>![a](../secret.txt)</td>" in page


@pytest.mark.slow
def test_only_the_runs_own_regular_bounded_charts_are_inlined(tmp_path: Path) -> None:
    """The template is the user's (trusted), but what an image names is still contained: an absolute path,
    a symlink out of charts/, a file outside charts/, an oversized chart and a remote URL are not embedded."""
    run = seed_study(tmp_path / "runs")
    secret = _secret_file(tmp_path / "shadow")
    charts = run / "charts"
    charts.mkdir(exist_ok=True)
    (charts / "link.svg").symlink_to(secret)
    with (charts / "huge.svg").open("wb") as f:  # sparse: the size is what is refused, not the disk
        f.truncate(MAX_INLINE_BYTES + 1)
    (charts / "ok.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    tpl = tmp_path / "t.md.j2"
    tpl.write_text(f"# t\n\n![a]({secret}) ![b](charts/link.svg) ![c](charts/huge.svg) ![d](../../shadow) "
                   "![e](http://127.0.0.1:9/x.png) ![f](charts/ok.svg) ![g](charts)\n")
    page = render_run_report(run, template=str(tpl), fmt="html").read_text()
    assert not _leaks(page) and "127.0.0.1" not in page
    assert page.count("<img") == 1 and "data:image/svg+xml;base64," in page
    for alt in "abcdeg":
        assert f"[image not included: {alt}]" in page
    assert os.path.getsize(charts / "huge.svg") == MAX_INLINE_BYTES + 1


@pytest.mark.slow
def test_the_page_title_is_the_heading_as_read(tmp_path: Path) -> None:
    run = _vio(tmp_path)
    meta = json.loads((run / "meta.json").read_text())
    meta["plan"] = "a_<b>_*c*"
    (run / "meta.json").write_text(json.dumps(meta))
    page = render_run_report(run, fmt="html").read_text()
    assert "<title>a_&lt;b&gt;_*c* — run r1</title>" in page


@pytest.mark.parametrize("text", ["![x](/etc/shadow)", "<img src=x>", "a|b", "`code`", "**b** _i_ ~~s~~",
                                  "# h", "> q", "- l", "1. o", "&lt;", "[l](u)", "\\!", "a\nb\r\x1b]0;t\x07",
                                  "<http://127.0.0.1>", "x_y_z"])
def test_md_text_renders_as_exactly_its_characters(text: str) -> None:
    md = MarkdownIt("commonmark").enable("table")
    shown = "".join(c.content for t in md.parse(md_text(text)) for c in t.children or () if c.type == "text"
                    or c.type == "softbreak")
    want = "".join(" " if ord(ch) < 32 else ch for ch in text).rstrip()  # a paragraph's end is trimmed
    assert shown == want
    code = md.parse(str(md_code("a `b`` c")))[1].children
    assert code is not None and [c.content for c in code] == ["a `b`` c"]


def test_planner_analyze_markdown_escapes_what_the_files_say(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli.main import main

    events = ("![a](/etc/shadow)                   177,142,915       4,804      0   60.0 Configurat\n"
              "DB CPU                                            1,573          20.8\n")
    report = tmp_path / "awr ![b](x) |.txt"
    report.write_text(awr_excerpt(1000.0, events=events))
    assert main(["analyze", str(report)]) == 0
    md = capsys.readouterr().out
    assert _images(md) == [] and "\\!\\[b\\](x) \\|.txt" in md
