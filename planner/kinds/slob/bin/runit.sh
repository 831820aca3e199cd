#!/bin/sh
# PLANNER STAND-IN for SLOB's runit.sh (SLOB 2.4+ command line) -- NOT SLOB, written for planner's tests.
# Usage: sh ./runit.sh <number-of-schemas>  |  sh ./runit.sh -s <schemas> -t <threads-per-schema>
# What it refuses, and the words it uses, follow the public SLOB 2.4 runit.sh (goryszewskig/SLOB-PDB @ 12cdbe65,
# main body): `type sqlplus` on PATH first ("sqlplus is not executable in ${PATH}."), then f_check_cmdline /
# getopts (-s/-t "requires a non-zero integer argument"), then the "Initial slob.conf sanity check" (RUN_TIME >= 30,
# WORK_UNIT 3..1024, f_check_pct_logic: a percentage in 51..99 is refused), then f_test_conn (sqlplus -L, bequeath
# with ORACLE_SID when no SQL*Net service is set). Read, not copied: SLOB's licence forbids redistribution.
# SQL*Net (SLOB 2.4.2 README, SQL*Net Related Parameters; the public 2.5 runit.sh, code index id 38272540123):
# ADMIN_SQLNET_SERVICE makes the admin connection system/<SYSDBA_PASSWD>@<service>, SQLNET_SERVICE_BASE the SLOB
# sessions' user<N>/user<N>@<service>; unset, both are bequeath, which in a CDB lands in CDB$ROOT, where SLOB's
# users (local users of their PDB) fail ORA-01017. runit.sh tests user1 (and user<schemas>) before it starts.
# The release it imitates comes from standin.env (planner/rehearsal/standins/profile.py SLOB_FACTS cites each):
# STANDIN_GETOPTS=no is the 2.0-2.3 command line (runit.sh <sessions>, AWR only); STANDIN_GLOBAL_REPORT=yes writes
# awr_rac.txt after every AWR run, RAC or not, as 2.4.0's runit.sh does (SLOB-PDB @ e8d9167 runit.sh:696-710).
set -u
KIT=$(cd "$(dirname "$0")" && pwd)
cd "$KIT" || exit 1
[ -f ./standin.env ] && . ./standin.env
STANDIN_GETOPTS=${STANDIN_GETOPTS:-yes}; STANDIN_GLOBAL_REPORT=${STANDIN_GLOBAL_REPORT:-yes}
msg() { printf '%-7s : %s : %s\n' "$1" "$(date +%Y.%m.%d-%H:%M:%S)" "$2"; }
whole() { case "$1" in ''|*[!0-9]*) return 1;; esac; return 0; }
if ! type sqlplus >/dev/null 2>&1; then
  msg FATAL "sqlplus is not executable in ${PATH}."
  msg FATAL "SLOB abnormal end."
  exit 1
fi
THREADS=""
if [ $# -eq 1 ]; then
  SCHEMAS=$1
elif [ "$STANDIN_GETOPTS" = yes ] && [ $# -eq 4 ] && [ "$1" = "-s" ] && [ "$3" = "-t" ]; then
  SCHEMAS=$2
  THREADS=$4
else
  msg FATAL "Invalid command line. Abort."
  echo "Usage: sh ./runit.sh <number-of-schemas> | sh ./runit.sh -s <schemas> -t <threads-per-schema>"
  exit 1
fi
whole "$SCHEMAS" && [ "$SCHEMAS" -ge 1 ] || { msg FATAL "The -s option requires a non-zero integer argument."; exit 1; }
if [ -n "$THREADS" ]; then
  whole "$THREADS" && [ "$THREADS" -ge 1 ] || { msg FATAL "The -t option requires a non-zero integer argument."; exit 1; }
fi
rm -f statspack.txt awr.txt awr_rac.txt awr.html awr.html.gz awr_rac.html.gz iostat.out vmstat.out mpstat.out \
  db_stats.out sqlplus.out slob_debug.out tm.out
. ./slob.conf
UPDATE_PCT=${UPDATE_PCT:-25}; SCAN_PCT=${SCAN_PCT:-0}; RUN_TIME=${RUN_TIME:-300}; SCALE=${SCALE:-10000}; WORK_UNIT=${WORK_UNIT:-256}
REDO_STRESS=${REDO_STRESS:-LITE}; THREADS_PER_SCHEMA=${THREADS_PER_SCHEMA:-1}
DATABASE_STATISTICS_TYPE=${DATABASE_STATISTICS_TYPE:-statspack}
[ "$STANDIN_GETOPTS" = yes ] || { DATABASE_STATISTICS_TYPE=awr; THREADS_PER_SCHEMA=1; }  # before 2.4: AWR only
[ -n "$THREADS" ] && THREADS_PER_SCHEMA=$THREADS
SYSDBA_PASSWD=${SYSDBA_PASSWD:-manager}
ADMIN="system/$SYSDBA_PASSWD${ADMIN_SQLNET_SERVICE:+@$ADMIN_SQLNET_SERVICE}"
USERS_AT="${SQLNET_SERVICE_BASE:+@$SQLNET_SERVICE_BASE}"
for v in UPDATE_PCT SCAN_PCT RUN_TIME WORK_UNIT THREADS_PER_SCHEMA; do
  eval "val=\$$v"
  whole "$val" || { msg FATAL "slob.conf: $v must be a whole number, not '$val'"; exit 1; }
done
msg NOTIFY "Performing initial slob.conf sanity check..."
[ "$RUN_TIME" -lt 30 ] && { msg FATAL "Minimum supported RUN_TIME 30 seconds."; exit 1; }
[ "$WORK_UNIT" -lt 3 ] && { msg FATAL "Minimum supported WORK_UNIT is 3."; exit 1; }
[ "$WORK_UNIT" -gt 1024 ] && { msg FATAL "Maximum supported WORK_UNIT is 1024."; exit 1; }
for v in UPDATE_PCT SCAN_PCT; do
  eval "val=\$$v"
  if [ "$val" -gt 100 ] || { [ "$val" -gt 50 ] && [ "$val" -le 99 ]; }; then
    msg FATAL "slob.conf->$v is $val: SLOB supports 0-50 or 100."; exit 1
  fi
done
case "$DATABASE_STATISTICS_TYPE" in awr|statspack) ;; *) msg FATAL "DATABASE_STATISTICS_TYPE: awr or statspack"; exit 1;; esac
case "$REDO_STRESS" in LITE|HEAVY) ;; *) msg FATAL "REDO_STRESS: LITE or HEAVY"; exit 1;; esac
case "$SCALE" in
  *[Mm]) SCALE_BLOCKS=$(( ${SCALE%?} * 128 ));;
  *[Gg]) SCALE_BLOCKS=$(( ${SCALE%?} * 131072 ));;
  *) whole "$SCALE" || { msg FATAL "SCALE must be blocks or a size such as 80M"; exit 1; }; SCALE_BLOCKS=$SCALE;;
