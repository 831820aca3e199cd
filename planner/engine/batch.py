"""A host's whole warm play in ONE exec: the lock, the facts, every batched read, then the lock's release.

The script is fixed text (``SCRIPT``); everything that varies comes in as positional parameters, and each
batched command is one line built by ``command_line`` (shlex-quoted, exactly the line the transport would send
for it alone: sshd hands that line to a shell too, so ``eval`` adds no parsing). No user text is ever pasted
into the script.

Output framing. The script's first line is ``#~ <boundary>``: a random UUID the host's kernel makes for this
exec (/proc/sys/kernel/random/uuid, read with the ``read`` builtin: no program). Every frame is then raw:
``#<name> <seq> raw``, its stdout as printed (straight to the exec's stdout: no temp file, no ``base64``), a
newline, ``#=<boundary> <rc> <start_ns> <end_ns>``, ``#-``, the stderr lines in base64, ``#.``. Only that exact
end line ends a frame: whatever a command prints (frame-looking lines, a file's text) is its own output, because
no output can contain the boundary without knowing it, and nothing a command's output is made from can: it did
not exist before this exec started, it is never in the exec's argv (``ps`` shows that to every user), and it is
not exported (a read's program, started from a shlex-quoted line, sees only the environment). The one thing a
read's output can do is contain the transport's cut note (``[planner: N bytes of output left out here; ...]``),
which ends the parse there: its read and the later ones go unanswered and run alone, as if the batch had been
cut (never another read's answer). Bytes that are not UTF-8 arrive as U+FFFD, as they would alone.
Without a boundary (no readable /proc/sys/kernel/random/uuid), a user's command's output is base64-encoded, each
frame line starting with ``#`` (outside the base64 alphabet): ``#<name> <seq> <rc> <start_ns> <end_ns>``, the
stdout lines, ``#-``, the stderr lines, ``#.``; only planner's own scripts, whose lines never start with ``#``
(the facts, fetch, the device read), are raw, ending ``#= <rc> <start_ns> <end_ns>``.
Only a frame that reached its ``#.`` counts (a host that dies mid-batch leaves the finished frames, nothing more).
``seq`` numbers the frames from 1: the transport keeps the head and the tail of a long output, and a cut that
lands between frames would otherwise hand the tail's frames to the reads right after the head's.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.transport import facts as facts_mod
from planner.transport import remote_procs as procs_mod
from planner.transport.connection import CommandResult
from planner.transport.streams import OutputBuffer

# The lock attempt ($lock, $info, $procs set; STATE_FNS defined). First the workdir base must be the login user's
# own ("unsafe ..." when not: nothing is taken); a lock that exists is read only when it is the login user's own
# folder: another user's (a squat in world-writable /tmp) or a symlink is "foreign", never read, never broken.
LOCK_BODY = r"""
d=${lock%/*}; [ -d "${d:-/}" ] || mkdir -p -- "$d" 2>/dev/null
if [ -n "$procs" ] && ! _base "${procs%/*/*/*}"; then
  :
elif mkdir -m 0700 -- "$lock" 2>/dev/null; then
  printf '%s\n' "$info" >"$lock/holder.json"
  if [ -n "$procs" ]; then _procs "$procs" || echo "cannot create $procs" >&2; fi
  got=1; echo acquired
elif _mine "$lock"; then
  echo held; cat -- "$lock/holder.json" 2>/dev/null
else
  echo foreign; ls -ldn -- "$lock" 2>&1
fi
"""

# `_drop WORKDIR`: remove the run's work folder on the host (``<base>/<run id>/<host>``, then ``<base>/<run id>``
# once no other inventory host of this machine has its folder there), run only while the lock is still ours.
# The path is planner's own (hostlock.run_workdir, or meta.json checked by the restore), and each of the three
# folders must be the login user's, not a symlink, and the base writable by nobody else: then nothing below
# it can have been planted or swapped, and `rm -rf` stays inside. Anything else: left alone. A base `_base` found
# safe earlier in the same script is not listed again ($_based, see remote_procs.STATE_FNS). `_drop WORKDIR PATH...`
# also removes the PATHs, in the same `rm` (one program less per released host), whether or not the folder was.
DROP_FN = r"""
_drop() {
  w=$1; shift; r=${w%/*}; b=${r%/*}
  case $w in /?*/?*/?*) ;; *) w=;; esac
  [ -z "$w" ] || { _mine "$b" && _mine "$r" && _mine "$w"; } || w=
  [ -z "$w" ] || [ "$_based" = "$b" ] || case $(ls -ldn -- "$b") in d????w*|d???????w*) w=;; esac
  if [ -z "$w" ]; then [ $# = 0 ] || rm -rf -- "$@" 2>/dev/null; return 0; fi
  rm -rf -- "$w" "$@" 2>/dev/null; rmdir -- "$r" 2>/dev/null; return 0
}
"""

# $1 lock dir ("" for none: check mode), $2 holder.json text ("" when the host is already ours: only released), $3 the
# run's process-group dir (made once the lock is ours), $4 the sandbox root for the facts ("-" for no facts), $5 "1":
# release the lock at the end, $6 the run id (only a lock holding it is released); then one command line per batched
# read.
# $t holds the stderr of a frame while it runs (and, without a boundary, its stdout). With a boundary and the lock
# taken in this exec, $t is the lock folder itself: made by this exec's `mkdir -m 0700` (the login user's alone,
# so nobody else reads a read's stderr there), removed by the release's `rm` with the lock (no mktemp, no rm of its
# own: a program less per host); a lock kept for the play's changes keeps these small files until its release.
# Otherwise (no boundary; check mode; a host already ours) $t is a `mktemp -d`, made only when a frame needs it,
# removed by the release's `rm` or the EXIT trap. The lock frame itself is printed as the lock body runs (its
# stderr goes to the exec's, logged with it): it needs no file.
# `_own SCRIPT ARGS`, in a subshell: planner's own fixed script run as `sh -c SCRIPT sh ARGS` would be, in a fork
# of this shell (its traps reset, nothing it sets comes back) instead of a new shell (probes._run_line).
# The reads run only when the lock is ours (or none was asked for): a host held by another run is not read.
# $B, the boundary (module docstring): with it every read and the facts are `raw` frames, their stdout passed
# through as printed, not copied to a file and through base64 (a program less per read with output); without it
# only a read whose line starts with "#" (probes._run_line: planner's own script whose output is lines of its own
# format, none starting with "#") and the facts are. `now`: the reads' start and end, from /proc/uptime with the
# `read` builtin (10 ms steps; dash has no clock builtin, and a `date` per read was a program each), else `date`.
UUID_FILE = "/proc/sys/kernel/random/uuid"  # random.c proc_do_uuid: a new random UUID per read (2.6.18 on)
SCRIPT = r"""
lock=$1; info=$2; procs=$3; root=$4; release=$5; run=$6; shift 6
B=; { read -r B <UUID_FILE; } 2>/dev/null
case $B in ????????-????-????-????-????????????) case $B in *[!0-9a-f-]*) B=;; esac;; *) B=;; esac
[ -z "$B" ] || printf '#~ %s\n' "$B"
STATE_FNS
_tmp() { t=$(mktemp -d) || exit 8; trap '[ ! -d "$t" ] || rm -rf -- "$t"' EXIT; }
t=; [ -n "$B" ] || _tmp
now() {
  if read -r n _ </proc/uptime 2>/dev/null; then
    case $n in *[0-9].[0-9][0-9]) echo "${n%.*}${n#*.}0000000"; return;; esac
  fi
  n=$(date +%s%N 2>/dev/null); case $n in ''|*[!0-9]*) echo 0;; *) echo "$n";; esac
}
_own() { _s=$1; shift; eval "$_s"; }
_ours() {
  while IFS= read -r l || [ -n "$l" ]; do case $l in *"\"run_id\": \"$run\""*) return 0;; esac; done; return 1
}
seq=0
frame() {
  seq=$((seq+1))
  printf '#%s %s %s %s %s\n' "$1" "$seq" "$2" "$3" "$4"
  if [ -n "$5" ]; then printf '%s\n' "$5"; elif [ -s "$t/o" ]; then base64 < "$t/o"; fi
  printf '#-\n'
  [ -s "$t/e" ] && base64 < "$t/e"
  printf '#.\n'
}
raw() {
  seq=$((seq+1)); printf '#%s %s raw\n' "$1" "$seq"; shift
  if [ -n "$t" ]; then "$@" 2>"$t/e" </dev/null; else "$@" </dev/null; fi; rc=$?
}
_end() {
  printf '\n#=%s %s %s %s\n#-\n' "$B" "$1" "$2" "$3"
  [ -z "$t" ] || [ ! -s "$t/e" ] || base64 < "$t/e"
  printf '#.\n'
}
got=1
if [ -n "$lock" ] && [ -n "$info" ]; then
  got=
  if [ -n "$B" ]; then
    seq=1; printf '#lock 1 raw\n'
    {
LOCK_BODY
    } </dev/null
    printf '\n#=%s 0 0 0\n#-\n#.\n' "$B"
    [ -z "$got" ] || t=$lock
  else
    {
LOCK_BODY
    } >"$t/o" 2>"$t/e"
    b=; { IFS= read -r l && [ "$l" = acquired ] && ! read -r l && [ -z "$l" ] && b=ACQUIRED_B64; } <"$t/o"
    frame lock 0 0 0 "$b"
  fi
