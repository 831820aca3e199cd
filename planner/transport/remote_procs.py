"""Remote process groups of a run, recorded on the host, so a later controller can stop what a killed one left.

A controller killed with SIGKILL cannot stop its remote commands: over SSH without a tty nothing signals
them, and each runs in a process group of its own. So once a run holds a host, every command it sends
there runs under a small wrapper that records its process group in ``<workdir>/.running/<pgid>`` (the
file holds the group leader's start time) and removes the file when the command ends.
``planner apply --resume`` and ``planner restore`` call ``stop_leftovers`` to stop the groups still alive.

A recorded pgid is signalled only when it still names the same group: the leader's start time matches, or
the leader is gone (the kernel does not hand out a number still used as a group id, so a group with that
id can only be the orphaned original). The command log shows the command as the step gave it, without
the wrapper.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Mapping

from planner.errors import StepError
from planner.transport import ostats
from planner.transport.become import asks_password
from planner.transport.connection import Argv, CommandResult, Connection, WrappedConnection, command_line

RUNNING_DIR = ".running"

# Shell functions for the state planner keeps on a host (the workdir base, /tmp/planner by default, and the host
# lock), which sit where every local user may write. A folder is used only when it is the login user's own, not
# a symlink, and (for the base) writable by nobody else: what lies below it then cannot be planted by anyone.
# Builtins where they can (`test -O`: bash, dash, ksh and busybox have it): the lock rides in every play's one
# exec, and each fork there is paid per host. `_uid PATH`: the owner's uid, not following a symlink.
# `_base` leaves the base it found safe in $_based: that base is the login user's, so only that user or root can
# change its mode afterwards, and a later check in the same script may skip its own `ls`.
# `_procs` makes a new folder with its mode in the one `mkdir` (-m applies to the last folder only); only a folder
# that was there already needs its own `chmod`.
STATE_FNS = r"""
_uid() { ls -ldn -- "$1" 2>/dev/null | awk '{print $3}'; }
_mine() { [ -d "$1" ] && [ ! -L "$1" ] && [ -O "$1" ]; }
_based=
_base() {
  if [ ! -e "$1" ] && [ ! -L "$1" ]; then
    mkdir -p -- "${1%/*}" 2>/dev/null; mkdir -m 0755 -- "$1" 2>/dev/null && { _based=$1; return 0; }
  fi
  if _mine "$1"; then case $(ls -ldn -- "$1") in d????w*|d???????w*) ;; *) _based=$1; return 0;; esac; fi
  echo "unsafe $1: $(ls -ldn -- "$1" 2>&1)"; return 1
}
_procs() {
  if [ -e "$1" ] || [ -L "$1" ]; then _mine "$1" && chmod 1777 -- "$1"; else mkdir -p -m 1777 -- "$1" && _mine "$1"; fi
}
"""

_SKIP21 = "_ " * 21  # /proc/PID/stat: field 22 is the start time (comm of a shell has no spaces)

# $1 the .running dir; the rest is the command. Builtins only, then exec: no process added on the host. The
# record stays after the command ends (removing it cost a fork of rm per command): _STOP skips a group that
# is gone or whose leader's start time differs, and the host lock's release removes the folder.
_WRAP = (
    'd=$1; shift\n'
    '{ read -r _ _ _ _ g _ </proc/$$/stat && read -r ' + _SKIP21 + 't _ <"/proc/$g/stat" '
    '&& echo "$t" >"$d/$g"; } 2>/dev/null\n'
    'exec "$@"\n'
)

# Builtins inside the loop: records of finished commands stay until the lock is released, so a long run
# leaves thousands, and a fork per record would make a restore slow.
# A record names a group to stop only when its file was written by the group leader's own user (the wrapper runs
# as the command's user): the folder is world-writable, and anyone may plant a record naming root's processes.
# A leader that is gone leaves no owner to compare: then the record must be the login user's or root's.
_STOP = STATE_FNS + (
    'd=$1; [ -d "$d" ] || exit 0\n'
    '_base "${d%/*/*/*}" || exit 0\n'
    'for f in "$d"/*; do\n'
    '  [ -f "$f" ] && [ ! -L "$f" ] || continue; g=${f##*/}\n'
    '  case $g in ""|*[!0-9]*) continue;; esac\n'
    '  [ "$g" -gt 1 ] || continue\n'
    '  read -r want < "$f" || want=; t=\n'
    '  if [ -r "/proc/$g/stat" ]; then read -r ' + _SKIP21 + 't _ <"/proc/$g/stat"; fi\n'
    '  if { [ -z "$t" ] || [ "$t" = "$want" ]; } && kill -s 0 -- "-$g" 2>/dev/null; then\n'
    '    fu=$(_uid "$f"); pu=$(_uid "/proc/$g")\n'
    '    if [ -n "$pu" ] && [ "$fu" != "$pu" ] || { [ -z "$pu" ] && [ ! -O "$f" ] && [ "$fu" != 0 ]; }; then\n'
    '      echo "foreign $g $fu ${pu:-gone}"; continue\n'
    '    fi\n'
    '    kill -s TERM -- "-$g" 2>/dev/null; i=0\n'
    '    while kill -s 0 -- "-$g" 2>/dev/null && [ "$i" -lt 30 ]; do sleep 0.1; i=$((i+1)); done\n'
    '    kill -s KILL -- "-$g" 2>/dev/null && echo "killed $g" || echo "stopped $g"\n'
    '  fi\n'
    'done\n'
    'rm -f -- "$d"/*\n'
)


def running_dir(workdir: str) -> str:
    return posixpath.join(workdir, RUNNING_DIR)


class TrackedConnection(WrappedConnection):
    """A Connection whose commands record their process group in the run's ``.running`` dir on the host."""

    def __init__(self, inner: Connection, workdir: str) -> None:
        super().__init__(inner)
        self.dir = running_dir(workdir)

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        if isinstance(argv, str):
            raise TypeError("command must be an argv list, not a string: build it from quoted parts")
        r = self.inner.run(["sh", "-c", _WRAP, "sh", self.dir, *argv], become=become, become_user=become_user,
                           login=login, timeout=timeout, env=env, cwd=cwd, stdin=stdin)
        shown = command_line(argv, become=become, become_user=become_user or self.host.become_user, login=login,
                             env=env, cwd=cwd, ask_password=asks_password(self.host, become))
        return dataclasses.replace(r, command=shown)


