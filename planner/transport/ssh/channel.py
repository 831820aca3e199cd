"""The SSH channel protocol planner relies on: drain stdout and stderr together until the exit status.

Kept apart from planner/transport/ssh/client.py (the one paramiko import) because it only uses a channel's methods:
reading both streams in one select loop is what keeps a 50 MB output from deadlocking the window
(paramiko #448, #1778), and the first stderr line carries the command's process-group id.
"""

from __future__ import annotations

import contextlib
import select
import threading
import time
from typing import Any, Protocol

from planner.errors import ConnectError, Interrupted
from planner.transport.become import PROMPT_BYTES, BecomePassword, PromptAnswer

PGID_MARK = b"planner-pgid:"
BUF = 1 << 16
HEAD_MAX = 4096  # stderr without a line end before the marker: past this, sudo is not asking for the password


class Sink(Protocol):
    def write(self, data: bytes, /) -> object: ...


class ProcessGroup:
    """One command's remote process group, once its marker line was read: planner's own object, so that what
    interrupts or loses the channel (Ctrl-C, a dropped connection) can still name the group to kill."""

    __slots__ = ("pgid",)

    def __init__(self, pgid: int | None = None) -> None:
        self.pgid = pgid


def drain(chan: Any, stdin: bytes | None, deadline: float | None, group: ProcessGroup, cancelled: threading.Event,
          host: str, out: Sink, err: Sink, secret: BecomePassword | None = None,
          prompt: bytes = PROMPT_BYTES) -> bool:
    """Read stdout and stderr together until exit status, into ``out`` and ``err`` as they arrive (never more
    than BUF bytes in hand: a 500 MB output costs no memory here); returns whether the deadline passed.

    ``group.pgid`` None: the first stderr line is planner's process-group marker, taken out of stderr and
    kept in ``group`` the moment it is read (an exception later still finds it there).
    ``secret``: the command runs under ``sudo -S -p prompt``: that prompt is answered before the marker, and the
    command's own stdin waits for the marker (sudo has let it in), so sudo never reads it as a password.
    """
    # stderr until the pgid line is seen
    head = _Head(chan, host, secret, prompt, group) if group.pgid is None else None
    pending = memoryview(stdin or b"")
    held = head is not None and secret is not None
    if not pending and not held:
        chan.shutdown_write()
    while True:
        while pending and not held and chan.send_ready():
            pending = pending[chan.send(pending[:BUF]):]
            if not pending:
                chan.shutdown_write()
        wait = 0.05 if pending and not held else 0.5
        if deadline is not None:
            wait = max(0.0, min(wait, deadline - time.monotonic()))
        select.select([chan], [], [], wait)
        if cancelled.is_set():  # Ctrl-C in the main thread: run()'s handler kills the remote group
            raise Interrupted(f"{host}: interrupted")
        while chan.recv_ready():
            out.write(chan.recv(BUF))
        while chan.recv_stderr_ready():
            data = chan.recv_stderr(BUF)
            if head is None:
                err.write(data)
                continue
            if head.feed(data, err):
                head = None
                if held:
                    held = False
                    if not pending:
                        chan.shutdown_write()
        if chan.recv_ready() or chan.recv_stderr_ready():
            continue
        # sshd may send exit-status before the last output, so also wait for EOF (or close:
        # a command killed by a signal gets exit-signal, which paramiko leaves as -1).
        if (chan.eof_received and chan.exit_status_ready()) or chan.closed:
            # A server always sends EOF before closing; a channel closed without one lost its transport
            # (paramiko closes the channels, which also sets exit status -1, before it marks the
            # transport inactive).
            if not chan.eof_received:
                raise ConnectError("the SSH connection closed before the command finished")
            if head is not None:
                err.write(bytes(head.buf))
            return False
        if deadline is not None and time.monotonic() >= deadline:
            if head is not None:
                err.write(bytes(head.buf))
            return True


