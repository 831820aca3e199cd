"""Synchronised start (``sync_start: true``): every host of a play starts the measured command at one instant.

A barrier on the controller before each host's step (the first design) let set-up and the SSH exec of the
command run after it: fio started ~3 s after the barrier with 0.28 s between the first and last of 3 loopback
hosts. Here the release sits right before the measured command, and its timing does not depend on the
transport at all:

1. each host's clock offset against the controller is measured from a few ``date +%s%N`` (kept for a minute
   per host). Not NTP's midpoint: over SSH almost all of a round trip
   comes before ``date`` runs (channel, session, shells), so the midpoint read a host measured against itself
   as 50-64 ms ahead. The reading is taken as made just before its first bytes came back;
2. each host's step does its set-up, then runs the start wrapper once with a no-op under the measured
   command's own become (sudo, the shells and the connection warm; how long that exec takes sizes the
   margin), then arrives at the controller's barrier with its measured command;
3. when the last host arrives, ONE start time T (controller clock, a margin ahead: several round trips) is
   chosen, and each host's command is sent wrapped in ``START_SCRIPT``: a small sh that sleeps until T in
   that host's clock (T + its offset), then execs the command. How long the exec took to reach a host does
   not matter as long as it is shorter than the margin; a host that got there late says so;
4. the wrapper notes the instant it exec'd in a file on the host, read back after the command, so the run
   record keeps the measured start skew of every point (``sync_start.json``);
5. a host that started later than the tolerance (``sync_start: {tolerance_ms: 10}``, the default) marks its
   point ``late`` there, on the console and in the report; the engine re-runs such a point once unless the
   play says ``rerun_late: false``.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from planner.engine.console import Console
from planner.engine.runrecord import RunRecord
from planner.errors import Interrupted
from planner.plan.model import StepSpec, SweepPoint
from planner.results import runfolder
from planner.transport.connection import CommandResult, Connection

MARKER = "planner-sync-start"
WARM_MARGINS = 2  # ... and at least this many of the slowest host's warm-up execs of the wrapper
MIN_MARGIN_S = 0.15
RTT_MARGINS = 3  # the start time is this many of the slowest host's round trips ahead, at least MIN_MARGIN_S
OFFSET_SAMPLES = 3
OFFSET_MAX_AGE_S = 60.0
DEFAULT_TOLERANCE_MS = 10.0  # a host starting later than this after the start time marks its point late

# $1 = the start time in this host's clock (ns since the epoch), $2 = a file name for the start line, then
# the command. Everything that forks (bash, mktemp, mkfifo) happens before the start time; at it, bash wakes
# from `read -t` on a FIFO nobody writes to (a select() timeout, no process started), reads $EPOCHREALTIME,
# writes the start line to a file opened before (one write to /tmp: nothing wakes sshd, as a line on stderr
# would) and execs the command. On 30 hosts sharing 2 CPUs, every process woken or forked at the start time
# widens the spread by about a millisecond. A host without bash 5 falls back to sh, `date` and `sleep`.
# The start line: "<start instant, ns> <slack, ns: > 0 when the host was there early>"; the member reads it
# back (and removes it) in one round trip once the command has ended.
_BASH_WAIT = r"""
t=$1; out=${TMPDIR:-/tmp}/$2; shift 2
us=${EPOCHREALTIME/[.,]/}
slack=$(( t - us * 1000 ))
exec 8>"$out"
fifo=no
f=$(mktemp -u "${TMPDIR:-/tmp}/planner-sync.XXXXXX") && mkfifo -m 600 "$f" && exec 9<>"$f" && fifo=yes
rm -f "$f"
d=$(( t - ${EPOCHREALTIME/[.,]/} * 1000 ))
if (( d > 0 )); then
    printf -v s '%d.%06d' $(( d / 1000000000 )) $(( d % 1000000000 / 1000 ))
    if [ "$fifo" = yes ]; then read -r -t "$s" -u 9 _; else sleep "$s"; fi
