"""The embedded store: one SQLite file, by default ``<runs_dir>/planner.sqlite`` beside the run folders.

Writers take the write lock up front (BEGIN IMMEDIATE) and wait up to BUSY_SECONDS for another
controller's transaction: SQLite allows one writer at a time, and a deferred transaction that upgrades
to a writer later could fail with "database is locked" instead of waiting.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from planner.errors import InputError, Problem
from planner.store.base import SqlStore
from planner.store.schema import LATEST
from planner.store.url import Backend, StoreURL

BUSY_SECONDS = 60.0


class SqliteStore(SqlStore):
    backend = Backend.SQLITE
    driver_errors = (sqlite3.Error,)
    unreachable_errors = (sqlite3.OperationalError,)  # locked, I/O, disk full: the file, not the data

    def __init__(self, path: Path | str, url: StoreURL | None = None, *, migrate: bool = True) -> None:
        self.path = str(path)
        self.url = url or StoreURL(Backend.SQLITE, f"sqlite:///{path}", Path(path))
        try:
            self.db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as e:
            raise InputError([Problem(None, "", f"{path}: cannot open the results store ({e})",
                                      "check --runs-dir / --store and its permissions")]) from None
        if self.check_version() < LATEST and migrate:
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
