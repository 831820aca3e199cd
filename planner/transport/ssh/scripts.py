"""The fixed shell scripts the SSH transport sends (planner/transport/ssh/client.py): user values only ever come
in as "$1", "$2"...

Kept apart from client.py so that module stays about paramiko; nothing here imports it.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping, Sequence

from planner.transport.become import PROMPT
from planner.transport.connection import as_login, command_line

# TERM the command's process group, give it 2 s to flush, then KILL what is left.
# (dash's kill rejects "--", so the negative pgid follows the signal directly.)
KILL_SCRIPT = ('kill -TERM -"$1" 2>/dev/null || exit 0; i=0; '
               'while kill -0 -"$1" 2>/dev/null; do i=$((i+1)); '
                'if [ "$i" -gt 20 ]; then kill -KILL -"$1" 2>/dev/null; exit 0; fi; sleep 0.1; done')
# Checksum, mode and rename of an uploaded temp file in one round trip; mv -T in one dir is rename(2).
FINISH_PUT = ('h=$(sha256sum < "$1") || exit 8; h=${h%% *}; '
              'if [ "$h" != "$2" ]; then rm -f -- "$1"; echo "checksum mismatch: got $h" >&2; exit 9; fi; '
              'if [ -n "$4" ]; then chmod "$4" "$1" || exit 8; fi; mv -f -T -- "$1" "$3"')
# Fetch: the path is resolved first ($1 -> $p, symlinks followed) and refused (exit 4, the resolved path on stderr)
# when it is outside the host's planner_root ($3, itself resolved; empty on a real host); a file larger than the
# cap ($4, empty for none) is refused with exit 5 and its size on stderr. A file up to GET_INLINE_MAX bytes ($2)
# comes back base64 in one exec with its checksum (taken before the read: a file changing in between fails the
# comparison); a larger one is read over SFTP from the resolved path, printed on the line after "sftp N". An SFTP
# session costs the host an sftp-server process on top of the exec, and most artifacts (AWR, fio JSON, logs) are
# small.
# `_real PATH` resolves as `realpath -e` does without it (coreutils < 8.15 has none: RHEL/OL 5 and 6): the
# folders by `cd -P` and `pwd -P` (builtins), a symlinked last part by a plain `readlink` per link (no program
# at all for a path without one); every part must exist. CDPATH is cleared: `cd` would print and go elsewhere.
REAL_FN = (
    '_real() { f=$1; n=0; while [ -L "$f" ]; do n=$((n+1)); [ "$n" -le 40 ] || return 1; '
    'l=$(readlink -- "$f") || return 1; case $f in */*) d=${f%/*};; *) d=.;; esac; '
    'case $l in /*) f=$l;; *) f=$d/$l;; esac; done; [ -e "$f" ] || return 1; '
    'if [ -d "$f" ]; then (cd -P -- "$f" && pwd -P); return; fi; '
    'case $f in */*) d=${f%/*}; f=${f##*/};; *) d=.;; esac; '
    'd=$(cd -P -- "${d:-/}" && pwd -P) || return 1; printf "%s\\n" "${d%/}/$f"; }; CDPATH=; ')
GET = (REAL_FN + 'p=$(_real "$1" 2>/dev/null) || exit 3; [ -f "$p" ] || exit 3; '
       'if [ -n "$3" ]; then r=$(_real "$3") || exit 8; r=${r%/}; '
       'case "$p" in "$r"/*) ;; *) printf %s "$p" >&2; exit 4;; esac; fi; '
       'n=$(wc -c < "$p") || exit 8; '
       'if [ -n "$4" ] && [ "$n" -gt "$4" ]; then echo "$n" >&2; exit 5; fi; '
       'if [ "$n" -gt "$2" ]; then printf "sftp %s\\n%s\\n" "$n" "$p"; exit 0; fi; '
       'h=$(sha256sum < "$p") || exit 8; echo "inline $n ${h%% *}"; base64 < "$p"')
GET_INLINE_MAX = 4 << 20
# A shell that runs its arguments as a child (never exec-ing it) and exits with its status: see in_process_group.
SETSID_CHILD = '"$@"; exit'
# $1: a script whose backslashes, newlines and ! are escaped (one_line): rebuilt with printf's %b, run by eval
# (no variable set: the script may read any as unset; $1 stays, a script that takes arguments sets its own).
ONE_LINE = 'eval "$(printf %b "$1")"'


def in_process_group(argv: Sequence[str], *, become: bool, become_user: str, login: bool,
                     env: Mapping[str, str] | None, cwd: str | None, mark: str, ask_password: bool = False,
                     prompt: str = PROMPT) -> str:
    """The line sent for one command. setsid: a new process group (its pid, echoed first on stderr after
    ``mark``) that a timeout can kill whole. Every part is quoted by command_line; no text is pasted.

    Not ``setsid -w``: util-linux added -w in 2.24, and RHEL/OL 5-7 ship 2.13-2.23 (docs/userlands.md), where
    it is an invalid option and no command ran at all. Without -w, setsid forks (and exits at once, status 0)
    only when it is a process-group leader; so it is started by a shell as a child, which is never one, and
    that shell waits and exits with its status. Without become that shell is the login shell sshd started
    (``; exit $status`` keeps it from exec-ing setsid in its own place and exits with setsid's status in sh,
    dash, bash, ksh (``$status`` unset: a bare ``exit``, the last status), csh and tcsh (their status variable;
    a bare ``exit`` there exits 0, which hid every failure); under sudo, whose child may lead its group
    (use_pty), it is an ``sh -c`` of ours. The leader
    then execs the command (argv is a program, never a shell builtin), or runs an ``sh -c`` script itself: one
    process less on the host.

    The marker is the first thing the become user's side runs: a login profile (``login``, docs/become.md) runs
    after it, so whatever comes before the marker is sudo's own, and only then is sudo's prompt answered."""
    inner = f"cd {shlex.quote(cwd)} && " if cwd else ""
    if not env and len(argv) >= 3 and tuple(argv[:2]) == ("sh", "-c") and tuple(argv[3:4]) in ((), ("sh",)):
        # A shell script (planner's own, the batch): the leader runs it itself rather than exec a second shell
        # (one program less per command); `set --` gives it its arguments, $$ and $0 are the same.
        inner += "{ set -- " + shlex.join(argv[4:]) + "; eval " + shlex.quote(argv[2]) + "; }"
    else:
        inner += "exec " + command_line(argv, env=env)
    if login and become:
        inner = "exec " + as_login(inner)
    group = ["setsid", "sh", "-c", *one_line(f"echo {mark}$$ >&2; {inner}")]
    if not become:
        return command_line(group) + "; exit $status"
    return command_line(["sh", "-c", SETSID_CHILD, "sh", *group], become=True, become_user=become_user,
                        ask_password=ask_password, prompt=prompt)


def one_line(script: str) -> list[str]:
    """``sh -c``'s script (and what follows it) without a newline: csh and tcsh, login shells of many lab
    accounts, refuse a newline inside quotes ("Unmatched '.") and expand a ``!`` even there ("Event not found"),
    so such a script would never reach sh. Its backslashes, newlines and ``!`` are sent escaped (``\\0041``,
    octal) and rebuilt by sh's printf builtin, then eval'd in the same shell (no program more, $$ unchanged).
    Any other script is sent as it is."""
    if "\n" not in script and "!" not in script:
        return [script]
    return [ONE_LINE, "sh", script.replace("\\", "\\\\").replace("\n", "\\n").replace("!", "\\0041")]


def get_argv(remote: str, inline_max: int, root: str, max_bytes: int | None) -> list[str]:
    """GET's exec: the file inline up to ``inline_max`` bytes (else its SFTP path), refused past ``max_bytes``."""
    return ["sh", "-c", GET, "sh", remote, str(inline_max), root, "" if max_bytes is None else str(max_bytes)]


def inline_reply(stdout: str) -> tuple[bytes, str] | None:
    """GET's answer for a small file: (its bytes, the sha256 the host took), or None for any other answer."""
    head, _, body = stdout.partition("\n")
    words = head.split()
    if words[:1] != ["inline"] or len(words) != 3:
        return None
    try:
        return base64.b64decode(body), words[2]
    except ValueError:
        return None
