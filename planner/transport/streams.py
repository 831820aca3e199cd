"""Bounded-memory plumbing for what hosts send back: command output kept head and tail, fetched files streamed.

Foundation of the transport (no paramiko, no planner imports but errors): the local and SSH transports both use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.errors import StepError
from planner.units import parse_size as read_size

# A command's output is held with bounded memory (200 MB on stdout once cost the controller 1.4 GB of RSS):
# the first KEEP_HEAD bytes and the last KEEP_TAIL bytes of each stream are kept, the middle is counted and left out
# with a note in the text. The run record keeps the first 1 MiB per stream (runrecord.OUTPUT_LIMIT), so the head
# stops a little short of it to leave room for the note. Tools whose whole output matters write it to a file on
# the host, which is fetched (streamed, hashed as it arrives).
KEEP_HEAD = (1 << 20) - 1024
KEEP_TAIL = 64 << 10
READ_BUF = 1 << 16


class OutputBuffer:
    """One stream of a command's output: head and tail kept, the middle only counted."""

    def __init__(self, head: int = KEEP_HEAD, tail: int = KEEP_TAIL) -> None:
        self._head_max, self._tail_max = head, tail
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def write(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_max - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data and self._tail_max:
            self._tail += data
            if len(self._tail) > 2 * self._tail_max:  # trim now and then, not on every chunk
                del self._tail[:-self._tail_max]

    @property
    def truncated(self) -> bool:
        return self.total > len(self._head) + min(len(self._tail), self._tail_max)

    def text(self) -> str:
        tail = bytes(self._tail[-self._tail_max:]) if self._tail_max else b""
        head = bytes(self._head)
        left_out = self.total - len(head) - len(tail)
        if left_out <= 0:
            return (head + tail).decode(errors="replace")
        return (head.decode(errors="replace")
                + f"\n[planner: {left_out} bytes of output left out here; {self.total} bytes in all]\n"
                + tail.decode(errors="replace"))


class FetchTooLarge(StepError):
    """A fetched file is larger than the size cap given (fetch's ``max_size``, the host's planner_fetch_max_size)."""

    def __init__(self, host: str, remote: str, size: int, cap: int) -> None:
        super().__init__(f"{host}: {remote} holds {size} bytes, more than the fetch limit of {cap} bytes: not "
                         f"fetched", hint="raise max_size on the fetch step (or the host's planner_fetch_max_size) "
                                          "if the whole file really is wanted")


def outside_root(host: str, remote: str, real: str, root: str) -> StepError:
    return StepError(f"{host}: {remote} resolves to {real}, outside planner_root {root}: not fetched",
                     hint="a symlink on the host points out of its root; fetch the file it names from inside the root")


_ZEROS = bytes(READ_BUF)


class LocalSink:
    """Where a fetched file lands: a 0600 temp file beside ``local``, hashed as it is written, runs of zeros left
    as holes (a 2 GB sparse file stays sparse), renamed over ``local`` by commit(), removed on any failure."""

    def __init__(self, local: Path, max_bytes: int | None, host: str, remote: str) -> None:
        local.parent.mkdir(parents=True, exist_ok=True)
        self.local, self.max_bytes, self.host, self.remote = local, max_bytes, host, remote
        self.tmp = local.with_name(f".{local.name}.part")
        self.tmp.unlink(missing_ok=True)
        fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._f = os.fdopen(fd, "wb")
        self._sha = hashlib.sha256()
        self.size = 0
        self._done = False

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.max_bytes is not None and self.size > self.max_bytes:  # it grew while being copied
            raise FetchTooLarge(self.host, self.remote, self.size, self.max_bytes)
        self._sha.update(data)
        if len(data) <= len(_ZEROS) and data == _ZEROS[:len(data)]:
            self._f.seek(len(data), os.SEEK_CUR)
        else:
            self._f.write(data)
        return len(data)

    def hexdigest(self) -> str:
        return self._sha.hexdigest()

    def commit(self) -> None:
        self._f.truncate(self.size)  # a file ending in a hole gets its length
        self._f.close()
        os.replace(self.tmp, self.local)
        self._done = True

    def __enter__(self) -> LocalSink:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._done:
            with contextlib.suppress(OSError):
                self._f.close()
            self.tmp.unlink(missing_ok=True)


def inside_root(path: str, root: str) -> bool:
    """Whether ``path`` (already resolved) is ``root`` or below it; an empty root (a real host's "/") holds all."""
    root = root.rstrip("/")
    return not root or path == root or path.startswith(root + "/")




def parse_size(value: object, what: str = "max_size") -> int:
    """Bytes from 123, "123", "512M", "2g" (binary units, as dd and fio read them); StepError otherwise."""
    size = read_size(str(value).strip())
    if size is None or size < 1:
        raise StepError(f"{what} must be a size such as 1048576, 512M or 2G, not {value!r}")
    return int(size)


# A fetch with no cap of its own and none from the inventory: a 2.6 GB sparse awr.txt once came back whole and
# every later read of the run ran out of memory. Reports and logs are MBs; the inventory may raise it.
DEFAULT_FETCH_MAX = 1 << 30


def fetch_cap(max_bytes: int | None, host_vars: Mapping[str, Any]) -> int:
    """The fetch's own cap, else the host's ``planner_fetch_max_size``, else DEFAULT_FETCH_MAX (1G)."""
    if max_bytes is not None:
        return max_bytes
    given = host_vars.get("planner_fetch_max_size")
    return parse_size(given, "planner_fetch_max_size") if given not in (None, "") else DEFAULT_FETCH_MAX


class Stamped(OutputBuffer):
    """An output buffer that notes when its first bytes arrived (controller clock, time.time_ns())."""

    first_ns: int | None = None

    def write(self, data: bytes) -> None:
        if self.first_ns is None and data:
            self.first_ns = time.time_ns()
        super().write(data)
