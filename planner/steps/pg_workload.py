"""What a workload that runs a client program against a PostgreSQL server shares, whichever the program: the
engine it asks of the host, the database the rehearsal creates for it, its run length, the folder its programs are
in, and a point's frame (a private PGPASSFILE, the tables made ready, the measured command, the file removed).

Each kind keeps only what differs: its arguments, its commands, how it readies its tables, and what it does with
the output (planner.kinds.*). Commands, records and previews are the kinds' own; this frame only orders them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

from planner.db.libpq import DROP, RUN, Server, write_passfile
from planner.errors import StepError
from planner.plan.model import Section
from planner.steps.base import Duration, Rehearsed, StepContext, Workload
from planner.steps.wl_common import point_dir, tail


class PgArgs(Protocol):
    """The arguments every such kind has (its frozen dataclass has more)."""

    @property
    def database(self) -> str: ...

    @property
    def seconds(self) -> int: ...

    @property
    def binary_dir(self) -> str: ...


class PgWorkload(Rehearsed, Workload):
    """A client program's run against a PostgreSQL database, one run per sweep point."""

    db_engine: ClassVar[str] = "postgresql"  # the host's inventory must say db_engine: postgresql
    sections = frozenset({Section.WORKLOADS})
    # A rehearsal runs the host's real client program against a real PostgreSQL it starts
    # (planner.rehearsal.postgres), briefly: what it measures there says nothing of the lab, only that the study runs.
    real_in_rehearsal = True
    rehearsal_server = "postgresql"
    a: PgArgs

    @classmethod
    def parse_args(cls, args: Mapping[str, Any]) -> PgArgs:
        """The kind's arguments, parsed once."""
        raise NotImplementedError

    @classmethod
    def server_databases(cls, args: Mapping[str, Any]) -> Sequence[str]:
        return [str(args["database"])] if args.get("database") else []

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """The run's seconds, and the margin."""
        return Duration.with_margin(float(cls.parse_args(args).seconds))

    def validate(self) -> None:
        if not self.a.database:
            raise StepError(f"{self.kind} needs database", hint="name the PostgreSQL database to run in")

    def _program(self, name: str) -> str:
        return posixpath.join(self.a.binary_dir, name) if self.a.binary_dir else name

    def run_argv(self, server: Server, wd: str = "<point dir>") -> list[str]:
        """The measured command, its files in the point's folder ``wd``."""
        raise NotImplementedError

    def ready(self, ctx: StepContext, server: Server, passfile: str, wd: str) -> str:
        """Make the tables what the point wants; says what it did (a StepError when it cannot)."""
        raise NotImplementedError

    def run_point(self, ctx: StepContext) -> tuple[str, str, str | None]:
        """The tables readied and the measured command run, the password file removed whatever happens: (what
        ready did, the output's path on the host, why the point failed or None)."""
        server = Server.of(ctx.vars)
        wd = point_dir(ctx, self.kind)
        passfile = write_passfile(ctx, wd, server, self.a.database)
        try:
            built = self.ready(ctx, server, passfile, wd)
            out = f"{wd}/{self.kind}.out"
            r = ctx.sh(RUN, out, passfile, *self.run_argv(server, wd), check=False, measured=True)
        finally:
            if passfile:
                ctx.sh(DROP, passfile, check=False)
        failure = None if r.ok else (f"{self.kind} {'timed out' if r.timed_out else f'exit code {r.exit_code}'}: "
                                     f"{tail(ctx.conn.read_text(out), 600)}")
        return built, out, failure
