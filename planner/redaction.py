"""Secrets: which variables hold one, and how a value is kept out of every record, result, store row and error.

The one home of the mechanism (docs/secrets.md). A variable holds a secret when

- its name says so: one of its words (split at ``_``, ``-``, ``.`` and camelCase) is ``password``,
  ``passwd``, ``pwd``, ``passphrase``, ``secret``, ``token``, ``apikey`` or ``credential`` (plural too), its
  last word is ``key``, ``pass`` or ``pw`` (``ssh_key``, ``ansible_become_pass``; not ``host_key_checking``),
  or the name contains ``password``, ``passwd``, ``passphrase``, ``secret``, ``token``, ``credential`` or
  ``api_key``/``apikey`` (``dbpassword``); a name whose last word is ``env``, ``file`` or ``path`` names where
  a secret is (``sys_password_env``, ``ansible_ssh_private_key_file``), not one;
- or a plan, play, inventory (host or group vars) or ``-e`` declares it: ``planner_secrets: [name, ...]``
  (a name declared anywhere is a secret everywhere);
- or its value is a ``SecretText`` (a value decrypted from Ansible Vault), whatever the variable's name.

Such a variable's value (every string in it, for a list or mapping) is replaced by ``MASK`` wherever it appears
in what planner writes or prints. A value guessed from its name must be at least MIN_GUESSED characters (``-e
first_pass=1`` would otherwise mask every "1") and not a word such as true/false/yes/no/none; a declared one
is masked at any length but the empty one.

Callers: ``secret_values`` once, where the variables are known (the CLI), then ``redact_text`` /
``redact_value`` / ``redact_problem`` with what it returned; ``mask_url`` for a URL given on the command line.
A foundation module: no planner imports but errors, so every layer may use it.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from planner.errors import Problem

MASK = "********"
DECLARE = "planner_secrets"  # the variable that lists a plan's or an inventory's own secret names
MIN_GUESSED = 4
MIN_NUMBER = 6  # a vaulted or declared number shorter than this is a count, port or size, not a secret to mask

SECRET_WORDS = frozenset({"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "credential"})
# Short words that say secret only as the name's last word: ssh_key, ansible_become_pass, root_pw, but not
# host_key_checking or key_size (whose "false" / "2048" would then be masked everywhere)
LAST_WORDS = frozenset({"key", "pass", "pw", "pin"})  # pin: tde_keystore_pin, wallet_pin
# Values never guessed to be secrets: masking every "false" in a record would destroy it
_PLAIN_VALUES = frozenset({"true", "false", "yes", "no", "none", "null", "on", "off"})
_INSIDE = re.compile(r"password|passwd|passphrase|secret|token|credential|api_?key|pwd", re.I)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
POINTER_WORDS = frozenset({"env", "file", "path"})

__all__ = ["MASK", "DECLARE", "MIN_GUESSED", "SECRET_WORDS", "LAST_WORDS", "SecretText", "is_secret_name", "declared",
           "secret_values", "maskable", "unmasked_names", "secret_forms",
           "mask_logins", "redact_text", "redact_value", "redact_problem", "mask_url"]


class SecretText(str):
    """A string known to be a secret wherever it sits (a value decrypted from a vault): ``secret_values`` finds
    it in any variable, and its repr, the form error messages quote, is the mask."""

    def __repr__(self) -> str:
        return repr(MASK)


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(name)]


def is_secret_name(name: str) -> bool:
    """Whether a variable called ``name`` holds a secret by its name (see the module docstring)."""
    words = _words(name)
    if not words or words[-1] in POINTER_WORDS or name == DECLARE:
        return False
    last = words[-1]
    return (any(w.rstrip("s") in SECRET_WORDS or w in SECRET_WORDS for w in words) or bool(_INSIDE.search(name))
            or last in LAST_WORDS or last.rstrip("s") in LAST_WORDS)


def declared(scopes: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The names every scope's ``planner_secrets`` lists (a single name may be given as a string)."""
    names: set[str] = set()
    for scope in scopes:
        value = scope.get(DECLARE)
        if isinstance(value, str):
            names.add(value)
        elif isinstance(value, list | tuple):
            names.update(str(v) for v in value if isinstance(v, str | int))
    return frozenset(names)


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, bool) or value is None or depth > 20:
        return
    if isinstance(value, str | int | float):
        yield str(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v, depth + 1)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v, depth + 1)


