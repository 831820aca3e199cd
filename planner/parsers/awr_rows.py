"""``Label:  value value ...`` blocks of AWR text (Load Profile, its Compare Period form), read by token.

A Load Profile is a block of labelled rows, but pastes reshape it: lines wrapped by a mail client put a
row's numbers on the next line, a blog flattens the whole block onto one line, Markdown adds pipes. So the
block is read as a stream: every ``Label:`` starts a row, and every number up to the next label belongs to
it, whatever line it is on. Numbers go through planner.parsers.numbers: one that cannot be read whole is a
warning with its line, and a row with more numbers than the table has columns is a warning, not a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from planner.errors import ParseError
from planner.metrics import MetricSink
from planner.parsers.awr_common import PER_COLUMNS, N, add_load_profile_row, parse_number, slug
from planner.parsers.numbers import put, read, warn

Lines = list[tuple[int, str]]

# A row label: starts a word (not inside 1.61E+07), holds no digits or dots, ends at a colon.
_LABEL = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=\|))([A-Za-z%][A-Za-z%/()+&' \-]*?)\s*:(?=\s|$|\|)")
_RULE = re.compile(r"^[~\-=|_\s]+$")
# Titles of the sections that follow a Load Profile: the block ends at the first one.
_NEXT = re.compile(r"(Instance Efficiency|Top \d+ |Top Timed|Host CPU|Cache Sizes|IO Profile|Memory Statistics|"
                   r"Wait Classes|Shared Pool Statistics|Time Model|Foreground Wait|Report Summary|"
                   r"Main Report|Wait Events Statistics|SQL ordered by)", re.I)
_HEADER_WORDS = (("1st per sec", "s1"), ("2nd per sec", "s2"), ("1st per txn", "t1"), ("2nd per txn", "t2"),
                 ("per second", "s"), ("per transaction", "txn"), ("per exec", "exec"), ("per call", "call"))


@dataclass
class Row:
    label: str
    line: int
    tokens: list[tuple[str, int]] = field(default_factory=list)  # (token, line) after the label


def _columns(header: str) -> tuple[str, ...]:
    h = " ".join(header.lower().split())
    found: list[tuple[int, str]] = []
    for words, col in _HEADER_WORDS:
        found += [(m.start(), col) for m in re.finditer(re.escape(words), h)]
    for m in re.finditer(r"%diff", h):
        found.append((m.start(), "diff"))
    return tuple(c for _, c in sorted(found))


def _clean(text: str) -> str:
    """Markdown table pipes and bold markers out, so ``| **DB Time(s):** | 13.4 |`` reads as a row."""
    return re.sub(r"\*\*|__|`", "", text).replace("|", " ")


def find_block(lines: Lines) -> int:
    """Index of the Load Profile title, or of its ``~~~`` underline when the title is missing (awrddrpt)."""
    for k, (_, text) in enumerate(lines):
        t = _clean(text)
        if re.match(r"^\s*Load\s+Profile\b", t, re.I):
            return k
        if re.match(r"^\s*~{5,}\s+(1st\s+)?Per\s+Sec", t, re.I):
            return k
    return -1


def scan(lines: Lines, k: int) -> tuple[str, list[Row]]:
    """(header text, rows) of the labelled block starting at lines[k]."""
    header_parts: list[str] = []
    rows: list[Row] = []
    blanks = 0
    first = True
    for lineno, raw in lines[k:]:
        text = _clean(raw)
        if first:
            m = re.search(r"Load\s+Profile", text, re.I)
            text = text[m.end():] if m else text
            first = False
        elif (nxt := _NEXT.search(text)) and nxt.start() < 8 and "load profile" not in text.lower():
            break
        if (cut := _NEXT.search(text)) and rows:  # a flattened paste runs on into the next section
            text = text[:cut.start()]
        if not text.strip():
            blanks += 1
            if blanks >= 2 and rows:
                break
            continue
        blanks = 0
        labels = list(_LABEL.finditer(text))
        if not labels:
            if _RULE.match(text) or not rows:
                header_parts.append(text)
                continue
            toks = text.split()
            if all(any(c.isdigit() for c in t) for t in toks):  # a wrapped row's numbers
                rows[-1].tokens += [(t, lineno) for t in toks]
                continue
            if rows and re.fullmatch(r"\s*(First|Second|Diff|\s)+\s*", text):
                continue  # the compare report's ratio block header
            break  # prose after the block
        if not rows:
            header_parts.append(text[:labels[0].start()])
        for i, m in enumerate(labels):
            end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
            label = re.split(r"[~\-]{2,}", m.group(1))[-1].strip()
            row = Row(label, lineno, [(t, lineno) for t in text[m.end():end].split()])
            rows.append(row)
    return " ".join(header_parts), rows


def numbers_of(row: Row, sink: MetricSink, parser: str, section: str) -> list[float | None]:
    """The row's values in order; tokens that are not numbers at all are dropped, unreadable ones warned."""
    out: list[float | None] = []
    for tok, line in row.tokens:
        if _RULE.match(tok):
            continue
        r = read(tok)
        if r.value is not None and r.unit in ("", "K", "M", "G", "%"):
            out.append(parse_number(tok) if r.unit in ("K", "M", "G") else r.value)
        elif any(c.isdigit() for c in tok):
            warn(sink, parser, section, r, line)
            out.append(None)
    return out


