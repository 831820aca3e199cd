"""Parser registry: detect what a file is, read it with the right pure parser, pick headline metrics.

Each parser module exposes ``looks_like(text) -> bool`` and ``parse(text, source) -> Parsed``
(modules that read several kinds expose one pair per kind, named below). Modules are imported
lazily, and a module that is missing or fails to import only disables its kinds, so one broken
parser never stops ``planner parse`` reading the other kinds.
"""

from __future__ import annotations

import codecs
import gzip
import importlib
import io
import os
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from planner import kindspec
from planner.errors import ParseError
from planner.kindspec import DbReport, ParserKind
from planner.memo import parsed_once
from planner.metrics import Direction, Metric, MetricTable, Parsed
from planner.parsers.unwrap import candidates

# What a .gz artifact may inflate to: a real AWR HTML report, even a RAC global one, is a few MB, so this leaves
# room while 4 MB of hostile gzip (4 GiB inflated) is refused before it is held.
MAX_INFLATED_BYTES = 64 << 20
# Each kind's parse is bounded so that it peaks under ~400 MB RSS whatever the input (the figures are
# benchmarks/memory/parse_kinds.py's, RESULTS.md). A kind read whole holds its text, its lines and its values:
# 5.3-8.8 MB of RSS per MB of input (progress lines every second the most), so 40 MiB peaks at ~390 MB. A kind
# read a line at a time (the OS samplers, as columns) takes 3.4 per MB, `planner show` of its run 3.9: 80 MiB
# (3.5 hours of `iostat -xt 1` over 32 devices) shows in ~370 MB; 118 MB under the former 128 MiB took 501 MB.
WHOLE_PARSE_BYTES = 40 << 20
LINES_PARSE_BYTES = 80 << 20
MAX_PARSE_BYTES = LINES_PARSE_BYTES  # the largest file read at all (its kind is known only once it is read)

# Detection order matters: specific report headers first, loose excerpt matching last.
_OWN_FIRST: tuple[ParserKind, ...] = (
    ParserKind("awr_compare", "awr_compare", "AWR Compare Period report (awrddrpt, text)",
               names=(r"awrdd.*\.(txt|lst|out)$",), html_report=True, db_report=DbReport.COMPARE),
    ParserKind("awr_rac_html", "awr_rac", "AWR global RAC report (awrgrpt, HTML)",
               names=(r"(awr_rac|awrgrpt).*\.html?(\.gz)?$",), html_report=True, db_report=DbReport.GLOBAL),
    ParserKind("awr_rac_text", "awr_rac_text", "AWR global RAC report (awrgrpt / AWR_GLOBAL_REPORT_TEXT, text)",
               names=(r"(awr_rac|awrgrpt).*\.(txt|lst|out)$",), db_report=DbReport.GLOBAL, in_outcome=True,
               prefixed=True),
    ParserKind("awr_html", "awr_html", "AWR report (HTML)", names=(r"awr.*\.html?$",), html_report=True,
               db_report=DbReport.ONE, in_outcome=True, prefixed=True),
    ParserKind("awr_text", "awr_text", "AWR report (text)", names=(r"awr.*\.(txt|lst|out)$",),
               db_report=DbReport.ONE, in_outcome=True,
               reads="AWR/Statspack text or HTML (also Compare Period and RAC global reports)"),
    ParserKind("statspack", "statspack", "Statspack report", names=(r"(statspack|sp_).*\.(txt|lst)$",),
               db_report=DbReport.ONE, in_outcome=True),
    ParserKind("pg_stat", "pg_stat", "PostgreSQL statistics around a point (planner's pg_stat.json)",
               names=(r"pg_stat\.json$",), headline=()),  # the workload's figures lead; these sit beside them
    ParserKind("addm", "addm", "ADDM report (text)", names=(r"addm.*\.(txt|lst|out)$",),
               headline=(("db_time_s", {}), ("aas", {})),
               result_lines=r"Total database time was|average number of active sessions was"),
)
# after the workload kinds' own parsers (planner.kindspec, in KINDS order): OS samplers, then loose excerpts
_OWN_LAST: tuple[ParserKind, ...] = (
    ParserKind("iostat", "ostats", "iostat", "looks_like_iostat", "parse_iostat", (r"iostat",), os_stats=True,
               reads="iostat/mpstat/vmstat, sar -u/-r"),
    ParserKind("mpstat", "ostats", "mpstat", "looks_like_mpstat", "parse_mpstat", (r"mpstat",), os_stats=True,
               headline=tuple((f"mpstat.{m}_pct", {"cpu": "all", "time": "Average"})
                              for m in ("usr", "sys", "iowait", "idle"))),
    ParserKind("vmstat", "ostats", "vmstat", "looks_like_vmstat", "parse_vmstat", (r"vmstat",), os_stats=True),
    ParserKind("awr_excerpt", "excerpt", "AWR/Statspack excerpt (pasted sections)", db_report=DbReport.EXCERPT),
)
PARSER_KINDS: tuple[ParserKind, ...] = (*_OWN_FIRST, *kindspec.parser_kinds(), *_OWN_LAST)
KINDS: tuple[str, ...] = tuple(e.kind for e in PARSER_KINDS)
# The families a file may be, in the records' words (each family's first record says how it reads)
NOT_RECOGNISED = "not a recognised benchmark output — planner parse reads " + ", ".join(
    k.reads for k in PARSER_KINDS if k.reads)