def _marked(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, SecretText):
        if value:
            yield str(value)
    elif isinstance(value, Mapping) and depth <= 20:
        for v in value.values():
            yield from _marked(v, depth + 1)
    elif isinstance(value, list | tuple) and depth <= 20:
        for v in value:
            yield from _marked(v, depth + 1)


def maskable(value: str) -> bool:
    """Whether masking ``value`` wherever it appears is safe: not so short or common that it is also part of
    the record's own numbers and words (a vaulted "7" masked every 7 of every figure, run id and time)."""
    return (len(value) >= MIN_GUESSED and value.lower() not in _PLAIN_VALUES
            and not (value.isdigit() and len(value) < MIN_NUMBER))


def secret_values(scopes: Sequence[Mapping[str, Any]], also: Iterable[str] = ()) -> tuple[str, ...]:
    """Every secret value of these variable scopes: by name, by ``planner_secrets`` (of any scope), every
    ``SecretText`` and the names in ``also`` (a caller's own list, e.g. Ansible's literal password variables).
    A vaulted value that is not ``maskable`` is left out (``unmasked_names`` says which), unless declared."""
    names = declared(scopes) | frozenset(also)
    found: list[str] = []
    for scope in scopes:
        for key, value in scope.items():
            guessed = isinstance(key, str) and key != DECLARE and key not in names and is_secret_name(key)
            chosen = isinstance(key, str) and key in names
            found.extend(s for s in _marked(value) if chosen or maskable(s) or (guessed and _guessable(s)))
            if not isinstance(key, str) or key == DECLARE:
                continue
            if key in names:
                found.extend(s for s in _strings(value) if s)
            elif guessed:
                found.extend(s for s in _strings(value) if _guessable(s))
    return tuple(dict.fromkeys(found))


def _guessable(s: str) -> bool:
    return len(s) >= MIN_GUESSED and s.lower() not in _PLAIN_VALUES


def unmasked_names(scopes: Sequence[Mapping[str, Any]], also: Iterable[str] = ()) -> list[str]:
    """The variables holding a vaulted value that is too short or common to mask (never the value: it is said
    by name, once, so the user can make it longer or stop vaulting an ordinary setting). A declared name
    (``planner_secrets``) is the user's explicit word and is masked at any length."""
    names = declared(scopes) | frozenset(also)
    out: list[str] = []
    for scope in scopes:
        for key, value in scope.items():
            if not isinstance(key, str) or key == DECLARE or key in names:
                continue
            guessed = is_secret_name(key)
            if any(not maskable(v) and not (guessed and _guessable(v)) for v in _marked(value)):
                out.append(key)
    return list(dict.fromkeys(out))


def secret_forms(secrets: Sequence[str]) -> list[str]:
    """Each secret as written and as JSON escapes it (with and without ensure_ascii), longest first so a
    secret containing another is masked whole."""
    return list(_forms(tuple(secrets)))


@functools.lru_cache(maxsize=32)
def _forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    # once per set of secrets, not per string redacted: a record redacts every string it writes
    # and as a shell quotes it alone (shlex.quote: a password holding ' is logged as 'it'"'"'s' in a command line)
    forms = {f for s in secrets if s for f in (s, json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1])}
    quoted = {shlex.quote(s) for s in secrets if s} - forms  # only those the shell writes otherwise
    forms |= quoted | {json.dumps(q)[1:-1] for q in quoted}
    return tuple(sorted(forms, key=len, reverse=True))


# The record's own structure, never masked: a run id, an ISO time, a JSON key planner writes. A secret
# that happens to be a piece of one ("2026", "point") would otherwise make the record unreadable.
_STRUCTURE = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9._-]+|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"
                        r'|"[a-z_][a-z0-9_]*"(?=\s*:)')


