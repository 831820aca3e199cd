"""PostgreSQL parameters as ``pg_settings`` describes them, and a value checked the way the server checks it.

``pg_conf`` refuses a value the server would refuse before it changes anything: ALTER SYSTEM of a second parameter
failing after the first was written would leave postgresql.auto.conf half changed. The rules are PostgreSQL's own
(docs "Setting Parameters", 20.1.1; guc.c parse_int/parse_real/convert_to_base_unit): booleans on/off/true/false/
yes/no/1/0; numbers with an optional unit, memory units B kB MB GB TB (multiplier 1024) and time units us ms s min
h d, case-sensitive; a fraction rounded to the next smaller unit (12+: 30.1GB is 30822MB; before 12 an integer
parameter takes no fraction), converted to the parameter's own unit (``pg_settings.unit``, e.g. 8kB) and rounded
to the nearest whole one for an integer parameter; then ``min_val``..``max_val``; an enum one of ``enumvals`` (any
case).
docs/oracle-behaviour.md cites them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.errors import StepError

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
_BOOLS = {"on": "on", "off": "off", "true": "on", "false": "off", "yes": "on", "no": "off", "1": "on", "0": "off"}
MEMORY_UNITS = {"B": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
TIME_UNITS = {"us": 1, "ms": 1000, "s": 1000**2, "min": 60 * 1000**2, "h": 3600 * 1000**2, "d": 86400 * 1000**2}
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$")
_RADIX = re.compile(r"^\s*(0[xX][0-9A-Fa-f]+|0[0-7]+)\s*$")  # an integer parameter's hexadecimal or octal input
_UNIT = re.compile(r"^(\d*)\s*([A-Za-z]+)$")


@dataclass(frozen=True, slots=True)
class Setting:
    """One row of pg_settings: the running value and what the server takes for it."""

    name: str
    setting: str
    unit: str
    context: str  # postmaster: only at server start; sighup, superuser, user...: a reload
    vartype: str  # bool, integer, real, string, enum
    min_val: str
    max_val: str
    enumvals: tuple[str, ...]
    source: str  # where the running value came from: default, configuration file, command line...
    pending_restart: bool
    server_version: int = 0  # server_version_num (150004): what the server takes changed at 12; 0: unknown

    @classmethod
    def of(cls, row: Mapping[str, Any], server_version: int = 0) -> Setting:
        return cls(str(row["name"]), str(row.get("setting") or ""), str(row.get("unit") or ""),
                   str(row.get("context") or ""), str(row.get("vartype") or ""), str(row.get("min_val") or ""),
                   str(row.get("max_val") or ""), tuple(str(v) for v in row.get("enumvals") or ()),
                   str(row.get("source") or ""), bool(row.get("pending_restart")), server_version)

    @property
    def restart(self) -> bool:
        return self.context == "postmaster"


def _unit_scale(unit: str) -> tuple[dict[str, int], int] | None:
    """The unit family of a parameter's unit ('8kB', 'ms') and its size in the family's smallest unit."""
    m = _UNIT.match(unit)
    if not m:
        return None
    times = int(m.group(1) or 1)
    for family in (MEMORY_UNITS, TIME_UNITS):
        if m.group(2) in family:
            return family, times * family[m.group(2)]
    return None


def _boolean(text: str) -> str:
    """on/off for a word the server reads as a Boolean: any unambiguous prefix of on, off, true, false, yes, no
    (guc.c parse_bool: 'of' is off, 'o' is ambiguous), or 1 / 0; '' when it reads none."""
    word = text.strip().lower()
    if word in _BOOLS:
        return _BOOLS[word]
    meant = {_BOOLS[w] for w in ("true", "false", "yes", "no", "on", "off") if w.startswith(word)} if word else set()
    return meant.pop() if len(meant) == 1 else ""


def _number(s: Setting, value: Any) -> float:
    """The value in the parameter's own unit (not yet rounded); refused as the server refuses it."""
    text = str(value)
    radix = _RADIX.match(text)
    if radix and s.vartype == "integer" and not isinstance(value, bool):  # strtol base 0: 0x1F, 017
        return float(int(radix.group(1), 16 if radix.group(1)[1:2] in ("x", "X") else 8))
    m = _NUMBER.match(text)
    if isinstance(value, bool) or not m:
        raise StepError(f"{s.name} takes a number{_units_hint(s)}, not {value!r}")
    number, unit = float(m.group(1)), m.group(2)
    if not unit:
        return number
    scale = _unit_scale(s.unit)
    if scale is None or unit not in scale[0]:
        raise StepError(f"{s.name}: invalid unit {unit!r} in {value!r}{_units_hint(s)}",
                        hint="units are case-sensitive: kB, MB, GB (memory), ms, s, min (time)")
    family, size = scale
    given = number * family[unit]  # in the family's smallest unit (B, us)
    # PostgreSQL 12+ (guc.c convert_to_base_unit): a value given in a unit is first rounded to the nearest whole
    # one of the next smaller unit, if there is one: 30.1GB is 30822MB, 0.0015s is 2ms (then the parameter's unit)
    smaller = [m for m in family.values() if m < family[unit]]
    if smaller:
        given = round(given / max(smaller)) * max(smaller)
    return given / size


