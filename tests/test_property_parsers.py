"""Property tests (issue 9, item 10) over EVERY parser kind in planner.parsers.KINDS and parse_file.

The per-parser files (tests/test_parse_*.py) feed each parser random text and cut real files. This file adds
what they leave out: structure-aware damage to a real sample of every kind (lines dropped, duplicated or
swapped, numbers replaced by odd values, columns squeezed), called on the parser function itself, so a
parser bug cannot hide behind the registry's catch-all; the registry path must then never report such a
hidden crash ("parser failed (...)"); and parse_file on damaged bytes (gzip, BOMs, CRLF, latin-1) for
every kind. Outcome in every case: a Parsed with metrics or errors, or planner.errors.ParseError.
"""

from __future__ import annotations

import contextlib
import gzip
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parse_calibrate import LISTING_WITH_TIMES, SEED
from test_parse_excerpts import DOTTED_LP, FG_EVENTS, THREEPAR

from planner.errors import ParseError
from planner.metrics import Parsed
from planner.parsers import _BY_KIND, KINDS, _func, detect, parse_file, parse_text

DATA = Path(__file__).parent / "data"
pytestmark = pytest.mark.timeout(120)  # a parser that backtracks catastrophically fails instead of hanging CI


def _samples() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {k: [] for k in KINDS}
    for p in sorted(DATA.rglob("*")):
        if p.is_file() and p.name != "README.md" and "inventory" not in p.parts:
            text = p.read_text(errors="replace")
            kind = detect(text, p.name)
            if kind:
                out[kind].append(text)
    out["calibrate_io"] += [SEED, LISTING_WITH_TIMES]
    out["awr_excerpt"] += [DOTTED_LP, FG_EVENTS, THREEPAR]
    return out


SAMPLES = _samples()
ODD_NUMBERS = ["0", "-1", "nan", "inf", "-inf", "1e400", "", "9" * 40, "1,234,567", "#", "#####", "N/A", "0x1f",
               "1.2.3", "—", "1E+07", "."]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def parser_fn(kind: str):  # noqa: ANN201 - the registry's callable (text, source) -> Parsed
    fn = _func(_BY_KIND[kind], _BY_KIND[kind].parse)
    assert fn is not None, f"no parser function for {kind}"
    return fn


@st.composite
def damaged(draw: st.DrawFn, kind: str) -> str:
    """A real sample of ``kind`` with 1-4 structure-aware injuries."""
    text = draw(st.sampled_from(SAMPLES[kind]))
    for _ in range(draw(st.integers(1, 4))):
        lines = text.splitlines(keepends=True) or [""]
        op = draw(st.sampled_from(["drop", "dup", "swap", "numbers", "squeeze", "cut", "junk_line"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i:i + draw(st.integers(1, 30))]
        elif op == "dup":
            lines.insert(i, lines[draw(st.integers(0, len(lines) - 1))])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "numbers":
            odd = draw(st.sampled_from(ODD_NUMBERS))
            start = draw(st.integers(0, len(lines) - 1))
            for k in range(start, min(len(lines), start + draw(st.integers(1, 200)))):
                lines[k] = NUMBER.sub(odd, lines[k])
        elif op == "squeeze":
            lines[i] = re.sub(r"[ \t]+", draw(st.sampled_from(["", " ", "\t", ","])), lines[i])
        elif op == "cut":
            return "".join(lines)[: draw(st.integers(0, len(text)))]
        else:
            lines.insert(i, draw(st.text(max_size=60)) + "\n")
        text = "".join(lines)
    return text


def assert_named_or_parsed(fn, text: str) -> None:  # noqa: ANN001
    try:
        parsed = fn(text, "sample")
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert isinstance(parsed, Parsed) and (parsed.metrics or parsed.errors)
        assert all(m.value == m.value for m in parsed.metrics), "a NaN metric"  # noqa: PLR0124


def test_every_kind_has_a_real_sample() -> None:
    assert [k for k, v in SAMPLES.items() if not v] == []


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_samples_raise_only_parse_error(kind: str) -> None:
    fn = parser_fn(kind)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(damaged(kind))
    def check(text: str) -> None:
        assert_named_or_parsed(fn, text)

    check()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.sampled_from(KINDS), st.data())
def test_other_kinds_samples_never_crash_a_parser(kind: str, source_kind: str, data: st.DataObject) -> None:
    """A sample of one kind (damaged or not) given to another kind's parser: wrong input, named error."""
    text = data.draw(st.one_of(st.sampled_from(SAMPLES[source_kind]), damaged(source_kind)))
    assert_named_or_parsed(parser_fn(kind), text)
    try:
        parse_text(text, "sample", kind)
    except ParseError as e:
        assert "parser failed (" not in str(e), f"a hidden parser crash: {e}"


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(KINDS), st.data(),
       st.sampled_from(["plain", "gzip", "gzip_cut", "bom8", "bom16", "crlf", "latin1", "nul"]))
def test_parse_file_on_damaged_bytes_of_every_kind(tmp_path_factory: pytest.TempPathFactory, kind: str,
                                                   data: st.DataObject, encoding: str) -> None:
    text = data.draw(damaged(kind))
    raw = text.encode("utf-8", errors="surrogatepass")
    if encoding == "gzip":
        raw = gzip.compress(raw)
    elif encoding == "gzip_cut":
        raw = gzip.compress(raw)[: data.draw(st.integers(0, 200))]
    elif encoding == "bom8":
        raw = b"\xef\xbb\xbf" + raw
    elif encoding == "bom16":
        raw = text.encode("utf-16", errors="surrogatepass")
    elif encoding == "crlf":
        raw = raw.replace(b"\n", b"\r\n")
    elif encoding == "latin1":
        raw = text.encode("latin-1", errors="replace")
    elif encoding == "nul":
        raw = raw[:100] + b"\0" + raw[100:]
    path = tmp_path_factory.mktemp("pf") / "output.txt"
    path.write_bytes(raw)
    for k in (kind, None):  # the kind given, and detected
        try:
            parsed = parse_file(path, k)
        except ParseError as e:
            assert e.parser and e.section
            assert "parser failed (" not in str(e), f"a hidden parser crash: {e}"
        else:
            assert parsed.metrics or parsed.errors


@pytest.mark.parametrize("kind", KINDS)
def test_long_digit_runs_parse_in_linear_time(kind: str) -> None:
    """Squeezed columns ("Redo size: 123456789012345678901234x") once made the AWR Load Profile regex
    backtrack exponentially: 18 digits took 6 s, 30 would take days. Every parser must stay fast."""
    fn = parser_fn(kind)
    for text in SAMPLES[kind]:
        lines = text.splitlines()[:400]
        squeezed = "\n".join(re.sub(r"\s+", "", ln) + "x" if any(c.isdigit() for c in ln) else ln for ln in lines)
        runs = "\n".join(f"{ln.split(':')[0]}: {'1' * 40}x" if ":" in ln else ln for ln in lines)
        for damaged_text in (squeezed, runs):
            started = time.monotonic()
            with contextlib.suppress(ParseError):
                fn(damaged_text, "sample")
            assert time.monotonic() - started < 3.0, f"{kind} parser is slow on long digit runs"
