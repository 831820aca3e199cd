"""known_hosts reading, OpenSSH's way: line by line (one bad line spoils nothing else), hashed names, patterns.

Kept apart from planner/transport/ssh/client.py and free of paramiko: it only finds which recorded keys (type and base64 text)
belong to a host name; the SSH transport turns them into key objects.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


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
        try:
            lines = file.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
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
            if names_match(fields[0].split(","), key_name):
                found.append(KnownKey(file, n, fields[1], fields[2], marker))
    return found


def _glob(pattern: str, name: str) -> bool:
    """OpenSSH patterns: only * and ? are special ("[host]:port" brackets are literal, unlike fnmatch)."""
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, name) is not None


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
