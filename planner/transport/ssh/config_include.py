"""ssh_config's ``Include`` as OpenSSH reads it, expanded into one text before paramiko parses it: paramiko (5.1)
ignores the keyword (paramiko issue 1609, open), so an alias defined in an included file was reached under its
inventory name where ansible's ssh reaches its HostName.

OpenSSH's rules (ssh_config(5) "Include"; readconf.c ``process_config_line_depth`` oInclude and
``read_config_file_depth``, OpenSSH 7.3-9.x): each argument may hold glob(3) wildcards, matched files read in
lexical order, a pattern matching nothing skipped; a path not starting with ``/`` or ``~`` is under ~/.ssh (the
file planner reads is a user configuration, as ``ssh -F``'s); nesting deeper than 16 (READCONF_MAX_DEPTH) is
fatal. An included file starts in its includer's block state and that state is restored after it ("don't let
Match in includes clobber the containing file's Match state"): at the top of a file (or in a ``Host *`` /
``Match all`` block) the included text is the same as written in place, followed by a ``Host *`` line that
reopens the all-hosts context; inside a conditional Host/Match block it is too when it opens no block of its own.
A file included from a conditional block that opens blocks (OpenSSH ANDs the two conditions: SSHCONF_NEVERMATCH)
cannot be said in paramiko's flat blocks: planner refuses it, naming the line, rather than read it wrong.

``~`` is the controller's HOME here, as for planner's own ``~/.ssh/config`` (OpenSSH takes the passwd entry's).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 16  # readconf.c READCONF_MAX_DEPTH
# OpenSSH's keyword/value split (strdelim: whitespace, or one "=" with whitespace around it); paramiko's is the same
_LINE = re.compile(r"\s*(\w+)(?:\s*=\s*|\s+)(.*)")
_ALL_HOSTS = ("host *", "match all")
_REOPEN = "Host *\n"


class IncludeError(Exception):
    """An Include planner cannot read as OpenSSH does; the message is ``file:line: what — how``."""


@dataclass(frozen=True)
class _Expanded:
    text: str
    opens_block: str | None  # "file:line" of the first Host/Match line within, or None


def expanded_text(path: Path) -> str:
    """The ssh_config file ``path`` with each ``Include`` replaced by the files it names (IncludeError where
    planner cannot read one as OpenSSH would; OSError where ``path`` itself cannot be read)."""
    text = _read(path)
    if "include" not in text.lower():  # most files: as written (no line-by-line pass)
        return text
    return _expand(path, text, depth=0, unconditional=True).text


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _expand(path: Path, text: str, *, depth: int, unconditional: bool) -> _Expanded:
    lines = text.splitlines()
    out: list[str] = []
    opens: str | None = None
    file_start = unconditional
    for n, line in enumerate(lines, 1):
        m = _LINE.match(line)
        key = m.group(1).lower() if m and not line.lstrip().startswith("#") else ""
        if key in ("host", "match"):
            opens = opens or f"{path}:{n}"
            # A conditional block: an Include under it reads a file's own blocks ANDed with this one (below)
            unconditional = file_start and " ".join(line.split()).lower() in _ALL_HOSTS
        if key != "include" or m is None:
            out.append(line + "\n")
            continue
        for inner in _included_files(path, n, m.group(2)):
            got = _included(inner, f"{path}:{n}", depth=depth, unconditional=unconditional)
            out.append(got.text)
            if got.opens_block:
                out.append(_REOPEN)  # the includer's all-hosts state, restored as OpenSSH restores it
                opens = opens or got.opens_block
    return _Expanded("".join(out), opens)


def _included(inner: Path, where: str, *, depth: int, unconditional: bool) -> _Expanded:
    if depth + 1 > MAX_DEPTH:
        raise IncludeError(f"{where}: Include nested more than {MAX_DEPTH} deep (OpenSSH: \"Too many recursive "
                           "configuration includes\") — a file includes itself: remove that Include")
    try:
        _check_owner(inner, where)
        got = _expand(inner, _read(inner), depth=depth + 1, unconditional=unconditional)
    except IsADirectoryError:
        return _Expanded("", None)  # OpenSSH's fopen of a directory succeeds and reads no line
    except FileNotFoundError:
        return _Expanded("", None)  # gone since the glob: OpenSSH skips it (errno ENOENT)
    except OSError as e:
        raise IncludeError(f"{where}: Can't open user config file {inner}: {e.strerror} — make it readable or "
                           "remove it from the Include") from e
    if got.opens_block and not unconditional:
        raise IncludeError(f"{where}: Include inside a Host/Match block is not read by planner — move it to the top "
                           f"of the file (the included {got.opens_block} opens a Host/Match block of its own)")
    return got


def _check_owner(inner: Path, where: str) -> None:
    """OpenSSH reads an included file only when the user or root owns it and neither group nor others may write it
    (SSHCONF_CHECKPERM, fatal otherwise): another user could otherwise give planner a ProxyCommand to run here."""
    st = inner.stat()
    if (st.st_uid not in (0, os.getuid())) or st.st_mode & 0o022:
        raise IncludeError(f"{where}: Bad owner or permissions on {inner} — make it yours and writable by you "
                           f"only (chmod go-w {inner})")


def _included_files(path: Path, n: int, value: str) -> list[Path]:
    try:
        args = shlex.split(value, comments=True)
    except ValueError as e:
        raise IncludeError(f"{path}:{n}: Include {value.strip()}: {e} — close the quote") from e
    import glob  # only for a file that says Include (not imported by planner otherwise)

    files: list[Path] = []
    for arg in args:
        if "%" in arg or "${" in arg:
            raise IncludeError(f"{path}:{n}: Include {arg}: planner does not expand ssh_config tokens or "
                               "environment variables in an Include — write the path out")
        pattern = os.path.expanduser(arg) if arg.startswith("~") else os.path.join(
            os.path.expanduser("~/.ssh"), arg)
        files += [Path(p) for p in sorted(glob.glob(pattern))]  # none matched: skipped, as OpenSSH
    return files
