"""The report as one self-contained HTML page: the rendered Markdown, charts inlined as data: URIs.

A page a user opens in a browser or mails: no file beside it is needed. Markdown is converted by
markdown-it-py (CommonMark plus tables; rich already depends on it). Raw HTML in the Markdown is not
passed through (``html=False``): report text comes partly from the hosts' tool output.
"""

from __future__ import annotations

import base64
import html
import mimetypes
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

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


def _inline(src: str, base: Path) -> str:
    """A relative image path as a data: URI (left as it is when the file is missing or not local)."""
    if ":" in src.split("/", 1)[0]:
        return src
    path = (base / src).resolve()
    if not path.is_file():
        return src
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode()}"


def _ids(tokens: list[Any]) -> None:
    """Headings get ids from their text (#result), so a link or a test can find a section."""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and i + 1 < len(tokens):
            text = tokens[i + 1].content.strip().lower()
            tok.attrSet("id", "-".join("".join(c if c.isalnum() else " " for c in text).split()))


def markdown_to_html(text: str, base: Path, title: str) -> str:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    _ids(tokens)
    for tok in tokens:
        for child in tok.children or ():
            if child.type == "image":
                child.attrSet("src", _inline(str(child.attrGet("src") or ""), base))
    body = md.renderer.render(tokens, md.options, {})
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n")