fi
us=${EPOCHREALTIME/[.,]/}
echo "$(( us * 1000 )) $slack" >&8
exec "$@" 8>&- 9<&-
"""
START_SCRIPT = r"""
if command -v bash >/dev/null 2>&1 && [ -n "$(bash -c 'echo $EPOCHREALTIME' 2>/dev/null)" ]; then
    exec bash -c "$0" bash "$@"
fi
t=$1; shift 2
now=$(date +%s%N)
case $now in ''|*[!0-9]*) echo "planner-sync-start unsupported" >&2; exec "$@" ;; esac
slack=$((t - now))
d=$((t - now - 1500000))
if [ "$d" -gt 0 ]; then sleep "$((d / 1000000000)).$(printf %09d $((d % 1000000000)))"; fi
now=$(date +%s%N)
while [ "$now" -lt "$t" ]; do now=$(date +%s%N); done
echo "planner-sync-start $now $slack" >&2
exec "$@"
"""
# Reads the start line back and removes the file (one round trip after the command).
_READ_BACK = 'f=${TMPDIR:-/tmp}/$1; cat -- "$f" 2>/dev/null; rm -f -- "$f"'
CLOCK = ["date", "+%s%N"]
_REMOVE = 'rm -f -- "${TMPDIR:-/tmp}/$1"'


@dataclass(frozen=True, slots=True)
class Offset:
    """A host's clock offset from the controller's, and the round trip it was measured over."""

    offset_ns: int  # host clock - controller clock
    rtt_ns: int
    measured: float  # controller monotonic time


def measure_offset(conn: Connection, samples: int = OFFSET_SAMPLES) -> Offset | None:
    """The host's clock offset from a few ``date +%s%N``; None without it.

    The host reads its clock at the end of a round trip, not in its middle (see the module docstring): each
    sample is the reading minus the instant its first bytes arrived (Connection.first_output; the end of the
    command where the transport cannot tell). The answer's way back (network, a busy controller's threads)
    only ever makes a sample lower than the true offset, so the highest sample is the best; the round trip
    kept is the shortest (it sizes the start margin)."""
    best: Offset | None = None
    for _ in range(samples):
        t0 = time.time_ns()
        stdout, arrived = conn.first_output(CLOCK, timeout=30)
        t1 = time.time_ns()
        text = stdout.strip()
        if not text.isdigit():
            return None
        o = Offset(int(text) - (arrived or t1), t1 - t0, time.monotonic())
        best = o if best is None else Offset(max(best.offset_ns, o.offset_ns), min(best.rtt_ns, o.rtt_ns),
                                             o.measured)
    return best


@dataclass
class Clocks:
    """Per run: the hosts' clock offsets (reused for a minute) and the margin learnt from late starts."""

    offsets: dict[str, Offset] = field(default_factory=dict)
    extra_margin_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def offset(self, host: str, conn: Connection) -> Offset | None:
        with self.lock:
            known = self.offsets.get(host)
        if known is not None and time.monotonic() - known.measured < OFFSET_MAX_AGE_S:
            return known
        fresh = measure_offset(conn)
        if fresh is not None:
            with self.lock:
                self.offsets[host] = fresh
        return fresh


