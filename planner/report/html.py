"""The report as one self-contained HTML page: the rendered Markdown, charts inlined as data: URIs.

A page a user opens in a browser or mails: no file beside it is needed. Markdown is converted by
markdown-it-py (CommonMark plus tables; rich already depends on it). Raw HTML in the Markdown is not
passed through (``html=False``): report text comes partly from the hosts' tool output.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from planner.report.escape import html_text

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1180px;margin:1.2em auto;
padding:0 1em;color:#1b1b1b;line-height:1.4}
h1{font-size:1.5em;margin:.3em 0}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .55em;vertical-align:top}th{background:#f3f3f3}
td[style*="right"],th[style*="right"]{font-variant-numeric:tabular-nums}
blockquote{margin:.5em 0;padding:.3em .9em;background:#fff4e5;border-left:4px solid #e69500}
img{max-width:100%;height:auto}p img{max-width:49%;vertical-align:top}
code{background:#f4f4f4;padding:0 .2em}
"""


MAX_INLINE_BYTES = 8 << 20  # one chart; matplotlib's SVGs are tens of kilobytes


def _inline(src: str, base: Path, charts: Path) -> str | None:
    """The run's own chart ``src`` (relative to the page's folder) as a data: URI; None for anything else.

    Only a regular file inside the run's ``charts/`` folder, after symlinks are resolved, and at most
    MAX_INLINE_BYTES: an image named by report text (a host's os-release, a received plan, tool output) must
    never embed a controller file such as /etc/shadow, nor fetch a remote URL for whoever opens the page."""
    if not src or ":" in src.split("/", 1)[0] or src.startswith(("/", "\\")):
        return None
    try:
        path = (base / src).resolve()
        root = charts.resolve()
        if not path.is_relative_to(root) or path == root or not path.is_file():
            return None
        with path.open("rb") as f:
            data = f.read(MAX_INLINE_BYTES + 1)
    except (OSError, RuntimeError, ValueError):
        return None
    if len(data) > MAX_INLINE_BYTES:
        return None
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _images(tokens: list[Any], base: Path, charts: Path) -> None:
    """Charts inlined; any other image becomes its alt text, so the page loads nothing from anywhere."""
    for tok in tokens:
        for child in tok.children or ():
            if child.type != "image":
                continue
            uri = _inline(str(child.attrGet("src") or ""), base, charts)
            if uri is not None:
                child.attrSet("src", uri)
                continue
            child.type, child.tag, child.attrs = "text", "", {}
            child.content = f"[image not included: {child.content or 'no description'}]"
            child.children = None


def _title(tokens: list[Any], fallback: str) -> str:
    """The first level-1 heading's text, as the reader sees it (Markdown escapes undone)."""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h1" and i + 1 < len(tokens):
            return "".join(c.content for c in tokens[i + 1].children or () if c.type in ("text", "code_inline"))
    return fallback


def _ids(tokens: list[Any]) -> None:
    """Headings get ids from their text (#result), so a link or a test can find a section."""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and i + 1 < len(tokens):
            text = tokens[i + 1].content.strip().lower()
            tok.attrSet("id", "-".join("".join(c if c.isalnum() else " " for c in text).split()))


def markdown_to_html(text: str, base: Path, charts: Path, title: str) -> str:
    """The page: ``text`` (the rendered report, relative image paths from ``base``) with the charts of the
    run's ``charts`` folder inlined; markdown-it escapes every text node, html_text the title."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    _ids(tokens)
    _images(tokens, base, charts)
    title = _title(tokens, title)
    body = md.renderer.render(tokens, md.options, {})
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html_text(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n")
