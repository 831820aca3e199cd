"""The private restore log on disk (planner.engine.restore says why it exists): append-only, sealed.

Format 3, two files beside the run folder, both 0600:

- ``.<run>.restore.json``: JSON lines. The first holds the run binding; each next one adds an entry
  (``{"add": entry}``) or records a revert (``{"mark": index, "reverted": bool}``). A save appends its lines:
  rewriting the whole log at every save (format 2) grew with the hosts squared;
- ``.<run>.restore.seal``: the log's sealed length: ``{"run", "length", "seal"}``, where seal is an HMAC (the
  controller key) over the run binding, the length and the sha256 of the log's first ``length`` bytes, padded
  to SEAL_BYTES and rewritten in place after each append (SealedLog says why both files are synced, in order).

What the format 2 seal refused is refused still: a log this controller did not write (no seal, or one that does
not match), one made for another run, and one cut short or changed anywhere in its sealed length. Bytes past the
sealed length are an append whose save never returned (the controller died between the two writes): its step
had not started, so they are ignored and the next append writes over them. Format 2 logs (one sealed JSON
document) are still read, and the first save of a run resumed from one writes the log again in format 3.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.engine.origin import controller_key
from planner.errors import InputError, Problem
from planner.files import RecordWriteError, write_bytes
from planner.steps.saved_state import RestoreEntry

LOG_FORMAT = 3
OLD_FORMAT = 2
MAX_LOG_BYTES = 256 << 20  # entries hold saved file contents; far past any real prep, short of exhausting memory
SEAL_BYTES = 256  # the seal file's size: written in place, in one sector (SealedLog)
_DOMAIN = b"planner restore log 3\0"  # a format 3 seal is never a valid format 2 one, nor the reverse

Refuse = Callable[[str], InputError]  # why the log is not used -> the error that says so


def seal_path(log: Path) -> Path:
    return log.with_name(log.name.removesuffix(".json") + ".seal")


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, default=str) + "\n").encode()


def _seal(key: bytes, binding: str, length: int, digest: str) -> str:
    return hmac.new(key, _DOMAIN + json.dumps([binding, length, digest]).encode(), hashlib.sha256).hexdigest()


def _seal_v2(key: bytes, binding: str, entries: list[dict[str, Any]]) -> str:
    body = json.dumps({"run": binding, "entries": entries}, sort_keys=True, default=str)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def _read_own(path: Path, refuse: Refuse) -> bytes | None:
    """A file of this user, read without following a link; None when it does not exist."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise refuse(f"cannot be opened as a plain file ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise refuse("is not a regular file of this user")
        return f.read(MAX_LOG_BYTES + 1)


_NOT_SEALED = "is not a sealed restore log (damaged, too large, written by an older planner or not by planner)"
_NOT_HERE = "was not written by planner on this controller (its seal does not match)"


def _old_format(doc: dict[str, Any], binding: str, refuse: Refuse) -> list[dict[str, Any]]:
    if not isinstance(doc.get("entries"), list) or not isinstance(doc.get("seal"), str):
        raise refuse(_NOT_SEALED)
    if doc.get("run") != binding:
        raise refuse("belongs to another run (its run identity differs from meta.json's)")
    key = controller_key(create=False)
    if key is None or not hmac.compare_digest(_seal_v2(key, str(doc["run"]), doc["entries"]), doc["seal"]):
        raise refuse(_NOT_HERE)
    return [d for d in doc["entries"] if isinstance(d, dict)]


def _sealed_length(path: Path, raw: bytes, binding: str, refuse: Refuse) -> int:
    """How much of the log its seal vouches for (refused unless the seal is this controller's, for this run)."""
    try:
        seal = json.loads(_read_own(seal_path(path), refuse) or b"")
    except ValueError:
        seal = None
    if not isinstance(seal, dict) or seal.get("planner_restore_log") != LOG_FORMAT \
            or not isinstance(seal.get("length"), int) or not isinstance(seal.get("seal"), str):
        raise refuse(f"{_NOT_SEALED}: its seal {seal_path(path).name} is missing or damaged")
    if seal.get("run") != binding:
        raise refuse("belongs to another run (its run identity differs from meta.json's)")
    length = seal["length"]
    if not 0 < length <= len(raw):
        raise refuse(f"was cut short ({len(raw)} bytes where its seal says {length})")
    key = controller_key(create=False)
    digest = hashlib.sha256(raw[:length]).hexdigest()
    if key is None or not hmac.compare_digest(_seal(key, binding, length, digest), seal["seal"]):
        raise refuse(_NOT_HERE)
    return int(length)


