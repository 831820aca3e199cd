#!/bin/sh
# PLANNER STAND-IN for SLOB's setup.sh -- NOT SLOB. Usage: sh ./setup.sh <tablespace> <number-of-schemas>
set -u
KIT=$(cd "$(dirname "$0")" && pwd)
cd "$KIT" || exit 1
msg() { printf '%-7s : %s : %s\n' "$1" "$(date +%Y.%m.%d-%H:%M:%S)" "$2"; }
if [ $# -ne 2 ]; then
  msg FATAL "Usage: sh ./setup.sh <tablespace> <number-of-schemas>"
  exit 1
fi
case "$2" in ''|*[!0-9]*) msg FATAL "number of schemas must be a whole number: $2"; exit 1;; esac
msg NOTIFY "PLANNER STAND-IN: loading $2 schema(s) into tablespace $1 (simulated)"
: > cr_tab_and_load.out
i=1
while [ "$i" -le "$2" ]; do
  echo "user$i loaded (simulated)" >> cr_tab_and_load.out
  i=$((i + 1))
done
echo "$2" > .standin_schemas
msg NOTIFY "SLOB setup complete."
