"""Run ids: one strict shape wherever an id comes from outside, and the one place a new id is made.

An id becomes a folder name (runs/<id>/, /tmp/planner/<id>/ on hosts, a pulled folder): one taken from a
store row, a received folder's meta.json (read by planner.results.runfolder) or the command line is checked
against ``SHAPE`` and, when it names a folder, that folder must resolve inside its parent (``../../x`` or
``/home/u/.ssh`` from a store row must never become a path). Foundation: imports only ``planner.errors``.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

from planner.errors import InputError, Problem

SHAPE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
ID_CHARS = re.compile(r"[A-Za-z0-9_.-]{1,200}")  # a run id or a part of one, as typed to find a run
MAX_LEN = 200  # a folder name (255 bytes on ext4/xfs) with room for a "-2" suffix and temp-file prefixes
_PART = re.compile(r"[^A-Za-z0-9_.-]+")


def is_run_id(text: object) -> bool:
    return isinstance(text, str) and len(text) <= MAX_LEN and SHAPE.fullmatch(text) is not None


def check_run_id(text: object, where: str) -> str:
    """``text`` when it has the run-id shape, else an InputError naming ``where`` it came from."""
    if is_run_id(text):
        return str(text)
    shown = repr(text)[:80]
    raise InputError([Problem(None, "", f"{where}: {shown} is not a run id",
                              f"a run id is letters, digits, '_', '.' and '-' (not starting with '.' or '-'), "
                              f"at most {MAX_LEN} characters; the source is damaged or crafted: nothing was written")])


def run_folder(parent: Path, run_id: object, where: str) -> Path:
    """``parent/<run_id>`` after the shape check, verified to resolve inside ``parent`` (no symlink escape)."""
    rid = check_run_id(run_id, where)
    root = Path(parent).resolve()
    folder = (root / rid).resolve()
    if folder.parent != root:
        raise InputError([Problem(None, "", f"{where}: {Path(parent) / rid} leads outside {parent} "
                                  f"(to {folder})", "remove that symbolic link, or use another --runs-dir")])
    return folder


def _part(text: str, limit: int) -> str:
    return _PART.sub("_", text).strip("_.-")[:limit] or "x"


def new_run_id(plan_name: str, controller: str, now: dt.datetime | None = None) -> str:
    """``<UTC stamp>-<plan>-<controller>-<random>``: sorts by start time, says what and where, and two
    controllers starting the same plan in the same second still get two ids (the random part)."""
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    # os.urandom(3).hex() is secrets.token_hex(3), without importing secrets (hmac, hashlib: OpenSSL at start-up)
    return f"{stamp}-{_part(plan_name, 60)}-{_part(controller, 40)}-{os.urandom(3).hex()}"
