"""Aligned terminal tables for `planner runs`, `show` and `compare` (rich; plain text when not a terminal).

Numbers are right-aligned; long run ids and names are never cut (a pipe gets the full width it needs).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from planner.engine.console import escape_controls


def cell(text: object) -> Text:
    """A cell from records or store rows (outside text): control bytes shown as \\xNN, tab and newline
    included (a cell is one line), and never read as rich markup (``[link=…]`` would make a hyperlink)."""
    return Text(escape_controls(str(text)).replace("\t", "\\x09").replace("\n", "\\x0a"))


def print_table(columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = (),
                title: str | None = None) -> None:
    """One table; ``numeric``: indexes of right-aligned columns."""
    table = Table(box=box.SIMPLE_HEAD, title=cell(title) if title else None, title_justify="left", show_edge=False,
                  pad_edge=False, header_style="bold")
    for i, c in enumerate(columns):
        table.add_column(cell(c), justify="right" if i in numeric else "left", overflow="fold", no_wrap=True)
    for r in rows:
        table.add_row(*(cell(x) for x in r))
    tty = sys.stdout.isatty()
    # a pipe or a file is as wide as the table needs: columns stay aligned and nothing is cut
    width = shutil.get_terminal_size((100, 24)).columns if tty else 10_000
    console = Console(file=sys.stdout, width=width, highlight=False, soft_wrap=False,
                      color_system="auto" if tty else None)
    console.print(table, crop=False)