_KEY = re.compile(r"[a-z_][a-z0-9_]*")  # a key as planner names its own: part of the structure


@functools.lru_cache(maxsize=32)
def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(f) for f in forms))  # longest first: a secret holding another whole


# Passwords by the shape of an Oracle login, whatever variable (or literal) they came from: ``user/pw@db``
# (EZConnect too), a tool's or CONNECT's ``user/pw`` without a service, and SQL's ``IDENTIFIED BY pw``.
# ``/ as sysdba`` and paths (``a/b@c`` after a ``/`` or a word character) are not logins.
_PW = r"(\\?\"[^\"\n]{1,128}?\\?\"|[^\s@/'\"\\;]{1,128})"  # unquoted: up to a statement's ;
_LOGINS = (
    re.compile(r"(?<![\w/.$#~-])([A-Za-z][\w$#]{0,127}/)" + _PW + r"(?=@)"),
    re.compile(r"(?i)(\b(?:sqlplus|rman|expdp|impdp|exp|imp|sqlldr|dgmgrl|conn(?:ect)?|target|catalog|auxiliary)"
               r"(?:\s+-{1,2}\w+)*\s+['\"]?[A-Za-z][\w$#]{0,127}/)" + _PW),
    re.compile(r"(?i)(\bidentified\s+by\s+)" + _PW),
)
_LOGIN_HINT = re.compile(r"/|(?i:identified)")
# What each of _LOGINS cannot match without, for an ASCII text (lowered): most texts a record redacts hold
# paths, so "/" alone made all three patterns scan them, ~0.1 s of CPU in a warm 30-host run for no match.
# Exact for ASCII only: (?i) also folds non-ASCII letters onto these ("ſ" is "s", "K" is "k").
_LOGIN_WORDS = ("sqlplus", "rman", "exp", "imp", "sqlldr", "dgmgrl", "conn", "target", "catalog", "auxiliary")
# _LOGINS[0]'s end, "/" then a password then "@", alone: a literal first, so re finds each "/" fast and most
# fail at once, where _LOGINS[0] itself tries every word (texts with paths and a shell's "$@" are common)
_LOGIN_TAIL = re.compile("/" + _PW + "@")


def _login_sub(m: re.Match[str]) -> str:
    return m.group(1) + MASK if m.group(2) != MASK else m.group(0)


def mask_logins(text: str) -> str:
    """``text`` with every password written in a login's shape masked (see _LOGINS)."""
    if type(text) is not str or not text.isascii():  # a str subclass: sub returns a plain str, as it did
        if not _LOGIN_HINT.search(text):
            return text
        for pattern in _LOGINS:
            text = pattern.sub(_login_sub, text)
        return text
    # A pattern is skipped only where it cannot match; a mask put in by one ("*") makes no word for the next
    slash = "/" in text
    low = text.lower()
    if slash:
        if "@" in text and _LOGIN_TAIL.search(text):
            text = _LOGINS[0].sub(_login_sub, text)
        for word in _LOGIN_WORDS:  # a loop, not any(): a generator's frame costs more than most texts' checks
            if word in low:
                text = _LOGINS[1].sub(_login_sub, text)
                break
    if "identified" in low:
        text = _LOGINS[2].sub(_login_sub, text)
    return text


def note(secrets: Iterable[str]) -> None:
    """Remember secrets the running verb has read, for its last-resort error message (planner.cli.main): an
    exception nobody foresaw may quote a value, and by then the verb's own copy of its secrets is out of reach."""
    _NOTED.update(dict.fromkeys(s for s in secrets if s))


def noted() -> tuple[str, ...]:
    return tuple(_NOTED)


_NOTED: dict[str, None] = {}  # this process's secrets seen so far, in order (only ever added to: a verb per process)


def redact_text(text: str, secrets: Sequence[str]) -> str:
    forms = _forms(tuple(secrets))
    return _redact(text, forms, _memo(forms))


