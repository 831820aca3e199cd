"""The store interface and the SQL both backends share (SQLite and PostgreSQL speak the same SQL here).

Writing is one transaction per run, keyed by run id and content hash: the run row is upserted first
(``INSERT ... ON CONFLICT (id) DO UPDATE ... WHERE the hash differs``), which also takes the row's lock,
so a second writer of the same run waits for the first and then finds nothing to change; only when the
row changed are its children replaced. A writer killed half-way leaves nothing: its transaction is never
committed. Statements are written with ``?`` placeholders; the PostgreSQL backend turns them into ``%s``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from planner import __version__
from planner.errors import InputError, PlannerError, Problem
from planner.metrics import Direction
from planner.results.finding import About, Finding, Severity
from planner.results.measure import Measurement, RunData
from planner.results.verdicts import ClaimVerdict, Verdict
from planner.status import ExitCode
from planner.store.record import MAX_SERIES_FILES, ArtifactEntry, StoredRun, capture, dumps
from planner.store.schema import LATEST, VERSION_TABLE, statements
from planner.store.url import Backend, StoreURL
from planner.timeseries import MAX_FILE_BYTES


class StoreUnreachable(PlannerError):
    """The store's server cannot be reached (exit 4, like an unreachable host)."""

    exit_code = ExitCode.UNREACHABLE


class PushRefused(InputError):
    """The store holds this run id with other content, from another controller or folder (exit 5)."""

    def __init__(self, run_id: str, controller: str, path: str) -> None:
        super().__init__([Problem(None, "", f"run {run_id} is already in the results store with other content "
                                  f"(pushed from {controller}:{path}): not replaced",
                                  "if this folder is the one to keep, push it again with --replace; the stored "
                                  "run is otherwise lost")])


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
    controller: str = ""
    content_hash: str = ""


@dataclass(frozen=True, slots=True)
class RunFilter:
    plan: str | None = None
    host: str | None = None
    since: str | None = None  # ISO date or date-time; runs started at or after it


class Store(Protocol):
    url: StoreURL

    @property
    def version(self) -> int: ...
    def migrate(self) -> int: ...
    def put_run(self, run: RunData, *, replace: bool = False) -> bool: ...
    def runs(self, plan: str | None = None, *, where: RunFilter | None = None) -> list[RunRow]: ...
    def run(self, run_id: str) -> RunRow | None: ...
    def measurements(self, run_id: str, metric: str | None = None) -> list[Measurement]: ...
    def stored_run(self, run_id: str) -> StoredRun | None: ...
    def delete_run(self, run_id: str) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> Store: ...
    def __exit__(self, *exc: object) -> None: ...


RUN_COLS = ("id, plan, plan_file, git_commit, git_dirty, started, ended, status, simulated, hosts, path, "
            "controller, content_hash")
CHILD_TABLES = ("measurements", "run_hosts", "run_files", "artifacts", "findings", "verdicts", "series")
M_COLS = ("run_id, play, host, step, title, kind, artifact, artifact_kind, params, point, repeat, warmup, metric, "
          "labels, value, unit, direction, simulated, derived, headline, source")


def newer_schema(url: StoreURL, found: int) -> InputError:
    return InputError([Problem(None, "--store", f"results store {url} has schema v{found}, newer than this "
                               f"planner's (v{LATEST}): it was migrated by a newer planner",
                               "upgrade planner on this controller (pip install -U planner); the store is left "
                               "as it is")])


