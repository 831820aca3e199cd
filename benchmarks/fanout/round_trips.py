"""Round trips of one warm host, planner vs bare.py, behind the latency proxy (issue 47, stop 53).

    python benchmarks/fanout/round_trips.py [--rtt 50] [--reps 5] [--show]

One lab host (as bench.py builds it) behind latency_proxy.py at ``--rtt`` ms. Each tool runs in a fresh process
under a tracer (``round_trips.py --trace LOG -- ARGV``) that stamps, on the controller's clock, every TCP connect,
the server's banner, and every SSH packet paramiko writes or reads (its type). From that timeline a *wait on the
peer* is a packet read at least RTT/2 after both the last packet written and the last one read (the client sat
idle on the network), named ``sent-type -> read-type``; a gap after a read with nothing written since is the
host's work, not a round trip. Planner runs cold once (the lab is then warm), then planner and bare warm, ``--reps``
times interleaved. Prints per tool the steps with their waits, and the medians of the host's wall from the TCP
connect to the last packet (which at 50 ms RTT is ~waits x RTT, so it reads through a loaded machine).

A measuring aid, not part of planner.
"""

from __future__ import annotations

import argparse
import os
import runpy
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


# -- the tracer (runs inside the tool's process) ---------------------------------------------------------------

def _trace(log_path: str, argv: list[str]) -> None:
    import paramiko.packet as pk
    from paramiko.common import MSG_NAMES

    out = open(log_path, "w", buffering=1)  # noqa: SIM115  (held for the whole process)
    lock = threading.Lock()

    def note(kind: str, what: str) -> None:
        with lock:
            out.write(f"{time.monotonic():.6f} {kind} {what}\n")

    note("start", "-")
    real_connect = socket.create_connection

    def create_connection(*a, **kw):  # type: ignore[no-untyped-def]
        note("connect", "tcp")
        return real_connect(*a, **kw)

    socket.create_connection = create_connection  # type: ignore[assignment]
    real_send, real_read, real_line = pk.Packetizer.send_message, pk.Packetizer.read_message, pk.Packetizer.readline

    def send_message(self, data):  # type: ignore[no-untyped-def]
        b = data.asbytes()
        note("send", MSG_NAMES.get(b[0], str(b[0])))
        return real_send(self, data)

    def read_message(self):  # type: ignore[no-untyped-def]
        cmd, m = real_read(self)
        note("read", MSG_NAMES.get(cmd, str(cmd)))
        return cmd, m

    def readline(self, timeout):  # type: ignore[no-untyped-def]
        line = real_line(self, timeout)
        note("read", "banner" if line.startswith("SSH-") else "pre-banner")
        return line

    pk.Packetizer.send_message, pk.Packetizer.read_message = send_message, read_message  # type: ignore[method-assign]
    pk.Packetizer.readline = readline  # type: ignore[method-assign]
    sys.argv = argv
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    finally:
        note("exit", "-")


# -- the analysis ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Event:
    t: float
    kind: str  # connect | send | read | exit
    what: str


def events(log: Path) -> list[Event]:
    rows = [line.split(" ", 2) for line in log.read_text().splitlines() if line.strip()]
    return [Event(float(t), k, w) for t, k, w in rows]


# What the client sends and then waits for an answer to (the rest, e.g. channel-eof, close, a keepalive, wants none
# before the client goes on); the TCP connect waits for the server's banner.
REQUESTS = frozenset({"kex30", "service-request", "userauth-request", "channel-open", "channel-request"})


def waits(evs: list[Event], rtt_s: float) -> tuple[list[tuple[str, float]], tuple[float, float, float]]:
    """(the waits on the peer as (label, seconds), (start-up to connect, connect to last packet, last packet to
    exit) in seconds). A wait: the first packet read at least RTT/2 after the last request written (what came sooner
    was already on its way); a later gap of RTT/2 between reads is the host's work (or the machine's load)."""
    begin = evs[0].t
    start = next(e.t for e in evs if e.kind == "connect")
    last_send, last_read, last_sent, answered = start, start, "tcp-connect", False
    out: list[tuple[str, float]] = []
    end = start
    for e in evs:
        if e.t < start or e.kind not in ("send", "read"):
            continue
        end = e.t
        if e.kind == "send":
            if e.what in REQUESTS:
                last_send, last_sent, answered = e.t, e.what, False
            continue
        if not answered and e.t - last_send >= rtt_s / 2:
            out.append((f"{last_sent} -> {e.what}", e.t - last_send))
            answered = True
        elif e.t - max(last_send, last_read) >= rtt_s / 2:
            out.append((f"(host work) -> {e.what}", e.t - max(last_send, last_read)))
        last_read = e.t
    return out, (start - begin, end - start, evs[-1].t - end)