# The parser kinds whose headline a step's outcome reads (planner.steps.wl_common.outcome_reports)
IN_OUTCOME = frozenset(k.kind for k in PARSER_KINDS if k.in_outcome)
PREFIXED = frozenset(k.kind for k in PARSER_KINDS if k.prefixed)
OS_TOOLS = tuple(k.kind for k in PARSER_KINDS if k.os_stats)  # the OS samplers around a workload point
_BY_KIND = {e.kind: e for e in PARSER_KINDS}


def kinds_where(test: Callable[[ParserKind], bool]) -> frozenset[str]:
    """The kinds whose record passes ``test`` (``lambda k: k.os_stats``): tables elsewhere derive from here."""
    return frozenset(k.kind for k in PARSER_KINDS if test(k))


_modules: dict[str, ModuleType | Exception] = {}


def _module(name: str) -> ModuleType | Exception:
    if name not in _modules:
        try:
            # a kind's own parser is named in full (planner.kinds.fio.parse); planner's shared ones by their name here
            _modules[name] = importlib.import_module(name if "." in name else f"{__name__}.{name}")
        except Exception as e:  # noqa: BLE001 - an absent/broken parser disables only its kinds
            _modules[name] = e
    return _modules[name]


def _func(entry: ParserKind, attr: str) -> Callable[..., object] | None:
    mod = _module(entry.module)
    fn = getattr(mod, attr, None) if isinstance(mod, ModuleType) else None
    return fn if callable(fn) else None


def detect(text: str, filename: str = "") -> str | None:
    """The kind of ``text``, or None. A matching file name only moves its kind to the front."""
    base = Path(filename).name.lower()
    hinted = [e for e in PARSER_KINDS if base and any(re.search(p, base) for p in e.names)]
    for entry in hinted + [e for e in PARSER_KINDS if e not in hinted]:
        fn = _func(entry, entry.looks_like)
        if fn is None:
            continue
        try:
            if fn(text):
                return entry.kind
        except Exception:  # noqa: BLE001, S112 - a detector bug must not hide the other kinds
            continue
    return None


_HTML_REPORTS = tuple(k.kind for k in PARSER_KINDS if k.html_report)
_XML_REPORTS = tuple(k.kind for k in PARSER_KINDS if k.xml_report)


def _detects(kind: str, text: str) -> bool:
    fn = _func(_BY_KIND[kind], _BY_KIND[kind].looks_like)
    try:
        return bool(fn and fn(text))
    except Exception:  # noqa: BLE001 - a detector bug must not hide the other kinds
        return False


def _refused(text: str, unwrapped: str, source: str, default: str) -> ParseError:
    """The honest reason nothing was read: the tool and layout named when recognised (planner/parsers/refusals.py)."""
    from planner.parsers.refusals import explain

    why = explain(unwrapped, text)
    return ParseError("detect", "file kind", why or default, source=source)