esac
# f_test_conn: the admin connection, by bequeath (no ADMIN_SQLNET_SERVICE): needs ORACLE_HOME and ORACLE_SID.
if ! printf 'WHENEVER SQLERROR EXIT 2;\nSELECT COUNT(*) FROM DUAL;\nEXIT;\n' | sqlplus -L "$ADMIN" > sqlplus.out 2>&1; then
  msg FATAL "f_test_conn: Instance connectivity check failed. SQL*Plus output: "
  cat sqlplus.out
  exit 1
fi
# 2.4.0 runit.sh:1129-1132: more than 4096 sessions is refused
if [ $((SCHEMAS * THREADS_PER_SCHEMA)) -gt 4096 ]; then
  msg FATAL "Cannot attach ${THREADS_PER_SCHEMA} (slob.conf) sessions to $SCHEMAS schemas."
  msg FATAL "Maximum tested active database session count is 4096."
  exit 1
fi
# 2.4.0 runit.sh:1243/:1253 prints the admin password and connect string in its banner (planner redacts them)
echo "SYSDBA_PASSWD: \"$SYSDBA_PASSWD\""
echo "        Admin Connect String: \"$ADMIN\""
for U in 1 "$SCHEMAS"; do
  if ! printf 'WHENEVER SQLERROR EXIT 2;\nSELECT COUNT(*) FROM DUAL;\nEXIT;\n' | sqlplus -L "user$U/user$U$USERS_AT" > sqlplus.out 2>&1; then
    msg FATAL "Connect failure user$U/user$U$USERS_AT."
    msg FATAL "Please ensure user$U exists in the database."
    cat sqlplus.out
    exit 1
  fi
done
LOADED=$(cat .standin_schemas 2>/dev/null || echo 0)
if [ "$LOADED" -lt "$SCHEMAS" ]; then
  echo "ORA-01017: invalid username/password; logon denied (user$SCHEMAS: run setup.sh first)" > sqlplus.out
  msg FATAL "Connect check failed for user$SCHEMAS: see sqlplus.out"
  exit 1
fi
SESSIONS=$((SCHEMAS * THREADS_PER_SCHEMA))
msg NOTIFY "PLANNER STAND-IN: simulated SLOB run, not a measurement"
msg NOTIFY "Conducting SLOB pre-test checks."
msg NOTIFY "UPDATE_PCT == $UPDATE_PCT, RUN_TIME == $RUN_TIME, SCALE == $SCALE, WORK_UNIT == $WORK_UNIT"
msg NOTIFY "Number of SLOB sessions: $SESSIONS ($SCHEMAS schema(s) x $THREADS_PER_SCHEMA thread(s))"
# Scaled real time, but at least 1.5 s: the real kit's 1 s iostat/vmstat/mpstat (below) get a row, as they do
# over a real RUN_TIME (>= 30 s); a 0.3 s stand-in run left mpstat.out a bare header.
SECS=$(awk -v t="$RUN_TIME" -v s="${PLANNER_STANDIN_TIME_SCALE:-0.01}" 'BEGIN { x = t * s; if (x < 1.5) x = 1.5; printf "%.3f", x }')
PIDS=""
if [ -z "${NO_OS_PERF_DATA:-}" ]; then
  command -v iostat >/dev/null 2>&1 && { iostat -t -xm 1 > iostat.out 2>&1 & PIDS="$PIDS $!"; }
  command -v vmstat >/dev/null 2>&1 && { vmstat -t 1 > vmstat.out 2>&1 & PIDS="$PIDS $!"; }
  command -v mpstat >/dev/null 2>&1 && { mpstat -P ALL 1 > mpstat.out 2>&1 & PIDS="$PIDS $!"; }
