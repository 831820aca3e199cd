"""The one number reader every parser uses: a value is read whole, or not at all and said so.

Tool output and pasted copies of it print numbers as ``13,985``, ``1,139.22``, ``.7``, ``-72.07``,
``1.61E+07``, ``26.4K`` or with a unit glued on (``3.82ms``, ``31,681.06KB/sec``). A reader that stops at
the first comma turns ``13,985`` into 13 without a word (a parser once did). Here a token is first taken as the
whole run of digits, commas and dots (``NUMBER``), then checked: thousands separators must group by three,
at most one decimal point. Anything else is a ``Reading`` with a ``problem`` and no value, and the parser
turns that into a named warning with its line (``warn``), never into a wrong number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from planner.errors import ParseError
from planner.metrics import Direction, Metric, MetricSink, Source

# The greedy token: every digit, comma and dot that touch, so nothing of a number is left behind.
NUMBER = r"[+-]?(?:\d[\d,.]*|\.\d[\d,.]*)(?:[Ee][+-]?\d+)?"
_TOKEN = re.compile(rf"^({NUMBER})([A-Za-z%\u00b5/]*(?:/[A-Za-z]+)?)$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d*)?$")
_PLAIN = re.compile(r"^(?:\d+\.?\d*|\.\d+)$")
_EXP = re.compile(r"[Ee][+-]?\d+$")


@dataclass(frozen=True, slots=True)
class Reading:
    """A number token read: ``value`` (None when it could not be read whole), the glued ``unit``, why not."""

    text: str
    value: float | None
    unit: str = ""
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.value is not None


def _mantissa(body: str) -> tuple[str | None, str]:
    """The digits of ``body`` without separators, or None and why it cannot be read whole."""
    if body.endswith(",") or (body.endswith(".") and body.count(".") == 2 and body[-2].isdigit()):  # "3985," "1.5."
        body = body[:-1]
    if "," in body:
        if not _GROUPED.match(body):
            return None, "thousands separators not in groups of three (a decimal comma?)"
        body = body.replace(",", "")
    if body.count(".") > 1:
        return None, "more than one decimal point"
    if not _PLAIN.match(body):
        return None, "not a number"
    return body, ""


def read(text: str) -> Reading:
    """``13,985`` -> 13985; ``1,139.22``; ``-72.07``; ``1.61E+07``; ``3.82ms`` -> 3.82 unit ms.

    Blank, ``N/A`` and SQL*Plus overflow (``####``) give a Reading with no value and problem ``"blank"``:
    a missing value, never 0. Infinite results (``1e400``) are not measurements.
    """
    s = text.strip().replace("\u00a0", "").replace("\u2212", "-")
    if not s or s.upper() in ("N/A", "NA", "-", "--") or set(s) <= {"#"}:
        return Reading(text, None, "", "blank")
    m = _TOKEN.match(s)
    if not m:
        return Reading(text, None, "", "not a number")
    token, unit = m.group(1), m.group(2)
    sign = -1.0 if token.startswith("-") else 1.0
    token = token.lstrip("+-")
    exp = _EXP.search(token)
    body, power = (token[:exp.start()], exp.group()) if exp else (token, "")
    digits, problem = _mantissa(body)
    if digits is None:
        return Reading(text, None, unit, problem)
    value = float(digits + power)  # one float() call: 1e400 is inf, not an OverflowError
    if not math.isfinite(value):
        return Reading(text, None, unit, "not finite")
    return Reading(text, sign * value + 0.0, unit)


def value_of(text: str) -> float | None:
    """The value of a number cell, or None (blank, or not readable whole)."""
    return read(text).value


def warn(sink: MetricSink, parser: str, section: str, reading: Reading, line: int | None) -> None:
    """A number that could not be read whole: a named warning with its line, never a wrong value."""
    sink.errors.append(ParseError(parser, section, f"number {reading.text.strip()[:30]!r} could not be read "
                                  f"whole ({reading.problem}); value skipped", source=sink.source, line=line))


def checked(sink: MetricSink, parser: str, section: str, text: str, line: int | None) -> float | None:
    """``value_of`` that records a warning for a non-blank token it cannot read whole."""
    r = read(text)
    if r.value is None and r.problem != "blank":
        warn(sink, parser, section, r, line)
    return r.value


def put(sink: MetricSink, name: str, value: float, unit: str, direction: Direction = Direction.NEUTRAL,
        line: int | None = None, labels: Mapping[str, str] | None = None, derived: bool = False) -> Metric:
    """MetricSink.add with the labels as a mapping (``**labels`` next to ``derived: bool`` defeats mypy)."""
    m = Metric(name, float(value), unit, direction, Source(sink.source, line), tuple((labels or {}).items()),
               derived)
    sink.keep(m)
    return m


def put_finite(sink: MetricSink, parser: str, name: str, value: float, unit: str, direction: Direction,
               line: int | None, labels: Mapping[str, str]) -> None:
    """A value, unless it is no finite number (a run of digits longer than a float holds): then a warning named
    for ``parser``, never an infinite measurement."""
    if math.isfinite(value):
        put(sink, name, value, unit, direction, line, labels)
    else:
        sink.errors.append(ParseError(parser, name, "a number too large to be a measurement; value skipped",
                                      source=sink.source, line=line))
