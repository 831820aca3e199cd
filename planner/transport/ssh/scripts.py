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
GET_INLINE_MAX = 4 << 20
GET = ('p=$(realpath -e -- "$1" 2>/dev/null) || exit 3; [ -f "$p" ] || exit 3; '
       'if [ -n "$3" ]; then r=$(realpath -e -- "$3") || exit 8; r=${r%/}; '
       'case "$p" in "$r"/*) ;; *) printf %s "$p" >&2; exit 4;; esac; fi; '
       'n=$(wc -c < "$p") || exit 8; '
       'if [ -n "$4" ] && [ "$n" -gt "$4" ]; then echo "$n" >&2; exit 5; fi; '
       'if [ "$n" -gt "$2" ]; then printf "sftp %s\\n%s" "$n" "$p"; exit 0; fi; '
       'h=$(sha256sum < "$p") || exit 8; echo "inline $n ${h%% *}"; base64 < "$p"')


def in_process_group(argv: Sequence[str], *, become: bool, become_user: str, login: bool,
                     env: Mapping[str, str] | None, cwd: str | None, mark: str, ask_password: bool = False,
                     prompt: str = PROMPT) -> str:
    """The line sent for one command. setsid -w: a new process group (its pid, echoed first on stderr after
    ``mark``) that a timeout can kill whole; -w keeps the exit status. Inside sudo, so the group belongs to
    the become user. The leader then execs the command (argv is a program, never a shell builtin): one
    process less per command on the host. Every part is quoted by command_line; no text is pasted.

    The marker is the first thing the become user's side runs: a login profile (``login``) runs after it, so
    whatever comes before the marker is sudo's own, and only then is sudo's prompt answered."""
    inner = f"cd {shlex.quote(cwd)} && " if cwd else ""
    inner += "exec " + command_line(argv, env=env)
    if login and become:
        inner = "exec " + as_login(inner)
    return command_line(["setsid", "-w", "sh", "-c", f"echo {mark}$$ >&2; {inner}"],
                        become=become, become_user=become_user, ask_password=ask_password, prompt=prompt)


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
