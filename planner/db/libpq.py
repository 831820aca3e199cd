"""What every step running a PostgreSQL client program on the host needs (the PostgreSQL workload kinds, pg_conf,
pg_stat): where libpq connects (the host's ``pg_host``/``pg_port``/``pg_user``) and the password handed to libpq
through a private PGPASSFILE.

The password (the secret variable ``pg_password``) never goes into argv, where ``ps`` shows it to every user of
the host, nor into the environment (``/proc/<pid>/environ`` of a long run). libpq reads a password file when the
connection asks for a password and none was given otherwise (PostgreSQL documentation, libpq "The Password
File"); the file is written 0600 as the user the client runs as (libpq ignores a group- or world-readable one),
its line arriving on stdin, which the run record keeps with the secret masked, and is removed after the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.db.access import StepContext

PASSWORD_VAR = "pg_password"
# o: output file, p: PGPASSFILE or "", then the argv: stdout and stderr into one file
RUN = 'o=$1; p=$2; shift 2; if [ -n "$p" ]; then PGPASSFILE=$p; export PGPASSFILE; fi; exec "$@" >"$o" 2>&1'
DROP = 'rm -f -- "$1"'
_WRITE = 'umask 077; cat >"$1"'


@dataclass(frozen=True, slots=True)
class Server:
    """Where libpq connects, from the host's variables ("" for libpq's own default)."""

    host: str
    port: str
    user: str

    @classmethod
    def of(cls, v: Mapping[str, Any]) -> Server:
        return cls(str(v.get("pg_host") or ""), str(v.get("pg_port") or ""), str(v.get("pg_user") or ""))

    def options(self) -> list[str]:
        """The connection options every libpq client program takes (-h, -p, -U), each only when given."""
        return [*(["-h", self.host] if self.host else []), *(["-p", self.port] if self.port else []),
                *(["-U", self.user] if self.user else [])]

    def psql_options(self) -> list[str]:
        """psql's connection options; ``-w``: never prompt (no terminal on the host: a missing password is said)."""
        return ["-w", *self.options()]


def _esc(s: str) -> str:  # libpq: backslash escapes ':' and '\' in a password file's field
    return s.replace("\\", "\\\\").replace(":", "\\:")


def passfile_line(server: Server, database: str, password: str) -> str:
    """The password file's one line for this server and database: host:port:database:user:password."""
    return ":".join(_esc(x) for x in (server.host or "*", server.port or "*", database, server.user or "*",
                                       password)) + "\n"


def write_passfile(ctx: StepContext, wd: str, server: Server, database: str) -> str:
    """A 0600 password file in ``wd`` for this run, or "" without a ``pg_password`` (libpq then uses ~/.pgpass,
    PGPASSWORD or the server's trust/peer rules)."""
    password = ctx.vars.get(PASSWORD_VAR)
    if not password:
        return ""
    path = f"{wd}/pgpass"
    ctx.run(["sh", "-c", _WRITE, "sh", path], stdin=passfile_line(server, database, str(password)).encode())
    return path
