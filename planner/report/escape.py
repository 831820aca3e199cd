"""The one escape for text from outside (hosts, tool output, records, received folders) in a report.

A report is Markdown, and its HTML page is that Markdown converted by markdown-it (raw HTML off), so the
Markdown escape is the one that matters: a host's ``PRETTY_NAME="Linux ![x](/etc/shadow)"``, a received
plan's description or an AWR wait-event name must print as the characters they are, never become an image
(fetched from anywhere by whoever opens the .md in a forge, or inlined into the HTML page), a link, raw HTML,
a table cell break or a heading.

How the templates get it, without each template having to remember: the report environment autoescapes,
with this module's Markdown escape in place of HTML's. Every string of the context is an ``Outside`` value
(a ``str`` whose ``__html__`` is its escaped form), so it is escaped wherever Jinja escapes (``{{ }}``, ``~``
next to template text, ``join``); a plain string a template derives from one (``| upper``) is escaped by
``finalize`` when printed. Template text itself is trusted and printed as written. Inside a code span
Markdown escapes do not apply, so the ``code`` filter makes one that the text cannot close.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from jinja2 import Environment, pass_environment
from markupsafe import Markup

from planner.results.mdtext import md_text, one_line

__all__ = ["Outside", "md_text", "md_code", "html_text", "outside", "finalize", "FILTERS"]

def md_code(value: object) -> Markup:
    """``value`` as one Markdown code span that its own backticks cannot close (outside tables)."""
    text = one_line(value)
    if not text:
        return Markup("")
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def html_text(value: object) -> str:
    """``value`` as HTML text or attribute content (the page's title; markdown-it escapes the body)."""
    return html.escape(one_line(value), quote=True)


class Outside(str):
    """A string from outside: Jinja's autoescape prints it through md_text."""

    __slots__ = ()

    def __html__(self) -> Markup:
        return Markup(md_text(self))


def outside(value: Any) -> Any:
    """``value`` (a report context: dicts, lists, tuples) with every string an Outside one."""
    if isinstance(value, str):
        return value if isinstance(value, Outside) else Outside(value)
    if isinstance(value, Mapping):
        return {k: outside(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [outside(v) for v in value]
    return value


def finalize(value: Any) -> Any:
    """Every ``{{ }}`` value: a plain string (derived in the template from outside text) is escaped;
    template output (macros, Markup) and Outside values are left to autoescape."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return Markup(md_text(value))
    return value


def _escaped(item: Any) -> Markup:
    return Markup(item.__html__()) if hasattr(item, "__html__") else Markup(md_text(item))


@pass_environment
def join(env: Environment, value: Iterable[Any], d: str = "", attribute: str | None = None) -> Markup:
    """Jinja's ``join`` with each item escaped as Markdown (the separator is template text)."""
    items = (env.getitem(v, attribute) if attribute is not None else v for v in value)
    sep = Markup(d.__html__()) if hasattr(d, "__html__") else Markup(d)
    return sep.join(_escaped(i) for i in items)


FILTERS = {"join": join, "e": _escaped, "escape": _escaped, "forceescape": _escaped, "code": md_code}
