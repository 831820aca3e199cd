"""The results store: an index and a team's shared history of run folders (the folders stay the truth).

Two backends behind one interface (``base.Store``): the embedded SQLite file ``<runs_dir>/planner.sqlite``
(the default; kept in step with the folders by ``sync``, recreated by ``planner index``) and a team's
PostgreSQL (``--store postgresql://user@host:5432/planner`` or ``PLANNER_STORE``), written by
``planner store push`` and at the end of every apply, read back by ``planner store pull``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError
from planner.store.url import DB_NAME, Backend, StoreURL, default_url, parse_store_url

if TYPE_CHECKING:
    from planner.store.base import PushRefused, RunFilter, RunRow, SqlStore, Store, StoreUnreachable
    from planner.store.schema import LATEST, MIGRATIONS
    from planner.store.sqlite import SqliteStore

# Loaded when first named (PEP 562): `planner apply` reads the --store URL before any host (planner.store.url),
# and the backends, the run reader and the findings they store cost ~0.2 s of CPU it needs only after the run.
_LAZY = {"PushRefused": "base", "RunFilter": "base", "RunRow": "base", "SqlStore": "base", "Store": "base",
         "StoreUnreachable": "base", "LATEST": "schema", "MIGRATIONS": "schema", "SqliteStore": "sqlite"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["DB_NAME", "LATEST", "MIGRATIONS", "Backend", "PushRefused", "RunFilter", "RunRow", "SqlStore",
           "SqliteStore", "Store", "StoreURL", "StoreUnreachable", "open_store", "parse_store_url", "rebuild",
           "run_folders", "store_path", "sync"]


def open_store(url: StoreURL, *, migrating: bool = False, readonly: bool = False) -> SqlStore:
    """Connect to the store ``url`` names (the SQLite file's folder is created; a server is never created).
    ``readonly``: a reading verb's store (runs, show, compare, export, report, pull): an SQLite file is opened
    read-only, never created nor migrated."""
    if url.backend is Backend.POSTGRES:
        try:
            from planner.store.postgres import PostgresStore
        except ImportError as e:  # psycopg is a dependency; a hand-trimmed install may still lack it
            from planner.errors import Problem

            raise InputError([Problem(None, "--store", f"PostgreSQL store needs psycopg 3 ({e})",
                                      "pip install 'psycopg[binary]>=3.1'")]) from None
        return PostgresStore(url, migrating=migrating)
    from planner.store.sqlite import SqliteStore

    assert url.path is not None
    if readonly:
        if url.path.parent.exists() and not url.path.parent.is_dir():
            _folder_of(url.path)  # refused in words, nothing created
        return SqliteStore(url.path, url, migrate=False, readonly=True)
    _folder_of(url.path)
    return SqliteStore(url.path, url, migrate=not migrating)


def _folder_of(path: Path) -> None:
    """The SQLite file's folder, created when missing; a file in its place is refused in words."""
    from planner.errors import Problem

    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        what = "is not a folder" if folder.exists() or isinstance(e, FileExistsError | NotADirectoryError) \
            else f"cannot be created ({e.strerror or e})"
        raise InputError([Problem(None, "--runs-dir", f"{folder} {what}",
                                  "give the folder that holds the run folders with --runs-dir (or another "
                                  "--store)")]) from None


def store_path(runs_dir: Path) -> Path:
    return Path(runs_dir) / DB_NAME


def run_folders(runs_dir: Path) -> list[Path]:
    from planner.results.runfolder import is_run_folder

    if not Path(runs_dir).is_dir():
        if Path(runs_dir).exists():
            _folder_of(Path(runs_dir) / DB_NAME)  # refused in words
        return []
    return sorted(p for p in Path(runs_dir).iterdir() if p.is_dir() and is_run_folder(p))


def rebuild(runs_dir: Path) -> int:
    """``planner index``: drop the embedded store and recreate it from the run folders; the runs indexed."""
    from planner.results.measure import read_run

    path = store_path(runs_dir)
    _folder_of(path)
    path.unlink(missing_ok=True)
    count = 0
    with open_store(default_url(runs_dir)) as store:
        for folder in run_folders(runs_dir):
            store.put_run(read_run(folder), replace=True)
            count += 1
    return count


def sync(runs_dir: Path) -> SqlStore:
    """The embedded store with every run folder indexed: folders not in it yet, still running, or indexed by
    planner 0.1 (no content hash, no host rows for --host) are read now."""
    from planner.results.measure import read_run

    store = open_store(default_url(runs_dir))
    for folder in run_folders(runs_dir):
        row = store.run(folder.name)
        if row is None or row.status in ("running", "") or not row.content_hash:
            try:
                store.put_run(read_run(folder), replace=True)  # the index follows its folders
            except InputError:
                continue  # a damaged folder is listed by nothing rather than stopping the listing
    return store
