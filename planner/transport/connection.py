"""The Connection interface (pyinfra's connector, Fabric's Connection/Result) and the local transport.

Every remote command is an argv list. It becomes one shell line only through ``shlex.join`` in
``command_line``: user strings are never pasted into a shell unquoted. A step that needs a pipeline
builds it from ``shlex.quote``d parts and runs ``["sh", "-c", script]``.
"""

from __future__ import annotations

import abc
import contextlib
import os
import pwd
import selectors
import shlex
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
from planner.transport.become import PROMPT
from planner.transport.streams import (
    KEEP_HEAD,
    KEEP_TAIL,
    READ_BUF,
    FetchTooLarge,
    LocalSink,
    OutputBuffer,
    fetch_cap,
    inside_root,
    outside_root,
)

Argv = Sequence[str]


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What one command did (Invoke's Result, made immutable)."""

    command: str  # the exact line sent to the host
    exit_code: int
    stdout: str  # at most KEEP_HEAD + KEEP_TAIL bytes' worth, with a note where the middle was left out
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False  # the middle of a stream was left out (it held more than KEEP_HEAD + KEEP_TAIL)
    stdout_bytes: int | None = None  # how many bytes the stream really held (None: not counted)
    stderr_bytes: int | None = None
    stdin: str = ""  # what the command read on stdin (e.g. a sqlplus script), for the command log

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def captured(command: str, exit_code: int, out: OutputBuffer, err: OutputBuffer, duration_s: float,
             timed_out: bool = False) -> CommandResult:
    return CommandResult(command, exit_code, out.text(), err.text(), duration_s, timed_out,
                         out.truncated or err.truncated, out.total, err.total)


# A login to the become user as ``sudo -i`` gives one (its profile: ORACLE_HOME, PATH...), without ``-i``: sudo -i
# joins its arguments into one ``shell -c`` string, backslash-escaping all but [A-Za-z0-9_$-] (sudo's
# src/parse_args.c), so a newline becomes a line continuation and a "$" is expanded by the login shell
# (docs/become.md). Run as ``sh -c LOGIN_SH sh ARGV...`` under plain sudo: home as -i does, then the account's
# login shell with -l (sh-family shells only; others get no profile) reads its profile with stdin and stdout on
# /dev/null (a profile's output cannot join the command's, nor can it read its input) and execs ARGV untouched.
LOGIN_SH = ('cd 2>/dev/null; s=$(getent passwd "$(id -un)" 2>/dev/null | cut -d: -f7); case "${s##*/}" in '
            'sh|bash|dash|ksh|ksh93|mksh|zsh) exec "$s" -l -c \'exec <&3 >&4 3<&- 4>&-; exec "$@"\' "$s" "$@" '
            '3<&0 4>&1 </dev/null >/dev/null;; esac; exec "$@"')


def as_login(line: str) -> str:
    """``line`` (a shell line) run in the become user's login environment (LOGIN_SH)."""
    return shlex.join(["sh", "-c", LOGIN_SH, "sh", "sh", "-c", line])


def command_line(argv: Argv, *, become: bool = False, become_user: str = "root", login: bool = False,
                 env: Mapping[str, str] | None = None, cwd: str | None = None, ask_password: bool = False,
                 prompt: str = PROMPT) -> str:
    """Quote ``argv`` into one shell line, optionally under ``sudo -n`` and with env/cwd.

    ``login`` runs it in the become user's login environment (LOGIN_SH) so an Oracle OS user's profile sets
    ORACLE_HOME/ORACLE_SID; ``env`` still wins over the profile. Never ``sudo -i`` (see LOGIN_SH).
    ``ask_password``: ``sudo -S -p PROMPT`` instead of ``-n``, the password then read on stdin
    (planner.transport.become: the line holds the prompt, never the password).
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
    return under_sudo(line, become_user=become_user, login=login, ask_password=ask_password, prompt=prompt) if (
        become) else line


def under_sudo(line: str, *, become_user: str = "root", login: bool = False, ask_password: bool = False,
               prompt: str = PROMPT) -> str:
    """A shell line as become sends it (command_line's wrapping): -C -D shows a kind's readable lines this way."""
    if login:
        line = as_login(line)
    ask = ["-S", "-p", prompt] if ask_password else ["-n"]
    # sh -c keeps cd/&& working; sudo passes its arguments to it as they are (no -i, no -s: no escaping)
    return shlex.join(["sudo", *ask, "-H", "-u", become_user, "--", "sh", "-c", line])


def login_user(host: Host) -> str | None:
    """The account commands on ``host`` run as before any sudo: the controller's own for the local transport,
    ansible_user over SSH (None when ssh_config or the default decides: not known here)."""
    if host.connection == "local":
        return pwd.getpwuid(os.geteuid()).pw_name
    return host.user


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
    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        """Copy ``remote`` to ``local``: written atomically, mode 0600, streamed and hashed as it arrives.

        A file larger than ``max_bytes`` is refused (FetchTooLarge) before it is copied; a path that resolves
        (through symlinks) outside the host's ``planner_root`` is refused (OSError) and never read.
        """

    @abc.abstractmethod
    def close(self) -> None: ...

    def first_output(self, argv: Argv, *, timeout: float) -> tuple[str, int | None]:
        """(stdout, the controller's time.time_ns() when its first bytes arrived; None: not known) of a short
        command that succeeded (else ("", None)). The clock-offset estimate needs the instant the host's
        answer left, not the end of the command, which also waits for the host's process to be reaped."""
        r = self.run(argv, timeout=timeout)
        return (r.stdout, None) if r.ok else ("", None)

    def read_text(self, remote: str) -> str | None:
        """The file's text, or None when it does not exist."""
        r = self.run(["sh", "-c", 'test -e "$1" || exit 3; cat -- "$1"', "sh", remote])
        if r.exit_code == 3:
            return None
        if not r.ok:
            raise OSError(f"{self.host.name}: cannot read {remote}: {r.stderr.strip()}")
        if r.truncated:  # a cut text must never be compared, saved or restored as if it were the file
            raise OSError(f"{self.host.name}: {remote} is larger than {KEEP_HEAD + KEEP_TAIL} bytes "
                          f"({r.stdout_bytes} bytes): too large to read as text; fetch it instead")
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

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        self.inner.get(remote, local, max_bytes=max_bytes)

    def first_output(self, argv: Argv, *, timeout: float) -> tuple[str, int | None]:
        return self.inner.first_output(argv, timeout=timeout)

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
        out, err = OutputBuffer(), OutputBuffer()
        deadline = started + timeout if timeout else None
        try:
            timed_out = not _pump(proc, stdin, out, err, deadline, self.cancelled)
            if self.cancelled.is_set():
                raise Interrupted(f"{self.host.name}: interrupted: {line[:200]}")
            if timed_out:
                _kill_group(proc.pid)
                _pump(proc, None, out, err, time.monotonic() + 5.0, None)  # what it wrote while dying
            proc.wait()
        except BaseException:
            _kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        return captured(line, proc.returncode if not timed_out else 124, out, err, time.monotonic() - started,
                        timed_out)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        payload = data.read_bytes() if isinstance(data, Path) else data
        atomic_write(Path(remote), payload, mode)

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        real = os.path.realpath(remote)
        root = str(self.host.vars.get("planner_root") or "")
        if root and not inside_root(real, os.path.realpath(root)):
            raise outside_root(self.host.name, remote, real, root)
        max_bytes = fetch_cap(max_bytes, self.host.vars)
        size = os.stat(real).st_size
        if max_bytes is not None and size > max_bytes:
            raise FetchTooLarge(self.host.name, remote, size, max_bytes)
        with open(real, "rb") as src, LocalSink(local, max_bytes, self.host.name, remote) as sink:
            for chunk in iter(lambda: src.read(READ_BUF), b""):
                sink.write(chunk)
            sink.commit()

    def close(self) -> None:
        pass


def _pump(proc: subprocess.Popen[bytes], stdin: bytes | None, out: OutputBuffer, err: OutputBuffer,
          deadline: float | None, cancelled: threading.Event | None) -> bool:
    """Feed stdin and read both pipes into their buffers until both close; False when the deadline passed
    (or cancelled was set) first. Never more than READ_BUF bytes in hand at once."""
    sel = selectors.DefaultSelector()
    streams = {proc.stdout: out, proc.stderr: err}
    for pipe in streams:
        assert pipe is not None
        sel.register(pipe, selectors.EVENT_READ)
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    try:
        while len(sel.get_map()):
            if cancelled is not None and cancelled.is_set():
                return False
            wait = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic()))
            if deadline is not None and wait <= 0:
                return False
            for key, _ in sel.select(wait):
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:READ_BUF]):]
                    except BrokenPipeError:
                        pending = pending[:0]  # the command stopped reading: the rest is not wanted
                    if not pending:
                        sel.unregister(key.fileobj)
                        proc.stdin.close()
                    continue
                data = os.read(key.fd, READ_BUF)
                if not data:
                    sel.unregister(key.fileobj)
                else:
                    streams[key.fileobj].write(data)  # type: ignore[index]
    finally:
        sel.close()
    # Both pipes closed: the command is ending (a background child holding them would have kept us here).
    while proc.poll() is None:
        if cancelled is not None and cancelled.is_set():
            return False
        if deadline is not None and time.monotonic() >= deadline:
            return False
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.25)
    return True


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
