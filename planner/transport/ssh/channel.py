"""The SSH channel protocol planner relies on: drain stdout and stderr together until the exit status.

Kept apart from planner/transport/ssh/client.py (the one paramiko import) because it only uses a channel's methods:
reading both streams in one select loop is what keeps a 50 MB output from deadlocking the window
(paramiko #448, #1778), and the first stderr line carries the command's process-group id.
"""

from __future__ import annotations

import select
import threading
import time
from typing import Any

from planner.errors import ConnectError, Interrupted

PGID_MARK = b"planner-pgid:"
BUF = 1 << 16


def drain(chan: Any, stdin: bytes | None, deadline: float | None, pgid: int | None, cancelled: threading.Event,
          host: str) -> tuple[bytes, bytes, int | None, bool]:
    """Read stdout and stderr together until exit status; (out, err, pgid, timed_out).

    ``pgid`` None: the first stderr line is planner's process-group marker, taken out of stderr.
    """
    out, err = bytearray(), bytearray()
    head = bytearray() if pgid is None else None  # stderr until the pgid line is seen
    pending = memoryview(stdin or b"")
    if not pending:
        chan.shutdown_write()
    while True:
        while pending and chan.send_ready():
            pending = pending[chan.send(pending[:BUF]):]
            if not pending:
                chan.shutdown_write()
        wait = 0.05 if pending else 0.5
        if deadline is not None:
            wait = max(0.0, min(wait, deadline - time.monotonic()))
        select.select([chan], [], [], wait)
        if cancelled.is_set():  # Ctrl-C in the main thread: run()'s handler kills the remote group
            raise Interrupted(f"{host}: interrupted")
        while chan.recv_ready():
            out += chan.recv(BUF)
        while chan.recv_stderr_ready():
            data = chan.recv_stderr(BUF)
            if head is None:
                err += data
                continue
            head += data
            if b"\n" in head or len(head) > 64:
                first, _, rest = bytes(head).partition(b"\n")
                if first.startswith(PGID_MARK) and first[len(PGID_MARK):].isdigit():
                    pgid = int(first[len(PGID_MARK):])
                    chan._planner_pgid = pgid  # for the Ctrl-C path (paramiko Channel has a __dict__)
                    err += rest
                else:  # no marker: setsid or sudo failed before our echo ran
                    err += head
                head = None
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
            return bytes(out), bytes(err + (head or b"")), pgid, False
        if deadline is not None and time.monotonic() >= deadline:
            return bytes(out), bytes(err + (head or b"")), pgid, True


def stays_active(transport: Any, within_s: float = 0.5) -> bool:
    """Whether the transport is still alive a moment later (paramiko notices a dead peer asynchronously)."""
    deadline = time.monotonic() + within_s
    while transport.is_active():
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.02)
    return False