class _Head:
    """stderr up to planner's process-group line; under ``sudo -S``, sudo's prompt answered on the way."""

    def __init__(self, chan: Any, host: str, secret: BecomePassword | None, prompt: bytes = PROMPT_BYTES,
                 group: ProcessGroup | None = None) -> None:
        self.chan, self.buf = chan, bytearray()
        self.group = group if group is not None else ProcessGroup()
        self.answer = PromptAnswer(host, secret, prompt) if secret is not None else None

    def feed(self, data: bytes, err: Sink) -> bool:
        """Take more stderr; True once the head is over (``group.pgid`` set when the marker was its end)."""
        self.buf += data
        if self.answer is None:
            if b"\n" not in self.buf and len(self.buf) <= 64:
                return False
            first, _, rest = bytes(self.buf).partition(b"\n")
            if self._marker(first):
                err.write(rest)
            else:  # no marker: setsid or sudo failed before our echo ran
                err.write(bytes(self.buf))
            return True
        before, rest, reply = self.answer.feed(bytes(self.buf))
        if reply:
            self.chan.sendall(reply)
        err.write(before)
        self.buf = bytearray(rest)
        # sudo's own lines (its lecture) come before the marker: passed on while looking, within bounds
        while b"\n" in self.buf:
            first, _, rest = bytes(self.buf).partition(b"\n")
            self.buf = bytearray(rest)
            if self._marker(first):
                err.write(rest)
                return True
            err.write(first + b"\n")
        if len(self.buf) <= HEAD_MAX:
            return False
        err.write(bytes(self.buf))
        return True

    def _marker(self, line: bytes) -> bool:
        if line.startswith(PGID_MARK) and line[len(PGID_MARK):].isdigit():
            self.group.pgid = int(line[len(PGID_MARK):])
            return True
        return False


def stays_active(transport: Any, within_s: float = 0.5) -> bool:
    """Whether the transport is still alive a moment later (paramiko notices a dead peer asynchronously)."""
    deadline = time.monotonic() + within_s
    while transport.is_active():
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.02)
    return False


class PeerWatch:
    """OpenSSH's ServerAliveInterval / ServerAliveCountMax: dead-peer detection for one transport.

    paramiko's own ``Transport.set_keepalive`` sends requests that ask for no reply, so it keeps NAT state alive but
    can never notice a peer that stopped answering (a frozen host, a SIGSTOPped sshd: TCP still acks, nothing else
    comes back) and a command on it would wait forever. Here one thread sends ``keepalive@openssh.com`` with
    want-reply every ``interval_s`` (OpenSSH's sshd answers every global request, if only with a failure), and
    another closes the transport once a request has waited ``interval_s * count_max`` seconds: whatever runs on it
    then fails with ConnectError at once, and ``dead`` says why.
    """

    def __init__(self, transport: Any, interval_s: float, count_max: int) -> None:
        self.interval_s, self.count_max = interval_s, max(1, count_max)
        self.dead: str | None = None
        self._transport = transport
        self._stop = threading.Event()
        self._sent: float | None = None  # when the unanswered request went out
        for body in (self._ping, self._watch):
            threading.Thread(target=body, daemon=True, name="ssh-keepalive").start()

    @property
    def limit_s(self) -> float:
        return self.interval_s * self.count_max

    def _ping(self) -> None:
        # The first request one interval after the connect, as OpenSSH's (it asks only after that much silence): a
        # session shorter than that, such as a warm host's one exec, sends none (before: one at once, answered).
        while not self._stop.wait(self.interval_s) and self._transport.is_active():
            self._sent = time.monotonic()
            try:
                # Blocks until the reply, or until the transport closes (paramiko polls its state every 0.1 s).
                self._transport.global_request("keepalive@openssh.com", wait=True)
            except Exception:  # the transport died under the request: nothing left to watch
                return
            self._sent = None

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, self.interval_s / 2)):
            if not self._transport.is_active():
                return
            sent = self._sent
            if sent is not None and time.monotonic() - sent > self.limit_s:
                self.dead = (f"the host stopped answering: no reply to an SSH keepalive for {self.limit_s:g}s "
                             f"(planner_keepalive_s / ServerAliveInterval {self.interval_s:g} x "
                             f"planner_keepalive_count / ServerAliveCountMax {self.count_max})")
                with contextlib.suppress(Exception):
                    self._transport.close()
                return

    def stop(self) -> None:
        self._stop.set()
