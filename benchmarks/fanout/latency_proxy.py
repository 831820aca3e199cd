"""A loopback TCP proxy that adds network latency: each lab host reached at a chosen round-trip time.

    python latency_proxy.py --rtt-ms 50 127.0.0.2:40001 127.0.0.3:40002 ...

One listening port on 127.0.0.1 per target; prints ``127.0.0.1:<port> <target>`` per target (in the order
given), then ``ready``, and serves until SIGTERM/SIGINT or until its stdin is closed (so it never outlives
the benchmark that started it). Every byte is held for half the RTT in each direction, so a request and its
answer cost one RTT, as a VPN or a remote site would (and a new connection the TCP handshake's RTT before the
server sees it); bytes stay in order (one FIFO per direction) and are
not limited in throughput (a chunk's delay does not wait for the previous chunk's: like a long, fat link).

Bounded: at most ``max_connections`` at once (more are closed on accept), and at most ``queue_chunks`` chunks of
at most ``chunk`` bytes queued per direction; when a queue is full the proxy stops reading that side, so TCP's
own flow control pushes back on the sender instead of the proxy's memory growing.

Loopback only: it refuses to listen on, or connect to, anything outside 127.0.0.0/8 (IP literals only, no
names to resolve), so a benchmark cannot turn it into a relay to a real network.

A measuring aid for benchmarks/fanout/bench.py, not part of planner.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import ipaddress
import signal
import sys
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

LOOPBACK = ipaddress.ip_network("127.0.0.0/8")
_EOF = b""  # queued after the last chunk: the reading side saw end of file


def loopback(address: str) -> str:
    """``address`` if it is an IPv4 literal in 127.0.0.0/8, else ValueError (names are not resolved)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise ValueError(f"{address!r} is not an IP address: the latency proxy takes loopback IPs only") from None
    if ip not in LOOPBACK:
        raise ValueError(f"{address} is outside 127.0.0.0/8: the latency proxy is loopback only")
    return address


def parse_target(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: give a target as ADDRESS:PORT, e.g. 127.0.0.2:2222")
    return loopback(host), int(port)


@dataclass(frozen=True, slots=True)
class Route:
    listen: tuple[str, int]
    target: tuple[str, int]


class LatencyProxy:
    """Listens on one 127.0.0.1 port per target; every connection is relayed with ``rtt_ms / 2`` each way."""

    def __init__(self, targets: Sequence[tuple[str, int]], rtt_ms: float, *, listen: str = "127.0.0.1",
                 max_connections: int = 256, chunk: int = 64 * 1024, queue_chunks: int = 16) -> None:
        if rtt_ms < 0:
            raise ValueError(f"rtt_ms must be >= 0, not {rtt_ms}")
        self.listen = loopback(listen)
        self.targets = [(loopback(h), int(p)) for h, p in targets]
        self.delay = rtt_ms / 2000.0  # seconds, each direction
        self.max_connections = max_connections
        self.chunk = chunk
        self.queue_chunks = queue_chunks
        self.routes: list[Route] = []
        self.active = 0  # connections being relayed now
        self.refused = 0  # connections closed on accept because max_connections were active
        self._servers: list[asyncio.Server] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> list[Route]:
        for target in self.targets:
            server = await asyncio.start_server(functools.partial(self._accept, target=target), self.listen, 0)
            self._servers.append(server)
            self.routes.append(Route(server.sockets[0].getsockname()[:2], target))
        return self.routes

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        for server in self._servers:
            await server.wait_closed()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      target: tuple[str, int]) -> None:
        if self.active >= self.max_connections:
            self.refused += 1
            writer.close()
            return
        self.active += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        upstream = asyncio.ensure_future(self._connect(target))
        up_writer: asyncio.StreamWriter | None = None
        try:
            await asyncio.gather(self._pipe(reader, self._writer_of(upstream)),
                                 self._pipe(self._reader_of(upstream), _ready(writer)))
        finally:
            upstream.cancel()
            if upstream.done() and not upstream.cancelled() and upstream.exception() is None:
                up_writer = upstream.result()[1]
            for w in (writer, up_writer):
                if w is not None:
                    w.close()
                    with contextlib.suppress(OSError, asyncio.CancelledError):
                        await w.wait_closed()
            self.active -= 1
            self._tasks.discard(task)

    async def _connect(self, target: tuple[str, int]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The server accepts when a real TCP handshake would let it: SYN, SYN-ACK, ACK = 3 one-way delays
        after the client's connect (whose own connect returned at once on loopback). Bytes the client sent
        meanwhile are already queued with their own stamps, so they arrive when they would have."""
        if self.delay:
            await asyncio.sleep(3 * self.delay)
        return await asyncio.open_connection(*target)

    @staticmethod
    async def _writer_of(upstream: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
                         ) -> asyncio.StreamWriter:
        return (await asyncio.shield(upstream))[1]

    @staticmethod
    async def _reader_of(upstream: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
                         ) -> asyncio.StreamReader:
        return (await asyncio.shield(upstream))[0]

    async def _pipe(self, reader: asyncio.StreamReader | Awaitable[asyncio.StreamReader],
                    writer: Awaitable[asyncio.StreamWriter]) -> None:
        """One direction: stamp each chunk with when it may leave, forward in order at that time."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(self.queue_chunks)

        async def read() -> None:
            try:
                source = reader if isinstance(reader, asyncio.StreamReader) else await reader
                while data := await source.read(self.chunk):
                    await queue.put((time.monotonic() + self.delay, data))  # blocks when full: backpressure
            except OSError:
                pass
            await queue.put((time.monotonic() + self.delay, _EOF))

        async def write() -> None:
            try:
                sink = await writer
                while True:
                    due, data = await queue.get()
                    # loop again if woken early: the delay is a lower bound, never rounded down
                    while (left := due - time.monotonic()) > 0:
                        await asyncio.sleep(left)
                    if not data:
                        if sink.can_write_eof():
                            sink.write_eof()
                        return
                    sink.write(data)
                    await sink.drain()
            except OSError:  # this side is gone (reset, or the server refused): stop reading the other
                return

        reading = asyncio.ensure_future(read())
        try:
            await write()
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await reading


async def _ready(writer: asyncio.StreamWriter) -> asyncio.StreamWriter:
    return writer


async def _serve(targets: list[tuple[str, int]], rtt_ms: float, max_connections: int) -> None:
    proxy = LatencyProxy(targets, rtt_ms, max_connections=max_connections)
    for route in await proxy.start():
        print(f"{route.listen[0]}:{route.listen[1]} {route.target[0]}:{route.target[1]}")
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)

    async def until_stdin_closes() -> None:  # EOF on stdin: the parent went away
        while await stdin.read(4096):
            pass
        stop.set()

    watcher = asyncio.ensure_future(until_stdin_closes())
    await stop.wait()
    watcher.cancel()
    await proxy.close()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rtt-ms", type=float, required=True, help="round-trip time to add, milliseconds")
    ap.add_argument("--max-connections", type=int, default=256)
    ap.add_argument("targets", nargs="+", help="ADDRESS:PORT in 127.0.0.0/8")
    args = ap.parse_args(argv)
    try:
        targets = [parse_target(t) for t in args.targets]
    except ValueError as e:
        print(f"latency_proxy: {e}", file=sys.stderr)
        return 2
    asyncio.run(_serve(targets, args.rtt_ms, args.max_connections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
