"""Which results store: ``--store URL``, else ``PLANNER_STORE``, else the embedded SQLite file of --runs-dir.

``sqlite:///path/to/file.sqlite`` names an embedded store; ``postgresql://user@host:port/db`` a team's
PostgreSQL. A URL never carries a password: it would land in shell history, ``ps`` output, CI logs and
run records (meta.json keeps argv). libpq finds the password where it always does: ``PGPASSWORD``,
``~/.pgpass`` or the file ``PGPASSFILE`` names (https://www.postgresql.org/docs/current/libpq-pgpass.html).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from planner.errors import InputError, Problem
from planner.redaction import mask_url

ENV = "PLANNER_STORE"
DB_NAME = "planner.sqlite"
PASSWORD_HINT = ("leave the password out of the URL: put it in ~/.pgpass (host:port:database:user:password, "
                 "chmod 600), the file PGPASSFILE names, or PGPASSWORD")


class Backend(Enum):
    SQLITE = "sqlite"
    POSTGRES = "postgresql"


@dataclass(frozen=True, slots=True)
class StoreURL:
    backend: Backend
    text: str  # as given (never holds a password: refused below); safe to print and log
    path: Path | None = None  # SQLite file
    default: bool = False  # the runs-dir's own planner.sqlite (kept in step with the folders by `sync`)

    def __str__(self) -> str:
        return self.text


def default_url(runs_dir: Path) -> StoreURL:
    path = Path(runs_dir) / DB_NAME
    return StoreURL(Backend.SQLITE, f"sqlite:///{path}", path, default=True)


def _bad(text: str, what: str, hint: str) -> InputError:
    """A refused URL, named with any password it holds masked (whatever its scheme: sqlite://u:pw@/x too)."""
    return InputError([Problem(None, "--store", f"store URL {mask_url(text)!r}: {what}", hint)])


def parse_store_url(text: str | None, runs_dir: Path, env: dict[str, str] | None = None) -> StoreURL:
    """The store named by ``text`` (``--store``), else by $PLANNER_STORE, else ``runs_dir/planner.sqlite``."""
    given = text if text else (env if env is not None else os.environ).get(ENV, "")
    if not given:
        return default_url(runs_dir)
    origin = "--store" if text else ENV
    try:
        parts = urlsplit(given)
        port = parts.port
    except ValueError:  # not quoted: its text holds the URL's parts, a password among them
        raise _bad(given, "not a URL (its port is not a number, or its address is unreadable)",
                   "give sqlite:///path or postgresql://user@host:5432/db") from None
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        if parts.netloc or parts.query or parts.fragment or not parts.path or parts.path == "/":
            raise _bad(given, "an SQLite URL names a file", "give sqlite:///path/to/planner.sqlite (three slashes)")
        return StoreURL(Backend.SQLITE, given, Path(parts.path))
    if scheme in ("postgresql", "postgres"):
        if parts.password is not None or "password" in parse_qs(parts.query):
            raise InputError([Problem(None, origin, f"store URL {mask_url(given)!r} holds a password", PASSWORD_HINT)])
        if not parts.path.strip("/"):
            raise _bad(given, "no database named", "give postgresql://user@host:5432/planner")
        del port  # read above only to check it is a number
        return StoreURL(Backend.POSTGRES, given)
    raise _bad(given, f"unknown scheme {parts.scheme or '(none)'!r}",
               "give sqlite:///path/to/planner.sqlite or postgresql://user@host:5432/planner")
