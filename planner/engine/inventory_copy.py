"""The run's one copy of its inventory: ``inventory/`` in the run folder, and what ``--resume`` compares with it.

Every file the inventory was read from (the -i sources, their group_vars/ and host_vars/) is copied, redacted,
under ``inventory/`` at its place relative to its source, so the folder is self-contained. meta.json
``inventory.files`` maps each file's absolute path to its copy and the sha256 of what was read: a resume whose
inventory differs is refused with a diff of the copy against the file now (a changed oracle_sid would point the
same run at another database). Before this module a second copy (``inventory_files.json``) held the same texts
for the diff; runs recorded that way are still compared.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.engine.runrecord import RunRecord, redact_text
from planner.errors import InputError, Problem
from planner.redaction import MASK, is_secret_name
from planner.results.runfolder import read_meta

INVENTORY_DIR = "inventory"  # the inventory as read, redacted, with its group_vars/ and host_vars/
LEGACY_COPY = "inventory_files.json"  # runs recorded before the one copy: absolute path -> redacted text

_ASSIGNED = re.compile(r"(?m)^(\s*-?\s*)([\w.-]+)(\s*[:=]\s*)(\S.*)$")  # YAML `k: v`, INI `k=v` on a line
_INLINE = re.compile(r"\b([\w.-]+)=(\S+)")  # INI host lines: `db1 ansible_host=... asm_pwd=...`


def redact_inventory(text: str) -> str:
    """A secret variable's value (by planner.redaction's name pattern) replaced by ******** (INI, YAML, vars
    files); a value planner_secrets declares is masked by the record, which knows the values."""
    text = _ASSIGNED.sub(lambda m: f"{m[1]}{m[2]}{m[3]}{MASK}" if is_secret_name(m[2]) else m[0], text)
    return _INLINE.sub(lambda m: f"{m[1]}={MASK}" if is_secret_name(m[1]) else m[0], text)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()


def _read(f: Path) -> str:
    try:
        return f.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _copy_path(f: Path, sources: Sequence[Path]) -> str:
    """Where file ``f`` goes under inventory/: relative to the source it belongs to (a folder source, or the
    folder of a file source for its group_vars/ and host_vars/), numbered by source when there are several."""
    for i, source in enumerate(sources):
        prefix = INVENTORY_DIR if len(sources) == 1 else f"{INVENTORY_DIR}/{i + 1}"
        base = source if source.is_dir() else source.parent
        if source.is_dir():
            belongs = f.is_relative_to(source)
        else:
            belongs = f == source or (f.is_relative_to(base) and f.relative_to(base).parts[0] in
                                      ("group_vars", "host_vars"))
        if belongs:
            return f"{prefix}/{f.relative_to(base).as_posix()}"
    return f"{INVENTORY_DIR}/other/{f.name}"  # read but under no source (kept, never dropped)


def snapshot_inventory(rec: RunRecord, sources: Sequence[Path], files: Sequence[Path]) -> list[str]:
    """Copy every inventory file read into ``inventory/``, redacted, and fingerprint it in meta.json; returns
    the copies' paths (also meta.json ``inventory.snapshot``)."""
    srcs = [Path(s).resolve() for s in sources]
    written: list[str] = []
    fingerprints: dict[str, dict[str, str]] = {}
    for f in (Path(p).resolve() for p in files):
        text = _read(f)
        rel = _copy_path(f, srcs)
        if rel in written:  # two files of one name under no source: keep both
            rel = f"{rel}.{len(written)}"
        rec.write_text(rel, redact_inventory(text))
        written.append(rel)
        fingerprints[str(f)] = {"copy": rel, "sha256": _sha(text)}
    rec.write_meta(inventory={"sources": [str(s) for s in sources], "snapshot": written, "files": fingerprints})
    return written


def _recorded(run_dir: Path, meta: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]] | None:
    """(absolute path -> sha256 read, absolute path -> the run's redacted copy) or None if never recorded."""
    files = (meta.get("inventory") or {}).get("files")
    if isinstance(files, dict):
        shas = {p: str(v.get("sha256", "")) for p, v in files.items()}
        copies = {p: _read(run_dir / str(v.get("copy", ""))) for p, v in files.items()}
        return shas, copies
    legacy = meta.get("inventory_sha256")
    if isinstance(legacy, dict):
        copy_file = run_dir / LEGACY_COPY
        copies = json.loads(copy_file.read_text()) if copy_file.is_file() else {}
        return {str(p): str(s) for p, s in legacy.items()}, copies
    return None  # a run recorded before inventories were fingerprinted: nothing to compare with


def check_inventory_unchanged(run_dir: Path, files: Sequence[Path], secrets: Sequence[str] = ()) -> None:
    """Refuse a resume whose inventory (or its vars files) is not what the run read: the same run would go
    on against another database or other disks (e.g. a changed oracle_sid)."""
    recorded = _recorded(run_dir, read_meta(run_dir).raw)  # the inventory's fingerprints are its own
    if recorded is None:
        return
    then, copy = recorded
    now = {str(Path(f).resolve()): _read(Path(f)) for f in files}
    changed = sorted(p for p in set(then) | set(now) if then.get(p) != (_sha(now[p]) if p in now else None))
    if not changed:
        return
    import difflib  # here: only a changed inventory is diffed (difflib and heapq at every start-up otherwise)

    lines: list[str] = []
    for p in changed:
        if p not in now:
            lines.append(f"{p}: read by the run, not by this inventory")
        elif p not in then:
            lines.append(f"{p}: not read by the run")
        shown_now = redact_inventory(redact_text(now.get(p, ""), secrets))
        lines += difflib.unified_diff(copy.get(p, "").splitlines(), shown_now.splitlines(),
                                      f"{p} (the run's)", f"{p} (now)", lineterm="", n=1)
    shown = "\n".join(lines[:40]) + ("\n..." if len(lines) > 40 else "")
    raise InputError([Problem(None, "", f"the inventory changed since run {run_dir.name}:\n{shown}",
                              "put the inventory back as it was, or start a new run (planner restore RUN first)")])