# A record redacts the same short strings again and again (a host's user, a step's name, each meta.json
# rewrite): a warm 30-host run hands ~4,600 strings of 256 characters or less, ~700 of them different.
# Redaction is a function of the text and the secret forms alone, so its result is kept per set of forms.
_MEMO_TEXT = 256  # longer texts are rarely seen twice, and costly to hash and to keep
_MEMO_SIZE = 4096  # per set of forms: cleared when full (a long run's stream of new strings)
_MEMOS: dict[tuple[str, ...], dict[str, str]] = {}


def _memo(forms: tuple[str, ...]) -> dict[str, str]:
    memo = _MEMOS.get(forms)
    if memo is None:
        if len(_MEMOS) >= 16:
            _MEMOS.clear()
        memo = _MEMOS[forms] = {}
    return memo


def _redact(text: str, forms: tuple[str, ...], memo: dict[str, str]) -> str:
    if type(text) is not str or len(text) > _MEMO_TEXT:  # a str subclass keeps its own type's outcome
        return _redact_once(text, forms)
    out = memo.get(text)
    if out is None:
        out = _redact_once(text, forms)
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[text] = out
    return text if out == text else out  # unchanged: the caller's own object, so its container is not copied


def _redact_once(text: str, all_forms: tuple[str, ...]) -> str:
    text = mask_logins(text)
    if not all_forms or len(text) < len(all_forms[-1]):  # longest first: [-1] is the shortest
        return text
    for form in all_forms:
        if form in text:
            break
    else:  # most texts hold none
        return text
    forms = tuple(f for f in all_forms if f in text)
    keep = [m.span() for m in _STRUCTURE.finditer(text)]
    if not keep:
        for form in forms:
            text = text.replace(form, MASK)
        return text

    def masked(m: re.Match[str]) -> str:
        inside = any(a < m.end() and m.start() < b for a, b in keep)
        return m.group(0) if inside else MASK

    return _pattern(forms).sub(masked, text)


def redact_value(value: Any, secrets: Sequence[str]) -> Any:
    """The same JSON-like value with every string (keys but planner's own) redacted: a dict or list in which
    nothing changed is returned itself, not copied (the caller encodes it; it must not change it); a tuple
    or other mapping comes back as a list or dict, as always."""
    forms = _forms(tuple(secrets))
    return _value(value, forms, _memo(forms))


_LEAVES = frozenset({int, float, bool, type(None)})
_OWN_KEYS: dict[str, bool] = {}  # key -> planner's own (not redacted); records repeat a few hundred keys


def _own_key(key: str) -> bool:
    own = _OWN_KEYS.get(key)
    if own is None:
        own = _KEY.fullmatch(key) is not None
        if len(_OWN_KEYS) < 4096:  # bounded: keys made from hosts' data could be many
            _OWN_KEYS[key] = own
    return own


def _value(value: Any, forms: tuple[str, ...], memo: dict[str, str]) -> Any:
    kind = type(value)
    if kind is str:
        return _redact(value, forms, memo)
    if kind in _LEAVES:
        return value
    if kind is dict:
        return _dict(value, forms, memo)
    if kind is list:
        return _list(value, forms, memo)
    if isinstance(value, str):
        return _redact(value, forms, memo)
    if isinstance(value, Mapping):  # another mapping: a new dict, as before
        return {_value(k, forms, memo) if isinstance(k, str) and not _own_key(k) else k: _value(v, forms, memo)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_value(v, forms, memo) for v in value]
    return value


def _dict(value: dict[Any, Any], forms: tuple[str, ...], memo: dict[str, str]) -> dict[Any, Any]:
    pairs: list[tuple[Any, Any]] | None = None  # made at the first change: most dicts hold no secret
    own_keys, leaves = _OWN_KEYS, _LEAVES
    for n, (k, v) in enumerate(value.items()):
        # the common cases inline (a key planner named, a number, a string): a call per item was most of the cost
        rk = k if own_keys.get(k) or not isinstance(k, str) or _own_key(k) else _value(k, forms, memo)
        kind = type(v)
        rv = v if kind in leaves else _redact(v, forms, memo) if kind is str else _value(v, forms, memo)
        if pairs is None:
            if rk is k and rv is v:
                continue
            pairs = list(itertools.islice(value.items(), n))
        pairs.append((rk, rv))
    return value if pairs is None else dict(pairs)  # keys redacted alike: the last value wins, as before