def parse_text(text: str, source: str, kind: str | None = None) -> Parsed:
    """Parse ``text`` as ``kind`` (unwrapped and detected when None). Raises ParseError, never anything else.

    An explicit ``kind`` is planner's own artifact and is read as it is; a file of unknown kind first loses
    its paste wrappers (planner/parsers/unwrap.py), and what was taken off is the fact ``unwrapped``.
    """
    if kind is not None:
        return _checked(_run(kind, text, source), (), text)
    if not text.strip():
        raise ParseError("detect", "file kind", "empty input", source=source)
    keep_html = ("<table" in text[:200_000].lower() and any(_detects(k, text) for k in _HTML_REPORTS)) or any(
        _detects(k, text) for k in _XML_REPORTS)
    first_error: ParseError | None = None
    base = ""
    # A blog page can look like an AWR HTML report (a layout <table>, the report's title in its <pre>): when it
    # does not read as one, it is read again as a page around a <pre> block.
    retry = keep_html and re.search(r"<pre\b", text[:2_000_000], re.I) is not None
    for keep in (True, False) if retry else (keep_html,):
        best, error, first = _best_reading(text, source, keep)
        base, first_error = base or first, first_error or error
        if best is not None:
            return _checked(*best)
    if first_error is not None:
        raise first_error
    raise _refused(text, base, source, NOT_RECOGNISED)


def _best_reading(text: str, source: str, keep_html: bool
                  ) -> tuple[tuple[Parsed, tuple[str, ...], str] | None, ParseError | None, str]:
    """The clean reading with the most values among the unwrap candidates; the first error; the base text."""
    first_error: ParseError | None = None
    best: tuple[bool, int, Parsed, tuple[str, ...], str] | None = None
    base = ""
    for cand in candidates(text, keep_html):
        base = base or cand.text
        found = detect(cand.text, source)
        if found is None:
            continue
        try:
            parsed = _run(found, cand.text, source)
        except ParseError as e:
            first_error = first_error or e
            continue
        # Read cleanly first, then most values: a timestamp on every row hides lines from a line-anchored
        # reader without an error, so the reading with that column off can be the complete one.
        rank = (not parsed.errors, len(parsed.metrics))
        if best is None or rank > best[:2]:
            best = (*rank, parsed, cand.notes, cand.text)
    return (best[2:] if best else None), first_error, base


def _run(kind: str, text: str, source: str) -> Parsed:
    entry = _BY_KIND.get(kind)
    if entry is None:
        raise ParseError("detect", "file kind", f"unknown kind {kind!r}; known kinds: {', '.join(KINDS)}",
                         source=source)
    fn = _func(entry, entry.parse)
    if fn is None:
        mod = _module(entry.module)
        why = f": {mod}" if isinstance(mod, Exception) else ""
        raise ParseError(kind, "parser", f"the {kind} parser is not available{why}", source=source)
    if len(text) > parse_bound(kind):  # a file of unknown kind is read up to MAX_PARSE_BYTES, then detected
        raise _too_large(len(text), source, kind)
    return _guarded(kind, source, lambda: fn(text, source))


def parse_bound(kind: str | None) -> int:
    """The most bytes of ``kind`` parsed: LINES_PARSE_BYTES for a kind read a line at a time, WHOLE_PARSE_BYTES
    for one read whole, MAX_PARSE_BYTES for a file whose kind is not known yet."""
    entry = _BY_KIND.get(kind or "")
    if entry is None:
        return MAX_PARSE_BYTES
    return LINES_PARSE_BYTES if _func(entry, entry.parse + "_lines") is not None else WHOLE_PARSE_BYTES


def _guarded(kind: str, source: str, parse: Callable[[], object]) -> Parsed:
    """A parser's answer, or a named ParseError: a parser bug is never a traceback, and nothing read is an error."""
    try:
        parsed = parse()
    except ParseError:
        raise
    except Exception as e:  # noqa: BLE001 - a parser bug becomes a named error, not a traceback
        raise ParseError(kind, "whole file", f"parser failed ({type(e).__name__}: {e})",
                         source=source) from e
    if not isinstance(parsed, Parsed) or (not parsed.metrics and not parsed.errors):
        raise ParseError(kind, "whole file", "no metrics found", source=source)
    return parsed


_RESULT_LINES: dict[str, re.Pattern[str]] = {k.kind: re.compile(k.result_lines, re.M) for k in PARSER_KINDS
                                            if k.result_lines}