def run_traced(argv: list[str], env: dict[str, str], log: Path, out: Path) -> list[Event]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--trace", str(log), "--", *argv[1:]]  # argv[0]: python
    with out.open("wb") as f:
        rc = subprocess.run(cmd, cwd=HERE, env=env, stdout=f, stderr=subprocess.STDOUT, check=False).returncode
    if rc != 0:
        raise SystemExit(f"{argv[:4]} failed (rc {rc}): see {out}")
    return events(log)


def _walls(tools: dict[str, Any], envs: dict[str, dict[str, str]], work: Path, reps: int, rtt: int) -> int:
    walls: dict[str, list[float]] = {"planner": [], "bare": []}
    load0 = os.getloadavg()[0]
    for i in range(reps):
        for t, got in walls.items():
            with (work / f"{t}-wall-{i}.out").open("wb") as f:
                began = time.monotonic()
                subprocess.run(tools[t].argv(1, work, "rtt"), cwd=HERE, env=envs[t], stdout=f, stderr=subprocess.STDOUT,
                               check=True)
                got.append(time.monotonic() - began)
    print(f"N=1 warm at {rtt} ms RTT, untraced, {reps} interleaved rounds, "
          f"load {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    for t, got in walls.items():
        print(f"{t}: wall median {statistics.median(got) * 1000:.0f} ms ({', '.join(f'{w * 1000:.0f}' for w in got)})")
    return 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--trace":
        _trace(sys.argv[2], sys.argv[4:])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtt", type=int, default=50)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--show", action="store_true", help="print the first repetition's timeline per tool")
    ap.add_argument("--wall", action="store_true", help="untraced: each warm run's whole wall (the tracer itself "
                                                          "imports paramiko before the tool starts)")
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import bench

    work = Path(tempfile.mkdtemp(prefix="planner-rtt-"))
    lab = bench.build_lab(work / "lab", 1)
    proxy = None
    try:
        proxy = bench.Proxy(lab, a.rtt, work / "proxy.log")
        bench.write_known_hosts(lab, proxy.endpoints, work / "known_hosts")
        bench.write_inventories(lab, proxy.endpoints, work / "known_hosts", work)
        bench.reset_sandboxes(lab)
        tools = bench.tools(None)
        envs = {t: bench.tool_env(work, "rtt", t) for t in ("planner", "bare")}
        (work / "fetch" / "rtt").mkdir(parents=True, exist_ok=True)
        run_traced(tools["planner"].argv(1, work, "rtt"), envs["planner"], work / "cold.trace", work / "cold.out")
        if a.wall:
            return _walls(tools, envs, work, a.reps, a.rtt)
        got: dict[str, list[tuple[list[tuple[str, float]], tuple[float, float, float]]]] = {"planner": [], "bare": []}
        load0 = os.getloadavg()[0]
        for i in range(a.reps):
            for t in got:
                evs = run_traced(tools[t].argv(1, work, "rtt"), envs[t], work / f"{t}-{i}.trace", work / f"{t}-{i}.out")
                got[t].append(waits(evs, a.rtt / 1000))
                if a.show and i == 0:
                    t0 = next(e.t for e in evs if e.kind == "connect")
                    print(f"--- {t} timeline (ms from connect)")
                    for e in evs:
                        print(f"{(e.t - t0) * 1000:9.1f} {e.kind:7} {e.what}")
        load1 = os.getloadavg()[0]
        print(f"N=1 warm at {a.rtt} ms RTT, {a.reps} interleaved rounds, load {load0:.2f} -> {load1:.2f}")
        for t, runs in got.items():
            counts = [len([w for w in ws if not w[0].startswith("(host")]) for ws, _ in runs]
            phases = [statistics.median(p[i] for _, p in runs) * 1000 for i in range(3)]
            print(f"{t}: waits on the peer {counts} (median {statistics.median(counts)}); medians: start-up to "
                  f"connect {phases[0]:.0f} ms, connect to last packet {phases[1]:.0f} ms "
                  f"({', '.join(f'{p[1] * 1000:.0f}' for _, p in runs)}), last packet to exit {phases[2]:.0f} ms; "
                  f"start-up to last packet {statistics.median(p[0] + p[1] for _, p in runs) * 1000:.0f} ms")
            for label, sec in runs[0][0]:
                print(f"    {label:55} {sec * 1000:6.1f} ms")
    finally:
        if proxy is not None:
            proxy.stop()
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
