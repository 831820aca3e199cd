"""OS statistics (iostat -x, mpstat -P ALL, vmstat) sampled on a host for exactly a workload's window.

``start`` launches the samplers in the background in a process group of their own (``setsid``), each
writing ``<remote_dir>/<tool>.txt``, and records the group id in ``<remote_dir>/ostats.pgid`` so a later
controller can stop a group a crashed one left behind (``stop_stale``). ``OSStatsSampler.stop`` kills
the group (TERM, then KILL after a grace period) and checks that nothing of it is left.

Everything goes through the Connection interface (run only), so it works the same over
LocalConnection and SSH. Values reach the remote shell as positional arguments, never pasted into
the script. Timestamps: iostat prints ISO date-times (S_TIME_FORMAT=ISO), vmstat -t a date and time
per line, mpstat only the time of day per line (its header carries the date, ISO with
S_TIME_FORMAT=ISO); LC_ALL=C keeps them 24-hour and the decimal point a dot.
"""

from __future__ import annotations

import math
import posixpath
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from planner.errors import StepError, input_error
from planner.transport.connection import CommandResult, Connection

CommandLog = Callable[[CommandResult], None]  # the run record's command log (commands.jsonl), for one host

TOOLS: tuple[str, ...] = ("iostat", "mpstat", "vmstat")
PGID_FILE = "ostats.pgid"
# $0 of the sampler group's leader: with the remote_dir argument it identifies a group as ours
# before stop_stale kills anything (a pgid in a stale file may have been reused by another program).
MARKER = "planner-ostats"

# The group leader: starts each tool on its own, then publishes its pid (= the group id, as setsid
# made it a session leader) only after all tools are forked, so a stop right after start gets them all.
_GROUP_SCRIPT = r"""
dir=$1; iv=$2; shift 2
for t in "$@"; do
    case $t in
    iostat) S_TIME_FORMAT=ISO LC_ALL=C iostat -x -t "$iv" >"$dir/iostat.txt" 2>&1 & ;;
    mpstat) S_TIME_FORMAT=ISO LC_ALL=C mpstat -P ALL "$iv" >"$dir/mpstat.txt" 2>&1 & ;;
    vmstat) LC_ALL=C vmstat -t -n "$iv" >"$dir/vmstat.txt" 2>&1 & ;;
    esac
done
echo $$ >"$dir/ostats.pgid.tmp" && mv -f "$dir/ostats.pgid.tmp" "$dir/ostats.pgid"
wait
"""

# Runs in the foreground of conn.run: reports which tools exist, detaches the group (stdin/stdout/
# stderr closed, so an SSH channel can close) and waits only until the group has published its id.
# $5 = 1: first, a recorded group with a process left (kill -s 0; zombies count) stops it with exit 6 and
# "recorded PGID": the controller then asks whether that group is ours (rare: a crashed run's, or a reused id).
# In the same command, not a read of the pgid file before it: one round trip a point less.
_START_SCRIPT = r"""
group=$1; marker=$2; dir=$3; iv=$4; check=$5; shift 5
if [ "$check" = 1 ] && [ -s "$dir/ostats.pgid" ]; then
    old=$(cat -- "$dir/ostats.pgid")
    case $old in
    ''|*[!0-9]*) ;;
    *) if [ "$old" -ge 2 ] && kill -s 0 -- "-$old" 2>/dev/null; then echo "recorded $old"; exit 6; fi ;;
    esac
fi
mkdir -p -- "$dir" || exit 3
ran=""
for t in "$@"; do
    if command -v "$t" >/dev/null 2>&1; then ran="$ran $t"; echo "ran $t"; else echo "skipped $t"; fi
done
[ -n "$ran" ] || exit 0
command -v setsid >/dev/null 2>&1 || { echo "setsid not found (util-linux)" >&2; exit 4; }
rm -f -- "$dir/ostats.pgid"
echo "started $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# $ran holds only names from planner's fixed tool list: splitting it is intended.
setsid sh -c "$group" "$marker" "$dir" "$iv" $ran </dev/null >/dev/null 2>&1 &
# the group publishes its id a few ms after setsid: 0.01 s steps first (a 0.05 s first step was most of a
# start's wall, between two points), then 0.05 s ones; bounded at ~10 s as before
i=0
while [ ! -s "$dir/ostats.pgid" ]; do
    i=$((i + 1))
    [ "$i" -le 200 ] || { echo "the sampler group did not start" >&2; exit 5; }
    if [ "$i" -le 5 ]; then step=0.01; else step=0.05; fi
    sleep "$step" 2>/dev/null || sleep 1
done
echo "pgid $(cat -- "$dir/ostats.pgid")"
"""


