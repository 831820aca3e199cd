"""Take off what people wrap tool output in before it is pasted, so detection sees the tool's own text.

Wrappers handled: an HTML page around a ``<pre>`` block (tags and entities), ``> `` mail quoting (nested),
Markdown fences and headings, shell prompts with their command line (an OS sampler's command stays: its options
say what its columns mean) and ``#`` comment lines, one indentation
common to every line (or a Markdown code block indented under prose), and a timestamp, test-harness tag or
host name in front of nearly every row (``ts``, ``pdsh``, avocado's ``12:06:53 DEBUG| [stdout]``), tried as
another reading beside the text as it is.

Every step keeps the line count (a stripped line becomes blank, a stripped prefix leaves the rest), so a
value still points at its line in the file as given. What was taken off is said in words (``Unwrapped.notes``);
the registry records it as the fact ``unwrapped``. The same body, wrapped or not, gives the same values
(tests/test_unwrap.py, a property over wrappers x every kind).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

# Lines the tool never prints: a prompt and its command, SQL*Plus commands, '#' comments, trailing prompts.
_PROMPT_HEAD = (r"^\s*(?:\[[^\]\n]{1,80}\]\s?[$#]|[\w.-]{1,64}@[\w.-]{1,64}(?::[^\s$#]{0,200})?\s?[$#]|"
                r"(?:[A-Za-z~/][\w.~/-]{0,63})?[$]|#{1,6}|SQL>|PS [^>\n]{0,200}>|--(?=[ \t]+[A-Za-z]))")
_PROMPT = re.compile(_PROMPT_HEAD + r"(?:[ \t].*)?$")
# An OS sampler's own command line says what its columns mean (iostat -y: no report since boot; vmstat -S M: memory
# in MiB, said nowhere in the output): only its prompt comes off, the command stays for planner/parsers/ostats.py
_SAMPLER_COMMAND = re.compile(_PROMPT_HEAD + r"[ \t]+((?:sudo[ \t]+)?(?:\S*/)?(?:iostat|vmstat)[ \t].*)$")
# ``` of any length; ~~~ only as 3 or 4 tildes, since AWR text underlines its section titles with ~
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,4}(?!~))[\w+.-]*\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_QUOTE = re.compile(r"^(?:[ \t]*>[ ]?)+")
_QUOTE_TIGHT = re.compile(r"^(?:[ \t]*>)+")
_ATTRIBUTION = re.compile(r"^.{0,300}\b(?:wrote|writes|schrieb|a écrit|escribió):\s*$")
_TIGHT = re.compile(r"^(?:[ \t]*>)+[^\s>]")
_TAG = re.compile(r"<[^>\n]{0,400}>")
_PRE = re.compile(r"<(pre|code|xmp)\b[^>]*>(.*?)</\1\s*>", re.I | re.S)
_PRE_CLOSE = re.compile(r"</(?:pre|code|xmp)\s*>", re.I)
_BREAK = re.compile(r"(?:<br\s*/?>|</(?:p|div|li|tr|h\d)\s*>)\n?", re.I)  # the source's own newline too
_HTMLISH = re.compile(r"<(?:pre|br|p|div|code|html|body|span|font|blockquote)\b[^>]*>", re.I)
_ENTITY = re.compile(r"&(?:[a-z]{2,8}|#\d{1,6}|#x[0-9a-f]{1,5});", re.I)
# One separator after the prefix comes off, no more: the tool's own indentation (fio's "  read:") stays.
_ROW_PREFIXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("timestamp", re.compile(r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
                             r"(?:[ \t]|$)")),
    ("timestamp", re.compile(r"^\[?[A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d+)?\]?(?:[ \t]|$)")),
    ("timestamp", re.compile(r"^\[?\d{9,10}(?:\.\d+)?\]?(?:[ \t]|$)")),
    ("timestamp", re.compile(r"^\[?\d{2}/\d{2}/\d{2,4} \d{2}:\d{2}:\d{2}(?: [AP]M)?\]?(?:[ \t]|$)")),  # sysstat's own
    ("timestamp", re.compile(r"^\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?(?:[ \t](?![ \t]*[AP]M\b)|$)")),  # not mpstat's AM
    # a test harness's log tag after the time: "12:06:53 DEBUG| [stdout] " (avocado), "INFO | ", "[stdout] "
    ("log tag", re.compile(r"^(?:(?:DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|TRACE)\s?\|(?:[ \t]|$))?"
                           r"(?:\[(?:stdout|stderr|out|err)\](?:[ \t]|$))?(?<=[ \t|\]])")),
    ("host name", re.compile(r"^\[?[A-Za-z][\w.-]{0,63}(?:\]|:)(?:[ \t]|$)")),
)
_BLOCK_SHARE = 0.5  # a quoted / fenced / indented block that is at least half the lines is the paste
_ROW_SHARE = 0.8  # a row prefix must be on nearly every line before it is taken for a wrapper


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """The text with its wrappers taken off (same line count unless HTML breaks became lines) and what went."""

    text: str
    notes: tuple[str, ...] = ()

    def then(self, text: str, note: str) -> Unwrapped:
        return Unwrapped(text, (*self.notes, note)) if text != self.text else self


def _lines_note(what: str, numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:8]) + (" ..." if len(numbers) > 8 else "")
    return f"{what} (line{'s' if len(numbers) > 1 else ''} {shown})"


def _taken(pattern: re.Pattern[str], line: str) -> str:
    """What ``pattern`` takes off the start of ``line``."""
    return line[:len(line) - len(pattern.sub("", line, count=1))]


def _nonblank(lines: list[str]) -> list[int]:
    return [i for i, ln in enumerate(lines) if ln.strip()]


def _html(u: Unwrapped) -> Unwrapped:
    """A web page around the output: keep the ``<pre>`` blocks (line count kept), drop tags, decode entities."""
    text = u.text
    if not _HTMLISH.search(text[:200_000]) and not _ENTITY.search(text[:200_000]):
        return u
    # only up to the last closing tag: an unclosed <pre> after it would be scanned to the end, once per tag
    closes = [m.end() for m in _PRE_CLOSE.finditer(text)]
    if closes and _PRE.search(text, 0, closes[-1]):
        out, at = [], 0
        for m in _PRE.finditer(text, 0, closes[-1]):
            out.append("\n" * text.count("\n", at, m.start(2)))  # outside <pre>: blank lines, numbers kept
            out.append(m.group(2))
            at = m.end(2)
        out.append("\n" * text.count("\n", at))
        body, what = "".join(out), "HTML page around a <pre> block"
    elif _HTMLISH.search(text[:200_000]):
        body, what = _BREAK.sub("\n", text), "HTML tags"
    else:
        body, what = text, "HTML entities"
    body = html.unescape(_TAG.sub("", body)).replace("\u00a0", " ")
    return u.then(body, what)


def _quotes(u: Unwrapped) -> Unwrapped:
    lines = u.text.split("\n")
    quoted = [i for i in _nonblank(lines) if _QUOTE.match(lines[i])]
    if not quoted or len(quoted) < _BLOCK_SHARE * len(_nonblank(lines)):
        return u
    depth = max(_taken(_QUOTE, lines[i]).count(">") for i in quoted)
    # ">text" on any line: the mailer adds no space, so a space after '>' belongs to the text (columns stay)
    marker = _QUOTE_TIGHT if any(_TIGHT.match(lines[i]) for i in quoted) else _QUOTE
    first, last, inside = quoted[0], quoted[-1], set(quoted)
    out = [marker.sub("", ln) if i in inside else ("" if i < first or i > last else ln)
           for i, ln in enumerate(lines)]
    out = ["" if _ATTRIBUTION.match(ln) else ln for ln in out]  # "On Tue, Bob wrote:" of a nested reply
    return u.then("\n".join(out), "'> ' mail quoting" + (f" ({depth} levels)" if depth > 1 else ""))


def _underlines(lines: list[str], i: int) -> bool:
    """Oracle's reports underline a title word with as many '~' as it has letters: Statspack 10g's "Host  Name:"
    over "~~~~" is the tool's own line, not a Markdown fence (docs/oracle-behaviour.md 41.s1). The word ends its
    line or two blanks follow it ('?' for a blank a code page lost); "The output:" over "~~~" is prose over a fence."""
    line = lines[i]
    col = len(line) - len(line.lstrip())
    above = lines[i - 1][col:] if i and line.strip()[:1] == "~" else ""
    word = re.match(r"([A-Za-z]+)(?:$|[\s?]{2})", above)
    return word is not None and len(word.group(1)) == len(line.strip())


def _fence_lines(lines: list[str]) -> list[int]:
    """The fence lines; a '~' line that opens no fence but underlines the word above it is the report's own."""
    out: list[int] = []
    for i, ln in enumerate(lines):
        if _FENCE.match(ln) and (len(out) % 2 or not _underlines(lines, i)):  # an open fence closes regardless
            out.append(i)
    return out


