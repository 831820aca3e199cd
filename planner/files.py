"""Files planner writes on the controller: atomically, hashed, with safe names, and a user's ``-o PATH``.
Foundation: imports only ``planner.errors``.

``-o PATH`` (analyze, report, export): a regular file is replaced atomically, a character device or FIFO is
written into (``-o /dev/null``, ``-o /dev/stdout``, a pipe), anything else is refused in words: a symbolic
link, a folder, a block device or a socket is never replaced by a file. As root, renaming a temp file over
``/dev/null`` turns the device into a file for every process on the machine; over a symlink it drops the link.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from planner.errors import InputError, Problem


def atomic_write(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """Write ``path`` via a temp file beside it, fsync and rename: readers see the old file or the new one,
    never a half-written one, and a failure (ENOSPC included) leaves no temp file behind. ``durable=False``
    skips the fsync, for a file whose loss in a power cut costs nothing (its caller says why)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_beside(path)
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


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)  # as mkstemp opens


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` beside ``path``, open for writing, mode 0600: tempfile.mkstemp's
    contract, without importing tempfile (it imports shutil, bz2, lzma and random: ~5 ms of every start-up)."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(path.parent))


def write_json(path: Path, data: Any) -> None:
    write_bytes(path, (json.dumps(data, indent=2, sort_keys=False, default=str) + "\n").encode())


class RecordWriteError(OSError):
    """A run-record file could not be written (disk full, quota, read-only): the previous copy is intact."""

    def __str__(self) -> str:
        return (f"cannot write {self.filename}: {self.strerror} "
                f"(nothing half-written: the previous {Path(str(self.filename)).name}, if any, is intact)")


def write_bytes(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """Write a record file atomically (atomic_write above); the old file survives any failure,
    and a disk error becomes a RecordWriteError naming the path."""
    try:
        atomic_write(path, data, mode, durable=durable)
    except RecordWriteError:
        raise
    except OSError as e:
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e


_LIST_END = b"\n]\n"  # how write_json and RunRecord.write end a non-empty JSON list


def append_json_items(path: Path, items: bytes, *, durable: bool = True) -> bool:
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
            if durable:
                os.fsync(fd)
        except OSError as e:
            os.ftruncate(fd, end)  # the bytes freed are the file's own: the old end fits back
            os.pwrite(fd, _LIST_END, end)
            raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    finally:
        os.close(fd)
    return True


def write_at(path: Path, offset: int, data: bytes, size: int) -> bool:
    """``data`` over the bytes at ``offset`` of ``path``, in place (not synced), when the file is the ``size``
    its writer left it (else False, untouched: the caller writes it whole). For a record item whose text keeps
    its length when it changes: the change costs the item, not the file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP):
            return False
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    try:
        if os.fstat(fd).st_size != size or offset + len(data) > size:
            return False
        done = 0
        while done < len(data):
            done += os.pwrite(fd, memoryview(data)[done:], offset + done)
        return True
    except OSError as e:
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    finally:
        os.close(fd)


def sync_file(path: Path) -> None:
    """What was written to ``path`` without a sync, on disk now (missing, or a link: not ours to sync)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_file(path: Path) -> str:
    import hashlib  # here: hashlib loads OpenSSL, and a run's start-up hashes nothing

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
    return plain if plain == name else f"{plain[:49]}-{_sha256_hex(name)[:10]}"


def name_file(name: str) -> str:
    """A file name for ``name`` (an inventory host name: outside input) that stays one plain name: the name
    itself when it is one, else its slug and a hash of it (``../../x`` never becomes a path, two odd names
    never share a file)."""
    if _PLAIN.fullmatch(name) and name not in (".", ".."):
        return name
    return f"{slug(name).lstrip('.') or 'x'}-{_sha256_hex(name)[:10]}"


def _sha256_hex(text: str) -> str:
    import hashlib  # here: only an odd name is hashed (hashlib loads OpenSSL at import)

    return hashlib.sha256(text.encode()).hexdigest()


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
