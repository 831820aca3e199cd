"""The fixed shell scripts the SSH transport sends (planner/transport/ssh/client.py): user values only ever come in as "$1", "$2"...

Kept apart from ssh.py so that module stays about paramiko; nothing here imports it.
"""

from __future__ import annotations

# TERM the command's process group, give it 2 s to flush, then KILL what is left.
# (dash's kill rejects "--", so the negative pgid follows the signal directly.)
KILL_SCRIPT = ('kill -TERM -"$1" 2>/dev/null || exit 0; i=0; '
               'while kill -0 -"$1" 2>/dev/null; do i=$((i+1)); '
                'if [ "$i" -gt 20 ]; then kill -KILL -"$1" 2>/dev/null; exit 0; fi; sleep 0.1; done')
# Checksum, mode and rename of an uploaded temp file in one round trip; mv -T in one dir is rename(2).
FINISH_PUT = ('h=$(sha256sum < "$1") || exit 8; h=${h%% *}; '
              'if [ "$h" != "$2" ]; then rm -f -- "$1"; echo "checksum mismatch: got $h" >&2; exit 9; fi; '
              'if [ -n "$4" ]; then chmod "$4" "$1" || exit 8; fi; mv -f -T -- "$1" "$3"')
# Fetch: a file up to GET_INLINE_MAX bytes comes back base64 in one exec with its checksum (taken before the
# read: a file changing in between fails the comparison); a larger one goes over SFTP. An SFTP session costs
# the host an sftp-server process on top of the exec, and most artifacts (AWR, fio JSON, logs) are small.
GET_INLINE_MAX = 4 << 20
GET = ('[ -f "$1" ] || exit 3; n=$(wc -c < "$1") || exit 8; '
       'if [ "$n" -gt "$2" ]; then echo "sftp $n"; exit 0; fi; '
       'h=$(sha256sum < "$1") || exit 8; echo "inline $n ${h%% *}"; base64 < "$1"')
