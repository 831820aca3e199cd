"""Files planner writes on the controller: atomically, hashed, with safe names, and a user's ``-o PATH``.
Foundation: imports only ``planner.errors``.

``-o PATH`` (analyze, report, export): a regular file is replaced atomically, a character device or FIFO is
written into (``-o /dev/null``, ``-o /dev/stdout``, a pipe), anything else is refused in words: a symbolic
link, a folder, a block device or a socket is never replaced by a file. As root, renaming a temp file over
``/dev/null`` turns the device into a file for every process on the machine; over a symlink it drops the link.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from planner.errors import InputError, Problem


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``path`` via a temp file beside it, fsync and rename: readers see the old file or the new one,
    never a half-written one, and a failure (ENOSPC included) leaves no temp file behind."""
    _replace(path, data, mode, durable=True)


def _replace(path: Path, data: bytes, mode: int | None, *, durable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
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


def write_remade(path: Path, data: bytes) -> None:
    """``write_bytes`` without the fsync (~5 ms of wall, 0.3 ms of CPU on ext4), for a file the next run or
    resume makes again: still atomic, and a killed process loses nothing either way; only a crash of the
    machine before the kernel writes it back (seconds) can leave it empty."""
    try:
        _replace(path, data, None, durable=False)
    except OSError as e:
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e


_LIST_END = b"\n]\n"  # how write_json and RunRecord.write end a non-empty JSON list


def append_json_items(path: Path, items: bytes) -> bool:
    """Append ``items`` (JSON values, comma-separated, in the list's layout) to the JSON list ``path`` holds,
    in place: the file grows by the new items only, and is a whole JSON list again after the write. False,
    untouched, when the file is not a non-empty list in that layout (the caller writes it whole then).

    A long study saves its results at every point: rewriting all of them each time made a point's cost grow
    with the points before it. A failed write (ENOSPC) puts the old end back: the list stays whole.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError as e:
        if e.errno == errno.ELOOP:
            return False  # a symlink: written whole, which replaces the link and never writes through it
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    try:  # unbuffered: a buffer holding the failed bytes would fail again while the old end is put back
        size = os.fstat(fd).st_size
        if size < 8 or os.pread(fd, len(_LIST_END), size - len(_LIST_END)) != _LIST_END:  # 8: "[\n  1\n]\n"
            return False
        end = size - len(_LIST_END)
        data = memoryview(b",\n" + items + _LIST_END)
        try:
            done = 0
            while done < len(data):
                done += os.pwrite(fd, data[done:], end + done)
            os.fsync(fd)
        except OSError as e:
            os.ftruncate(fd, end)  # the bytes freed are the file's own: the old end fits back
            os.pwrite(fd, _LIST_END, end)
            raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    finally:
        os.close(fd)
    return True


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


def host_slug(name: str) -> str:
    """A host's name in its lock and work folder paths: the name itself when it is already a slug (existing
    locks and folders keep their paths), else its slug and a hash of it, so ``a b`` and ``a_b`` never share
    a lock or a folder."""
    plain = slug(name)
    return plain if plain == name else f"{plain[:49]}-{hashlib.sha256(name.encode()).hexdigest()[:10]}"


def name_file(name: str) -> str:
    """A file name for ``name`` (an inventory host name: outside input) that stays one plain name: the name
    itself when it is one, else its slug and a hash of it (``../../x`` never becomes a path, two odd names
    never share a file)."""
    if _PLAIN.fullmatch(name) and name not in (".", ".."):
        return name
    return f"{slug(name).lstrip('.') or 'x'}-{hashlib.sha256(name.encode()).hexdigest()[:10]}"


_REFUSED = {stat.S_IFLNK: ("is a symbolic link", "give the file it points to, or another path: planner does not "
                                                  "write through or replace links"),
            stat.S_IFDIR: ("is a folder", "give a file path inside it"),
            stat.S_IFBLK: ("is a block device", "give a file path: a report is never written onto a disk"),
            stat.S_IFSOCK: ("is a socket", "give a file path")}


def _refused(path: Path, what: str, hint: str) -> InputError:
    return InputError([Problem(None, "-o", f"{path} {what}", hint)])


def write_output(path: Path, data: bytes) -> None:
    """``data`` to ``-o path`` as described above; every failure is an InputError (exit 5), not a traceback."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _refused(path, f"cannot be written ({e.strerror or e})", "give a path you can write to") from None
    kind = stat.S_IFMT(st.st_mode) if st is not None else stat.S_IFREG
    if kind in _REFUSED:
        raise _refused(path, *_REFUSED[kind])
    try:
        if kind == stat.S_IFREG:
            atomic_write(path, data)
        else:
            _write_into(path, data)
    except OSError as e:
        full = " (the device or disk is full)" if e.errno == errno.ENOSPC else ""
        raise _refused(path, f"cannot be written: {e.strerror or e}{full}",
                       "give a path you can write to; nothing was replaced") from None


def _write_into(path: Path, data: bytes) -> None:
    """A character device or FIFO: opened for writing as it is (never created, never renamed over). Opened
    non-blocking: a FIFO nobody reads would block the open forever, and is refused (ENXIO) instead."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        if e.errno != errno.ENXIO:
            raise
        raise _refused(path, "is a pipe (FIFO) nobody is reading", "start its reader first (cat PATH), or give a "
                       "file path") from None
    try:
        os.set_blocking(fd, True)  # a reader is there: let the writes wait for it
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)
