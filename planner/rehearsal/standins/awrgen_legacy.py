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
"""

from __future__ import annotations

import enum

from planner.rehearsal.standins.awrgen import DbInfo, Figures, Interval, num, pct_db_time


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