def _unread_lines(parsed: Parsed, text: str) -> list[ParseError]:
    pattern = _RESULT_LINES.get(parsed.kind)
    if pattern is None:
        return []
    said = {m.source.line for m in parsed.metrics if m.source} | {e.line for e in parsed.errors}
    # a line the parser found to repeat an earlier one word for word (ORION's latency line, 12c+) is read with it
    said |= {int(n) for n in parsed.fact("lines_repeated").split(",") if n.isdigit()}
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        if no not in said and pattern.search(line):
            out.append(ParseError(parsed.kind, "values", f"line not read: {line.strip()[:80]!r}",
                                  source=parsed.source, line=no))
            if len(out) >= 50:  # bounded: a file of unread lines says so in its first fifty
                break
    return out


def _repeats(metrics: Sequence[Metric]) -> Iterator[tuple[Metric, Metric]]:
    """(first, later) pairs of metrics under one key."""
    if isinstance(metrics, MetricTable):  # columns: a bit per name per label set (planner.metrics)
        yield from ((metrics[a], metrics[b]) for a, b in metrics.repeats())
        return
    # by name, then by the labels tuple itself: no key string made per value (an hour of iostat is 2.5 million
    # values, and their key strings once took three times the parse)
    seen: dict[str, dict[tuple[tuple[str, str], ...], Metric]] = {}
    for m in metrics:
        first = seen.setdefault(m.name, {}).setdefault(m.labels, m)
        if first is not m:
            yield first, m


def _twice(parsed: Parsed, first: Metric, m: Metric) -> ParseError:
    return ParseError(parsed.kind, "labels", f"two values under one key {m.key[:120]} (lines "
                      f"{first.source.line if first.source else '?'} and {m.source.line if m.source else '?'}): "
                      "the run they belong to is not labelled", source=parsed.source,
                      line=m.source.line if m.source else None)


def _checked(parsed: Parsed, notes: tuple[str, ...], text: str = "") -> Parsed:
    """Never two values under one key (the second is named, by line); a result line read for nothing is named."""
    errors = list(parsed.errors) + _unread_lines(parsed, text)
    errors += [_twice(parsed, first, m) for first, m in _repeats(parsed.metrics)]
    facts = parsed.facts + ((("unwrapped", "; ".join(notes)),) if notes else ())
    if len(errors) == len(parsed.errors) and not notes:
        return parsed
    return replace(parsed, facts=facts, errors=tuple(errors))


