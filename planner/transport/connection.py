"""The Connection interface (pyinfra's connector, Fabric's Connection/Result) and the local transport.

Every remote command is an argv list. It becomes one shell line only through ``shlex.join`` in
``command_line``: user strings are never pasted into a shell unquoted. A step that needs a pipeline
builds it from ``shlex.quote``d parts and runs ``["sh", "-c", script]``.
"""

from __future__ import annotations

import abc
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.errors import Interrupted
from planner.files import atomic_write
from planner.host import Host

Argv = Sequence[str]


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What one command did (Invoke's Result, made immutable)."""

    command: str  # the exact line sent to the host
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    stdin: str = ""  # what the command read on stdin (e.g. a sqlplus script), for the command log

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def command_line(argv: Argv, *, become: bool = False, become_user: str = "root", login: bool = False,
                 env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    """Quote ``argv`` into one shell line, optionally under ``sudo -n`` and with env/cwd.

    ``login`` uses ``sudo -n -i -u USER`` so an Oracle OS user's profile sets ORACLE_HOME/ORACLE_SID.
    """
    if isinstance(argv, str):
        raise TypeError("command must be an argv list, not a string: build it from quoted parts")
    parts = list(argv)
    if env:
        for k in env:
            if not k.replace("_", "a").isalnum() or k[0].isdigit():
                raise ValueError(f"bad environment variable name: {k!r}")
        parts = ["env", *(f"{k}={v}" for k, v in env.items()), *parts]
    line = shlex.join(parts)
    if cwd:
        line = f"cd {shlex.quote(cwd)} && {line}"
    if become:
        sudo = ["sudo", "-n", "-i" if login else "-H", "-u", become_user, "--"]
        # sudo -i hands its arguments to the login shell with escaping; sh -c keeps cd/&& working.
        line = shlex.join([*sudo, "sh", "-c", line])
    return line


class Connection(abc.ABC):
    """run / put / get / close. Implementations must be safe to use from one worker thread at a time."""

    host: Host

    @property
    def cancelled(self) -> threading.Event:
        """Set by ``cancel()``: running commands stop (their process group killed) and raise Interrupted."""
        ev = self.__dict__.get("_cancel_event")
        if ev is None:
            ev = self.__dict__.setdefault("_cancel_event", threading.Event())
        return ev

    def cancel(self) -> None:
        """Called from the main thread on Ctrl-C/SIGTERM while worker threads wait on this host."""
        self.cancelled.set()

    def resume(self) -> None:
        """Allow commands again (restore runs after an interrupt)."""
        self.cancelled.clear()

    @abc.abstractmethod
    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        """Run a command in its own process group; on timeout kill the whole group."""

    @abc.abstractmethod
    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        """Write bytes (or a local file) to ``remote`` atomically (temp file + rename)."""

    @abc.abstractmethod
    def get(self, remote: str, local: Path) -> None:
        """Copy ``remote`` to ``local`` (written atomically)."""

    @abc.abstractmethod
    def close(self) -> None: ...

    def read_text(self, remote: str) -> str | None:
        """The file's text, or None when it does not exist."""
        r = self.run(["sh", "-c", 'test -e "$1" || exit 3; cat -- "$1"', "sh", remote])
        if r.exit_code == 3:
            return None
        if not r.ok:
            raise OSError(f"{self.host.name}: cannot read {remote}: {r.stderr.strip()}")
        return r.stdout

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WrappedConnection(Connection):
    """Passes everything to ``inner``; a wrapper (process-group tracking, answered probes) overrides what it
    changes. Cancelling goes to the inner connection, whose commands are the ones to stop."""

    def __init__(self, inner: Connection) -> None:
        self.inner = inner
        self.host = inner.host

    @property
    def cancelled(self) -> threading.Event:
        return self.inner.cancelled

    def cancel(self) -> None:
        self.inner.cancel()

    def resume(self) -> None:
        self.inner.resume()

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        return self.inner.run(argv, become=become, become_user=become_user, login=login, timeout=timeout,
                              env=env, cwd=cwd, stdin=stdin)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        self.inner.put(data, remote, mode=mode)

    def get(self, remote: str, local: Path) -> None:
        self.inner.get(remote, local)

    def close(self) -> None:
        self.inner.close()

class LocalConnection(Connection):
    """``ansible_connection=local``: the controller itself, through the same interface."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        line = command_line(argv, become=become, become_user=become_user or self.host.become_user,
                            login=login, env=env, cwd=cwd)
        started = time.monotonic()
        # A new session = a new process group, so a timeout or Ctrl-C can kill the whole tree.
        proc = subprocess.Popen(["/bin/sh", "-c", line], stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        timed_out = False
        deadline = started + timeout if timeout else None
        pending_in = stdin
        try:
            while True:
                if self.cancelled.is_set():
                    _kill_group(proc.pid)
                    proc.communicate()
                    raise Interrupted(f"{self.host.name}: interrupted: {line[:200]}")
                slice_s = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic()))
                try:
                    out, err = proc.communicate(pending_in, timeout=slice_s)
                    break
                except subprocess.TimeoutExpired:
                    pending_in = None  # communicate() keeps feeding what it already started sending
                    if deadline is not None and time.monotonic() >= deadline:
                        timed_out = True
                        _kill_group(proc.pid)
                        out, err = proc.communicate()
                        break
        except BaseException:
            _kill_group(proc.pid)
            proc.wait()
            raise
        return CommandResult(line, proc.returncode if not timed_out else 124,
                             out.decode(errors="replace"), err.decode(errors="replace"),
                             time.monotonic() - started, timed_out)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        payload = data.read_bytes() if isinstance(data, Path) else data
        atomic_write(Path(remote), payload, mode)

    def get(self, remote: str, local: Path) -> None:
        local.parent.mkdir(parents=True, exist_ok=True)
        tmp = local.with_name(f".{local.name}.part")
        shutil.copyfile(remote, tmp)
        os.replace(tmp, local)

    def close(self) -> None:
        pass


def _kill_group(pid: int, grace_s: float = 2.0) -> None:
    """SIGTERM the process group, give it ``grace_s`` to flush its output, then SIGKILL what is left."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
