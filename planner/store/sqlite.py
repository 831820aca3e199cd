"""The embedded store: one SQLite file, by default ``<runs_dir>/planner.sqlite`` beside the run folders.

Writers take the write lock up front (BEGIN IMMEDIATE) and wait up to BUSY_SECONDS for another
controller's transaction: SQLite allows one writer at a time, and a deferred transaction that upgrades
to a writer later could fail with "database is locked" instead of waiting.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from planner.errors import InputError, Problem
from planner.store.base import SqlStore
from planner.store.schema import LATEST
from planner.store.url import Backend, StoreURL

BUSY_SECONDS = 60.0


def _uri_path(path: str) -> str:
    """An absolute path for a file: URI (``sqlite:////abs`` gives ``//abs``, read as a URI authority)."""
    return "/" + str(Path(path).resolve()).lstrip("/")


def _private(path: Path) -> None:
    """The store file 0600 before SQLite opens it: it holds copies of 0600 records (results, console logs);
    its journal and WAL files take the file's mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if path.stat().st_uid == os.geteuid():
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) & 0o600)  # a store made by an older planner


class SqliteStore(SqlStore):
    backend = Backend.SQLITE
    driver_errors = (sqlite3.Error,)
    unreachable_errors = (sqlite3.OperationalError,)  # locked, I/O, disk full: the file, not the data

    def __init__(self, path: Path | str, url: StoreURL | None = None, *, migrate: bool = True,
                 readonly: bool = False) -> None:
        self.path = str(path)
        self.url = url or StoreURL(Backend.SQLITE, f"sqlite:///{path}", Path(path))
        if readonly and not Path(path).is_file():
            raise InputError([Problem(None, "--store", f"no results store at {path}",
                                      f"`planner store migrate --store {self.url}` creates one")])
        try:
            if not readonly and self.path != ":memory:":
                _private(Path(path))
            target = f"file:{quote(_uri_path(self.path))}?mode=ro" if readonly else self.path
            self.db = sqlite3.connect(target, timeout=BUSY_SECONDS, isolation_level=None, uri=readonly)
            self.db.execute("PRAGMA foreign_keys = ON")
        except (sqlite3.Error, OSError) as e:
            raise InputError([Problem(None, "", f"{path}: cannot open the results store ({e})",
                                      "check --runs-dir / --store and its permissions")]) from None
        found = self.check_version()
        if readonly and found < LATEST:  # a reading verb never writes: not even a migration
            self.db.close()
            what = ("is not a planner results store" if found == 0
                    else f"has schema v{found}, this planner uses v{LATEST}")
            raise InputError([Problem(None, "--store", f"{path} {what}",
                                      f"`planner store migrate --store {self.url}` makes it one "
                                      "(or give the right file)")])
        if found < LATEST and migrate:
            self.migrate()  # the embedded store follows its planner, as it always has

    @contextmanager
    def _tx(self) -> Iterator[None]:
        self._exec("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.rollback()
            raise
        self._exec("COMMIT")

    def _has_version_table(self) -> bool:
        return self._exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'planner_schema'") \
            .fetchone() is not None

    def _legacy_version(self) -> int:
        return int(self._exec("PRAGMA user_version").fetchone()[0])

    def _after_migration(self, version: int) -> None:
        self._exec(f"PRAGMA user_version = {int(version)}")
