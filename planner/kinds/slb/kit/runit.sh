#!/bin/sh
# runit.sh USERS [SECONDS] - run the SLB-compatible kit: USERS processes, each with its own buffer
# (SLB_MB MiB, default 512), SECONDS of random 8-byte reads then SECONDS of random 8-byte writes
# (default $SLB_SECONDS, else 10). CPU affinity set by the caller (taskset -c 0-5 ./runit.sh 6) is
# inherited by every user process. Exits non-zero when any user failed.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 USERS [SECONDS]" >&2
    exit 2
fi
users=$1
seconds=${2:-${SLB_SECONDS:-10}}
case $users in
    ''|*[!0-9]*) echo "$0: USERS must be a positive integer, got '$users'" >&2; exit 2 ;;
esac

kit=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$kit/slb" ] || [ "$kit/slb.c" -nt "$kit/slb" ]; then
    # Build on first use so a freshly copied kit runs without a separate make step.
    "${CC:-cc}" -O2 -o "$kit/slb" "$kit/slb.c"
fi

# exec: the user processes become children of slb, which keeps this shell's pid, group and affinity.
exec "$kit/slb" -u "$users" -s "$seconds"
