"""What a run puts in the store, read from its folder (the source of truth), and a folder rebuilt from it.

In: the record's own files (meta, results, recap, restore log, plan and resolved plan, facts, inventory
snapshot, console transcript: all already redacted by the run record), every artifact's name, size and
sha256, the measurements, findings and verdicts. Artifact CONTENT is kept only for artifacts planner
parses (the AWR/Statspack/ORION/fio/SLB/iozone/OS-stat outputs the numbers come from, each at most
MAX_KEPT bytes): with them a pulled folder re-measures and re-renders exactly as the original, and they
are text of a few hundred KB. Logs, scripts, traces and kit output stay in the folder only (names, sizes
and sums are in the store, so a copy can be checked against it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from planner.files import sha256_file
from planner.results import runfolder
from planner.results.evaluate import evaluate
from planner.results.finding import Finding
from planner.results.measure import Measurement, RunData, _inside, parsed_kind
from planner.results.runfolder import RECORD_DIRS, RECORD_FILES
from planner.results.verdicts import ClaimVerdict
from planner.timeseries import MAX_FILE_BYTES, read

MAX_KEPT = 16 * 1024 * 1024
MAX_SERIES_FILES = 2048  # a run's series files kept in the store (two a point); each within MAX_FILE_BYTES
SERIES_KIND = "series"
PULLED_NOTE = "pulled.json"  # written by pull: where the folder came from and which artifacts are not in it


@dataclass(frozen=True, slots=True)
class ArtifactEntry:
    path: str
    kind: str
    size: int | None  # None: listed by results.json but not in the folder
    sha256: str
    content: bytes | None = None


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One run as the store holds it."""

    run_id: str
    plan: str
    plan_file: str
    git_commit: str | None
    git_dirty: bool | None
    started: str | None
    ended: str | None
    status: str | None
    simulated: bool
    hosts: tuple[str, ...]
    path: str  # the folder it was pushed from, on its controller
    controller: str
    recap: str  # recap.json's text ('' when none)
    files: tuple[tuple[str, bytes], ...]
    artifacts: tuple[ArtifactEntry, ...]
    measurements: tuple[Measurement, ...]
    findings: tuple[Finding, ...]
    verdicts: tuple[ClaimVerdict, ...]
    content_hash: str
    series: tuple[tuple[str, bytes], ...] = ()  # (artifact path, series file) that passed the series checks


def _record_files(run_dir: Path) -> Iterator[tuple[str, bytes]]:
    for name in RECORD_FILES:
        if (run_dir / name).is_file():
            yield name, (run_dir / name).read_bytes()
    for d in RECORD_DIRS:
        if (run_dir / d).is_dir():
            for f in sorted((run_dir / d).rglob("*")):
                if f.is_file() and not f.is_symlink() and _inside(run_dir, f.relative_to(run_dir).as_posix()):
                    yield f.relative_to(run_dir).as_posix(), f.read_bytes()


def _artifacts(run: RunData) -> list[ArtifactEntry]:
    out: dict[str, ArtifactEntry] = {}
    for r in run.results:
        for a in r.artifacts:
            if a.path in out:
                continue
            inside = _inside(run.run_dir, a.path)  # a crafted results.json must not upload /etc/shadow
            if inside is None or not inside.is_file():
                out[a.path] = ArtifactEntry(a.path, a.kind, None, a.sha256)
                continue
            size = inside.stat().st_size  # a fetched file may be gigabytes: hashed streaming, read only when kept
            data = inside.read_bytes() if parsed_kind(a.kind) and size <= MAX_KEPT else None
            digest = hashlib.sha256(data).hexdigest() if data is not None else sha256_file(inside)
            out[a.path] = ArtifactEntry(a.path, a.kind, size if data is None else len(data), digest, data)
    return list(out.values())


def _series_files(run: RunData) -> Iterator[tuple[str, bytes]]:
    """The points' series files as they are, each only if it reads back as a series (a folder is data)."""
    seen: set[str] = set()
    for r in run.results:
        for a in r.artifacts:
            if a.kind != SERIES_KIND or a.path in seen or len(seen) >= MAX_SERIES_FILES:
                continue
            seen.add(a.path)
            inside = _inside(run.run_dir, a.path)
            if inside is not None and inside.is_file() and inside.stat().st_size <= MAX_FILE_BYTES \
                    and _reads_as_series(inside):
                yield a.path, inside.read_bytes()


def _reads_as_series(path: Path) -> bool:
    from planner.errors import ParseError

    try:
        return bool(read(path))
    except ParseError:
        return False