def _is_garbage(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\n\r\f\v\x1b") or c == "\ufffd")
    return bad / len(sample) > 0.05


def decode(data: bytes, source: str) -> str:
    """Bytes to text: gunzips (SLOB writes awr.html.gz), honours BOMs, utf-8 then latin-1."""
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, source)
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                     (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            text = data.decode(enc, errors="replace")
            break
    else:
        if b"\x00" in data[:8192]:
            raise ParseError("detect", "file kind", "binary file (NUL bytes); " + NOT_RECOGNISED,
                             source=source)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            replaced = data.decode("utf-8", errors="replace")
            # Mostly-valid UTF-8 keeps its few bad bytes as U+FFFD; anything else is a legacy code page.
            text = replaced if replaced.count("\ufffd") * 100 < len(replaced) else data.decode("latin-1")
    if _is_garbage(text):
        raise ParseError("detect", "file kind", "binary or garbage content; " + NOT_RECOGNISED,
                         source=source)
    return text.replace("\r\n", "\n")


def _gunzip(data: bytes, source: str) -> bytes:
    """Every member of a gzip stream, read only up to MAX_INFLATED_BYTES (a bomb is refused, never held)."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = f.read(MAX_INFLATED_BYTES + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise ParseError("detect", "gzip", f"corrupt gzip data: {e}", source=source) from None
    if len(out) > MAX_INFLATED_BYTES:
        raise ParseError("detect", "gzip", f"{len(data)} bytes of gzip that inflates to more than "
                         f"{MAX_INFLATED_BYTES >> 20} MiB: not read, no benchmark report is that large (if this one "
                         "really is, gunzip it and give planner the text)", source=source)
    return out


def parse_file(path: Path, kind: str | None = None) -> Parsed:
    """Read and parse one file. Raises ParseError (unreadable, binary, unknown kind, bad content).
    Inside ``memo.remembering()`` an unchanged file is parsed once (planner.memo)."""
    return parsed_once(Path(path), kind, lambda: _read_and_parse(Path(path), kind))


def _read_and_parse(path: Path, kind: str | None) -> Parsed:
    streamed = _streamed(path, kind if kind is not None else _big_kind(path))
    if streamed is not None:
        return streamed
    return parse_text(read_text_bounded(path, kind), str(path), kind)


def read_text_bounded(path: Path, kind: str | None = None) -> str:
    """A local file's text as decode() reads it, refused by its size over ``kind``'s parse bound (parse_bound),
    never read: a 2.6 GB sparse awr.txt ran show, report, export and store push out of memory. Raises ParseError."""
    bound = parse_bound(kind)
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            # read(n) sets n bytes aside first: ask for the file's size (plus one, to see it grew), not the bound
            data = f.read((size or bound) + 1) if size <= bound else b""
            if size and len(data) > size:  # it grew while read: the rest, up to the bound
                data += f.read(bound + 1 - len(data))
    except OSError as e:
        raise ParseError("detect", "file", f"cannot read: {e.strerror or e}", source=str(path)) from None
    if size > bound or len(data) > bound:
        raise _too_large(max(size, len(data)), str(path), kind)
    text = decode(data, str(path))
    del data  # not held beside the text
    return text


def _too_large(size: int, source: str, kind: str | None = None) -> ParseError:
    entry = _BY_KIND.get(kind or "")
    bound = parse_bound(kind)
    what = (f"the bound for {entry.display_name}, which planner reads "
            f"{'a line at a time' if bound == LINES_PARSE_BYTES else 'whole'}, so that its parse stays under "
            "400 MB; " if entry is not None else "")
    return ParseError("detect", "file",
                      f"{size} bytes is over the {bound >> 20} MiB planner parses: not read ({what}no benchmark "
                      "report is that large; an output of many hours can be cut into parts with split -l and each "
                      "part given)", source=source)


# What is read of a file before it is streamed: enough to see gzip, a BOM, NUL bytes, JSON or garbage
_HEAD_BYTES = 65536


def _streamed(path: Path, kind: str | None) -> Parsed | None:
    """``kind``'s parse of ``path`` read a line at a time, when its parser module reads lines (``<parse>_lines``,
    the OS samplers) and the file is plain text; None for every other file, read whole by the caller."""
    entry = _BY_KIND.get(kind or "")
    fn = _func(entry, entry.parse + "_lines") if entry is not None else None
    if entry is None or fn is None:
        return None
    source = str(path)
    try:
        f = path.open("rb")
    except OSError:
        return None  # the caller says why, as for every file
    with f:
        try:
            size, head = os.fstat(f.fileno()).st_size, f.read(_HEAD_BYTES)
        except OSError:
            return None
        if size > LINES_PARSE_BYTES or not _plain_text(head):
            return None
        f.seek(0)
        parsed = _guarded(entry.kind, source, lambda: fn(_lines_of(f, source, entry.kind), source))
    return _checked(parsed, ())


def _big_kind(path: Path) -> str | None:
    """The kind a file of unknown kind over WHOLE_PARSE_BYTES begins as, when that kind is read a line at a time:
    read whole, 80 MiB of iostat took 460 MB, as its known kind 318. None for any other file (no paste is that
    large: the whole-text reading, which takes paste wrappers off, is for the smaller ones)."""
    try:
        with path.open("rb") as f:
            if os.fstat(f.fileno()).st_size <= WHOLE_PARSE_BYTES:
                return None
            head = f.read(_HEAD_BYTES)
    except OSError:
        return None
    found = detect(head.decode("utf-8", errors="replace"), str(path)) if _plain_text(head) else None
    return found if found is not None and parse_bound(found) == LINES_PARSE_BYTES else None


def _plain_text(head: bytes) -> bool:
    """Whether a file that begins with ``head`` decodes line by line as decode() would decode it whole."""
    if head[:2] == b"\x1f\x8b" or head.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in head[:8192] or head.lstrip()[:1] == b"{":  # NUL: refused by decode(); {: a JSON document
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:  # not only a character cut at the head's end: a legacy code page, decode()'s
            return False
    return not _is_garbage(head.decode("utf-8", errors="replace"))


# the longest line read at once: a file of no newlines (a sparse one is all NUL) is read in pieces of this size
MAX_LINE_BYTES = 1 << 20


def _raw_lines(f: io.BufferedReader) -> Iterator[bytes]:
    while raw := f.readline(MAX_LINE_BYTES):
        yield raw


def text_lines(path: Path) -> Iterator[str]:
    """A local file's lines, decoded one at a time (a line longer than MAX_LINE_BYTES comes in pieces): a log a
    step searches at apply time is never held whole. Raises OSError."""
    with path.open("rb") as f:
        for raw in _raw_lines(f):
            yield from raw.decode("utf-8", errors="replace").splitlines()


def _lines_of(f: io.BufferedReader, source: str, kind: str) -> Iterator[str]:
    """The file's lines as str.splitlines() cuts them, decoded one at a time, up to LINES_PARSE_BYTES."""
    read = 0
    for raw in _raw_lines(f):
        read += len(raw)
        if read > LINES_PARSE_BYTES:  # it grew past the bound while read
            raise _too_large(read, source, kind)
        yield from raw.decode("utf-8", errors="replace").splitlines()


