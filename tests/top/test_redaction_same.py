"""planner.redaction's cheap paths (issue 47, stop 53) mask exactly what the implementation before them masked.

The reference below is main's redaction at 2b52da3 (mask_logins, redact_text, redact_value and what they use),
copied unchanged but for the names: it is what "the same masking" means. Seeded random inputs built from the
pieces that matter (logins in every shape, secrets holding regex metacharacters, quotes, backslashes and
non-ASCII, one secret inside another, the mask itself, the record's own run ids, times and keys, letters that
(?i) folds onto ASCII ones: "ı", "ſ", "K") go through both; outputs must be equal and of the same types.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import re
import shlex
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from planner import redaction
from planner.redaction import MASK, SecretText, mask_logins, redact_text, redact_value

# -- the reference: main's implementation before the cheap paths ------------------------------------------


@functools.lru_cache(maxsize=32)
def _base_forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    forms = {f for s in secrets if s for f in (s, json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1])}
    quoted = {shlex.quote(s) for s in secrets if s} - forms
    forms |= quoted | {json.dumps(q)[1:-1] for q in quoted}
    return tuple(sorted(forms, key=len, reverse=True))


_BASE_STRUCTURE = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9._-]+"
                             r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"
                             r'|"[a-z_][a-z0-9_]*"(?=\s*:)')
_BASE_KEY = re.compile(r"[a-z_][a-z0-9_]*")


@functools.lru_cache(maxsize=32)
def _base_pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(f) for f in forms))


_BASE_PW = r"(\\?\"[^\"\n]{1,128}?\\?\"|[^\s@/'\"\\;]{1,128})"
_BASE_LOGINS = (
    re.compile(r"(?<![\w/.$#~-])([A-Za-z][\w$#]{0,127}/)" + _BASE_PW + r"(?=@)"),
    re.compile(r"(?i)(\b(?:sqlplus|rman|expdp|impdp|exp|imp|sqlldr|dgmgrl|conn(?:ect)?|target|catalog|auxiliary)"
               r"(?:\s+-{1,2}\w+)*\s+['\"]?[A-Za-z][\w$#]{0,127}/)" + _BASE_PW),
    re.compile(r"(?i)(\bidentified\s+by\s+)" + _BASE_PW),
)
_BASE_LOGIN_HINT = re.compile(r"/|(?i:identified)")


def base_mask_logins(text: str) -> str:
    if not _BASE_LOGIN_HINT.search(text):
        return text
    for pattern in _BASE_LOGINS:
        text = pattern.sub(lambda m: m.group(1) + MASK if m.group(2) != MASK else m.group(0), text)
    return text


def base_redact_text(text: str, secrets: Sequence[str]) -> str:
    text = base_mask_logins(text)
    forms = tuple(f for f in _base_forms(tuple(secrets)) if f in text)
    if not forms:
        return text
    keep = [m.span() for m in _BASE_STRUCTURE.finditer(text)]
    if not keep:
        for form in forms:
            text = text.replace(form, MASK)
        return text

    def masked(m: re.Match[str]) -> str:
        inside = any(a < m.end() and m.start() < b for a, b in keep)
        return m.group(0) if inside else MASK

    return _base_pattern(forms).sub(masked, text)


def base_redact_value(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        return base_redact_text(value, secrets)
    if isinstance(value, Mapping):
        return {base_redact_value(k, secrets) if isinstance(k, str) and not _BASE_KEY.fullmatch(k) else k:
                base_redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [base_redact_value(v, secrets) for v in value]
    return value


# -- generated inputs -----------------------------------------------------------------------------------

_CHARS = "abcXYZ019 _-./@:;'\"\\\n\t*+?()[]{}|^$#~=,&%äéı İſK€😀\u2028"
_PIECES = [
    "scott/tiger@db", "system/\"p w\"@//h:1521/svc", 'u/\\"q\\"@x', "sqlplus -s sys/Secret1 as sysdba",
    "rman target sys/pw@cdb catalog rc/rcpw@rcat", "CONNECT app/app_pw", "conn u/p", "expdp hr/hr_pw directory=d",
    "identified by pw1;", "IDENTIFIED  BY \"Quoted pw\"", "alter user x identified by ********",
    "ıdentıfıed by x", "ſqlplus a/b", "ſqlplus a/b@c", "/ as sysdba", "a/b@c", "/dev/sdb", "/tmp/x/y", "$@",
    '"$@" 2>/dev/null', "uname @0 x86_64", "2026-12-07T20:50:06.401832Z", "20261207T205006Z-fanout_prep-vm-1b6efe",
    "u/" + "p" * 128 + "@d", "u/" + "p" * 129 + "@d", 'u/\\"' + "p w" * 42 + 'xx\\"@d',  # the lengths' edges
    '"host": ', '"Host": ', MASK, "****", "password=abc", "user@example.com", "http://u:pw@h/p",
]


def _text(rng: random.Random, secrets: Sequence[str], n: int) -> str:
    parts = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.35:
            parts.append(rng.choice(_PIECES))
        elif roll < 0.55 and secrets:
            s = rng.choice(secrets)
            parts.append(rng.choice([s, json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1],
                                     shlex.quote(s), f"u/{s}@db", f"identified by {s}", s[: len(s) // 2]]))
        else:
            parts.append("".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 12))))
    return rng.choice(["", " ", "\n"]).join(parts)


def _secrets(rng: random.Random) -> tuple[str, ...]:
    out: list[str] = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.15:
            out.append("")
        elif roll < 0.3 and out:  # one inside another
            s = rng.choice(out)
            out.append(s[1:-1] if len(s) > 3 else s + "x")
        elif roll < 0.4:
            out.append(rng.choice(["****", "2026", "a.b*c", "tiger", "p w", "it's", 'q"\\', "ſecret"]))
        else:
            out.append("".join(rng.choice(_CHARS) for _ in range(rng.randint(1, 16))))
    return tuple(out)


def _value(rng: random.Random, secrets: Sequence[str], depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return rng.choice([
            lambda: _text(rng, secrets, rng.randint(0, 4)), lambda: rng.randint(-5, 10**7), lambda: 1.5,
            lambda: True, lambda: None, lambda: SecretText(_text(rng, secrets, 2)), lambda: b"bytes/x@y"])()
    size = rng.randint(0, 5)
    if roll < 0.7:
        keys = [rng.choice(["host", "step", "Host Name", "a/b@c", "x-y", "é", _text(rng, secrets, 1),
                            SecretText("k/v@z"), 7, None]) for _ in range(size)]
        made = {k: _value(rng, secrets, depth + 1) for k in keys}
        return OrderedDict(made) if rng.random() < 0.1 else made
    items = [_value(rng, secrets, depth + 1) for _ in range(size)]
    return tuple(items) if rng.random() < 0.2 else items


def _same(new: Any, old: Any) -> bool:
    if type(new) is not type(old):
        return False
    if isinstance(old, dict):
        return list(new.keys()) == list(old.keys()) and all(
            type(a) is type(b) for a, b in zip(new.keys(), old.keys(), strict=True)) and all(
            _same(new[k], old[k]) for k in old)
    if isinstance(old, list):
        return len(new) == len(old) and all(_same(a, b) for a, b in zip(new, old, strict=True))
    return bool(new == old)


@pytest.mark.parametrize("seed", range(4))
def test_texts_masked_as_before(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(600):
        secrets = _secrets(rng)
        text = _text(rng, secrets, rng.randint(0, 8))
        assert _same(redact_text(text, secrets), base_redact_text(text, secrets)), (text, secrets)
        assert _same(redact_text(text, secrets), base_redact_text(text, secrets)), (text, secrets)  # kept result
        assert _same(mask_logins(text), base_mask_logins(text)), text


@pytest.mark.parametrize("seed", range(4))
def test_values_masked_as_before(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(150):
        secrets = _secrets(rng)
        value = _value(rng, secrets)
        before = copy.deepcopy(value)
        new, old = redact_value(value, secrets), base_redact_value(value, secrets)
        assert _same(new, old), (value, secrets)
        assert _same(redact_value(value, secrets), old), (value, secrets)  # again, from the kept results
        assert _same(value, before)  # the input itself untouched


def test_long_texts_masked_as_before() -> None:
    rng = random.Random(7)
    for _ in range(6):
        secrets = _secrets(rng)
        text = _text(rng, secrets, 4000)  # ~30 KB, a command's output
        assert _same(redact_text(text, secrets), base_redact_text(text, secrets))
        assert _same(redact_text(text * 3, ()), base_redact_text(text * 3, ()))


def test_login_shapes_masked_as_before() -> None:
    """Each piece alone, in every case, after a path and as a str subclass: the pre-checks' edges."""
    for piece in _PIECES:
        for text in (piece, piece.upper(), piece.title(), f"/x {piece}", f"{piece} /y@z", SecretText(piece)):
            assert _same(mask_logins(text), base_mask_logins(text)), text
            assert _same(redact_text(text, ("tiger", "pw")), base_redact_text(text, ("tiger", "pw"))), text


def test_unchanged_containers_are_not_copied() -> None:
    """What makes redact_value cheap: a record with nothing to mask is handed back, not rebuilt."""
    inner = {"host": "lab1", "argv": ["uname", "-a"], "n": 3}
    value = {"steps": [inner], "path": "/dev/sdb"}
    assert redact_value(value, ("tiger",)) is value
    again = json.loads(json.dumps(value))  # equal, its strings other objects: the kept results are not its own
    assert redact_value(again, ("tiger",)) is again
    changed = redact_value({"a": inner, "b": "tiger"}, ("tiger",))
    assert changed == {"a": inner, "b": MASK} and changed["a"] is inner
    assert redaction.redact_value(("x",), ()) == ["x"]  # a tuple still comes back as a list
