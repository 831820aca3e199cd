"""The results store: one SQLite file per project beside the run folders (``<runs_dir>/planner.sqlite``).

The run folders are the source of truth; the store is an index over them for listing, comparing and
exporting without re-parsing. ``rebuild`` (``planner index``) recreates it from the folders. Schema changes
are migrations numbered by ``PRAGMA user_version``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.errors import InputError, Problem
from planner.metrics import Direction
from planner.results.measure import Measurement, RunData, read_run

DB_NAME = "planner.sqlite"

MIGRATIONS: tuple[str, ...] = (
    # 1: runs and measurements
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY, plan TEXT NOT NULL, plan_file TEXT, git_commit TEXT, git_dirty INTEGER,
        started TEXT, ended TEXT, status TEXT, simulated INTEGER NOT NULL DEFAULT 0,
        hosts TEXT NOT NULL DEFAULT '[]', path TEXT NOT NULL
    );
    CREATE TABLE measurements (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        play TEXT, host TEXT, step TEXT, title TEXT, kind TEXT, artifact TEXT, artifact_kind TEXT,
        params TEXT NOT NULL DEFAULT '{}', point INTEGER, repeat INTEGER NOT NULL DEFAULT 0,
        warmup INTEGER NOT NULL DEFAULT 0, metric TEXT NOT NULL, labels TEXT NOT NULL DEFAULT '{}',
        value REAL NOT NULL, unit TEXT, direction TEXT, simulated INTEGER NOT NULL DEFAULT 0,
        derived INTEGER NOT NULL DEFAULT 0, headline INTEGER NOT NULL DEFAULT 0, source TEXT
    );
    CREATE INDEX measurements_run ON measurements(run_id, metric);
    CREATE INDEX runs_plan ON runs(plan, started);
    """,
)


@dataclass(frozen=True, slots=True)
class RunRow:
    id: str
    plan: str
    plan_file: str
    git_commit: str
    git_dirty: bool | None
    started: str
    ended: str
    status: str
    simulated: bool
    hosts: tuple[str, ...]
    path: str


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path)
        except sqlite3.Error as e:
            raise InputError([Problem(None, "", f"{path}: cannot open the results store ({e})",
                                      "check --runs-dir and its permissions")]) from None
        self.db.execute("PRAGMA foreign_keys = ON")
        self.migrate()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        current = self.version
        if current > len(MIGRATIONS):
            raise InputError([Problem(None, "", f"{self.path}: results store schema v{current} is newer than "
                                      f"this planner (v{len(MIGRATIONS)})", "upgrade planner, or delete the "
                                      "file and run `planner index` to rebuild it from the run folders")])
        for n in range(current, len(MIGRATIONS)):
            with self._tx():
                self.db.executescript(MIGRATIONS[n])
                self.db.execute(f"PRAGMA user_version = {n + 1}")

    @contextmanager
    def _tx(self) -> Iterator[None]:
        try:
            yield
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise

    # -- writing -------------------------------------------------------------------------------------------
    def put_run(self, run: RunData) -> None:
        """Insert or replace one run and all its measurements."""
        meta, git = run.meta, dict(run.meta.get("git") or {})
        with self._tx():
            self.db.execute("DELETE FROM runs WHERE id = ?", (run.run_id,))
            self.db.execute(
                "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (run.run_id, str(meta.get("plan", "")), str(meta.get("plan_file", "")), git.get("commit"),
                 None if git.get("dirty") is None else int(bool(git.get("dirty"))), meta.get("started"),
                 meta.get("ended"), meta.get("status"), int(run.simulated),
                 json.dumps(sorted(meta.get("hosts") or {})), str(run.run_dir.resolve())))
            self.db.executemany(
                "INSERT INTO measurements (run_id, play, host, step, title, kind, artifact, artifact_kind, params,"
                " point, repeat, warmup, metric, labels, value, unit, direction, simulated, derived, headline,"
                " source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(m.run_id, m.play, m.host, m.step, m.title, m.kind, m.artifact, m.artifact_kind,
                  json.dumps(dict(m.params), default=str), m.point, m.repeat, int(m.warmup), m.metric,
                  json.dumps(dict(m.labels)), m.value, m.unit, m.direction.value, int(m.simulated),
                  int(m.derived), int(m.headline), m.source) for m in run.measurements])

    def delete_run(self, run_id: str) -> None:
        with self._tx():
            self.db.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # -- reading -------------------------------------------------------------------------------------------
    def runs(self, plan: str | None = None) -> list[RunRow]:
        sql = "SELECT * FROM runs" + (" WHERE plan = ?" if plan else "") + " ORDER BY started, id"
        return [_run_row(r) for r in self.db.execute(sql, (plan,) if plan else ())]

    def run(self, run_id: str) -> RunRow | None:
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run_row(row) if row else None

    def measurements(self, run_id: str, metric: str | None = None) -> list[Measurement]:
        sql = ("SELECT run_id, play, host, step, title, kind, artifact, artifact_kind, params, point, repeat,"
               " warmup, metric, labels, value, unit, direction, simulated, derived, headline, source"
               " FROM measurements WHERE run_id = ?" + (" AND metric = ?" if metric else "") + " ORDER BY id")
        args: tuple[Any, ...] = (run_id, metric) if metric else (run_id,)
        return [_measurement(r) for r in self.db.execute(sql, args)]


def _run_row(r: Sequence[Any]) -> RunRow:
    return RunRow(r[0], r[1], r[2] or "", r[3] or "", None if r[4] is None else bool(r[4]), r[5] or "",
                  r[6] or "", r[7] or "", bool(r[8]), tuple(json.loads(r[9] or "[]")), r[10])


def _measurement(r: Sequence[Any]) -> Measurement:
    return Measurement(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], tuple(json.loads(r[8]).items()), r[9],
                       r[10], bool(r[11]), r[12], tuple(json.loads(r[13]).items()), r[14], r[15],
                       Direction(r[16]), bool(r[17]), bool(r[18]), bool(r[19]), r[20] or "")


def store_path(runs_dir: Path) -> Path:
    return Path(runs_dir) / DB_NAME


def run_folders(runs_dir: Path) -> list[Path]:
    if not Path(runs_dir).is_dir():
        return []
    return sorted(p for p in Path(runs_dir).iterdir() if p.is_dir() and (p / "meta.json").is_file())


def open_store(runs_dir: Path) -> Store:
    Path(runs_dir).mkdir(parents=True, exist_ok=True)
    return Store(store_path(runs_dir))


def rebuild(runs_dir: Path) -> int:
    """``planner index``: drop the store and recreate it from the run folders; returns the runs indexed."""
    path = store_path(runs_dir)
    path.unlink(missing_ok=True)
    count = 0
    with open_store(runs_dir) as store:
        for folder in run_folders(runs_dir):
            store.put_run(read_run(folder))
            count += 1
    return count


def sync(runs_dir: Path) -> Store:
    """The store with every run folder indexed (folders not in it yet, or still running, are read now)."""
    store = open_store(runs_dir)
    for folder in run_folders(runs_dir):
        row = store.run(folder.name)
        if row is None or row.status in ("running", ""):
            try:
                store.put_run(read_run(folder))
            except InputError:
                continue  # a damaged folder is listed by nothing rather than stopping the listing
    return store
