"""Where a run folder was made: this controller's key, and the seal that binds a run's own settings to it.

A run folder is data. A received folder, or one pulled from a shared store, is written by whoever sent it, so
nothing in it may choose what this controller runs or trusts: which ssh_config (its ProxyCommand runs here),
which known_hosts (who is trusted with the ``-K`` password), which hosts, which lock to remove, which ``-i``
and plan ``--resume`` loads. Those settings are used only when the folder was made here: meta.json's
``origin`` is an HMAC, keyed by this user's 0600 key (``~/.config/planner/restore.key``, the key that also
seals the private restore logs), over the fields that decide them. A sender has no key to seal with, and a
sealed folder changed in any of those fields no longer verifies.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.errors import InputError, Problem
from planner.files import write_bytes

ORIGIN = "origin"  # meta.json's field holding the seal
# What chooses how the run's hosts are reached and what a resume loads: written when the record opens (argv,
# cwd, hosts...) or when a host's lock is taken (remote); never rewritten by a restore.
SEALED = ("run_id", "started", "plan_file", "hosts", "plays", "argv", "cwd", "remote")
KEY_BYTES = 64  # the hex of 32 random bytes, as planner makes it
_cache: dict[str, bytes] = {}


def key_path() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "planner" / "restore.key"


def _not_a_key(path: Path, why: str) -> InputError:
    return InputError([Problem(None, "", f"{path}: the controller's key {why}",
                               f"remove {path} (planner makes a new one); runs made with the old key are then "
                               "treated as received: restore their hosts by hand from restore.json")])


def controller_key(create: bool = True) -> bytes | None:
    """This user's key (made 0600 on first use); None when there is none yet and ``create`` is False.

    Refused, in words, when it is a link, not a regular file, not this user's alone, or too short to key an
    HMAC (an empty key would make every seal one anybody can compute)."""
    path = key_path()
    if not os.path.lexists(path) and create:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".restore.key.{os.getpid()}")
        write_bytes(tmp, os.urandom(32).hex().encode(), mode=0o600)  # secrets.token_hex(32), unimported
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # never replaces a key another planner made at the same moment
        tmp.unlink()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _not_a_key(path, f"cannot be opened as a plain file ({e.strerror or e}; a link is refused)") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _not_a_key(path, "is not a regular file")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise _not_a_key(path, f"is not this user's alone (owner {st.st_uid}, mode {st.st_mode & 0o777:o})")
        key = f.read(256)
    if len(key.strip()) < KEY_BYTES // 2:
        raise _not_a_key(path, f"holds {len(key.strip())} bytes, too few to seal anything")
    return key


def _cached_key() -> bytes:
    """The key, read once per process and key file (a run writes meta.json many times)."""
    path = str(key_path())
    if path not in _cache:
        key = controller_key()
        assert key is not None
        _cache[path] = key
    return _cache[path]


def _body(meta: Mapping[str, Any]) -> bytes:
    return json.dumps({k: meta.get(k) for k in SEALED}, sort_keys=True, default=str).encode()


def sealed(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` (as it is written) with its origin seal; without one when no key can be made (a read-only
    config folder): the run goes on, and restore and resume then treat its folder as received."""
    try:
        key = _cached_key()
    except OSError:
        return dict(meta)
    return {**meta, ORIGIN: hmac.new(key, _body(meta), hashlib.sha256).hexdigest()}


def made_here(meta: Mapping[str, Any]) -> bool:
    """True when this controller, as this user, made the folder and its sealed fields are as it wrote them."""
    seal = meta.get(ORIGIN)
    if not isinstance(seal, str):
        return False
    key = controller_key(create=False)
    return key is not None and hmac.compare_digest(hmac.new(key, _body(meta), hashlib.sha256).hexdigest(), seal)


def inside_run_folder(path: Path) -> Path | None:
    """The run folder (a folder with a meta.json) that holds ``path``, if any: files a folder carries are
    data, never an ssh_config or a known_hosts planner would trust."""
    for where in (Path(os.path.abspath(path)), Path(path).resolve()):
        for parent in where.parents:
            if (parent / "meta.json").is_file():
                return parent
    return None


def transport_file_problems(paths: Mapping[str, Path | None]) -> list[Problem]:
    """An ssh_config (its ProxyCommand runs here) or a known_hosts (it says whom to trust), by option name,
    that lies inside a run folder: whoever sent or pushed the folder wrote it, so it is refused."""
    problems = []
    for key, path in paths.items():
        folder = inside_run_folder(path) if path is not None else None
        if folder is not None:
            flag = "--" + key.replace("_", "-")
            problems.append(Problem(None, flag, f"{path} is inside the run folder {folder}: a run record is data, "
                                    "not an SSH setting planner trusts",
                                    f"give {flag} a file of your own, outside any run folder"))
    return problems


def controller_platform() -> str:
    """``platform.platform()``'s text (meta.json's controller_platform) without the ``uname -p`` it forks on
    Linux: Python's ``uname()`` unpacks the processor, a subprocess (~10 ms of CPU, more of wall, before the
    first host command), whose answer there is "unknown" or the machine again, both of which ``platform()``
    leaves out (CPython 3.11 Lib/platform.py, platform() and _platform()). Elsewhere: ``platform.platform()``."""
    if sys.platform != "linux":
        import platform

        return platform.platform()
    u = os.uname()
    libc, version = _libc()
    text = "-".join(p.strip() for p in (u.sysname, u.release, u.machine, "with", libc + version) if p)
    text = text.translate(_PLATFORM_SAFE).replace("unknown", "")
    while "--" in text:
        text = text.replace("--", "-")
    return text.rstrip("-")


def _libc() -> tuple[str, str]:
    """``platform.libc_ver()``: its first answer is glibc's own ``confstr``, read here without importing
    ``platform`` (9 regexes compiled at every apply's start, before the first host connect); where that says
    nothing, platform's scan of the executable."""
    try:
        parts = os.confstr("CS_GNU_LIBC_VERSION").split(maxsplit=1)  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        parts = []
    if len(parts) == 2:
        return parts[0], parts[1]
    import platform

    return platform.libc_ver()


_PLATFORM_SAFE = str.maketrans({" ": "_", "/": "-", "\\": "-", ":": "-", ";": "-", '"': "-", "(": "-", ")": "-"})
