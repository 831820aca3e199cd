"""The AWR text and HTML pieces that differ by Oracle release, for the stand-in's reports (NOT Oracle).

awrgen_render writes 12.2+'s layout (19c's); a database of an older release gets that release's pieces here, so
an 11.2.0.3 lab rehearses the path its real reports take (``Physical reads:`` in blocks, no ``Read IO
requests``, no CDB column). Each difference is a row of docs/oracle-behaviour.md (41.v1-41.v4), taken from a real
report of that release:
- header without Unique Name / Role / Edition / CDB, Load Profile with the 11.2.0.1-3 row names, ``Top 5 Timed
  Foreground Events`` with whole-millisecond Avg wait: tests/data/awr/awr_11201_orcl_fabioprado.txt (11.2.0.1)
  and awr_11203_rac_askmaclean.txt (11.2.0.3);
- 10.2 / 11.1's ``Top 5 Timed Events`` (``Avg %Total`` / ``wait Call``, a ``CPU time`` row):
  tests/data/awr/top5_10g_layout_askmaclean.txt;
- 11.2.0.4 and 12.1: the new Load Profile rows (Read IO requests ...) and Top 10, the old header.

Statspack (``spreport.sql``) before 11: 10gR2's sprepins.sql (``$Header: sprepins.sql 31-may-2005``, public copy in
Apress/secrets-of-oracle-db ``source_code_depot/sprepins_fix_10g.sql``) prints a ``Host  Name: ... Num CPUs: ...
Phys Memory (MB):`` line (no Platform, Cores, Sockets), ``Cache Sizes`` with ``Shared Pool Size:``, a Load Profile of
two columns (``Per Second  Per Transaction``: no DB time(s) / DB CPU(s) rows, a ``Sorts:`` row, then ``% Blocks
changed per Read:`` / ``Recursive Call %:``) and ``Instance Efficiency Percentages``. 11.2.0.4 and 12.1 print
awrgen_render.statspack's layout (tests/data/statspack: sp_11204_igt.txt, sp_12102_getperf.txt);
docs/oracle-behaviour.md 41.s1.
"""

from __future__ import annotations

import enum

from planner.rehearsal.standins.awrgen import DbInfo, Figures, HostInfo, Interval, num, pct_db_time, stamp


class Layout(enum.Enum):
    V10 = "10.2-11.1"  # Top 5 Timed Events (% Total Call Time), old Load Profile, old header
    V11 = "11.2.0.1-11.2.0.3"  # Top 5 Timed Foreground Events, old Load Profile, old header
    V11_4 = "11.2.0.4-12.1"  # 19c's Load Profile and Top 10, old header
    V12_2 = "12.2+"  # awrgen_render's own (Unique Name, Role, Edition, CDB)


def layout_of(release: str) -> Layout:
    parts = tuple(int(p) for p in release.split(".")[:4] if p.isdigit()) + (0, 0, 0, 0)
    if parts[:2] < (11, 2):
        return Layout.V10
    if parts[:4] < (11, 2, 0, 4):
        return Layout.V11
    if parts[:2] < (12, 2):
        return Layout.V11_4
    return Layout.V12_2


def header_lines(db: DbInfo) -> list[str]:
    """The database line before 12.2: ``DB Name DB Id Instance Inst Num Startup Time Release RAC``."""
    return ["DB Name         DB Id    Instance     Inst Num Startup Time    Release     RAC",
            "------------ ----------- ------------ -------- --------------- ----------- ---",
            f"{db.name:<12} {db.dbid:>11} {db.instance:<12} {db.inst_num:>8} {db.startup:<15} {db.release:<11} "
            f"{'YES' if db.rac else 'NO'}"]


def load_profile_rows(f: Figures) -> list[tuple[str, float, float | None]]:
    """11.2.0.1-3's row names (and 10.2 / 11.1's): ``Physical reads`` in blocks, no IO request rows."""
    tps = max(f.transactions, 0.01)
    rows = [("Redo size", f.redo_bytes), ("Logical reads", f.logical_reads), ("Block changes", f.block_changes),
            ("Physical reads", f.read_blocks), ("Physical writes", f.write_blocks), ("User calls", f.user_calls),
            ("Parses", f.executes * 0.1), ("Hard parses", 0.02), ("W/A MB processed", 0.2), ("Logons", 0.03),
            ("Executes", f.executes), ("Rollbacks", 0.0)]
    return [(label, v, v / tps) for label, v in rows] + [("Transactions", f.transactions, None)]


def load_profile_lines(f: Figures, time_rows: list[tuple[str, float, float, float, float]]) -> list[str]:
    out = ["Load Profile              Per Second    Per Transaction   Per Exec   Per Call",
           "~~~~~~~~~~~~         ---------------    --------------- ---------- ----------"]
    for label, s, t, per_exec, per_call in time_rows[:2]:  # DB Time(s), DB CPU(s): no Background CPU row yet
        out.append(f"{label + ':':>17}{num(s):>19} {num(t):>18} {per_exec:>10.2f} {per_call:>10.2f}")
    for label, s, per_txn in load_profile_rows(f):
        out.append(f"{label + ':':>17}{num(s):>19}" + (f" {num(per_txn):>18}" if per_txn is not None else ""))
    return out