class SyncStart:
    """One point's synchronised start over ``hosts`` (a host whose step ends without arriving is let go)."""

    def __init__(self, hosts: Sequence[str], clocks: Clocks, tolerance_ms: float = DEFAULT_TOLERANCE_MS) -> None:
        self.clocks = clocks
        self.tolerance_ms = tolerance_ms
        self.warm_ns: dict[str, int] = {}  # host -> how long its warm-up exec of the wrapper took
        self._expected = set(hosts)
        self._arrived: dict[str, Offset | None] = {}
        self._cond = threading.Condition()
        self.release_ns: int | None = None  # T, controller clock
        self.margin_s = 0.0
        self.starts: dict[str, int] = {}  # host -> exec instant in the host's clock
        self.slack: dict[str, int] = {}  # host -> how early its wrapper was there (< 0: late, the margin grows)
        self.notes: list[str] = []
        self.clock_hosts: dict[str, str] = {}  # host -> its load generator host, whose clock started its command

    def member(self, host: str, conn: Connection, clock: str = "") -> Member:
        """``host``'s side of the barrier; ``clock``: the host ``conn`` reaches when it is not ``host`` (the
        measured command runs on the play host's load generator host: its clock, its offset)."""
        if clock and clock != host:
            with self._cond:
                self.clock_hosts[host] = clock
        return Member(self, host, conn, clock=clock or host)

    def arrive(self, host: str, offset: Offset | None, cancelled: Callable[[], bool]) -> int:
        """Wait for the other hosts; the start time T in the controller's clock."""
        with self._cond:
            self._arrived[host] = offset
            self._maybe_release()
            while self.release_ns is None:
                if cancelled():
                    raise Interrupted("interrupted while waiting for the other hosts' synchronised start")
                self._cond.wait(0.2)
            return self.release_ns

    def leave(self, host: str) -> None:
        """The host's step ended (or failed) without its measured command: nobody waits for it."""
        with self._cond:
            self._expected.discard(host)
            if host not in self._arrived:
                self._maybe_release()

    def _maybe_release(self) -> None:
        if self.release_ns is not None or not self._expected <= set(self._arrived):
            return
        rtts = [o.rtt_ns / 1e9 for o in self._arrived.values() if o is not None]
        warm = max(self.warm_ns.values(), default=0) / 1e9
        self.margin_s = max(MIN_MARGIN_S, RTT_MARGINS * max(rtts, default=0.0), WARM_MARGINS * warm) \
            + self.clocks.extra_margin_s
        self.release_ns = time.time_ns() + int(self.margin_s * 1e9)
        self._cond.notify_all()

    def started(self, host: str, host_ns: int, slack_ns: int) -> None:
        with self._cond:
            self.starts[host] = host_ns
            self.slack[host] = slack_ns

    def report(self) -> dict[str, Any]:
        """The measured start skew of the point (controller clock), for the run record; grows the margin
        for the next point when a host was late."""
        with self._cond:
            t = self.release_ns
            hosts: dict[str, Any] = {}
            rel: list[float] = []
            for host, o in sorted(self._arrived.items()):
                entry: dict[str, Any] = {"clock_offset_ms": None if o is None else round(o.offset_ns / 1e6, 3),
                                         "rtt_ms": None if o is None else round(o.rtt_ns / 1e6, 3),
                                         "warm_up_ms": round(self.warm_ns[host] / 1e6, 3) if host in self.warm_ns
                                         else None}
                if host in self.clock_hosts:  # the offset and the start are that host's clock's
                    entry["clock_host"] = self.clock_hosts[host]
                if host in self.starts and o is not None and t is not None:
                    late = self.starts[host] - o.offset_ns - t
                    entry["start_ms"] = round(late / 1e6, 3)  # after T; controller clock
                    entry["slack_ms"] = round(self.slack[host] / 1e6, 3)  # how early the wrapper was there
                    rel.append(late / 1e6)
                hosts[host] = entry
            arrived_late = [-v / 1e9 for v in self.slack.values() if v < 0]
        spread = round(max(rel) - min(rel), 3) if len(rel) > 1 else None
        behind = {h: e["start_ms"] for h, e in hosts.items() if e.get("start_ms", 0.0) > self.tolerance_ms}
        notes = list(self.notes) + [f"{h} started {ms:.1f} ms after the start time (tolerance "
                                    f"{self.tolerance_ms:g} ms)" for h, ms in sorted(behind.items())]
        if arrived_late:  # the margin was too short for the command to reach a host: longer next time
            with self.clocks.lock:
                self.clocks.extra_margin_s = min(5.0, self.clocks.extra_margin_s + 2 * max(arrived_late))
        return {"release_at_ns": t, "margin_ms": round(self.margin_s * 1e3, 1), "spread_ms": spread,
                "tolerance_ms": self.tolerance_ms, "late": sorted(behind), "hosts": hosts, "notes": notes}