def _best(metrics: list[Metric]) -> list[Metric]:
    """For a CSV matrix: the best cell (highest, or lowest when lower is better)."""
    if not metrics:
        return []
    pick = min if metrics[0].direction is Direction.LOWER else max
    return [pick(metrics, key=lambda m: m.value)]


def summarise(parsed: Parsed) -> list[Metric]:
    """The few numbers a report leads with for this kind (every job/run/label combination of them)."""
    entry = _BY_KIND.get(parsed.kind)
    if entry is not None and entry.best_cell:
        return _best(list(parsed.metrics))
    wanted = entry.headline if entry is not None else None
    if wanted is None and entry is not None:
        mod = _module(entry.module)
        head = getattr(mod, "HEADLINE", None) if isinstance(mod, ModuleType) else None
        if head:
            wanted = tuple(head)
        else:  # AWR family: the derived metrics (IOPS, latency, redo MB/s ...) are the headline
            derived = _module("derived")
            derive = getattr(derived, "derive", None) if isinstance(derived, ModuleType) else None
            if callable(derive):
                try:
                    return list(derive(parsed))
                except Exception:  # noqa: BLE001 - a headline is optional; the metrics still print
                    return []
            return [m for m in parsed.metrics if m.derived]
    if not wanted:
        return []
    out: list[Metric] = []
    for name, labels in wanted:
        found = [m for m in parsed.metrics if m.name == name and all(m.label(k) == v for k, v in labels.items())]
        if found and entry is not None and entry.one_figure:
            found = [m for m in found if m.labels == found[0].labels]
        out.extend(found)
    return out


# What each kind is, in a user's words: ``planner parse`` and ``planner analyze`` say it per file.
KIND_NAMES: dict[str, str] = {k.kind: k.display_name for k in PARSER_KINDS}


@dataclass(frozen=True, slots=True)
class Described:
    """One line per file: what it was read as, its version, and what could not be read."""

    kind: str
    kind_name: str
    version: str
    layout: str  # "markdown", "" ...
    unread: tuple[str, ...]  # sections missing, numbers skipped, lines skipped
    unwrapped: str = ""  # the paste wrappers taken off before reading (planner/parsers/unwrap.py)

    def __str__(self) -> str:
        parts = [f"read as {self.kind_name}" + (f" ({self.layout} layout)" if self.layout else "")]
        parts.append(f"version {self.version}" if self.version else "version not printed")
        if self.unwrapped:
            parts.append(f"unwrapped: {self.unwrapped}")
        parts.append("not read: " + "; ".join(self.unread) if self.unread else "everything read")
        return ", ".join(parts)


def describe(parsed: Parsed) -> Described:
    version = parsed.fact("version") or parsed.fact("fio_version")
    unread = [f"{e.section}: {e.message.split(f'section {e.section!r}: ', 1)[-1]}" +
              (f" (line {e.line})" if e.line else "") for e in parsed.errors]
    if parsed.fact("lines_skipped"):
        unread.append(f"lines {parsed.fact('lines_skipped')}")
    return Described(parsed.kind, KIND_NAMES.get(parsed.kind, parsed.kind), version, parsed.fact("layout"),
                     tuple(unread), parsed.fact("unwrapped"))
