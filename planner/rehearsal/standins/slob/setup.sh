#!/bin/sh
# PLANNER STAND-IN for SLOB's setup.sh -- NOT SLOB. Usage: sh ./setup.sh <tablespace> <number-of-schemas>
# Follows the public SLOB 2.5.3.0 setup.sh (read, never copied): f_test_oracle_utilities checks `type sqlplus`
# and `type tnsping` on PATH ("Please validate your environment. SQL*Plus is not executable in current $PATH"),
# f_test_conn connects by bequeath (ORACLE_SID), and f_create_table creates cf1/cf2 with
# STORAGE (BUFFER_POOL KEEP ...): SLOB 2.x data lives in the KEEP pool, or in DEFAULT when no KEEP pool exists.
set -u
KIT=$(cd "$(dirname "$0")" && pwd)
cd "$KIT" || exit 1
msg() { printf '%-7s : %s : %s\n' "$1" "$(date +%Y.%m.%d-%H:%M:%S)" "$2"; }
if [ $# -ne 2 ]; then
  msg FATAL "Usage: sh ./setup.sh <tablespace> <number-of-schemas>"
  exit 1
fi
case "$2" in ''|*[!0-9]*) msg FATAL "number of schemas must be a whole number: $2"; exit 1;; esac
for exe in sqlplus tnsping; do
  if ! type "$exe" >/dev/null 2>&1; then
    msg FATAL "f_test_oracle_utilities: Please validate your environment. SQL*Plus is not executable in current \$PATH"
    msg FATAL "Abort. See $KIT/cr_tab_and_load.out"
    exit 1
  fi
done
if ! printf 'WHENEVER SQLERROR EXIT 2;\nSELECT COUNT(*) FROM dual;\nEXIT;\n' | sqlplus -L system/manager > cr_tab_and_load.out 2>&1; then
  msg FATAL "Cannot connect to the instance"
  msg FATAL "If not connecting via SQL*Net please check \$ORACLE_SID"
  exit 1
fi
echo "cf1, cf2: STORAGE (BUFFER_POOL KEEP) (simulated)" >> cr_tab_and_load.out
msg NOTIFY "PLANNER STAND-IN: loading $2 schema(s) into tablespace $1 (simulated)"
i=1
while [ "$i" -le "$2" ]; do
  echo "user$i loaded (simulated)" >> cr_tab_and_load.out
  i=$((i + 1))
done
echo "$2" > .standin_schemas
msg NOTIFY "SLOB setup complete."
