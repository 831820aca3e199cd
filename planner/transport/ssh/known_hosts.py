"""known_hosts reading, OpenSSH's way: line by line (one bad line spoils nothing else), hashed names, patterns.

Kept apart from planner/transport/ssh/client.py and free of paramiko: it only finds which recorded keys (type and
base64 text) belong to a host name; the SSH transport turns them into key objects.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from planner.errors import HostKeyError

_append_lock = threading.Lock()  # accept-new appends to one known_hosts file from many threads


@dataclass(frozen=True, slots=True)
class KnownKey:
    file: Path
    line: int
    key_type: str  # e.g. ssh-ed25519
    key_base64: str
    marker: str = ""  # "" (a host key), "revoked" or "cert-authority" (sshd(8) SSH_KNOWN_HOSTS FILE FORMAT)


MARKERS = ("@revoked", "@cert-authority")


def known_keys(files: Iterable[Path], key_name: str) -> list[KnownKey]:
    """Keys recorded for ``key_name`` ("host" or "[host]:port") in these files, in file and line order.

    A line may start with a marker, as OpenSSH reads it: ``@revoked`` (that key must never be accepted for the
    names on the line) or ``@cert-authority`` (the key signs host certificates, it is not a host key). Each comes
    back with its ``marker`` set; callers decide (the SSH transport refuses revoked keys always)."""
    found: list[KnownKey] = []
    for file in files:
        parsed = _parsed(file)
        if parsed is None:
            continue
        hits = {*parsed.by_name.get(key_name, ()),
                *(i for i in parsed.others if names_match(list(parsed.lines[i].patterns), key_name))}
        found += [KnownKey(file, line.n, line.key_type, line.key_base64, line.marker)
                  for line in (parsed.lines[i] for i in sorted(hits))]
    return found


@dataclass(frozen=True, slots=True)
class _Line:
    n: int
    marker: str
    patterns: tuple[str, ...]
    key_type: str
    key_base64: str


@dataclass(frozen=True, slots=True)
class _File:
    """One known_hosts file read: its usable lines, those naming hosts literally indexed by name (one lookup per
    host, not one pass over every line: 200 hosts in one file made the checks grow with hosts squared)."""

    lines: tuple[_Line, ...]
    by_name: dict[str, tuple[int, ...]]
    others: tuple[int, ...]  # lines with a wildcard, a negation or a hashed name: matched one by one


_files: dict[Path, tuple[tuple[int, int, int], _File]] = {}  # path -> (its stat when read, what it holds)
_files_lock = threading.Lock()


def _parsed(file: Path) -> _File | None:
    """The file as last read, read again when it changed (an accepted key appended, an edit)."""
    try:
        st = file.stat()
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        with _files_lock:
            cached = _files.get(file)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = file.read_text(errors="replace")
    except OSError:
        return None
    parsed = _parse(text)
    with _files_lock:
        if len(_files) >= 16:  # bounded: a controller reads a handful of files
            _files.clear()
        _files[file] = (stamp, parsed)
    return parsed


def _parse(text: str) -> _File:
    lines: list[_Line] = []
    by_name: dict[str, list[int]] = {}
    others: list[int] = []
    for n, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        marker = ""
        if fields and fields[0] in MARKERS:
            marker, fields = fields[0][1:], fields[1:]
        if len(fields) < 3 or fields[0].startswith(("#", "@")):
            continue  # comments, unknown markers (OpenSSH skips those lines too)
        try:
            base64.b64decode(fields[2], validate=True)
        except (binascii.Error, ValueError):
            continue  # a damaged key: skip the line like OpenSSH does
        patterns = tuple(fields[0].split(","))
        if any(p.startswith(("|1|", "!")) or "*" in p or "?" in p for p in patterns):
            others.append(len(lines))
        else:
            for p in dict.fromkeys(patterns):
                by_name.setdefault(p, []).append(len(lines))
        lines.append(_Line(n, marker, patterns, fields[1], fields[2]))
    return _File(tuple(lines), {k: tuple(v) for k, v in by_name.items()}, tuple(others))


def _glob(pattern: str, name: str) -> bool:
    """OpenSSH patterns: only * and ? are special ("[host]:port" brackets are literal, unlike fnmatch)."""
    return _pattern(pattern).fullmatch(name) is not None


@functools.lru_cache(maxsize=1024)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern))


def _hashed_match(entry: str, name: str) -> bool:
    """``|1|salt|hash``: HMAC-SHA1 of the name keyed with the salt (OpenSSH HashKnownHosts)."""
    try:
        _, _, salt, digest = entry.split("|", 3)
        mac = hmac.new(base64.b64decode(salt), name.encode(), hashlib.sha1).digest()
        return hmac.compare_digest(mac, base64.b64decode(digest))
    except (ValueError, binascii.Error):
        return False


def names_match(patterns: list[str], name: str) -> bool:
    hit = False
    for p in patterns:
        if p.startswith("|1|"):
            hit = hit or _hashed_match(p, name)
        elif p.startswith("!"):
            if _glob(p[1:], name):
                return False
        else:
            hit = hit or _glob(p, name)
    return hit


def append_key(known_hosts: Path, hostname: str, key_type: str, key_base64: str) -> None:
    """--accept-new-host-keys: record a host's key as OpenSSH's StrictHostKeyChecking=accept-new does."""
    with _append_lock:
        known_hosts.parent.mkdir(parents=True, exist_ok=True)
        with known_hosts.open("a") as f:
            f.write(f"{hostname} {key_type} {key_base64}\n")


# -- what planner says when a key is refused (OpenSSH's words where it has them) ---------------------------


def unknown_key_error(host: str, hostname: str, fingerprint: str, files: str) -> HostKeyError:
    return HostKeyError(f"{host}: unknown host key for {hostname} ({fingerprint}); not in {files}",
                        hint="check the fingerprint, then rerun with --accept-new-host-keys to record it")


def ca_only_error(host: str, hostname: str, cas: list[KnownKey], fingerprint: str) -> HostKeyError:
    where = ", ".join(f"{k.file}:{k.line}" for k in cas)
    return HostKeyError(f"{host}: known_hosts trusts a certificate authority for {hostname} ({where}), but planner "
                        f"cannot check host certificates (paramiko does not support them); the host's own key "
                        f"({fingerprint}) is not recorded",
                        hint="add the host's own key to known_hosts (ssh-keyscan, then check its fingerprint); "
                             "--accept-new-host-keys does not apply where a CA is trusted")


def revoked_error(where: str, fingerprint: str, hit: KnownKey) -> HostKeyError:
    return HostKeyError(f"{where}: REVOKED HOST KEY {fingerprint}, marked @revoked at {hit.file}:{hit.line}",
                        hint="the host still offers a key that was revoked: have its keys replaced; "
                             "planner never accepts it, --accept-new-host-keys included")


def changed_key_error(where: str, got: str, expected: str, known: list[KnownKey], key_name: str) -> HostKeyError:
    lines = ", ".join(f"{k.file}:{k.line}" for k in known if not k.marker)
    return HostKeyError(f"{where}: HOST KEY CHANGED: got {got}, known_hosts has {expected} at {lines}",
                        hint=f"if the host was really reinstalled, remove line(s) {lines} "
                             f"(ssh-keygen -R '{key_name}' -f {known[0].file}) and reconnect")