def _fences(u: Unwrapped) -> Unwrapped:
    """Fence lines go; when the fenced part is most of the text, the prose around it goes too."""
    lines = u.text.split("\n")
    fences = _fence_lines(lines)
    if not fences:
        return u
    inside: set[int] = set()
    for a, b in zip(fences[::2], fences[1::2], strict=False):
        inside.update(range(a + 1, b))
    if len(fences) % 2:  # an unclosed fence runs to the end
        inside.update(range(fences[-1] + 1, len(lines)))
    body = [i for i in _nonblank(lines) if i not in fences]
    keep_prose = sum(1 for i in body if i in inside) < _BLOCK_SHARE * len(body)
    out = ["" if i in fences or not (keep_prose or i in inside) else ln for i, ln in enumerate(lines)]
    prose = not keep_prose and any(i not in inside for i in body)
    note = "Markdown fence" + (" and the text around it" if prose else "")
    return u.then("\n".join(out), _lines_note(note, [i + 1 for i in fences]))


def _prompts(u: Unwrapped, markdown_tables: bool) -> Unwrapped:
    """Prompt + command lines, '#' comments and Markdown headings (kept when the text is a Markdown report)."""
    lines = u.text.split("\n")
    gone = [i for i, ln in enumerate(lines) if _PROMPT.match(ln) and
            not (markdown_tables and _HEADING.match(ln))]
    drop = set(gone)
    out = [((m.group(1) if (m := _SAMPLER_COMMAND.match(ln)) else "") if i in drop else ln)
           for i, ln in enumerate(lines)]
    return u.then("\n".join(out), _lines_note("shell prompt, command or comment", [i + 1 for i in gone]))