def _replay(lines: list[bytes], binding: str, refuse: Refuse) -> list[dict[str, Any]]:
    """The entries a sealed log's lines build (the first line is its header)."""
    try:
        head, *ops = (json.loads(line) for line in lines)
    except ValueError:
        raise refuse(_NOT_SEALED) from None
    if not isinstance(head, dict) or head != {"planner_restore_log": LOG_FORMAT, "run": binding}:
        raise refuse(_NOT_SEALED)
    entries: list[dict[str, Any]] = []
    for op in ops:
        if isinstance(op, dict) and isinstance(op.get("add"), dict):
            entries.append(op["add"])
        elif isinstance(op, dict) and isinstance(op.get("mark"), int) and 0 <= op["mark"] < len(entries):
            entries[op["mark"]]["reverted"] = bool(op.get("reverted"))
        else:
            raise refuse(_NOT_SEALED)
    return entries


def read_log(path: Path, binding: str, refuse: Refuse) -> tuple[list[dict[str, Any]], int] | None:
    """The log's entries and its sealed length (0 for a format 2 log); None when there is no log."""
    raw = _read_own(path, refuse)
    if raw is None:
        return None
    if len(raw) > MAX_LOG_BYTES:
        raise refuse(_NOT_SEALED)
    first = raw.split(b"\n", 1)[0]
    try:
        doc = json.loads(first)
    except ValueError:
        raise refuse(_NOT_SEALED) from None
    if isinstance(doc, dict) and doc.get("planner_restore_log") == OLD_FORMAT:
        return _old_format(doc, binding, refuse), 0
    length = _sealed_length(path, raw, binding, refuse)
    if raw[length - 1:length] != b"\n":
        raise refuse(_NOT_SEALED)
    return _replay(raw[:length - 1].split(b"\n"), binding, refuse), length


def write_whole(path: Path, data: Sequence[dict[str, Any]], binding: str) -> None:
    """A new log holding ``data`` (a fresh run's first save, a format 2 log continued, a test's own)."""
    log = SealedLog(path, binding)
    log.start([_line({"add": d}) for d in data])