# Waits until every sampler's file holds a sample of the window: mpstat's first report comes one interval after
# it starts; iostat's and vmstat's first report is since boot, so they need a second one, due at the same time.
# $1: centiseconds until that moment (the controller's estimate), $2: the bound in centiseconds. One command:
# it checks once, sleeps once until the samples are due and checks again; only a late sampler (a loaded host)
# costs more, with sleeps that double (0.05 s, 0.1 s, ... 1 s). The counting uses shell builtins only
# (read, case, [ ]): no awk, grep or wc per check, and a file is read only as far as the samples it needs.
# Prints "samples TOOL N" per tool (N stops at what is needed).
_WAIT_SCRIPT = r"""
due=$1; limit=$2; dir=$3; shift 3
n=0
count() {  # n := reports in $1's file, up to $2
    n=0
    [ -r "$dir/$1.txt" ] || return 0
    while IFS= read -r line; do
        case $1 in
        mpstat) set -f; set -- "$1" "$2" $line; set +f
                [ "${4-}" = all ] && [ "$3" != Average: ] && n=$((n + 1)) ;;
        iostat) case $line in [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*) n=$((n + 1)) ;; esac ;;
        vmstat) n=$((n + 1)) ;;
        esac
        [ "$n" -ge "$2" ] && break
    done <"$dir/$1.txt"
    [ "$1" = vmstat ] && { n=$((n - 2)); [ "$n" -ge 0 ] || n=0; }
    return 0
}
ready() {
    for t in "$@"; do
        case $t in mpstat) k=1 ;; vmstat) k=4 ;; *) k=2 ;; esac
        count "$t" "$k"
        case $t in mpstat) [ "$n" -ge 1 ] || return 1 ;; *) [ "$n" -ge 2 ] || return 1 ;; esac
    done
}
slept=0; step=$due; next=5
while ! ready "$@" && [ "$slept" -lt "$limit" ]; do
    [ "$step" -ge 5 ] || step=5
    [ $((slept + step)) -le "$limit" ] || step=$((limit - slept))
    s=$((step / 100)); f=$((step % 100)); [ "$f" -ge 10 ] || f=0$f
    sleep "$s.$f" 2>/dev/null || sleep 1
    slept=$((slept + step)); step=$next; next=$((next * 2)); [ "$next" -le 100 ] || next=100
done
for t in "$@"; do
    case $t in mpstat) k=1 ;; vmstat) k=4 ;; *) k=2 ;; esac
    count "$t" "$k"; echo "samples $t $n"
done
"""


# Stops the sampler group in one round trip. $1: the pgid, $2: centiseconds to wait after TERM before KILL,
# $3: the folder whose ostats.pgid is removed once the group is gone ("": none), $4: centiseconds to wait after
# KILL. Gone means no live member:
# zombies hold nothing, and a host whose init does not reap would keep them. `kill -s SIG -- -PGID` is the form
# dash, bash and ksh accept; a group already gone fails harmlessly. Exit 9 with the survivors after KILL, 8
# when ps fails.
_POLL_CS = 5
_STOP_SCRIPT = r"""
pgid=$1; grace=$2; dir=$3; after_kill=$4
left() {  # the group's live processes, one "pid command" a line
    out=$(ps -e -o pid=,pgid=,stat=,comm=) || return 8
    printf '%s\n' "$out" | while read -r pid g st comm; do
        [ "$g" = "$pgid" ] || continue
        case $st in Z*) ;; *) echo "$pid $comm" ;; esac
    done
    return 0
}
gone_within() {  # $1: centiseconds
    waited=0
    while :; do
        l=$(left) || exit 8
        [ -n "$l" ] || return 0
        [ "$waited" -lt "$1" ] || return 1
        if sleep 0.05 2>/dev/null; then waited=$((waited + 5)); else sleep 1; waited=$((waited + 100)); fi
    done
}
kill -s TERM -- "-$pgid" 2>/dev/null
if ! gone_within "$grace"; then
    kill -s KILL -- "-$pgid" 2>/dev/null
    gone_within "$after_kill" || { printf '%s\n' "$l"; exit 9; }
fi
[ -z "$dir" ] || rm -f -- "$dir/ostats.pgid"
"""


# A sampler writes its report just after its interval ends: the first check waits this much more.
_WRITE_MARGIN_CS = 2


def output_name(tool: str) -> str:
    """The file a sampler writes (``iostat.txt``): the _START script writes "$dir/<tool>.txt"."""
    return f"{tool}.txt"