def _common_indent(lines: list[str], rows: list[int]) -> str:
    prefix = lines[rows[0]][:len(lines[rows[0]]) - len(lines[rows[0]].lstrip(" \t"))] if rows else ""
    for i in rows[1:]:
        while prefix and not lines[i].startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _dedent(u: Unwrapped) -> Unwrapped:
    lines = u.text.split("\n")
    rows = _nonblank(lines)
    prefix = _common_indent(lines, rows)
    if not prefix:
        return u
    out = [ln[len(prefix):] if ln.startswith(prefix) else ln.lstrip(" \t") for ln in lines]
    return u.then("\n".join(out), f"indentation ({_indent_words(prefix)})")


def _indent_words(prefix: str) -> str:
    tabs, spaces = prefix.count("\t"), prefix.count(" ")
    return ", ".join(p for p in (f"{spaces} spaces" if spaces else "", f"{tabs} tabs" if tabs else "") if p)


def _indented_block(u: Unwrapped) -> Unwrapped:
    """A Markdown code block: the lines indented by 4+ under a line or two of prose."""
    lines = u.text.split("\n")
    rows = _nonblank(lines)
    block = [i for i in rows if lines[i].startswith(("    ", "\t"))]
    if not block or len(block) < _BLOCK_SHARE * len(rows) or len(block) == len(rows):
        return u
    prefix = _common_indent(lines, block)
    keep = set(block)
    prose = [i + 1 for i in rows if i not in keep]
    out = [ln[len(prefix):] if i in keep else "" for i, ln in enumerate(lines)]
    return u.then("\n".join(out), _lines_note(f"indented code block ({_indent_words(prefix)}) under prose", prose))