def content_hash(files: tuple[tuple[str, bytes], ...], artifacts: tuple[ArtifactEntry, ...]) -> str:
    h = hashlib.sha256()
    for name, data in sorted(files):
        h.update(f"f {name} {hashlib.sha256(data).hexdigest()}\n".encode())
    for a in sorted(artifacts, key=lambda a: a.path):
        h.update(f"a {a.path} {a.size} {a.sha256}\n".encode())
    return h.hexdigest()


def capture(run: RunData) -> StoredRun:
    meta = run.meta
    files = tuple(_record_files(run.run_dir))
    artifacts = tuple(_artifacts(run))
    results = evaluate(run)  # the findings and verdicts the report shows, the same list
    recap = dict(files).get(runfolder.RECAP, b"").decode(errors="replace")
    dirty = meta.git.get("dirty")
    return StoredRun(
        run.run_id, meta.plan, meta.plan_file, meta.git.get("commit"), None if dirty is None else bool(dirty),
        meta.started, meta.ended, meta.raw.get("status"), run.simulated, tuple(sorted(meta.hosts)),
        str(run.run_dir.resolve()), meta.controller, recap, files, artifacts, run.measurements,
        results.findings, results.verdicts,
        content_hash(files, artifacts), tuple(_series_files(run)))


def _safe_rel(name: str) -> PurePosixPath | None:
    """A store row names a file inside the folder being rebuilt, or it is not written (a store is input too)."""
    p = PurePosixPath(name)
    if not name or "\x00" in name or p.is_absolute() or ".." in p.parts or "\\" in name:
        return None
    return p


def write_folder(run: StoredRun, dest: Path) -> tuple[Path, list[str]]:
    """``dest/<run id>`` rebuilt from the store; returns it and the artifacts not in it (content not kept).
    The id is checked first (a row naming ``../../x`` or ``/home/u/.ssh`` writes nothing) and the folder must
    be new: files are never written through what is already there."""
    from planner.errors import InputError, Problem
    from planner.files import write_bytes, write_json
    from planner.runid import run_folder

    folder = run_folder(dest, run.run_id, f"results store row {run.run_id!r}")
    if folder.exists() or folder.is_symlink():
        held = "a run folder" if (folder / runfolder.META).exists() else "something"
        raise InputError([Problem(None, "", f"{folder} already holds {held}",
                                  "the folder is the source of truth: pull into another --runs-dir, or use it as "
                                  "it is")])
    _no_file_under_a_file(run, folder)
    # built beside, then renamed into place: a failure leaves no half-written folder, and the pull can be repeated
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=dest, prefix=f".{folder.name}.pulling."))
    try:
        missing: list[str] = []
        for name, data in run.files:
            rel = _safe_rel(name)
            if rel is not None:
                write_bytes(staging / rel, data, 0o600)
        for a in run.artifacts:
            rel = _safe_rel(a.path)
            if rel is not None and a.content is not None:
                write_bytes(staging / rel, a.content, 0o600)
            else:
                missing.append(a.path)
        missing = _write_series(run, staging, missing)
        write_json(staging / PULLED_NOTE, {"run_id": run.run_id, "pushed_from": f"{run.controller}:{run.path}",
                                           "content_hash": run.content_hash, "artifacts_not_kept": missing})
        os.rename(staging, folder)  # fails if the folder appeared meanwhile: nothing is written through it
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder, missing


def _no_file_under_a_file(run: StoredRun, folder: Path) -> None:
    """A row naming both a file ``inventory`` and ``inventory/inv.yaml`` cannot be laid out as a folder:
    refused in words, before anything is written."""
    from planner.errors import InputError, Problem

    names = [str(r) for r in (_safe_rel(n) for n in [*(f for f, _ in run.files),
                                                       *(a.path for a in run.artifacts if a.content is not None)])
             if r is not None]
    files = set(names)
    clashes = sorted({n for n in names for parent in PurePosixPath(n).parents if str(parent) in files})
    if clashes:
        raise InputError([Problem(None, "", f"results store row {run.run_id!r} names a file and, under the same "
                                  f"name, a folder ({', '.join(clashes[:5])}): {folder} was not written",
                                  "the row was not pushed by planner; push the run again from its folder")])


def _write_series(run: StoredRun, folder: Path, missing: list[str]) -> list[str]:
    """The stored series files back in place, each checked again (a store row is data): one that does not
    read as a series is removed and stays listed as not kept."""
    from planner.files import write_bytes

    back: set[str] = set()
    for name, data in run.series[:MAX_SERIES_FILES]:
        rel = _safe_rel(name)
        if rel is None or name not in missing or len(data) > MAX_FILE_BYTES:
            continue  # only an artifact results.json names, and not one written already
        target = folder / rel
        write_bytes(target, data, 0o600)
        if _reads_as_series(target):
            back.add(name)
        else:
            target.unlink()
    return [m for m in missing if m not in back]


def dumps(obj: object) -> str:
    return json.dumps(obj, default=str, sort_keys=True)