@dataclass(frozen=True, slots=True)
class Member:
    """A live (non-zombie) process of a sampler's process group."""

    pid: int
    command: str


@dataclass(frozen=True, slots=True)
class OSStatsSampler:
    """A running set of OS statistics samplers on one host; ``stop`` ends them."""

    conn: Connection
    remote_dir: str
    interval_s: int
    tools: tuple[str, ...]  # the tools that run (found on the host)
    skipped: tuple[str, ...]  # asked for but not installed there
    pgid: int | None  # None when no tool could run
    started_at: str  # host clock, ISO 8601 UTC; "" when nothing ran
    log: CommandLog | None = field(default=None, compare=False)  # the start and stop commands go to the record
    # When the first samples are due, on the controller's monotonic clock: the start command returned after
    # the tools were forked, so one interval after its return they have written (0: due at once).
    due_at: float = field(default=0.0, compare=False)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(posixpath.join(self.remote_dir, output_name(t)) for t in self.tools)

    def wait_for_samples(self) -> dict[str, int]:
        """Wait (at most two intervals and a second, one round trip) until each tool's file holds a sample
        taken in the window, so a point shorter than the interval never leaves it empty; returns the
        number of reports each file holds, counted as far as needed (iostat's and vmstat's first one is
        since boot, so 2 of them and 1 of mpstat's are enough)."""
        if not self.tools:
            return {}
        due_cs = max(0, math.ceil((self.due_at - time.monotonic()) * 100)) + _WRITE_MARGIN_CS
        limit_cs = (2 * self.interval_s + 1) * 100
        r = self.conn.run(["sh", "-c", _WAIT_SCRIPT, "sh", str(min(due_cs, limit_cs)), str(limit_cs),
                           self.remote_dir, *self.tools], timeout=2 * self.interval_s + 30)
        if self.log is not None:
            self.log(r)
        out: dict[str, int] = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[0] == "samples" and f[2].isdigit():
                out[f[1]] = int(f[2])
        return out

    def stop(self, grace_s: float = 5.0) -> list[str]:
        """Kill the group (TERM, then KILL after ``grace_s``), check none is left; return the files written.

        Safe to call more than once.
        """
        if self.pgid is not None:  # one round trip: signal, wait until gone, remove the pgid file
            _kill_group(self.conn, self.pgid, grace_s, self.log, self.remote_dir)
        return list(self.files)

    def __enter__(self) -> OSStatsSampler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(conn: Connection, remote_dir: str, interval_s: int = 5,
          tools: Sequence[str] = TOOLS, log: CommandLog | None = None) -> OSStatsSampler:
    """Start sampling every ``interval_s`` seconds into ``remote_dir``; returns at once.

    Tools missing on the host are skipped (``sampler.skipped``), not an error. Raises InputError for an
    unknown tool or a bad interval, StepError when the host cannot start the group or a sampler of an
    earlier run is still running in ``remote_dir``.
    """
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        raise input_error(f"unknown OS statistics tool(s): {', '.join(unknown)}",
                          hint=f"choose from {', '.join(TOOLS)}")
    if isinstance(interval_s, bool) or not isinstance(interval_s, int) or interval_s < 1:
        raise input_error(f"OS statistics interval must be a whole number of seconds >= 1, got {interval_s!r}")
    if not remote_dir:
        raise input_error("OS statistics need a remote directory")
    wanted = tuple(dict.fromkeys(tools))  # keep order, drop repeats
    r = _start_group(conn, remote_dir, interval_s, wanted, True, log)
    if r.exit_code == 6:  # a group recorded in remote_dir has a process left: ours, or a reused id?
        old = _parse_pgid(r.stdout.rpartition("recorded ")[2])
        if old is not None and _is_ours(conn, old, remote_dir):
            raise StepError(f"{conn.host.name}: OS statistics are already being sampled into {remote_dir} "
                            f"(process group {old})", hint="stop that sampler first (ostats.stop_stale)")
        r = _start_group(conn, remote_dir, interval_s, wanted, False, log)
    if not r.ok:
        raise StepError(f"{conn.host.name}: cannot start OS statistics in {remote_dir}: "
                        f"{r.stderr.strip() or f'exit code {r.exit_code}'}")
    ran: list[str] = []
    skipped: list[str] = []
    started_at = ""
    pgid: int | None = None
    for line in r.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "ran":
            ran.append(value)
        elif key == "skipped":
            skipped.append(value)
        elif key == "started":
            started_at = value
        elif key == "pgid":
            pgid = _parse_pgid(value)
    if ran and pgid is None:
        raise StepError(f"{conn.host.name}: OS statistics started but reported no process group: {r.stdout!r}")
    due_at = time.monotonic() + interval_s
    return OSStatsSampler(conn, remote_dir, interval_s, tuple(ran), tuple(skipped), pgid, started_at, log, due_at)


