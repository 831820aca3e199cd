"""Error types. Every user-facing error carries where it happened and how to fix it (Rally's habit)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar


class ExitCode(enum.IntEnum):
    """planner's exit codes, ansible-playbook's where it has one; every PlannerError carries its own."""

    OK = 0
    ERROR = 1
    FAILED = 2
    BAD_OPTION = 2  # argparse's usage error (an unknown option, a missing value), as ansible-playbook exits
    UNREACHABLE = 4
    BAD_INPUT = 5
    INTERRUPTED = 99
    UNEXPECTED = 250  # an exception planner did not foresee (a bug): ansible-core's cli_executor exits 250 there


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a user's file; line and column are 1-based."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class PlannerError(Exception):
    """Base of all errors planner reports to the user without a traceback."""

    exit_code: ClassVar[ExitCode] = ExitCode.ERROR

    def __init__(self, message: str, *, location: Location | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}" if self.location else self.message
        return f"{text} — {self.hint}" if self.hint else text


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found in a user's input; many are collected and reported together."""

    location: Location | None
    path: str  # e.g. "plays[1].workloads[0].slob.readers"; "" when not inside the document
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        what = f"{self.path}: {self.message}" if self.path else self.message
        return f"{where}{what} — {self.hint}" if self.hint else f"{where}{what}"

    def sort_key(self) -> tuple[str, int, int, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.message) if loc else ("", 0, 0, self.message)


class InputError(PlannerError):
    """A bad plan, inventory or option: all problems at once, exit code 5, before any host is touched."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=Problem.sort_key)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return self.message


def input_error(message: str, hint: str = "", location: Location | None = None, path: str = "") -> InputError:
    return InputError([Problem(location, path, message, hint)])


class ConnectError(PlannerError):
    """A host could not be reached or authenticated: the host is UNREACHABLE."""

    exit_code = ExitCode.UNREACHABLE


class HostKeyError(ConnectError):
    """A host key was unknown (and not accepted) or changed."""


class StepError(PlannerError):
    """A step failed on a host: the host's result is FAILED, other hosts go on."""

    exit_code = ExitCode.FAILED


class OracleError(StepError):
    """A database call failed; the message carries the ORA-/DPY- code."""


class ParseError(PlannerError):
    """Tool output could not be read. Names the parser, the section and the file; the artifact is kept."""

    exit_code = ExitCode.FAILED

    def __init__(self, parser: str, section: str, message: str, *, source: str | Path | None = None,
                 line: int | None = None) -> None:
        where = f"{source}:{line}: " if source and line else (f"{source}: " if source else "")
        super().__init__(f"{where}{parser} parser: section '{section}': {message}")
        self.parser = parser
        self.section = section
        self.source = str(source) if source else None
        self.line = line


class Interrupted(PlannerError):
    """Ctrl-C or SIGTERM: prep is restored, the run record is marked interrupted, exit code 99."""

    exit_code = ExitCode.INTERRUPTED
