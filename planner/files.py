"""Files planner writes on the controller: atomically, hashed, with safe names. Foundation: no planner imports."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``path`` via a temp file beside it, fsync and rename: readers see the old file or the new one,
    never a half-written one, and a failure (ENOSPC included) leaves no temp file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_bytes(path, (json.dumps(data, indent=2, sort_keys=False, default=str) + "\n").encode())


class RecordWriteError(OSError):
    """A run-record file could not be written (disk full, quota, read-only): the previous copy is intact."""

    def __str__(self) -> str:
        return (f"cannot write {self.filename}: {self.strerror} "
                f"(nothing half-written: the previous {Path(str(self.filename)).name}, if any, is intact)")


def write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write a record file atomically (atomic_write above); the old file survives any failure,
    and a disk error becomes a RecordWriteError naming the path."""
    try:
        atomic_write(path, data, mode)
    except RecordWriteError:
        raise
    except OSError as e:
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


def slug(text: str) -> str:
    return _SLUG.sub("_", text).strip("_")[:60] or "x"


def name_file(name: str) -> str:
    """A file name for ``name`` (an inventory host name: outside input) that stays one plain name: the name
    itself when it is one, else its slug and a hash of it (``../../x`` never becomes a path, two odd names
    never share a file)."""
    if _PLAIN.fullmatch(name) and name not in (".", ".."):
        return name
    return f"{slug(name).lstrip('.') or 'x'}-{hashlib.sha256(name.encode()).hexdigest()[:10]}"