def _start_group(conn: Connection, remote_dir: str, interval_s: int, tools: tuple[str, ...], check: bool,
                 log: CommandLog | None) -> CommandResult:
    r = conn.run(["sh", "-c", _START_SCRIPT, "sh", _GROUP_SCRIPT, MARKER, remote_dir, str(interval_s),
                  "1" if check else "0", *tools], timeout=60)
    if log is not None:
        log(r)
    return r


def stop_stale(conn: Connection, remote_dir: str, grace_s: float = 5.0) -> bool:
    """Stop a sampler group a crashed controller left in ``remote_dir``; True when one was stopped.

    The recorded group is killed only when its leader is a planner sampler for this directory; a
    pgid that now belongs to another program is left alone (and the stale file removed).
    """
    pgid = _recorded_pgid(conn, remote_dir)
    if pgid is None:
        return False
    if _is_ours(conn, pgid, remote_dir):
        _kill_group(conn, pgid, grace_s, remote_dir=remote_dir)
        return True
    _remove_pgid_file(conn, remote_dir)
    return False


def members(conn: Connection, pgid: int) -> list[Member]:
    """The live processes of group ``pgid`` on the host (zombies excluded: they hold no resources)."""
    r = conn.run(["ps", "-e", "-o", "pid=,pgid=,stat=,comm="], timeout=30)
    if not r.ok:
        raise StepError(f"{conn.host.name}: cannot list processes (ps): {r.stderr.strip()}")
    found = []
    for line in r.stdout.splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[1] == str(pgid) and not fields[2].startswith("Z"):
            found.append(Member(int(fields[0]), fields[3]))
    return found


def _kill_group(conn: Connection, pgid: int, grace_s: float, log: CommandLog | None = None,
                remote_dir: str = "", kill_wait_s: float = 5.0) -> None:
    """TERM the group, KILL what is left after ``grace_s``, check nothing is left and remove ``remote_dir``'s
    pgid file: one command (kill, a `ps` a poll and rm were 3-4 round trips in the dead time between points)."""
    if pgid < 2:  # kill -1 would signal every process the user may signal
        raise StepError(f"{conn.host.name}: refusing to signal process group {pgid}")
    grace_cs = max(_POLL_CS, math.ceil(grace_s * 100))
    kill_cs = max(_POLL_CS, math.ceil(kill_wait_s * 100))
    r = conn.run(["sh", "-c", _STOP_SCRIPT, "sh", str(pgid), str(grace_cs), remote_dir, str(kill_cs)],
                 timeout=grace_s + kill_wait_s + 30)
    if log is not None:
        log(r)
    if r.exit_code == 9:
        left = ", ".join(line.strip() for line in r.stdout.splitlines() if line.strip())
        raise StepError(f"{conn.host.name}: OS statistics processes survived SIGKILL: {left}",
                        hint=f"kill process group {pgid} by hand")
    if not r.ok:
        raise StepError(f"{conn.host.name}: cannot stop OS statistics (process group {pgid}): "
                        f"{r.stderr.strip() or f'exit code {r.exit_code}'}")


def _parse_pgid(text: str) -> int | None:
    value = text.strip()
    return int(value) if value.isdigit() and int(value) >= 2 else None


def _recorded_pgid(conn: Connection, remote_dir: str) -> int | None:
    text = conn.read_text(posixpath.join(remote_dir, PGID_FILE))
    return None if text is None else _parse_pgid(text)


def _is_ours(conn: Connection, pgid: int, remote_dir: str) -> bool:
    """Whether ``pgid`` is a live group led by a planner sampler writing into ``remote_dir``."""
    cmdline = conn.read_text(f"/proc/{pgid}/cmdline")
    if cmdline is None:  # leader gone: ours only if what is left is nothing but sampler tools
        left = members(conn, pgid)
        return bool(left) and all(m.command in TOOLS for m in left)
    args = cmdline.split("\0")
    # argv of the leader: sh -c SCRIPT MARKER DIR INTERVAL TOOLS...
    return len(args) >= 5 and args[3] == MARKER and args[4] == remote_dir and bool(members(conn, pgid))


def _remove_pgid_file(conn: Connection, remote_dir: str, log: CommandLog | None = None) -> None:
    r = conn.run(["rm", "-f", "--", posixpath.join(remote_dir, PGID_FILE)], timeout=30)
    if log is not None:
        log(r)