fi
if [ "$root" != - ]; then
  _facts() {
FACTS
  }
  raw facts _facts "$root"; _end "$rc" 0 0
fi
[ -n "$got" ] || exit 0
[ $# = 0 ] || { [ -n "$t" ] || _tmp; s=$(now); }
for c in "$@"; do
  case $c in
    "#"*) raw run eval "${c#?}"; e=$(now); _end "$rc" "$s" "$e";;
    *) if [ -n "$B" ]; then raw run eval "$c"; e=$(now); _end "$rc" "$s" "$e"
       else eval "$c" >"$t/o" 2>"$t/e" </dev/null; rc=$?; e=$(now); frame run "$rc" "$s" "$e"; fi;;
  esac
  s=$e
done
if [ "$release" = 1 ] && [ -n "$lock" ]; then
  _ours 2>/dev/null <"$lock/holder.json" && {
    if [ -z "$procs" ]; then rm -rf -- "$lock" ${t:+"$t"}
    else _drop "${procs%/*}" "$lock" ${t:+"$t"}; [ ! -e "$procs" ] && [ ! -L "$procs" ] || rm -rf -- "$procs"; fi
    [ ! -d "$lock" ]; }
  rc=$?; seq=$((seq+1)); printf '#release %s %s 0 0\n#-\n#.\n' "$seq" "$rc"
