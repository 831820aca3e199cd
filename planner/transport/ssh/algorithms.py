"""ssh_config's algorithm keywords as OpenSSH reads them, free of paramiko (client.py applies them).

``HostKeyAlgorithms``, ``PubkeyAcceptedAlgorithms`` (before OpenSSH 8.5 ``PubkeyAcceptedKeyTypes``),
``KexAlgorithms``, ``Ciphers`` and ``MACs``: a list replaces the default; ``+list`` appends to it, ``-list``
removes from it, ``^list`` puts the list first (ssh_config(5)); names may hold the wildcards ``*`` and ``?``.
``-o Key=Value`` (or ``-o "Key Value"``) in ``ansible_ssh_common_args`` / ``ansible_ssh_extra_args`` come
first, as on ssh's command line: for each keyword the first value obtained wins, then ~/.ssh/config.
When the server offers nothing planner may use, the error says what OpenSSH says: what the server offered,
and the line that lets planner use one of them.
"""

from __future__ import annotations

import enum
import fnmatch
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planner.errors import ConnectError
from planner.host import Host


class Kind(enum.Enum):
    """One algorithm list: (its ssh_config keyword, OpenSSH's word for it in "no matching ... found")."""

    KEX = ("KexAlgorithms", "key exchange method")
    HOSTKEY = ("HostKeyAlgorithms", "host key type")
    PUBKEY = ("PubkeyAcceptedAlgorithms", "public key algorithm")
    CIPHER = ("Ciphers", "cipher")
    MAC = ("MACs", "MAC")

    @property
    def keyword(self) -> str:
        return self.value[0]

    @property
    def words(self) -> str:
        return self.value[1]


# ssh_config keywords (lower case, as paramiko's lookup gives them) -> kind; the old name last.
KEYWORDS = {"kexalgorithms": Kind.KEX, "hostkeyalgorithms": Kind.HOSTKEY, "pubkeyacceptedalgorithms": Kind.PUBKEY,
            "pubkeyacceptedkeytypes": Kind.PUBKEY, "ciphers": Kind.CIPHER, "macs": Kind.MAC}
ARG_VARS = ("ansible_ssh_common_args", "ansible_ssh_extra_args")


@dataclass(frozen=True, slots=True)
class Wanted:
    """One algorithm keyword set for the host: its value as written and where it was written."""

    kind: Kind
    value: str
    origin: str  # "~/.ssh/config" or the inventory variable


def dash_o(text: str) -> list[tuple[str, str]]:
    """The ``-o`` options of an ssh argument string, in order: (keyword in lower case, value)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return []  # unbalanced quotes: ssh would refuse the line; nothing is read from it
    found: list[tuple[str, str]] = []
    for i, word in enumerate(words):
        opt = words[i + 1] if word == "-o" and i + 1 < len(words) else word[2:] if word.startswith("-o") else None
        if opt:
            key, sep, value = opt.partition("=")
            if not sep:
                key, _, value = opt.strip().partition(" ")
            found.append((key.strip().lower(), value.strip()))
    return found


def wanted(host: Host, cfg: Mapping[str, object]) -> tuple[Wanted, ...]:
    """The algorithm keywords that apply to ``host``: the inventory's -o options first, then ssh_config."""
    got: dict[Kind, Wanted] = {}
    for var in ARG_VARS:
        for key, value in dash_o(str(host.vars.get(var) or "")):
            if key in KEYWORDS and value:
                got.setdefault(KEYWORDS[key], Wanted(KEYWORDS[key], value, var))
    for key, kind in KEYWORDS.items():
        raw = cfg.get(key)
        if isinstance(raw, list):  # paramiko keeps a list only for repeatable keywords; these take the first
            raw = raw[0] if raw else None
        if raw:
            got.setdefault(kind, Wanted(kind, str(raw), "~/.ssh/config"))
    return tuple(got[k] for k in Kind if k in got)


def _expand(patterns: Sequence[str], supported: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in patterns:
        out += [s for s in supported if fnmatch.fnmatchcase(s, p) and s not in out]
    return out


def resolve(want: Wanted, default: Sequence[str], supported: Sequence[str], host_name: str) -> tuple[str, ...]:
    """The list planner offers for ``want``, ssh_config(5)'s way; ConnectError when it leaves nothing usable."""
    head, body = (want.value[0], want.value[1:]) if want.value[:1] in "+-^" else ("", want.value)
    names = [n.strip() for n in body.split(",") if n.strip()]
    if head == "+":
        result = [*default, *(n for n in _expand(names, supported) if n not in default)]
    elif head == "-":
        result = [d for d in default if not any(fnmatch.fnmatchcase(d, p) for p in names)]
    elif head == "^":
        first = _expand(names, supported)
        result = [*first, *(d for d in default if d not in first)]
    else:
        result = _expand(names, supported)
    if not result:
        raise ConnectError(f"{host_name}: {want.kind.keyword} {want.value} ({want.origin}) leaves planner no "
                           f"{want.kind.words} it can use", hint=f"planner can use: {', '.join(supported)}")
    return tuple(result)


def mismatch(where: str, kind: Kind, offer: Sequence[str], usable: Sequence[str], also: str = "") -> ConnectError:
    """OpenSSH's "Unable to negotiate ... no matching X found. Their offer: ..." and the line to add."""
    said = f"{where}: unable to negotiate: no matching {kind.words} found. Their offer: {','.join(offer)}"
    if not usable:
        return ConnectError(said, hint=f"planner can use none of them; the host's sshd must offer a {kind.words} "
                                       f"planner has (`ssh -Q {kind.keyword.lower()}` lists ssh's)")
    line = f"{kind.keyword} +{usable[0]}"
    extra = f" and `{also}`" if also else ""
    return ConnectError(said, hint=f"add `{line}`{extra} to this host's entry in ~/.ssh/config (or `-o "
                                   f"{line.replace(' ', '=')}` in ansible_ssh_common_args), as OpenSSH's ssh "
                                   f"needs too")
