"""Where a user's ``-o PATH`` goes (analyze, report, export): a regular file is replaced atomically, a
character device or FIFO is written into (``-o /dev/null``, ``-o /dev/stdout``, a pipe), and anything else
is refused in words: a symbolic link, a folder, a block device or a socket is never replaced by a file.

As root, renaming a temp file over ``/dev/null`` turns the device into a file for every process on the
machine; over a symlink it drops the link. Foundation: imports only ``planner.errors`` and ``planner.files``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from planner.errors import InputError, Problem
from planner.files import atomic_write

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
    """A character device or FIFO: opened for writing as it is (never created, never renamed over)."""
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_NOFOLLOW", 0))
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)