fi
""".replace("FACTS", facts_mod.script()).replace("STATE_FNS", procs_mod.STATE_FNS + DROP_FN).replace(
    "LOCK_BODY", LOCK_BODY).replace("ACQUIRED_B64", base64.b64encode(b"acquired\n").decode()).replace(
    "UUID_FILE", UUID_FILE)


@dataclass(frozen=True, slots=True)
class Frame:
    name: str  # lock, facts, run, release
    rc: int
    seconds: float
    stdout: bytes
    stderr: bytes


@dataclass(frozen=True, slots=True)
class Reply:
    """What the one exec said, section by section (a section missing: it did not run or was cut short)."""

    lock: str | None = None  # LOCK_SCRIPT's reply: "acquired" or "held\n<holder.json>"
    facts: Frame | None = None
    runs: tuple[Frame, ...] = ()
    released: bool = False
    frames: tuple[Frame, ...] = field(default=(), repr=False)


def argv(lines: Sequence[str], *, lock: Sequence[str] = ("", "", ""), facts_root: str | None = None,
         release: bool = False, run_id: str = "") -> list[str]:
    """The exec: ``lock`` = hostlock.lock_args (the lock, holder.json text, the process-group dir) or empty."""
    return ["sh", "-c", SCRIPT, "sh", *lock, "-" if facts_root is None else facts_root, "1" if release else "",
            run_id, *lines]


def parse(stdout: str) -> Reply:
    """The frames that arrived whole, in order."""
    frames: list[Frame] = []
    head: list[str] | None = None
    out: list[str] = []
    err: list[str] | None = None
    raw = plain = False  # in a raw frame's stdout; the frame being read is a raw one
    lines = stdout.split("\n")
    bound = _boundary(lines[0])
    end = f"#={bound} "  # "#= " without a boundary
    for line in lines[1:] if bound else lines:
        if raw and line.startswith(end) and head is not None and len(head) == 3:
            head, raw = [head[0], head[1], *line[len(end):].split(" ")], False
        elif raw:
            if _CUT.fullmatch(line) or (not bound and line.startswith(("#", "[planner: "))):
                break  # a raw frame cut short (or the transport's note where it left out the middle): dropped
            out.append(line)
        elif line.startswith("#") and line not in ("#-", "#."):
            head, out, err = line[1:].split(" "), [], None
            raw = plain = len(head) == 3 and head[2] == "raw"
        elif head is None:
            if line:
                break  # text between frames: the transport's note where it left out the middle
            continue
        elif line == "#-":
            err = []
        elif line == "#.":
            frame = _frame(head, out, err, len(frames) + 1, plain)
            if frame is None:
                break  # a damaged frame, or one after a gap: what follows cannot be trusted in order
            frames.append(frame)
            head = None
        else:
            (out if err is None else err).append(line)
    lock = next((f for f in frames if f.name == "lock"), None)
    return Reply(lock=lock.stdout.decode(errors="replace") if lock else None,
                 facts=next((f for f in frames if f.name == "facts"), None),
                 runs=tuple(f for f in frames if f.name == "run"),
                 released=any(f.name == "release" and f.rc == 0 for f in frames), frames=tuple(frames))


# The transport's note where it left out the middle of the exec's output (streams.OutputBuffer.text).
_CUT = re.compile(r"\[planner: \d+ bytes of output left out here; \d+ bytes in all\]")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _boundary(first: str) -> str:
    """The exec's boundary from its first line (``#~ <uuid>``), or '' (a host without one: base64 framing)."""
    b = first[3:] if first.startswith("#~ ") else ""
    return b if _UUID.fullmatch(b) else ""


def _frame(head: list[str], out: list[str], err: list[str] | None, seq: int, plain: bool) -> Frame | None:
    if len(head) != 5 or err is None or not all(h.isdigit() for h in head[1:]) or int(head[1]) != seq:
        return None
    try:
        # A raw frame's stdout is its lines as printed, less the newline the script adds before "#=".
        stdout = "\n".join(out).encode() if plain else base64.b64decode("".join(out), validate=True)
        stderr = base64.b64decode("".join(err), validate=True)
    except (binascii.Error, ValueError):
        return None
    start, end = int(head[3]), int(head[4])
    return Frame(head[0], int(head[2]), max(0.0, (end - start) / 1e9) if start and end else 0.0, stdout, stderr)


def as_result(line: str, f: Frame) -> CommandResult:
    """A batched command's frame as the CommandResult it would have had alone (same caps on its output)."""
    out, err = OutputBuffer(), OutputBuffer()
    out.write(f.stdout)
    err.write(f.stderr)
    return CommandResult(line, f.rc, out.text(), err.text(), f.seconds, False, out.truncated or err.truncated,
                         out.total, err.total)