def parse_load_profile(lines: Lines, sink: MetricSink, parser: str = "awr", **labels: str) -> int:
    """Every Load Profile row, however the paste wrapped or flattened it. Returns the rows read."""
    k = find_block(lines)
    if k < 0:
        return 0
    header, rows = scan(lines, k)
    columns = _columns(header)
    columns = columns or PER_COLUMNS
    n, ratios = 0, False
    for row in rows:
        values = numbers_of(row, sink, parser, "Load Profile")
        if not values:
            continue
        ratios = ratios or "%" in row.label  # 11.2.0.3 ratio block: "% Blocks changed per Read:  53.49 ..."
        if ratios:
            if values[0] is not None:
                unit = "%" if "%" in row.label else ""
                put(sink, f"load_profile.{slug(row.label)}", values[0], unit, N, row.line, labels)
            continue
        if len(values) == 1 and {"s", "txn"} <= set(columns) and not row.label.lower().startswith("transactions"):
            # every row but Transactions prints both: one left is per second or per transaction, not told apart
            sink.errors.append(ParseError(parser, "Load Profile", f"row '{row.label}' has one value where the "
                                          "report prints per second and per transaction: which one it is cannot "
                                          "be told apart; row not read", source=sink.source, line=row.line))
            continue
        if len(values) > len(columns):
            sink.errors.append(ParseError(parser, "Load Profile", f"row '{row.label}' has {len(values)} values "
                                          f"for {len(columns)} columns (lines wrapped or glued?); row skipped",
                                          source=sink.source, line=row.line))
            continue
        n += bool(add_load_profile_row(sink, row.label, values, row.line, columns, **labels))
    if not ratios:  # the ratio lines pasted apart from the table (a fence of their own): theirs alone, so read
        _ratios_apart(lines, sink, parser, labels)
    return n


def _ratios_apart(lines: Lines, sink: MetricSink, parser: str, labels: dict[str, str]) -> None:
    """10g-11.2.0.3 print "% Blocks changed per Read:  Recursive Call %: ..." under the Load Profile and nowhere
    else, so those two lines are its ratios wherever a paste put them."""
    k = next((i for i, (_, t) in enumerate(lines) if re.match(r"^\s*% Blocks changed per Read:", t)), -1)
    if k < 0:
        return
    for row in scan([(lines[k][0], ""), *lines[k:k + 3]], 0)[1]:
        values = numbers_of(row, sink, parser, "Load Profile")
        if values and values[0] is not None:
            unit = "%" if "%" in row.label else ""
            put(sink, f"load_profile.{slug(row.label)}", values[0], unit, N, row.line, labels)
