"""PLANNER STAND-IN: the AWR global (RAC) report in text, for a stand-in database that is RAC.

Written by the stand-in SLOB kit as ``awr_rac.txt`` beside awr.txt (SLOB 2.x runit.sh ``f_generate_awr_report``
runs ``@?/rdbms/admin/awrrpti`` for awr.txt, then ``@?/rdbms/admin/awrgrpt.sql`` twice, report_type text ->
awr_rac.txt and html -> awr_rac.html, which it gzips; read in a public copy, never copied), and answered by the
sqlplus stand-in for ``SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT(dbid, '', bid,
eid))`` (Oracle PL/SQL Packages and Types Reference, DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT: an empty or
NULL instance list means every instance).

Layout: the Database Instances table, the Database Summary and ``System Statistics - Per Second`` (I# rows, then
Sum / Avg / Std) follow a real 11.2.0.3 report's text (tests/data/awr_rac/awrgrpt_11203_dd453_fragment.txt);
Top Timed Events (``*`` = cluster-wide rows first) and ``System Statistics (Global)`` follow the column order of
awrgrpt's own queries (public reconstruction of awrgrpt's SQL: inststr '*' for the ROLLUP row; the Global table's
Total / per Second / per Trans / per Second Average, Std Dev, Min, Max).

RAC mode comes from the stand-in state (db.json, shared with planner/rehearsal/standins/bin/_standin.py):
``database.cluster_database`` (bool) and ``database.instances`` = [{inst_id, instance_name, host_name}] as in
GV$INSTANCE; without them the database is a single instance. The cluster's workload is split evenly over the
instances (SLOB's sessions connect through a service spread over them); the storage is shared, so the cluster's
figures are one simulation and each instance shows its share.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

from planner.rehearsal.standins.awrgen import (
    MARKER,
    DbInfo,
    Event,
    Figures,
    HostInfo,
    Instance,
    Interval,
    num,
    stamp,
)


def share(f: Figures, part: float) -> Figures:
    """One instance's share of the cluster's rates (latency and percentages stay the cluster's)."""
    rates = ("db_time", "db_cpu", "bg_cpu", "redo_bytes", "logical_reads", "block_changes", "read_blocks",
             "write_blocks", "read_reqs", "write_reqs", "redo_reqs", "user_calls", "executes", "transactions")
    events = tuple(Event(e.name, e.waits * part, e.time_s * part, e.wait_class) for e in f.events)
    return replace(f, events=events, **{k: getattr(f, k) * part for k in rates})


def _shares(n: int) -> list[float]:
    """Not quite even (a service never is): instance 1 takes a little more."""
    raw = [1.0 + 0.1 * (n - i) / max(1, n) for i in range(n)]
    return [x / sum(raw) for x in raw]


def per_instance(f: Figures, insts: Sequence[Instance]) -> list[tuple[Instance, Figures]]:
    return [(inst, share(f, s)) for inst, s in zip(insts, _shares(len(insts)), strict=True)]


def _per_second_row(f: Figures) -> list[float]:
    return [f.logical_reads, f.read_blocks, f.write_blocks, f.redo_bytes / 1024, f.block_changes, f.user_calls,
            f.executes, f.executes * 0.1, 0.03, f.transactions]


def global_text(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, insts: Sequence[Instance]) -> str:
    """The global report over ``insts`` (the cluster's figures ``f``)."""
    parts = per_instance(f, insts)
    first = insts[0]
    dbinst = f"DB/Inst: {db.name}/{first.instance_name}  Snaps: {iv.begin_snap}-{iv.end_snap}"
    el_min = iv.elapsed_s / 60
    out = [f"{MARKER}: simulated global AWR report of a RAC stand-in, not a measurement", "",
           "WORKLOAD REPOSITORY REPORT (RAC)", "", "Database Instances Included In Report", "",
           " " * 134 + "Avg Active",
           "  I# Instance  Host       Startup         Begin Snap Time End Snap Time   Release         Elapsed Time(min)"
           " DB time(min) Up Time(hrs)   Sessions Platform",
           "---- --------- ---------- --------------- --------------- --------------- --------------- -----------------"
           " ------------ ------------ ---------- ---------------"]
    for inst, fi in parts:
        out.append(f"{inst.inst_id:>4} {inst.instance_name[:9]:<9} {inst.host_name[:10]:<10} {db.startup:<15} "
                   f"{stamp(iv.begin, False):<15} {stamp(iv.end, False):<15} {db.release:<15} {el_min:>17.2f} "
                   f"{fi.db_time * el_min:>12.2f} {24.0:>12.2f} {fi.db_time:>10.2f} {host.platform[:15]}")
    out += ["", "", "Database Summary", "~~~~~~~~~~~~~~~~",
            "              Database                    Snapshot Ids     Number of Instances     Number of Hosts     "
            "Report Total (minutes)",
            "------------------------------------   -----------------   ------------------   ------------------   "
            "------------------------",
            "         Id Name      RAC Block Size      Begin      End   In Report    Total   In Report    Total      "
            " DB time Elapsed time",
            "----------- --------- --- ----------   -------- --------   --------- --------   --------- --------   "
            "----------- ------------",
            f"{db.dbid:>11} {db.name[:9]:<9} {'YES' if len(insts) > 1 or db.rac else 'NO ':<3} "
            f"{db.block_kb * 1024:>10}   {iv.begin_snap:>8} {iv.end_snap:>8}   "
            f"{len(insts):>9} {len(insts):>8}   {len({i.host_name for i in insts}):>9} "
            f"{len({i.host_name for i in insts}):>8}   {f.db_time * el_min:>11.2f} {el_min:>12.2f}", ""]
    out += _top_events(f, parts, iv, dbinst)
    out += _system_per_second(parts, dbinst)
    out += _system_global(f, parts, iv, dbinst)
    out.append("End of Report")
    return "\n".join(out) + "\n"


def _top_events(f: Figures, parts: Sequence[tuple[Instance, Figures]], iv: Interval, dbinst: str) -> list[str]:
    out = [f"Top Timed Events                     {dbinst}",
           "-> Instance '*' - cluster wide summary",
           "-> '*'  Waits, %Timeouts, Wait Time Total(s)     : Cluster-wide total for the wait event",
           "-> '*'  'Wait Time Avg (ms)'                     : Cluster-wide average computed as "
           "(Wait Time Total / Event Waits) in ms", "",
           "  I# Class      Event                                 Waits %Timeouts     Total(s)  Avg(ms) %DB time"
           "      Avg      Min      Max  Std Dev  Cnt",
           "---- ---------- ------------------------------ ------------ --------- ------------ -------- --------"
           " -------- -------- -------- -------- ----"]

    def row(who: str, e: Event, dbt: float, tail: str = "") -> str:
        waits = num(e.waits, 0) if e.waits else "N/A"
        avg = f"{e.time_s / e.waits * 1000:.2f}" if e.waits else "N/A"
        return (f"{who:>4} {e.wait_class[:10]:<10} {e.name[:30]:<30} {waits:>12} {'0.0' if e.waits else 'N/A':>9} "
                f"{num(e.time_s, 2):>12} {avg:>8} {e.time_s / max(dbt, 1e-9) * 100:>8.2f}{tail}")

    cluster_dbt = f.db_time * iv.elapsed_s
    for e in f.events[:10]:
        avgs = [p.time_s / p.waits * 1000 for _, fi in parts for p in fi.events if p.name == e.name and p.waits]
        tail = (f" {statistics.fmean(avgs):>8.2f} {min(avgs):>8.2f} {max(avgs):>8.2f} "
                f"{(statistics.stdev(avgs) if len(avgs) > 1 else 0.0):>8.2f} {len(avgs):>4}") if avgs else \
            f" {'':>8} {'':>8} {'':>8} {'':>8} {len(parts):>4}"
        out.append(row("*", e, cluster_dbt, tail))
    for inst, fi in parts:
        for e in fi.events[:10]:
            out.append(row(str(inst.inst_id), e, fi.db_time * iv.elapsed_s))
    return [*out, "", ""]


def _system_per_second(parts: Sequence[tuple[Instance, Figures]], dbinst: str) -> list[str]:
    widths = (15, 12, 12, 12, 12, 12, 12, 12, 10, 12)
    decimals = (2, 1, 1, 1, 1, 1, 1, 1, 2, 1)

    def cells(values: Sequence[float]) -> str:
        return " ".join(f"{num(v, d):>{w}}" for v, w, d in zip(values, widths, decimals, strict=True))

    rows = [_per_second_row(fi) for _, fi in parts]
    cols = list(zip(*rows, strict=True))
    out = [f"System Statistics - Per Second       {dbinst}", "",
           "             Logical     Physical     Physical         Redo        Block         User",
           "  I#         Reads/s      Reads/s     Writes/s   Size (k)/s    Changes/s      Calls/s      Execs/s"
           "     Parses/s   Logons/s       Txns/s",
           "---- " + " ".join("-" * w for w in widths)]
    out += [f"{inst.inst_id:>4} {cells(r)}" for (inst, _), r in zip(parts, rows, strict=True)]
    out.append(" ~~~ " + " ".join("~" * w for w in widths))
    out.append(f" Sum {cells([sum(c) for c in cols])}")
    out.append(f" Avg {cells([statistics.fmean(c) for c in cols])}")
    out.append(f" Std {cells([statistics.stdev(c) if len(c) > 1 else 0.0 for c in cols])}")
    out += [" " * 26 + "-" * 116, "", ""]
    return out


def _system_global(f: Figures, parts: Sequence[tuple[Instance, Figures]], iv: Interval, dbinst: str) -> list[str]:
    block = 8192
    stats = (("physical read IO requests", lambda x: x.read_reqs),
             ("physical read bytes", lambda x: x.read_blocks * block),
             ("physical read total IO requests", lambda x: x.read_reqs + 0.5),
             ("physical read total bytes", lambda x: x.read_blocks * block + 0.5 * 16384),
             ("physical reads", lambda x: x.read_blocks),
             ("physical write IO requests", lambda x: x.write_reqs),
             ("physical write bytes", lambda x: x.write_blocks * block),
             ("physical write total IO requests", lambda x: x.write_reqs + x.redo_reqs),
             ("physical write total bytes", lambda x: x.write_blocks * block + x.redo_bytes),
             ("physical writes", lambda x: x.write_blocks))
    tps = max(f.transactions, 0.01)
    out = [f"System Statistics (Global)           {dbinst}",
           "-> per Second Average - average of per-instance per Second rates",
           "-> per Second Std Dev - standard deviation of per-instance per Second rates", "",
           f"{'Statistic':<40} {'Total':>18} {'per Second':>14} {'per Trans':>12} {'Average':>14} {'Std Dev':>12} "
           f"{'Min':>14} {'Max':>14}",
           f"{'-' * 40} {'-' * 18} {'-' * 14} {'-' * 12} {'-' * 14} {'-' * 12} {'-' * 14} {'-' * 14}"]
    for name, get in stats:
        each = [get(fi) for _, fi in parts]
        total = sum(each)
        out.append(f"{name:<40} {num(total * iv.elapsed_s, 0):>18} {num(total, 1):>14} {num(total / tps, 1):>12} "
                   f"{num(statistics.fmean(each), 1):>14} {num(statistics.stdev(each) if len(each) > 1 else 0, 1):>12} "
                   f"{num(min(each), 1):>14} {num(max(each), 1):>14}")
    return [*out, "", ""]
