"""The fan-out benchmark's latency proxy (benchmarks/fanout/latency_proxy.py), on loopback, in one event loop.

Correctness, not speed: bytes arrive intact and in order both ways, and the time measured around a round trip is
at least the chosen RTT (a lower bound: the proxy may be late on a loaded machine, never early). No sleeps: every
wait is on data arriving or a connection closing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

PROXY = Path(__file__).resolve().parents[2] / "benchmarks" / "fanout" / "latency_proxy.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("latency_proxy", PROXY)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


lp = _load()


async def _with_server(handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
                       rtt_ms: float, body: Callable[[int, Any], Awaitable[None]], **kw: int) -> None:
    """A loopback server, a proxy in front of it, then ``body(proxy_port, proxy)``; everything closed after."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    proxy = lp.LatencyProxy([("127.0.0.1", port)], rtt_ms, **kw)
    try:
        (route,) = await proxy.start()
        assert route.listen[0] == "127.0.0.1" and route.target == ("127.0.0.1", port)
        await body(route.listen[1], proxy)
    finally:
        await proxy.close()
        server.close()
        await server.wait_closed()


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


def test_echo_round_trip_is_intact_in_order_and_takes_at_least_the_rtt() -> None:
    rtt_ms = 40.0
    payload = os.urandom(3 * 1024 * 1024 + 17)  # several chunks and queue fills: order across chunks matters

    async def body(port: int, proxy: Any) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        # one small message first: its echo is one round trip through the proxy, both directions delayed
        start = time.monotonic()
        writer.write(b"ping")
        await writer.drain()
        assert await reader.readexactly(4) == b"ping"
        assert time.monotonic() - start >= rtt_ms / 1000

        async def send() -> None:
            for i in range(0, len(payload), 10_000):  # many writes: order must survive the chunking
                writer.write(payload[i:i + 10_000])
                await writer.drain()
            writer.write_eof()

        sending = asyncio.ensure_future(send())
        start = time.monotonic()
        echoed = await reader.read(-1)  # until EOF: the echo server closed after our EOF came through
        assert time.monotonic() - start >= rtt_ms / 1000
        await sending
        assert len(echoed) == len(payload)
        assert echoed == payload
        writer.close()

    asyncio.run(_with_server(_echo, rtt_ms, body))


def test_each_direction_is_delayed_by_half_the_rtt_and_keeps_its_own_bytes() -> None:
    rtt_ms = 60.0
    got_at: list[float] = []
    received = bytearray()
    banner = b"SSH-2.0-banner-from-the-server\r\n" + bytes(range(256)) * 64

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(banner)  # server -> client without being asked, as sshd does
        await writer.drain()
        first = await reader.read(65536)
        got_at.append(time.monotonic())
        received.extend(first)
        received.extend(await reader.read(-1))
        writer.close()

    async def body(port: int, proxy: Any) -> None:
        opened = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await reader.readexactly(len(banner)) == banner
        # the TCP handshake's round trip (the server accepts 1.5 RTT after the connect), then half an RTT back
        assert time.monotonic() - opened >= 2 * rtt_ms / 1000
        sent = time.monotonic()
        writer.write(b"client-to-server" * 1000)
        await writer.drain()
        writer.write_eof()
        assert await reader.read(-1) == b""  # the server closed: everything it had was already read
        assert got_at and got_at[0] - sent >= rtt_ms / 2000
        writer.close()

    asyncio.run(_with_server(server, rtt_ms, body))
    assert bytes(received) == b"client-to-server" * 1000


def test_zero_rtt_passes_bytes_straight_through() -> None:
    async def body(port: int, proxy: Any) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"abc" * 5000)
        writer.write_eof()
        assert await reader.read(-1) == b"abc" * 5000
        writer.close()

    asyncio.run(_with_server(_echo, 0, body))


def test_connections_over_the_limit_are_closed_on_accept() -> None:
    async def body(port: int, proxy: Any) -> None:
        r1, w1 = await asyncio.open_connection("127.0.0.1", port)
        w1.write(b"x")
        assert await r1.readexactly(1) == b"x"  # the first connection is relayed, so it is counted
        r2, w2 = await asyncio.open_connection("127.0.0.1", port)
        assert await r2.read(-1) == b""  # the second: closed at once, never reaches the server
        assert proxy.refused == 1 and proxy.active == 1
        w1.write(b"y")
        assert await r1.readexactly(1) == b"y"  # the first still works
        for w in (w1, w2):
            w.close()

    asyncio.run(_with_server(_echo, 10, body, max_connections=1))


@pytest.mark.parametrize("targets, listen", [
    ([("10.0.0.1", 22)], "127.0.0.1"),
    ([("127.0.0.2", 22)], "0.0.0.0"),
    ([("localhost", 22)], "127.0.0.1"),  # names are not resolved: only loopback literals
    ([("::1", 22)], "127.0.0.1"),
])
def test_anything_but_loopback_is_refused(targets: list[tuple[str, int]], listen: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        lp.LatencyProxy(targets, 10, listen=listen)


def test_command_line_targets_are_checked() -> None:
    assert lp.parse_target("127.0.0.5:2222") == ("127.0.0.5", 2222)
    for bad in ("192.168.1.1:22", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:http"):
        with pytest.raises(ValueError):
            lp.parse_target(bad)