@dataclass
class Member:
    """One host's side: what StepContext.run calls for the measured command (``measured=True``)."""

    sync: SyncStart
    host: str  # the play host the barrier waits for
    conn: Connection  # where the measured command runs: the host itself or its load generator host
    clock: str = ""  # the name of the host ``conn`` reaches: its clock offset is kept under it
    arrived: bool = False
    start_file: str = ""

    def wrap(self, argv: Sequence[str], *, become: bool = False, become_user: str | None = None,
             login: bool = False) -> list[str]:
        """Wait for every host, then the command wrapped to start at T in this host's clock. ``become``: the
        measured command's own, so the warm-up goes through the same sudo."""
        if self.arrived:  # a retry after a dropped connection: the others have long started
            return list(argv)
        offset = self.sync.clocks.offset(self.clock or self.host, self.conn)
        if offset is not None:
            self._warm_up(become, become_user, login)
        self.arrived = True
        t = self.sync.arrive(self.host, offset, lambda: self.conn.cancelled.is_set())
        if offset is None:
            where = self.host if self.clock in ("", self.host) else f"{self.host}'s load generator {self.clock}"
            self.sync.notes.append(f"{where}: no nanosecond clock (date +%s%N): started unsynchronised")
            return list(argv)
        self.start_file = f"planner-sync-{os.urandom(8).hex()}"  # secrets.token_hex(8): secrets loads OpenSSL
        return ["sh", "-c", START_SCRIPT, _BASH_WAIT, str(t + offset.offset_ns), self.start_file, *argv]

    def _warm_up(self, become: bool, become_user: str | None, login: bool) -> None:
        """The wrapper once, at once (start time 0), around a no-op that removes its start line: sudo, the
        shells and the session are warm when the real start is sent, and its duration sizes the margin."""
        name = f"planner-sync-{os.urandom(8).hex()}"
        started = time.monotonic_ns()
        r = self.conn.run(["sh", "-c", START_SCRIPT, _BASH_WAIT, "0", name, "sh", "-c", _REMOVE, "sh", name],
                          become=become, become_user=become_user, login=login, timeout=30)
        if r.ok:
            self.sync.warm_ns[self.host] = time.monotonic_ns() - started

    def strip(self, r: CommandResult) -> CommandResult:
        """Keep the command's start instant: from the wrapper's file (bash) or its stderr line (sh, which
        is taken out of the result)."""
        lines = r.stderr.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.startswith(MARKER):
                self._keep(line[len(MARKER):])
                return dataclasses.replace(r, stderr="".join(lines[:i] + lines[i + 1:]))
        if self.start_file:
            back = self.conn.run(["sh", "-c", _READ_BACK, "sh", self.start_file], timeout=30)
            self._keep(back.stdout)
        return r

    def _keep(self, text: str) -> None:
        values = text.split()
        if len(values) == 2 and values[0].isdigit() and values[1].lstrip("-").isdigit():
            self.sync.started(self.host, int(values[0]), int(values[1]))


def record_skew(log: list[dict[str, Any]], spec: StepSpec, point: SweepPoint, name: str, sync: SyncStart,
                console: Console, record: RunRecord | None) -> list[str]:
    """The point's measured start skew: console line and sync_start.json in the run record; returns the hosts
    that started later than the tolerance."""
    entry = {"step": spec.path, "play": spec.play, "title": spec.title, "point": point.index, "name": name,
             **sync.report()}
    log.append(entry)
    spread = entry["spread_ms"]
    late = max((h.get("start_ms", 0.0) for h in entry["hosts"].values()), default=0.0)
    console.info(f"synchronised start: {len(entry['hosts'])} hosts "
                      + (f"within {spread:.2f} ms" if spread is not None else "(start not measured)")
                      + (f", the last {late:.1f} ms after the start time" if late > 1 else ""))
    for note in entry["notes"]:
        console.warn(f"synchronised start: {note}" + (" — the point is marked late" if "after the start" in note
                                                       else ""))
    if record is not None:
        try:
            record.write(runfolder.SYNC_START, log)
        except OSError as e:
            console.warn(f"run record: {e}")
    return list(entry["late"])