def _units_hint(s: Setting) -> str:
    scale = _unit_scale(s.unit)
    if scale is None:
        return ""
    return f" (valid units for this parameter: {', '.join(scale[0])}; its own unit is {s.unit})"


def _fmt(s: Setting, n: float) -> str:
    """A number of the parameter's units as a reader says it: '16 (128kB)'."""
    text = str(int(n)) if n == int(n) else str(n)
    scale = _unit_scale(s.unit)
    if scale is None or n < 0:
        return text + (f" {s.unit}" if s.unit else "")
    family, size = scale
    base = n * size
    best = max((u for u, m in family.items() if base >= m and base % m == 0), key=lambda u: family[u], default="")
    return f"{text} ({int(base // family[best])}{best})" if best else text


def checked(s: Setting, value: Any) -> str:
    """The value the server would store for ``value``, in pg_settings' own terms (the form ``setting`` shows),
    or StepError naming the range, the units or the choices."""
    if s.vartype == "bool":
        text = ("on" if value else "off") if isinstance(value, bool) else _boolean(str(value))
        if not text:
            raise StepError(f"{s.name} requires a Boolean value (on, off, true, false, yes, no, 1, 0), not {value!r}")
        return text
    if s.vartype == "enum":
        for choice in s.enumvals:
            if str(value).strip().lower() == choice.lower():
                return choice
        raise StepError(f"invalid value {value!r} for {s.name}: available values are {', '.join(s.enumvals)}")
    if s.vartype in ("integer", "real"):
        n = _number(s, value)
        if s.vartype == "integer" and 0 < s.server_version < 120000 and _fraction(value):
            raise StepError(f"invalid value for parameter {s.name!r}: {value!r}: before PostgreSQL 12 an integer "
                            "parameter takes no fraction", hint="give a whole number of a unit (30822MB, not 30.1GB)")
        if s.vartype == "integer":
            if not math.isfinite(n):
                raise StepError(f"{s.name} takes a whole number, not {value!r}")
            n = float(round(n))  # the server rounds to the nearest unit (rint)
        low, high = float(s.min_val), float(s.max_val)
        if not low <= n <= high:
            raise StepError(f"{s.name} = {value!r} is {_fmt(s, n)}, outside the range the server takes: "
                            f"{_fmt(s, low)} to {_fmt(s, high)}", hint="pg_settings min_val..max_val")
        return str(int(n)) if s.vartype == "integer" else f"{n:g}"  # pg_settings shows a real with %g
    if "\0" in str(value) or "\n" in str(value):
        raise StepError(f"refused value for {s.name}: it holds a NUL or a line break")
    return str(value)


def _fraction(value: Any) -> bool:
    m = _NUMBER.match(str(value))
    return m is not None and not float(m.group(1)).is_integer()


def same(s: Setting, stored: str, running: str | None = None) -> bool:
    """Whether ``stored`` (checked()'s form) equals the running value (pg_settings.setting by default)."""
    now = s.setting if running is None else running
    if s.vartype == "real":
        try:
            return math.isclose(float(stored), float(now), rel_tol=1e-9)
        except ValueError:
            return False
    return stored.lower() == now.lower() if s.vartype in ("bool", "enum") else stored == now


def shown(s: Setting, stored: str | None = None) -> str:
    """A value for a reader: the running one by default, with its unit ('16384 (128MB)')."""
    value = s.setting if stored is None else stored
    if s.vartype in ("integer", "real") and s.unit:
        try:
            return _fmt(s, float(value))
        except ValueError:
            return value
    return value


def literal(value: str) -> str:
    """A value as an SQL string literal (ALTER SYSTEM SET name = '...'): quotes doubled, no backslash escapes
    (standard_conforming_strings is on by default since 9.1)."""
    if "\0" in value or "\n" in value or "\r" in value:
        raise StepError("refused value: it holds a NUL or a line break")
    return "'" + value.replace("'", "''") + "'"


def auto_conf(text: str) -> dict[str, str]:
    """postgresql.auto.conf as ALTER SYSTEM writes it: ``name = 'value'`` lines (quotes doubled), comments."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1].replace("''", "'").replace("\\\\", "\\")
        out[name.strip().lower()] = value
    return out


def names(params: Mapping[str, Any]) -> Sequence[str]:
    """The parameter names asked, each a name PostgreSQL takes (a custom one has one dot: ext.name)."""
    bad = [n for n in params if not NAME.fullmatch(str(n))]
    if bad:
        raise StepError(f"refused parameter name(s): {', '.join(map(repr, bad))}",
                        hint="letters, digits and _, not starting with a digit (a custom one: extension.name)")
    lowered = [str(n).lower() for n in params]
    if len(set(lowered)) != len(lowered):
        raise StepError("a parameter is given twice (names are case-insensitive)")
    return lowered
