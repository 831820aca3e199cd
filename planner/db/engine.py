"""The engine-neutral database seam: which engine a host runs, and what every backend does for a step.

A host's inventory says its engine (``db_engine``: oracle, the default, or postgresql); planner.db.backends.
server_for is the one place that turns that into a backend. Each backend wraps what planner already had for its
engine, so the commands, records and previews are the ones the steps always sent:
- Oracle (planner.db.oracle): sqlplus as SYSDBA or python-oracledb thin (planner.db.access), V$PARAMETER, the
  release from the inventory or V$INSTANCE, a restart by srvctl or sqlplus;
- PostgreSQL (planner.db.postgres): the host's psql through libpq (planner.db.libpq), pg_settings, the release
  from server_version_num, a restart by pg_ctl or systemd (planner.db.pg_server).

The seam is in db/ (layer 5, docs/architecture.md): it imports transport/ and the foundation, never steps/. A step
hands its context in, typed by the Protocol db.access.StepContext, so a backend's commands run through the step's
logged runner as the right user (sudo to the database's OS user where the host needs it), and are recorded.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from planner.db.access import StepContext
from planner.db.config import Row
from planner.errors import StepError

VAR = "db_engine"


class Engine(enum.Enum):
    """The database a host runs, as its inventory's ``db_engine`` names it."""

    ORACLE = "oracle"
    POSTGRESQL = "postgresql"


def engine_of(variables: Mapping[str, Any]) -> Engine:
    """The host's engine: ``db_engine`` (oracle when unset); any other word is refused, naming it."""
    text = str(variables.get(VAR) or Engine.ORACLE.value).strip().lower()
    try:
        return Engine(text)
    except ValueError:
        raise StepError(f"{VAR} is {variables.get(VAR)!r}, not oracle or postgresql",
                        hint=f"set {VAR}: oracle or {VAR}: postgresql for the host in the inventory") from None


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """A database release, major and minor (Oracle 19.0, PostgreSQL 15.4; 9.6 for PostgreSQL 9.6.x)."""

    major: int
    minor: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @classmethod
    def of_server_version_num(cls, num: int) -> Version:
        """PostgreSQL's server_version_num: 90603 is 9.6(.3), 150004 is 15.4 (two-part releases from 10)."""
        return cls(num // 10000, (num // 100) % 100) if num < 100000 else cls(num // 10000, num % 100)


class Server(Protocol):
    """What a step asks of the host's database, whatever its engine."""

    @property
    def engine(self) -> Engine: ...

    def query(self, ctx: StepContext, sql: str) -> list[Row]:
        """The rows of ``sql``, as text, run on the host by its client as the user that may read them."""
        ...

    def setting(self, ctx: StepContext, name: str) -> str | None:
        """A parameter's value as the server has it now (None when the server has no such parameter)."""
        ...

    def version(self, ctx: StepContext) -> Version: ...

    def restart(self, ctx: StepContext) -> str:
        """Restart the server as the host runs it; says how."""
        ...
