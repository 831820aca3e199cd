"""The command's process group is planner's own object (channel.ProcessGroup), never an attribute put on the
SSH library's channel: the drain loop works on any channel with paramiko's methods, also one without a
``__dict__``, and what interrupts it (Ctrl-C) still finds the group to kill. No process, no network: a
socket pair only makes the channel selectable."""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator

import pytest

from planner.errors import Interrupted
from planner.transport.ssh.channel import ProcessGroup, drain


class SlottedChannel:
    """paramiko.Channel's reading side, scripted, with ``__slots__``: no attribute can be added to it."""

    __slots__ = ("_out", "_err", "_sock", "_peer", "eof_received", "closed", "on_stderr")

    def __init__(self, out: bytes, err: bytes, on_stderr: threading.Event | None = None) -> None:
        self._out, self._err = bytearray(out), bytearray(err)
        self._sock, self._peer = socket.socketpair()
        self._peer.send(b"x")  # always readable: select returns at once
        self.eof_received, self.closed = True, False
        self.on_stderr = on_stderr

    def fileno(self) -> int:
        return self._sock.fileno()

    def shutdown_write(self) -> None:
        pass

    def send_ready(self) -> bool:
        return True

    def recv_ready(self) -> bool:
        return bool(self._out)

    def recv(self, n: int) -> bytes:
        data, self._out[:] = bytes(self._out[:n]), self._out[n:]
        return data

    def recv_stderr_ready(self) -> bool:
        return bool(self._err)

    def recv_stderr(self, n: int) -> bytes:
        data, self._err[:] = bytes(self._err[:n]), self._err[n:]
        if self.on_stderr is not None:  # what the main thread's Ctrl-C does while the command runs
            self.on_stderr.set()
        return data

    def exit_status_ready(self) -> bool:
        return True

    def close(self) -> None:
        self._sock.close()
        self._peer.close()


@pytest.fixture
def channels() -> Iterator[list[SlottedChannel]]:
    made: list[SlottedChannel] = []
    yield made
    for c in made:
        c.close()


def test_the_group_is_read_into_planners_object_on_a_channel_without_a_dict(
        channels: list[SlottedChannel]) -> None:
    chan = SlottedChannel(b"out\n", b"planner-pgid:4242\nsaid\n")
    channels.append(chan)
    group, out, err = ProcessGroup(), io.BytesIO(), io.BytesIO()
    timed_out = drain(chan, None, None, group, threading.Event(), "h1", out, err)
    assert (timed_out, group.pgid, out.getvalue(), err.getvalue()) == (False, 4242, b"out\n", b"said\n")


def test_an_interrupted_drain_leaves_the_group_to_kill_in_planners_object(channels: list[SlottedChannel]) -> None:
    cancelled = threading.Event()
    chan = SlottedChannel(b"", b"planner-pgid:77\n", on_stderr=cancelled)
    chan.eof_received = False  # still running when Ctrl-C comes
    channels.append(chan)
    group = ProcessGroup()
    with pytest.raises(Interrupted):
        drain(chan, None, None, group, cancelled, "h1", io.BytesIO(), io.BytesIO())
    assert group.pgid == 77  # client._exec kills this group on the way out