def prepare(conn: Connection, workdir: str) -> None:
    """Create the ``.running`` dir (world-writable like /tmp: steps may run as another user via become) below a
    workdir base that is the login user's own; StepError when the base is not (another user made it)."""
    r = conn.run(["sh", "-c", STATE_FNS + '_base "${1%/*/*/*}" && _procs "$1"', "sh", running_dir(workdir)])
    if r.stdout.startswith("unsafe "):
        raise unsafe_base(conn.host.name, r.stdout)


def unsafe_base(host: str, said: str) -> StepError:
    """The refusal of a workdir base another user could write or replace (``said``: _base's "unsafe" line)."""
    path, _, listing = said[len("unsafe "):].strip().partition(": ")
    return StepError(f"{host}: planner's folder {path} is not safe to use: it must be a folder of the login user "
                     f"that nobody else may write, and it is not ({listing.strip()}); nothing was written there",
                     hint=f"if another user made it, remove {path} as root (sudo rm -rf -- {path}); or set "
                          "planner_workdir (group_vars/all: every host's) to a folder "
                          "only the login user can write")


def stop_leftovers(conn: Connection, workdir: str) -> list[str]:
    """Stop the command groups and OS-statistics samplers a dead controller left in ``workdir``.

    Returns what was stopped, one line per group. Runs with the connection's own user; a group started
    under become by another user is stopped only when that user is the same or the login user is root.
    """
    r = conn.run(["sh", "-c", _STOP, "sh", running_dir(workdir)], timeout=120)
    if r.stdout.startswith("unsafe "):
        raise unsafe_base(conn.host.name, r.stdout)
    done = [f"stopped process group {line.split()[1]} left running by the dead controller"
            for line in r.stdout.splitlines() if line.startswith(("killed ", "stopped "))]
    done += [f"left process group {w[1]} alone: its record was written by uid {w[2]}, the group is uid {w[3]}'s "
             "(a record planted by another user)" for w in (line.split() for line in r.stdout.splitlines())
             if len(w) == 4 and w[0] == "foreign"]
    found = conn.run(["sh", "-c", '[ -d "$1" ] || exit 0; find "$1" -name "$2" -type f', "sh", workdir,
                      ostats.PGID_FILE], timeout=120)
    for f in found.stdout.splitlines():
        if f.strip() and ostats.stop_stale(conn, posixpath.dirname(f.strip())):
            done.append(f"stopped the OS statistics samplers in {posixpath.dirname(f.strip())}")
    return done
