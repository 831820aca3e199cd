#!/bin/sh
# PLANNER STAND-IN for SLOB's setup.sh -- NOT SLOB. Usage: sh ./setup.sh <tablespace> <number-of-schemas>
# Follows the public SLOB 2.5.3.0 setup.sh (read, never copied): f_test_oracle_utilities checks `type sqlplus`
# and `type tnsping` on PATH ("Please validate your environment. SQL*Plus is not executable in current $PATH"),
# f_test_conn connects by bequeath (ORACLE_SID), f_test_tablespace needs the tablespace to exist already
# (ORA-00959 otherwise), and cf1/cf2 are created with the release's STORAGE (BUFFER_POOL ...): KEEP in 2.5.x,
# RECYCLE in 2.4.0 (goryszewskig/SLOB-PDB @ e8d9167 setup.sh:958, :971); standin.env names the pool
# (planner/rehearsal/standins/profile.py SLOB_FACTS). The stand-in sqlplus records them in DBA_SEGMENTS.
# slob.conf ADMIN_SQLNET_SERVICE "is used by both setup.sh and runit.sh" (SLOB 2.4.2 README, SQL*Net Related
# Parameters): set, the admin connection goes over that service (system/<SYSDBA_PASSWD>@<service>, as the public 2.5
# scripts build it) and lands in its container; unset, it is a bequeath connection, which in a CDB is CDB$ROOT,
# where CREATE USER user1 fails ORA-65096.
set -u
KIT=$(cd "$(dirname "$0")" && pwd)
cd "$KIT" || exit 1
[ -f ./standin.env ] && . ./standin.env
POOL=${STANDIN_BUFFER_POOL:-KEEP}
ADMIN_SQLNET_SERVICE=""; SYSDBA_PASSWD=""
[ -f ./slob.conf ] && . ./slob.conf
ADMIN="system/${SYSDBA_PASSWD:-manager}${ADMIN_SQLNET_SERVICE:+@$ADMIN_SQLNET_SERVICE}"
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
if ! printf 'WHENEVER SQLERROR EXIT 2;\nSELECT COUNT(*) FROM dual;\nEXIT;\n' | sqlplus -L "$ADMIN" > cr_tab_and_load.out 2>&1; then
  msg FATAL "Cannot connect to the instance"
  msg FATAL "If not connecting via SQL*Net please check \$ORACLE_SID"
  exit 1
fi
msg NOTIFY "PLANNER STAND-IN: loading $2 schema(s) into tablespace $1 (simulated)"
i=1
{
  echo "WHENEVER SQLERROR EXIT 2;"
  while [ "$i" -le "$2" ]; do
    echo "create user user$i identified by user$i;"
    echo "create table user$i.cf1 (custid number) tablespace $1 storage (buffer_pool $POOL);"
    echo "create table user$i.cf2 (custid number) tablespace $1 storage (buffer_pool $POOL);"
    i=$((i + 1))
  done
  echo "EXIT;"
} | sqlplus -L "$ADMIN" >> cr_tab_and_load.out 2>&1
if grep -q "ORA-" cr_tab_and_load.out; then
  if grep -q "ORA-65096" cr_tab_and_load.out; then
    msg FATAL "Cannot create the SLOB schemas: this connection is in CDB\$ROOT (set ADMIN_SQLNET_SERVICE to the PDB's service)"
  else
    msg FATAL "Cannot create tables in user-specified tablespace (\"$1\")"
  fi
  grep "ORA-" cr_tab_and_load.out
  exit 1
fi
echo "cf1, cf2: STORAGE (BUFFER_POOL $POOL) (simulated)" >> cr_tab_and_load.out
echo "$2" > .standin_schemas
msg NOTIFY "SLOB setup complete."