class SealedLog:
    """One run's private log as this controller writes it: each save appends (callers serialise saves).

    Durability, per file (a killed controller loses nothing any write handed to the kernel: only an OS crash or a
    power cut of the controller loses what was not synced). The log is what ``planner restore`` writes back, and
    a prep step changes its host once ``save`` returns, so both files are on disk by then, in order:

    - the appended lines first (fdatasync, man 2 fdatasync: their bytes and the new size, not the timestamps),
      then the seal that vouches for them: a seal on disk before its lines would read, after a crash, as a log
      cut short (refused);
    - the seal is rewritten in place, one fixed-size block of SEAL_BYTES (< 512: one sector, the size
      PostgreSQL keeps pg_control under so that its write is never torn: PG_CONTROL_MAX_SAFE_SIZE in
      src/include/catalog/pg_control.h), then fdatasync. Replaced by a rename, as before, it was durable only
      once its folder was synced (man 2 fsync), which nothing did: after a power cut the old seal could come
      back, and the newest saves, their hosts already changed, were ignored;
    - created or written whole (the first save, a format 2 log continued): temporary files renamed, then the
      folder synced, once a play.
    """

    def __init__(self, path: Path, binding: str) -> None:
        self.path = path
        self.binding = binding
        self._key = b""
        self._length = 0  # the sealed length; 0 until the log is written or adopted
        self._hash = hashlib.sha256()  # of the log's first _length bytes, carried from save to save
        self._count = 0  # entries the log on disk holds
        self._seal_placed = False  # the seal file is SEAL_BYTES long, written by this object: rewritten in place

    def save(self, entries: Sequence[RestoreEntry], marks: Mapping[int, bool]) -> None:
        """The log holds ``entries`` when this returns; ``marks`` (index -> reverted) are the entries marked
        since the last save that returned: a save costs its new lines, never a pass over all the entries."""
        if not self._length and not self._adopt(entries):
            self.start([_line({"add": e.to_json()}) for e in entries])
            self._count = len(entries)
            return
        lines = [_line({"mark": i, "reverted": r}) for i, r in marks.items() if i < self._count]
        lines += [_line({"add": e.to_json()}) for e in entries[self._count:]]
        if lines:
            self._append(b"".join(lines))
        self._count = len(entries)

    def forget(self) -> None:
        """Nothing left to write back: the log and its secrets go (the log first: a seal alone is no log)."""
        self.path.unlink(missing_ok=True)
        seal_path(self.path).unlink(missing_ok=True)
        self._length, self._hash, self._count, self._seal_placed = 0, hashlib.sha256(), 0, False

    def start(self, lines: list[bytes]) -> None:
        """The log written whole. The seal goes first: until the log replaces the old one a reader sees the
        old log (format 2, which carries its own seal) or none, never a new log without its seal."""
        data = _line({"planner_restore_log": LOG_FORMAT, "run": self.binding}) + b"".join(lines)
        self._hash = hashlib.sha256()
        self._length = 0
        self._seal_placed = False
        self._seal_to(data)
        try:
            write_bytes(self.path, data, mode=0o600)
            _sync_folder(self.path.parent)  # both renames on disk: the log exists after a power cut
        except OSError:
            self._length = 0  # not written: the next save starts again
            raise

    def _adopt(self, entries: Sequence[RestoreEntry]) -> bool:
        """Continue the log on disk (``planner restore``, ``--resume``) when it is a sealed format 3 log whose
        entries begin ``entries``; else (none, format 2, another's) it is written whole. Once a run."""
        try:
            found = read_log(self.path, self.binding, lambda why: InputError([Problem(None, "", why, "")]))
        except InputError:
            return False
        if found is None or not found[1] or len(found[0]) > len(entries):
            return False
        disk, length = found
        if [{**d, "reverted": False} for d in disk] != [{**e.to_json(), "reverted": False}
                                                        for e in entries[:len(disk)]]:
            return False
        with self.path.open("rb") as f:
            self._hash = hashlib.sha256(f.read(length))
        self._length = length
        self._count = len(disk)
        self._seal_placed = False  # an older planner's seal file: replaced whole once, then in place
        marks = [i for i, d in enumerate(disk) if bool(d.get("reverted")) != entries[i].reverted]
        if marks:  # the log continued says what the caller's entries say
            self._append(b"".join(_line({"mark": i, "reverted": entries[i].reverted}) for i in marks))
        return True

    def _append(self, data: bytes) -> None:
        """The new lines at the sealed end (over whatever a save that never returned left there), then the
        seal. A failed write leaves the sealed log as it was."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_NOFOLLOW)
        except OSError as e:
            raise RecordWriteError(e.errno, e.strerror or str(e), str(self.path)) from e
        try:
            done = 0
            while done < len(data):
                done += os.pwrite(fd, memoryview(data)[done:], self._length + done)
            os.ftruncate(fd, self._length + len(data))
            os.fdatasync(fd)  # durable before the seal that vouches for it
        except OSError as e:
            raise RecordWriteError(e.errno, e.strerror or str(e), str(self.path)) from e
        finally:
            os.close(fd)
        self._seal_to(data)

    def _seal_to(self, data: bytes) -> None:
        """Seal the log as it is once ``data`` follows its sealed length; the state moves on once sealed."""
        if not self._key:
            key = controller_key()
            assert key is not None
            self._key = key
        grown = self._hash.copy()
        grown.update(data)
        length = self._length + len(data)
        seal = {"planner_restore_log": LOG_FORMAT, "run": self.binding, "length": length,
                "seal": _seal(self._key, self.binding, length, grown.hexdigest())}
        text = json.dumps(seal).encode()
        block = text + b" " * (SEAL_BYTES - 1 - len(text)) + b"\n"
        if not (self._seal_placed and _rewrite_in_place(seal_path(self.path), block)):
            write_bytes(seal_path(self.path), block, mode=0o600)
            _sync_folder(self.path.parent)
            self._seal_placed = True
        self._hash, self._length = grown, length


def _rewrite_in_place(path: Path, block: bytes) -> bool:
    """``block`` over the file's bytes, one write within one sector, synced; False, untouched, when the file
    is not a regular file as long as the block (replaced or removed since: the caller writes it anew)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP):
            return False
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(block):
            return False
        if os.pwrite(fd, block, 0) != len(block):
            raise OSError(errno.EIO, "short write")
        os.fdatasync(fd)
        return True
    except OSError as e:
        raise RecordWriteError(e.errno, e.strerror or str(e), str(path)) from e
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """A rename or a new file in ``folder`` survives a power cut only once the folder itself is synced."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
