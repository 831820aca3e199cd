"""A team's store on PostgreSQL, through psycopg 3: the one module that imports psycopg.

The URL goes to libpq as it is, so the password comes from where libpq always looks (PGPASSWORD,
~/.pgpass, PGPASSFILE, a service file) and never from planner. Unlike the embedded store, a shared
server is not migrated behind the team's back by whichever controller upgrades first: a schema older than
this planner's asks for ``planner store migrate``; one newer is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from planner.errors import InputError, PlannerError, Problem
from planner.store.base import SqlStore, StoreUnreachable, sql_args
from planner.store.schema import LATEST
from planner.store.url import PASSWORD_HINT, Backend, StoreURL

CONNECT_TIMEOUT = 10  # seconds: an unreachable server must not hold the end of an apply for minutes
MIGRATION_LOCK = 0x706C616E6E6572  # pg_advisory_xact_lock key ("planner")


class PostgresStore(SqlStore):
    backend = Backend.POSTGRES
    driver_errors = (psycopg.Error,)
    unreachable_errors = (psycopg.OperationalError,)

    def __init__(self, url: StoreURL, *, migrating: bool = False) -> None:
        self.url = url
        try:
            self.db: Any = psycopg.connect(url.text, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                           application_name="planner")
        except psycopg.Error as e:
            raise _connect_error(url, e) from None
        found = self.check_version()
        if found < LATEST and not migrating:
            self.db.close()
            raise InputError([Problem(None, "--store", f"results store {url} has schema v{found}, this planner "
                                      f"uses v{LATEST}", f"run `planner store migrate --store {url}` once "
                                      "(every controller of the team must then run this planner or newer)")])

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _bulk(self, table: str, cols: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        try:
            with self.db.cursor().copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(sql_args(row))
        except psycopg.Error as e:
            raise self._failed(e) from None

    @contextmanager
    def _tx(self) -> Iterator[None]:
        try:
            with self.db.transaction():
                yield
        except psycopg.Error as e:
            raise self._failed(e) from None

    def _migration_lock(self) -> None:
        self._exec("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

    def _has_version_table(self) -> bool:
        return bool(self._exec("SELECT to_regclass('planner_schema') IS NOT NULL").fetchone()[0])


def _connect_error(url: StoreURL, e: psycopg.Error) -> PlannerError:
    text = " ".join(str(e).split())
    low = text.lower()
    if "password" in low or "authentication" in low:
        return InputError([Problem(None, "--store", f"results store {url}: the server refused the login ({text})",
                                   PASSWORD_HINT)])
    if "does not exist" in low:
        return InputError([Problem(None, "--store", f"results store {url}: {text}",
                                   "create it first (createdb planner), or give the right database in the URL")])
    if "invalid" in low or "missing" in low:
        return InputError([Problem(None, "--store", f"results store {url}: {text}",
                                   "give postgresql://user@host:5432/planner")])
    return StoreUnreachable(f"cannot reach the results store {url}: {text} — check the server is up and the "
                            "host and port in the URL")
