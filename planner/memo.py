"""One parse per artifact in one apply: what a step parsed right after its fetch is what the report and the
store push measure, not a second and third reading of the same file.

Off unless a caller opens a ``remembering()`` scope (``planner apply`` does, around the run, its report and
its push); inside it ``parse_file`` keeps each clean parse keyed by the file's identity (real path, inode,
size, modification time in ns, kind), so a file rewritten since (an artifact whose secrets were replaced
after the fetch) is read again. A parse with errors is not kept: its messages name the path as each caller
spelled it. Parsed values are frozen, so sharing one is safe; memory is one Parsed per artifact of the run,
released when the scope ends.

A foundation module, not in planner.parsers: `planner apply` opens the scope before its first host command, and
importing it from the parsers' package imported every parser and every kind's spec first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.metrics import Parsed

_Key = tuple[str, int, int, int, str]
_lock = threading.Lock()
_scopes = 0
_kept: dict[_Key, Parsed] = {}


@contextmanager
def remembering() -> Iterator[None]:
    global _scopes
    with _lock:
        _scopes += 1
    try:
        yield
    finally:
        with _lock:
            _scopes -= 1
            if not _scopes:
                _kept.clear()


def _key(path: Path, kind: str | None) -> _Key | None:
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    return real, st.st_ino, st.st_size, st.st_mtime_ns, kind or ""


def parsed_once(path: Path, kind: str | None, parse: Callable[[], Parsed]) -> Parsed:
    """``parse()`` of ``path``, or what it gave before in this scope for the same unchanged file."""
    if not _scopes:
        return parse()
    key = _key(path, kind)
    if key is not None:
        with _lock:
            found = _kept.get(key)
        if found is not None:
            return found
    parsed = parse()
    if key is not None and not parsed.errors and _key(path, kind) == key:
        with _lock:
            if _scopes:
                _kept[key] = parsed
    return parsed