fi
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT INT TERM
# The real runit.sh takes its own snapshots inside the sampled span and brackets them with these f_msg words
# (2.4.0 SLOB-PDB @ e8d9167 runit.sh:1471/:1481/:1507/:1517; 2.5.x: after "Warm-up phase." and sleep 30, public
# copy code index id 38272540123); "Executing ..." goes to stderr there too. STANDIN_WARM_UP is the release's
# warm-up in kit seconds (scaled like RUN_TIME); STANDIN_WARM_UP_SECS, when set, is real seconds (tests).
WARM=$(awk -v t="${STANDIN_WARM_UP:-0}" -v s="${PLANNER_STANDIN_TIME_SCALE:-0.01}" 'BEGIN { printf "%.3f", t * s }')
WARM=${STANDIN_WARM_UP_SECS:-$WARM}
PY=${PLANNER_PYTHON:-python3}
# A snapshot id from the stand-in database (awrgen_cli snap), as the real kit's "before snap" procedure returns
# the id its awrrpti report then shows: the log and the report name the same snapshots.
snap_id() {
  PYTHONPATH="${PLANNER_PYTHONPATH:-}${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m planner.rehearsal.standins.awrgen_cli snap \
    --out-dir "$KIT"
}
before_snap() {
  SNAP=$(snap_id) || { msg FATAL "before snap failed"; exit 1; }
  msg NOTIFY "Executing $DATABASE_STATISTICS_TYPE \"before snap\" procedure. Command: \"sqlplus -S -L system/manager\"." >&2
  msg NOTIFY "Before $DATABASE_STATISTICS_TYPE snap ID is $SNAP"
}
if [ "${STANDIN_WARM_UP:-0}" -gt 0 ]; then  # 2.5.x: trigger, warm up, then the begin snapshot
  msg NOTIFY "Test has been triggered. Processes are executing. Warm-up phase." >&2
  sleep "$WARM"
  before_snap
else  # 2.4.0: the begin snapshot, then the trigger
  before_snap
  msg NOTIFY "Test has been triggered. Processes are executing." >&2
fi
msg NOTIFY "Executing SLOB test ($SECS s of real time stand for $RUN_TIME s)."
sleep "$SECS"
msg NOTIFY "Executing $DATABASE_STATISTICS_TYPE \"after snap\" procedure. Command: \"sqlplus -S -L system/manager\"." >&2
END_SNAP=$(snap_id) || { msg FATAL "after snap failed"; exit 1; }
msg NOTIFY "After $DATABASE_STATISTICS_TYPE snap ID is $END_SNAP"
if [ "${PLANNER_STANDIN_FAIL:-}" = "ora" ]; then
  echo "ORA-01653: unable to extend table USER1.CF1 by 128 in tablespace IOPS" > slob_debug.out
  msg FATAL "Errors were reported by SLOB sessions: see slob_debug.out"
  exit 1
fi
i=1
: > db_stats.out
while [ "$i" -le "$SESSIONS" ]; do
  echo "$i|$((RUN_TIME * 100))|$((RUN_TIME * 3))|3.000|" >> db_stats.out
  i=$((i + 1))
done
# The reports: awr.txt (+ awr.html) or statspack.txt, and on a RAC stand-in also awr_rac.txt, the global report, as
# the real runit.sh's f_generate_awr_report writes awrrpti's awr.txt and awrgrpt.sql's awr_rac.txt / awr_rac.html.
PYTHONPATH="${PLANNER_PYTHONPATH:-}${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m planner.rehearsal.standins.awrgen_cli slob \
  --out-dir "$KIT" --begin-snap "$SNAP" --end-snap "$END_SNAP" --sessions "$SESSIONS" --update-pct "$UPDATE_PCT" --run-time "$RUN_TIME" \
  --work-unit "$WORK_UNIT" --redo-stress "$REDO_STRESS" --scale-blocks "$SCALE_BLOCKS" --schemas "$SCHEMAS" \
  --stats "$DATABASE_STATISTICS_TYPE" --global-report "$STANDIN_GLOBAL_REPORT" > sqlplus.out 2>&1 || { msg FATAL "report generation failed: see sqlplus.out"; exit 1; }
for p in $PIDS; do kill "$p" 2>/dev/null; done  # as the real kit: its collectors stop after the report starts
wait 2>/dev/null
PIDS=""
echo "Tm $RUN_TIME" > tm.out
msg NOTIFY "Run time $RUN_TIME seconds."
msg NOTIFY "SLOB test is complete."