class SqlStore:
    """Everything but connecting, transactions and the version lookup, which the backends provide."""

    url: StoreURL
    backend: Backend
    db: Any  # the DB-API connection
    driver_errors: tuple[type[Exception], ...] = ()
    unreachable_errors: tuple[type[Exception], ...] = ()  # of those, the ones that mean "cannot reach it"

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    # -- backend hooks -------------------------------------------------------------------------------------
    def _tx(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _migration_lock(self) -> None:
        """Taken inside the migration's transaction: two controllers migrating at once apply each step once."""

    def _has_version_table(self) -> bool:
        raise NotImplementedError

    def _legacy_version(self) -> int:
        return 0

    def _after_migration(self, version: int) -> None:
        """SQLite keeps PRAGMA user_version in step (older planners read that)."""

    def _sql(self, sql: str) -> str:
        return sql

    def _failed(self, e: Exception) -> PlannerError:
        """A driver error in words (no traceback, no credentials: the URL never holds any)."""
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        if isinstance(e, self.unreachable_errors):
            return StoreUnreachable(f"results store {self.url}: {first}")
        return PlannerError(f"results store {self.url} refused the operation: {first}",
                            hint="the store is reachable; this is planner's or the data's fault, not the network's")

    def _exec(self, sql: str, args: Sequence[Any] = ()) -> Any:
        try:
            cur = self.db.cursor()
            cur.execute(self._sql(sql), sql_args(args))
        except self.driver_errors as e:
            raise self._failed(e) from None
        return cur

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            try:
                self.db.cursor().executemany(self._sql(sql), [sql_args(r) for r in rows])
            except self.driver_errors as e:
                raise self._failed(e) from None

    def _bulk(self, table: str, cols: str, rows: Sequence[Sequence[Any]]) -> None:
        """Many rows into one table (PostgreSQL uses COPY: a run's hundreds of measurements in one go)."""
        marks = ",".join("?" * len(cols.split(",")))
        self._many(f"INSERT INTO {table} ({cols}) VALUES ({marks})", rows)

    # -- schema ----------------------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        if not self._has_version_table():
            return self._legacy_version()
        row = self._exec("SELECT MAX(version) FROM planner_schema").fetchone()
        return int(row[0] or 0) if row else 0

    def check_version(self) -> int:
        found = self.version
        if found > LATEST:
            raise newer_schema(self.url, found)
        return found

    def migrate(self) -> int:
        """Bring the schema to LATEST; returns how many migrations were applied."""
        applied = 0
        with self._tx():
            self._migration_lock()
            current = self.check_version()
            self._exec(VERSION_TABLE)
            now = _now()
            for v in range(1, current + 1):  # a legacy SQLite file: record the versions it already has
                self._exec("INSERT INTO planner_schema VALUES (?, ?, ?) ON CONFLICT (version) DO NOTHING",
                           (v, now, "legacy"))
            for v in range(current + 1, LATEST + 1):
                for stmt in statements(v, self.backend):
                    self._exec(stmt)
                self._exec("INSERT INTO planner_schema VALUES (?, ?, ?)", (v, now, __version__))
                applied += 1
            self._after_migration(LATEST)
        return applied

    # -- writing ---------------------------------------------------------------------------------------------
    def put_run(self, run: RunData, *, replace: bool = False) -> bool:
        """Insert or update one run in one transaction; False when the store already had this content.
        A run id the store holds with other content, pushed from another controller or folder, is refused
        (PushRefused) unless ``replace``: two controllers' runs must never silently become one."""
        return self.put_stored(capture(run), replace=replace)

    def put_stored(self, s: StoredRun, *, replace: bool = False) -> bool:
        dirty = None if s.git_dirty is None else int(s.git_dirty)
        same_origin = "" if replace else \
            " AND COALESCE(runs.controller, '') = excluded.controller AND COALESCE(runs.path, '') = excluded.path"
        with self._tx():
            cur = self._exec(
                f"INSERT INTO runs ({RUN_COLS}, pushed_at, recap) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (id) DO UPDATE SET plan = excluded.plan, plan_file = excluded.plan_file, "
                "git_commit = excluded.git_commit, git_dirty = excluded.git_dirty, started = excluded.started, "
                "ended = excluded.ended, status = excluded.status, simulated = excluded.simulated, "
                "hosts = excluded.hosts, path = excluded.path, controller = excluded.controller, "
                "content_hash = excluded.content_hash, pushed_at = excluded.pushed_at, recap = excluded.recap "
                "WHERE COALESCE(runs.content_hash, '') <> excluded.content_hash" + same_origin,
                (s.run_id, s.plan, s.plan_file, s.git_commit, dirty, s.started, s.ended, s.status, int(s.simulated),
                 json.dumps(list(s.hosts)), s.path, s.controller, s.content_hash, _now(), s.recap))
            if cur.rowcount == 0:  # the upsert holds the row's lock: what it found is what is there
                held = self._exec("SELECT content_hash, controller, path FROM runs WHERE id = ?",
                                  (s.run_id,)).fetchone()
                if held is not None and (held[0] or "") != s.content_hash:
                    raise PushRefused(s.run_id, str(held[1] or "?"), str(held[2] or "?"))
                return False  # same run, same content: already there
            for table in CHILD_TABLES:
                self._exec(f"DELETE FROM {table} WHERE run_id = ?", (s.run_id,))
            self._write_children(s)
        return True

    def _write_children(self, s: StoredRun) -> None:
        rid = s.run_id
        self._many("INSERT INTO run_hosts VALUES (?, ?)", [(rid, h) for h in s.hosts])
        self._many("INSERT INTO run_files VALUES (?, ?, ?)", [(rid, n, data) for n, data in s.files])
        self._many("INSERT INTO artifacts VALUES (?, ?, ?, ?, ?, ?)",
                   [(rid, a.path, a.kind, a.size, a.sha256, a.content) for a in s.artifacts])
        self._bulk("measurements", M_COLS,
                   [(m.run_id, m.play, m.host, m.step, m.title, m.kind, m.artifact, m.artifact_kind,
                     json.dumps(dict(m.params), default=str), m.point, m.repeat, int(m.warmup), m.metric,
                     json.dumps(dict(m.labels)), m.value, m.unit, m.direction.value, int(m.simulated),
                     int(m.derived), int(m.headline), m.source) for m in s.measurements])
        self._many("INSERT INTO series VALUES (?, ?, ?)", [(rid, p, data) for p, data in s.series])
        self._many("INSERT INTO findings VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   [(rid, i, f.code, f.severity.value, f.play, f.host, f.step, f.point, f.title, f.message,
                     dumps([list(n) for n in f.numbers]), f.about.value) for i, f in enumerate(s.findings)])
        self._many("INSERT INTO verdicts VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   [(rid, i, v.source, v.play, v.metric, v.expected, v.tolerance_pct, v.measured, v.diff_pct,
                     v.unit, v.point, v.verdict.value, v.reason) for i, v in enumerate(s.verdicts)])

    def delete_run(self, run_id: str) -> bool:
        with self._tx():
            for table in CHILD_TABLES:
                self._exec(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            return bool(self._exec("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount)

    # -- reading ---------------------------------------------------------------------------------------------
    def runs(self, plan: str | None = None, *, where: RunFilter | None = None) -> list[RunRow]:
        f = where or RunFilter(plan=plan)
        sql, args = f"SELECT {RUN_COLS} FROM runs r WHERE 1 = 1", list[Any]()
        if f.plan or plan:
            sql, args = sql + " AND r.plan = ?", [*args, f.plan or plan]
        if f.since:
            sql, args = sql + " AND r.started >= ?", [*args, f.since]
        if f.host:
            sql += " AND EXISTS (SELECT 1 FROM run_hosts h WHERE h.run_id = r.id AND h.host = ?)"
            args.append(f.host)
        return [_run_row(r) for r in self._exec(sql + " ORDER BY r.started, r.id", args).fetchall()]

    def run(self, run_id: str) -> RunRow | None:
        row = self._exec(f"SELECT {RUN_COLS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run_row(row) if row else None

    def measurements(self, run_id: str, metric: str | None = None) -> list[Measurement]:
        sql = f"SELECT {M_COLS} FROM measurements WHERE run_id = ?" + (" AND metric = ?" if metric else "")
        args: tuple[Any, ...] = (run_id, metric) if metric else (run_id,)
        return [_measurement(r) for r in self._exec(sql + " ORDER BY id", args).fetchall()]

    def stored_run(self, run_id: str) -> StoredRun | None:
        row = self._exec(f"SELECT {RUN_COLS}, recap FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        r = _run_row(row)
        q = self._exec
        files = tuple((n, bytes(c)) for n, c in
                      q("SELECT name, content FROM run_files WHERE run_id = ? ORDER BY name", (run_id,)).fetchall())
        arts = tuple(ArtifactEntry(p, k or "", s, h or "", None if c is None else bytes(c)) for p, k, s, h, c in
                     q("SELECT path, kind, size, sha256, content FROM artifacts WHERE run_id = ? ORDER BY path",
                       (run_id,)).fetchall())
        found = tuple(Finding(c, Severity(sv), t or "", p or "", h or "", st or "", pt or "", msg or "",
                              tuple((str(a), str(b)) for a, b in json.loads(n)),
                              About.REHEARSAL if ab == About.REHEARSAL.value else About.STUDY)
                      for c, sv, p, h, st, pt, t, msg, n, ab in
                      q("SELECT code, severity, play, host, step, point, title, message, numbers, about "
                        "FROM findings WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall())
        verd = tuple(ClaimVerdict(src, p, m, e, tol, me, d, u, pt, Verdict(v), why)
                     for src, p, m, e, tol, me, d, u, pt, v, why in
                     q("SELECT source, play, metric, expected, tolerance_pct, measured, diff_pct, unit, point, "
                       "verdict, reason FROM verdicts WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall())
        return StoredRun(r.id, r.plan, r.plan_file, r.git_commit or None, r.git_dirty, r.started or None,
                         r.ended or None, r.status or None, r.simulated, r.hosts, r.path, r.controller,
                         row[13] or "", files, arts, tuple(self.measurements(run_id)), found, verd, r.content_hash,
                         self._stored_series(run_id))

    def _stored_series(self, run_id: str) -> tuple[tuple[str, bytes], ...]:
        """At most a run's worth of series files, each within the series size bound (a row is input too)."""
        rows = self._exec("SELECT path, content FROM series WHERE run_id = ? ORDER BY path", (run_id,)).fetchall()
        return tuple((str(p), bytes(c)) for p, c in rows[:MAX_SERIES_FILES] if len(c) <= MAX_FILE_BYTES)


def sql_args(values: Sequence[Any]) -> tuple[Any, ...]:
    """Statement arguments with NUL in text shown as U+FFFD: PostgreSQL text cannot hold NUL, and a record
    holding one (outside text) must land the same on both backends, not fail the push."""
    return tuple(v.replace("\x00", "\ufffd") if isinstance(v, str) and "\x00" in v else v for v in values)


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _run_row(r: Sequence[Any]) -> RunRow:
    return RunRow(r[0], r[1], r[2] or "", r[3] or "", None if r[4] is None else bool(r[4]), r[5] or "",
                  r[6] or "", r[7] or "", bool(r[8]), tuple(json.loads(r[9] or "[]")), r[10], r[11] or "",
                  r[12] or "")


@functools.lru_cache(maxsize=4096)
def _items(text: str) -> tuple[tuple[str, Any], ...]:
    """params/labels JSON -> items; a run repeats the same few texts hundreds of times (parsed once each)."""
    return tuple(json.loads(text).items())


def _measurement(r: Sequence[Any]) -> Measurement:
    return Measurement(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], _items(r[8]), r[9],
                       r[10], bool(r[11]), r[12], _items(r[13]), r[14], r[15],
                       Direction(r[16]), bool(r[17]), bool(r[18]), bool(r[19]), r[20] or "")