def unwrap(text: str, keep_html: bool = False) -> Unwrapped:
    """The wrappers that are safe to take off before detection; ``keep_html`` for HTML reports (AWR)."""
    u = Unwrapped(text)
    if not keep_html:
        u = _html(u)
    from planner.parsers.mailwrap import soft_breaks  # with the AWR words it needs: only when a file is read

    if (decoded := soft_breaks(u.text)) is not None:
        u = u.then(decoded, "quoted-printable soft line breaks ('=' at a cut line's end)")
    u = _quotes(u)
    u = _fences(u)
    # a Markdown table row is "| a | b |" (fio's percentile rows start with '|' but do not end with one)
    piped = sum(1 for ln in u.text.split("\n", 400)[:400] if re.match(r"\s*\|.*\|\s*$", ln)) >= 3
    u = _prompts(u, piped)
    return _dedent(u)


def _strip_prefix(u: Unwrapped) -> Unwrapped:
    lines = u.text.split("\n")
    rows = _nonblank(lines)
    for what, pattern in _ROW_PREFIXES:
        hits = [i for i in rows if pattern.match(lines[i])]
        if not rows or len(hits) < _ROW_SHARE * len(rows):
            continue
        if what == "host name" and len({_taken(pattern, lines[i]).strip() for i in hits}) > 1:
            continue  # "Device:", "avg-cpu:" ... are the tool's own words, not one host's name
        strip = set(hits)
        out = [pattern.sub("", ln, count=1) if i in strip else ln for i, ln in enumerate(lines)]
        return u.then("\n".join(out), f"{what} in front of {len(hits)} rows")
    return u


def _row_prefixed(u: Unwrapped) -> Iterator[Unwrapped]:
    """Candidates with a timestamp / host column taken off every row."""
    cur = u
    for _ in range(3):  # "host: 2024-01-01 10:00:00 row": two prefixes
        nxt = _strip_prefix(cur)
        if nxt is cur:
            return
        cur = _dedent(nxt)
        yield cur


_COMMENTED = re.compile(r"^([ \t]*)#(?:[ \t]|$)")


def _comment_quoted(text: str) -> Unwrapped | None:
    """Output pasted as '# ' comments in a script (beside its commands): the comment marks come off, or None."""
    lines = text.split("\n")
    rows = _nonblank(lines)
    hits = [i for i in rows if _COMMENTED.match(lines[i])]
    if not hits or len(hits) < _BLOCK_SHARE * len(rows):
        return None
    keep = set(hits)
    out = [_COMMENTED.sub(r"\1", ln, count=1) if i in keep else ln for i, ln in enumerate(lines)]
    return Unwrapped("\n".join(out), (_lines_note("'# ' comment marks", [i + 1 for i in hits]),))


def candidates(text: str, keep_html: bool = False) -> Iterator[Unwrapped]:
    """The readings of ``text`` to try, in order: the safe unwrap first, then the guesses that drop more (an
    indented block under prose, a timestamp, harness tag or host column on every row). The registry keeps the
    reading that is clean and has the most values; a guess is only tried when its wrapper is on the text."""
    base = unwrap(text, keep_html)
    yield base
    block = _indented_block(base)
    if block is not base:
        yield block
    yield from _row_prefixed(base)
    if block is not base:
        yield from _row_prefixed(block)
    if (commented := _comment_quoted(text)) is not None:  # a guess: '#' lines are otherwise dropped as comments
        inner = unwrap(commented.text, keep_html)
        yield Unwrapped(inner.text, (*commented.notes, *inner.notes))
