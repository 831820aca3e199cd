"""A Connection that answers from a script and records what a step sent: no process, no host."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.host import Host
from planner.steps.base import READ_TEXT
from planner.transport.connection import Argv, CommandResult, Connection, command_line


@dataclass(frozen=True, slots=True)
class Answer:
    """What the scripted host answers to one command."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class Ran:
    """One command a step sent, and ``shown``: it as one line, each named script as ``<NAME>`` (a long fixed
    script would bury the arguments that differ), under ``sudo -u USER --`` when it ran with become."""

    argv: tuple[str, ...]
    shown: str
    become: bool = False
    become_user: str | None = None
    cwd: str | None = None
    stdin: str = ""


class UnscriptedCommand(AssertionError):
    """A command the script has no answer for: the test says what the host would answer, or the step is wrong."""


class ScriptedConnection(Connection):
    """``files``: the host's files by path (``read_text`` answers from them, a missing one as absent; ``put``
    writes into them). ``answers``: a command as ``Ran.shown`` gives it -> its ``Answer`` (or stdout).
    ``scripts``: name -> a fixed script's text, shown as ``<name>``; ``READ_TEXT`` is always named.
    ``strict``: a command without an answer raises UnscriptedCommand (else it answers exit 0, no output)."""

    def __init__(self, host: Host, answers: Mapping[str, Answer | str] | None = None, *,
                 files: Mapping[str, str] | None = None, scripts: Mapping[str, str] | None = None,
                 strict: bool = True) -> None:
        self.host = host
        self.answers = {k: Answer(v) if isinstance(v, str) else v for k, v in (answers or {}).items()}
        self.files: dict[str, str] = dict(files or {})
        self.names = {text: name for name, text in {"READ_TEXT": READ_TEXT, **(scripts or {})}.items()}
        self.strict = strict
        self.ran: list[Ran] = []
        self.written: dict[str, bytes] = {}  # put(): path -> bytes, in order
        self.fetched: list[str] = []  # get(): the paths asked for

    @property
    def commands(self) -> list[str]:
        """What ran, one line each (``Ran.shown``): the list a test compares."""
        return [r.shown for r in self.ran]

    def show(self, argv: Sequence[str]) -> str:
        return shlex.join(f"<{self.names[a]}>" if a in self.names else a for a in argv)

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        shown = self.show([*(f"{k}={v}" for k, v in (env or {}).items()), *argv])
        if cwd:
            shown = f"cd {shlex.quote(cwd)} && {shown}"
        if become:
            shown = f"sudo -u {become_user or self.host.become_user} -- {shown}"
        text = (stdin or b"").decode("utf-8", "replace")
        self.ran.append(Ran(tuple(argv), shown, become, become_user, cwd, text))
        line = command_line(list(argv), become=become, become_user=become_user or self.host.become_user,
                            login=login, env=env, cwd=cwd)
        answer = self._answer(list(argv), shown)
        return CommandResult(line, answer.exit_code, answer.stdout, answer.stderr, 0.0, stdin=text)

    def _answer(self, argv: list[str], shown: str) -> Answer:
        if argv[:3] == ["sh", "-c", READ_TEXT] and len(argv) == 5:  # Connection.read_text: exit 3 is "absent"
            text = self.files.get(argv[4])
            return Answer(exit_code=3) if text is None else Answer(text)
        if shown in self.answers:
            return self.answers[shown]
        if self.strict:
            raise UnscriptedCommand(f"{self.host.name}: no scripted answer for: {shown}")
        return Answer()

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        body = data.read_bytes() if isinstance(data, Path) else data
        self.written[remote] = body
        self.files[remote] = body.decode("utf-8", "replace")

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        self.fetched.append(remote)
        if remote not in self.files:
            raise FileNotFoundError(f"{self.host.name}: {remote}: no such file in the script")
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(self.files[remote])

    def close(self) -> None:
        pass