def _list(value: list[Any], forms: tuple[str, ...], memo: dict[str, str]) -> list[Any]:
    out: list[Any] | None = None
    for n, v in enumerate(value):
        rv = _value(v, forms, memo)
        if out is None:
            if rv is v:
                continue
            out = value[:n]
        out.append(rv)
    return value if out is None else out


def redact_problem(problem: Problem, secrets: Sequence[str]) -> Problem:
    """A problem as it may be printed: a value that reached its message or hint (``fio would refuse
    rw='<a password>'``) masked."""
    if not secrets:
        return problem
    return Problem(problem.location, redact_text(problem.path, secrets), redact_text(problem.message, secrets),
                   redact_text(problem.hint, secrets))


def mask_url(text: str) -> str:
    """A URL with its password (``user:pw@``, ``?password=``) masked, whatever its scheme, for messages."""
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return "<unreadable URL>"
    out = text
    if password:
        out = out.replace(f":{password}@", f":{MASK}@", 1)
    if re.search(r"(?i)(?:^|&)[^&=]*(?:password|passwd|pwd|secret|token)[^&=]*=", parts.query):
        q = "&".join(f"{kv.partition('=')[0]}={MASK}" if is_secret_name(kv.partition("=")[0]) else kv
                     for kv in parts.query.split("&"))
        out = out.replace(parts.query, q, 1)
    return out


# What a template derives from a secret (``{{ pw | upper }}``): the taint lives here, not in planner.safejinja,
# so an apply whose plan has no template masks derived secrets without importing Jinja2 (start-up time).
@dataclass
class _Taint:
    """Secrets a render may derive from, and what it derived (value-based: a string equal to a known secret,
    or to something derived from one, is tainted; so is a list holding one)."""

    known: set[str]
    found: dict[str, None] = field(default_factory=dict)
    lists: list[Any] = field(default_factory=list)  # derived lists (``pw | list``), held so their ids stay theirs


_TAINT: ContextVar[_Taint | None] = ContextVar("planner_template_taint", default=None)
MIN_DERIVED = 4  # shorter results ("A", "pw"[0]) are left unmasked: masking them would mask the record itself


@contextmanager
def derived_secrets(secrets: Iterable[str]) -> Iterator[list[str]]:
    """Renders inside collect what their filters, slices, methods and operators derive from ``secrets``
    (``{{ pw | upper }}``, ``{{ pw[1:] }}``, ``{{ pw | reverse | join('') }}``): the list, filled on exit, is
    to be masked like the secrets themselves."""
    taint = _Taint({s for s in secrets if s})
    token = _TAINT.set(taint)
    out: list[str] = []
    try:
        yield out
    finally:
        _TAINT.reset(token)
        out.extend(taint.found)


def _is_tainted(taint: _Taint, value: Any, depth: int = 0) -> bool:
    if isinstance(value, str):
        return value in taint.known
    if isinstance(value, list | tuple) and depth < 3:
        return any(value is t for t in taint.lists) or any(_is_tainted(taint, v, depth + 1) for v in value[:10_000])
    return False


def derive(result: Any, *inputs: Any) -> Any:
    """``result`` noted as a derived secret when any of ``inputs`` is one (planner.safejinja's filters, methods
    and operators call it on what they return)."""
    taint = _TAINT.get()
    if taint is None or not taint.known or not any(_is_tainted(taint, i) for i in inputs):
        return result
    if isinstance(result, list | tuple) and len(taint.lists) < 1000:
        taint.lists.append(result)
    for s in [result] if isinstance(result, str) else result if isinstance(result, list | tuple) else ():
        if isinstance(s, str) and len(s) >= MIN_DERIVED and s not in taint.known:
            taint.known.add(s)
            taint.found[s] = None
    return result