def top_events_lines(layout: Layout, f: Figures, iv: Interval) -> list[str]:
    """Top 5 in 11.2.0.1-3's layout (Avg wait in whole ms, % DB time, a DB CPU row) or 10.2/11.1's (``CPU time``,
    % Total Call Time, the Wait Class cut at 10 characters)."""
    if layout is Layout.V10:
        out = ["Top 5 Timed Events                                         Avg %Total",
               "~~~~~~~~~~~~~~~~~~                                        wait   Call",
               "Event                                 Waits    Time (s)   (ms)   Time Wait Class",
               "------------------------------ ------------ ----------- ------ ------ ----------"]
    else:
        out = ["Top 5 Timed Foreground Events", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
               "                                                           Avg",
               "                                                          wait   % DB",
               "Event                                 Waits     Time(s)   (ms)   time Wait Class",
               "------------------------------ ------------ ----------- ------ ------ ----------"]
    for e in f.events[:5]:
        pct = pct_db_time(e, f, iv)
        if not e.wait_class:
            name = "CPU time" if layout is Layout.V10 else "DB CPU"
            out.append(f"{name:<30} {'':>12} {e.time_s:>11,.0f} {'':>6} {pct:>6.1f}")
            continue
        avg = e.time_s * 1000 / e.waits if e.waits else 0.0
        cls = f"{e.wait_class[:10]:>10}" if layout is Layout.V10 else e.wait_class[:10]
        out.append(f"{e.name[:30]:<30} {num(e.waits, 0):>12} {e.time_s:>11,.0f} {avg:>6.0f} {pct:>6.1f} {cls}")
    return out


def statspack_10g_lines(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, sessions: int) -> list[str]:
    """10.2's summary page down to the Load Profile's ratios (sprepins.sql 10gR2: one ``select`` of newline
    columns each, labels a28, values ``9,999,999,999,990.99``)."""
    tps = max(f.transactions, 0.01)
    out = ["STATSPACK report for", "",
           "Database    DB Id    Instance     Inst Num Startup Time    Release     RAC",
           "~~~~~~~~ ----------- ------------ -------- --------------- ----------- ---",
           f"{'':<8} {db.dbid:>11} {db.instance:<12} {db.inst_num:>8} {db.startup:<15} {db.release:<11} "
           f"{'YES' if db.rac else 'NO'}", "",
           f"Host  Name:   {host.name[:16]:<16} Num CPUs: {host.cpus:>4}        Phys Memory (MB): "
           f"{host.memory_gb * 1024:>8,.0f}", "~~~~", "",
           "Snapshot       Snap Id     Snap Time      Sessions Curs/Sess Comment",
           "~~~~~~~~    ---------- ------------------ -------- --------- -------------------",
           f"Begin Snap: {iv.begin_snap:>10} {stamp(iv.begin):<19} {sessions + 40:>7,} {1.2:>9.1f}",
           f"  End Snap: {iv.end_snap:>10} {stamp(iv.end):<19} {sessions + 40:>7,} {1.3:>9.1f}",
           f"   Elapsed:      {iv.elapsed_s / 60:>11,.2f} (mins)", "",
           "Cache Sizes                       Begin        End", "~~~~~~~~~~~                  ---------- ----------",
           f"               Buffer Cache: {f'{db.buffer_cache_mb:,}M':>10} {'':10}  Std Block Size: "
           f"{f'{db.block_kb}K':>10}",
           f"           Shared Pool Size: {f'{db.shared_pool_mb:,}M':>10} {'':10}      Log Buffer: "
           f"{f'{db.log_buffer_kb:,}K':>10}",
           "", "Load Profile                            Per Second       Per Transaction",
           "~~~~~~~~~~~~                       ---------------       ---------------"]
    for label, v in (("Redo size", f.redo_bytes), ("Logical reads", f.logical_reads),
                     ("Block changes", f.block_changes), ("Physical reads", f.read_blocks),
                     ("Physical writes", f.write_blocks), ("User calls", f.user_calls),
                     ("Parses", f.executes * 0.1), ("Hard parses", 0.02), ("Sorts", f.executes * 0.05),
                     ("Logons", 0.03), ("Executes", f.executes)):
        out.append(f"{label + ':':>28} {v:>21,.2f} {v / tps:>21,.2f}")
    changed = f.block_changes / max(f.logical_reads, 0.01) * 100
    out += [f"{'Transactions:':>28} {f.transactions:>21,.2f}", "",
            f"  % Blocks changed per Read: {changed:>7.2f}    Recursive Call %: {25.0:>8.2f}",
            f" Rollback per transaction %: {0.0:>7.2f}       Rows per Sort: {12.0:>8.2f}", "",
            "Instance Efficiency Percentages", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "            Buffer Nowait %:  100.00       Redo NoWait %:  100.00",
            f"            Buffer  Hit   %: {f.buffer_hit_pct:>7.2f}    In-memory Sort %:  100.00", ""]
    return out
