"""The three report layouts of the stand-in: AWR text (19c), AWR HTML (19c), Statspack (11.2.0.4+ layout).

Layouts follow shared/reference/output-formats.md sections 1-2 (header tables, Cache Sizes, Load Profile with
the 11.2.0.4+ row names, Top 10 with unit-suffixed Avg Wait, Host CPU, IO Profile, Time Model) so the project's
real parsers read them; every report starts with a ``PLANNER STAND-IN`` line (text) or comment (HTML).
"""

from __future__ import annotations

from html import escape

from planner.rehearsal.standins import awrgen_legacy as legacy
from planner.rehearsal.standins.awrgen import (
    MARKER,
    DbInfo,
    Figures,
    HostInfo,
    Interval,
    avg_wait,
    db_time_rows,
    io_profile_rows,
    load_profile_rows,
    num,
    pct_db_time,
    stamp,
    wait_classes,
)

_RULE = "          -------------------------------------------------------------"


def _banner(sessions: int) -> str:
    return (f"{MARKER}: simulated report written by planner's stand-in, not by Oracle "
            f"(sessions={sessions}); its numbers measure nothing.\n")


def _size(mb: float) -> str:
    return f"{mb:,.0f}M"


def _top10_lines(f: Figures, iv: Interval) -> list[str]:
    """11.2.0.4+'s Top 10 Foreground Events by Total Wait Time, Avg Wait with its unit."""
    out = ["Top 10 Foreground Events by Total Wait Time", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
           "                                           Total Wait       Avg   % DB Wait",
           "Event                                Waits Time (sec)      Wait   time Class",
           "------------------------------ ----------- ---------- --------- ------ --------"]
    for e in f.events[:10]:
        pct = pct_db_time(e, f, iv)
        if e.wait_class:
            avg = e.time_s * 1000 / e.waits if e.waits else 0.0
            out.append(f"{e.name:<30} {num(e.waits, 0):>11} {e.time_s:>10.1f} {avg_wait(avg):>9} {pct:>6.1f} "
                       f"{e.wait_class[:8]}")
        else:
            out.append(f"{e.name:<30} {'':>11} {e.time_s:>10.1f} {'':>9} {pct:>6.1f}")
    return out


def _header_12_2(db: DbInfo, iv: Interval) -> list[str]:
    """12.2+'s database and instance tables; 21c adds ``User Name`` and ``System Data Visible`` to the instance
    line and, in a CDB, the ``Container DB Id  Container Name  Open Time`` table (real 21c report:
    tests/data/awr/awr_21c_adg_standby_header.txt; docs/oracle-behaviour.md 41.v5)."""
    v21 = int(db.release.split(".")[0]) >= 21
    out = ["DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB",
           "------------ ----------- ----------- ---------------- ------- ---------- --- ---",
           f"{db.name:<12} {db.dbid:>11} {db.instance.lower():<11} {'PRIMARY':<16} {'EE':<7} "
           f"{db.release:<10} {'YES' if db.rac else 'NO':<3} {'YES' if db.cdb else 'NO'}", ""]
    if not v21:
        return out + ["Instance     Inst Num Startup Time", "------------ -------- ---------------",
                      f"{db.instance:<12} {db.inst_num:>8} {db.startup}"]
    out += ["Instance     Inst Num Startup Time    User Name    System Data Visible",
            "------------ -------- --------------- ------------ --------------------",
            f"{db.instance:<12} {db.inst_num:>8} {db.startup:<15} {'SYS':<12} YES"]
    if db.containers:
        opened = stamp(iv.begin, seconds=False)
        out += ["", "Container DB Id  Container Name       Open Time",
                "--------------- --------------- ---------------",
                *(f"{dbid:>15} {name:<15} {opened}" for dbid, name in db.containers)]
    return out


def awr_text(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, sessions: int) -> str:
    el_min, dbt_min = iv.elapsed_s / 60, f.db_time * iv.elapsed_s / 60
    dbinst = f"DB/Inst: {db.name}/{db.instance}  Snaps: {iv.begin_snap}-{iv.end_snap}"
    layout = legacy.layout_of(db.release)  # before 12.2 the pieces of that release (awrgen_legacy)
    head = legacy.header_lines(db) if layout is not legacy.Layout.V12_2 else _header_12_2(db, iv)
    out = [_banner(sessions), "WORKLOAD REPOSITORY report for", "", *head, "",
           "Host Name        Platform                         CPUs Cores Sockets Memory(GB)",
           "---------------- -------------------------------- ---- ----- ------- ----------",
           f"{host.name[:16]:<16} {host.platform:<32} {host.cpus:>4} {host.cores:>5} {host.sockets:>7} "
           f"{host.memory_gb:>10.2f}", "",
           "              Snap Id      Snap Time      Sessions Curs/Sess",
           "            --------- ------------------- -------- ---------",
           f"Begin Snap: {iv.begin_snap:>9} {stamp(iv.begin)} {sessions + 40:>8} {1.2:>9.1f}",
           f"  End Snap: {iv.end_snap:>9} {stamp(iv.end)} {sessions + 40:>8} {1.3:>9.1f}",
           f"   Elapsed:           {num(el_min, 2):>10} (mins)",
           f"   DB Time:           {num(dbt_min, 2):>10} (mins)", ""]
    if layout in (legacy.Layout.V10, legacy.Layout.V11):
        out += legacy.load_profile_lines(f, db_time_rows(f, iv))
    else:
        out += ["Load Profile                    Per Second   Per Transaction  Per Exec  Per Call",
                "~~~~~~~~~~~~~~~            ---------------   --------------- --------- ---------"]
        for label, s, t, per_exec, per_call in db_time_rows(f, iv):
            out.append(f"{label + ':':>28} {num(s):>15} {num(t):>17} {per_exec:>9.2f} {per_call:>9.2f}")
        for label, s, per_txn in load_profile_rows(f):
            out.append(f"{label + ':':>28} {num(s):>15}" + (f" {num(per_txn):>17}" if per_txn is not None else ""))
    out += ["", "Instance Efficiency Percentages (Target 100%)",
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "            Buffer Nowait %:  100.00       Redo NoWait %:  100.00",
            f"            Buffer  Hit   %: {f.buffer_hit_pct:>7.2f}    In-memory Sort %:  100.00",
            "            Library Hit   %:   99.98        Soft Parse %:   99.80",
            "         Execute to Parse %:   90.12         Latch Hit %:   99.99",
            "Parse CPU to Parse Elapsd %:   95.00     % Non-Parse CPU:   99.90", ""]
    if layout in (legacy.Layout.V10, legacy.Layout.V11):
        out += legacy.top_events_lines(layout, f, iv)
    else:
        out += _top10_lines(f, iv)
    old = layout in (legacy.Layout.V10, legacy.Layout.V11)  # no Wait Classes / IO Profile sections yet
    wc_at = len(out)
    out += ["", "Wait Classes by Total Wait Time", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "                                                          Avg             Avg",
            "                                        Total Wait       Wait   % DB   Active",
            "Wait Class                  Waits       Time (sec)       Time   time Sessions",
            "---------------- ---------------- ---------------- ---------- ------ --------"]
    for cls, waits, time_s in wait_classes(f):
        pct = time_s / max(f.db_time * iv.elapsed_s, 1e-9) * 100
        aas = time_s / iv.elapsed_s
        if cls == "DB CPU":
            out.append(f"{cls:<16} {'':>16} {time_s:>16,.0f} {'':>10} {pct:>6.1f} {aas:>8.1f}")
        else:
            shown = avg_wait(time_s * 1000 / waits if waits else 0.0)
            out.append(f"{cls:<16} {waits:>16,.0f} {time_s:>16,.0f} {shown:>10} {pct:>6.1f} {aas:>8.1f}")
    if old:
        del out[wc_at:]
    idle = max(0.0, 100 - f.user_pct - f.sys_pct)
    out += ["", f"Host CPU (CPUs: {host.cpus:>4} Cores: {host.cores:>4} Sockets: {host.sockets:>4})",
            "~~~~~~~~         Load Average",
            "               Begin       End     %User   %System      %WIO     %Idle",
            "           --------- --------- --------- --------- --------- ---------",
            f"           {f.load_begin:>9.2f} {f.load_end:>9.2f} {f.user_pct:>9.1f} {f.sys_pct:>9.1f} "
            f"{f.wio_pct:>9.1f} {idle:>9.1f}", "",
            "Instance CPU", "~~~~~~~~~~~~",
            f"              % of total CPU for Instance: {min(100.0, f.user_pct + f.sys_pct * 0.5):>9.1f}",
            f"              % of busy  CPU for Instance: {90.0 if f.db_cpu > 0.1 else 20.0:>9.1f}",
            "  %DB time waiting for CPU - Resource Mgr:       0.0", ""]
    if not old:
        out += ["IO Profile                  Read+Write/Second     Read/Second    Write/Second",
                "~~~~~~~~~~                  ----------------- --------------- ---------------"]
        out += [f"{label + ':':>27} {num(r + w):>17} {num(r):>15} {num(w):>15}" for label, r, w in io_profile_rows(f)]
    host_mb = host.memory_gb * 1024
    sga = db.buffer_cache_mb + db.shared_pool_mb + 256
    out += ["", "Memory Statistics", "~~~~~~~~~~~~~~~~~                       Begin          End",
            f"                  Host Mem (MB): {num(host_mb):>12} {num(host_mb):>12}",
            f"                   SGA use (MB): {num(sga):>12} {num(sga):>12}",
            f"                   PGA use (MB): {num(120 + sessions * 4.0):>12} {num(120 + sessions * 4.0):>12}",
            f"    % Host Mem used for SGA+PGA: {(sga + 120) / max(host_mb, 1) * 100:>12.2f} "
            f"{(sga + 120 + sessions * 4) / max(host_mb, 1) * 100:>12.2f}", "",
            "Cache Sizes                       Begin        End",
            "~~~~~~~~~~~                  ---------- ----------",
            f"               Buffer Cache: {_size(db.buffer_cache_mb):>10} {_size(db.buffer_cache_mb):>10}"
            f"  Std Block Size: {db.block_kb:>9}K",
            f"           Shared Pool Size: {_size(db.shared_pool_mb):>10} {_size(db.shared_pool_mb):>10}"
            f"      Log Buffer: {db.log_buffer_kb:>9,}K", "",
            f"Time Model Statistics                      {dbinst}",
            f"-> Total time in database user-calls (DB Time): {f.db_time * iv.elapsed_s:.1f}s",
            "-> Ordered by % of DB time in descending order, followed by Statistic Name", "",
            "Statistic Name                                       Time (s) % of DB Time",
            "------------------------------------------ ------------------ ------------",
            f"{'sql execute elapsed time':<42} {num(f.db_time * iv.elapsed_s * 0.97):>18} {97.0:>12.1f}",
            f"{'DB CPU':<42} {num(f.db_cpu * iv.elapsed_s):>18} "
            f"{f.db_cpu / max(f.db_time, 1e-9) * 100:>12.1f}",
            f"{'DB time':<42} {num(f.db_time * iv.elapsed_s):>18}", _RULE, "", "End of Report", ""]
    return "\n".join(out)


def _table(summary: str, header: list[str], rows: list[list[str]], first_th_blank: bool = False) -> str:
    th = "".join(f'<th class="awrnobg" scope="col">{escape(h)}</th>' if (i == 0 and first_th_blank)
                 else f'<th class="awrbg" scope="col">{escape(h)}</th>' for i, h in enumerate(header))
    body = []
    for n, row in enumerate(rows):
        cls = "awrc" if n % 2 else "awrnc"
        cells = "".join(
            (f"<td scope=\"row\" class='{cls}'>" if i == 0 else f"<td align=\"right\" class='{cls}'>")
            + (escape(c) if c else "&#160;") + "</td>" for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    head = f"<tr>{th}</tr>\n" if header else ""
    return (f'<table border="0" width="600" class="tdiff" summary="{summary}">\n{head}'
            + "\n".join(body) + "\n</table>\n<p />\n")


def _html_db_tables(db: DbInfo, iv: Interval) -> list[str]:
    """The database (and from 12.2 the instance and container) tables at the top of the HTML report."""
    out: list[str] = []
    info = "This table displays database instance information"
    if legacy.layout_of(db.release) is legacy.Layout.V12_2:
        out.append(_table(info, ["DB Name", "DB Id", "Unique Name", "Role", "Edition", "Release", "RAC", "CDB"],
                            [[db.name, str(db.dbid), db.instance.lower(), "PRIMARY", "EE", db.release,
                             "YES" if db.rac else "NO", "YES" if db.cdb else "NO"]]))
        out.append(_table(info, ["Instance", "Inst Num", "Startup Time"],
                            [[db.instance, str(db.inst_num), db.startup]]))
        if db.containers:  # a CDB's containers (real 19c CDB report tests/data/awr/awr_19c_orclcdb.html)
            out.append(_table("This table displays pdb instance information",
                                ["Container DB Id", "Container Name", "Open Time"],
                                [[str(dbid), name, stamp(iv.begin, seconds=False)] for dbid, name in db.containers]))
    else:  # before 12.2 one table, as the text's header line (awrgen_legacy.header_lines)
        out.append(_table(info, ["DB Name", "DB Id", "Instance", "Inst num", "Startup Time", "Release", "RAC"],
                            [[db.name, str(db.dbid), db.instance, str(db.inst_num), db.startup, db.release,
                              "YES" if db.rac else "NO"]]))
    return out


def _html_waits(f: Figures, iv: Interval, old: bool) -> list[str]:
    """The top events (Top 5 before 11.2.0.4, Top 10 after) and the wait classes."""
    parts: list[str] = []
    top = []
    for e in f.events[:10]:
        pct = f"{pct_db_time(e, f, iv):.1f}"
        if e.wait_class:
            avg = avg_wait(e.time_s * 1000 / e.waits if e.waits else 0.0)
            top.append([e.name, f"{e.waits:,.0f}", f"{e.time_s:.1f}", avg, pct, e.wait_class])
        else:
            top.append([e.name, "", f"{e.time_s:.1f}", "", pct, ""])
    parts.append("Top 5 Timed Foreground Events\n<p />\n" if old else
                 "Top 10 Foreground Events by Total Wait Time\n<p />\n")
    parts.append(_table("This table displays top 10 wait events by total wait time",
                        ["Event", "Waits", "Total Wait Time (sec)", "Avg Wait", "% DB time", "Wait Class"], top))
    wc = []
    for cls, waits, time_s in wait_classes(f):
        pct = f"{time_s / max(f.db_time * iv.elapsed_s, 1e-9) * 100:.1f}"
        avg = "" if cls == "DB CPU" else avg_wait(time_s * 1000 / waits if waits else 0.0)
        wc.append([cls, "" if cls == "DB CPU" else f"{waits:,.0f}", f"{time_s:,.0f}", avg, pct,
                   f"{time_s / iv.elapsed_s:.1f}"])
    parts.append(_table("This table displays wait class statistics ordered by total wait time",
                        ["Wait Class", "Waits", "Total Wait Time (sec)", "Avg Wait", "% DB time",
                         "Avg Active Sessions"], wc))
    return parts


def awr_html(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, sessions: int) -> str:
    el_min, dbt_min = iv.elapsed_s / 60, f.db_time * iv.elapsed_s / 60
    parts = [f"<html><head><title>AWR Report for DB: {db.name}, Inst: {db.instance}, "
             f"Snaps: {iv.begin_snap}-{iv.end_snap}</title>\n<!-- {_banner(sessions).strip()} -->\n"
             "</head><body class=\"awr\">\n<h1 class=\"awr\">\nWORKLOAD REPOSITORY report for\n\n</h1>\n<p />\n"]
    old = legacy.layout_of(db.release) in (legacy.Layout.V10, legacy.Layout.V11)
    parts += _html_db_tables(db, iv)
    parts.append(_table("This table displays host information",
                        ["Host Name", "Platform", "CPUs", "Cores", "Sockets", "Memory (GB)"],
                        [[host.name, host.platform, str(host.cpus), str(host.cores), str(host.sockets),
                          f"{host.memory_gb:.2f}"]]))
    parts.append(_table("This table displays snapshot information",
                        ["", "Snap Id", "Snap Time", "Sessions", "Cursors/Session"],
                        [["Begin Snap:", str(iv.begin_snap), stamp(iv.begin), str(sessions + 40), "1.2"],
                         ["End Snap:", str(iv.end_snap), stamp(iv.end), str(sessions + 40), "1.3"],
                         ["Elapsed:", "", f"{num(el_min, 2)} (mins)", "", ""],
                         ["DB Time:", "", f"{num(dbt_min, 2)} (mins)", "", ""]], first_th_blank=True))
    parts.append('<h3 class="awr"><a class="awr" name="99999"></a>Report Summary</h3>\n<p />Load Profile<p />\n')
    times = db_time_rows(f, iv)[:2] if old else db_time_rows(f, iv)
    lp = [[label + ":", num(s), num(t), f"{e:.2f}", f"{c:.2f}"] for label, s, t, e, c in times]
    lp += [[label + ":", num(s), num(t) if t is not None else "", "", ""]
           for label, s, t in (legacy.load_profile_rows(f) if old else load_profile_rows(f))]
    parts.append(_table("This table displays load profile",
                        ["", "Per Second", "Per Transaction", "Per Exec", "Per Call"], lp, first_th_blank=True))
    parts.append("Instance Efficiency Percentages (Target 100%)\n<p />\n")
    parts.append(_table("This table displays instance efficiency percentages", [],
                        [["Buffer Nowait %:", "100.00", "Redo NoWait %:", "100.00"],
                         ["Buffer  Hit   %:", f"{f.buffer_hit_pct:.2f}", "In-memory Sort %:", "100.00"]]))
    parts += _html_waits(f, iv, old)
    idle = max(0.0, 100 - f.user_pct - f.sys_pct)
    parts.append("Host CPU\n<p />\n")
    parts.append(_table("This table displays system load statistics",
                        ["CPUs", "Cores", "Sockets", "Load Average Begin", "Load Average End", "%User",
                         "%System", "%WIO", "%Idle"],
                        [[str(host.cpus), str(host.cores), str(host.sockets), f"{f.load_begin:.2f}",
                          f"{f.load_end:.2f}", f"{f.user_pct:.1f}", f"{f.sys_pct:.1f}", f"{f.wio_pct:.1f}",
                          f"{idle:.1f}"]]))
    if not old:  # IO Profile from 11.2.0.4
        parts.append(_table("This table displays IO profile",
                            ["", "Read+Write Per Second", "Read per Second", "Write Per Second"],
                            [[label + ":", num(r + w), num(r), num(w)] for label, r, w in io_profile_rows(f)],
                            first_th_blank=True))
    parts.append(_table("This table displays cache sizes and other statistics for\n                    "
                        "different types of cache", ["", "Begin", "End", "", ""],
                        [["Buffer Cache:", _size(db.buffer_cache_mb), _size(db.buffer_cache_mb),
                          "Std Block Size:", f"{db.block_kb}K"],
                         ["Shared Pool Size:", _size(db.shared_pool_mb), _size(db.shared_pool_mb),
                          "Log Buffer:", f"{db.log_buffer_kb:,}K"]], first_th_blank=True))
    parts.append("<p />\nEnd of Report\n</body></html>\n")
    return "".join(parts)


def statspack(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, sessions: int) -> str:
    old = legacy.layout_of(db.release) is legacy.Layout.V10  # 10.2 / 11.1: sprepins.sql 10gR2's page
    out = [_banner(sessions), *(legacy.statspack_10g_lines(f, host, db, iv, sessions) if old else
                                _statspack_head(f, host, db, iv, sessions))]
    out += ["Top 5 Timed Events                                                    Avg %Total",
            "~~~~~~~~~~~~~~~~~~                                                   wait   Call",
            "Event                                            Waits    Time (s)   (ms)   Time",
            "----------------------------------------- ------------ ----------- ------ ------"]
    total = sum(e.time_s for e in f.events) or 1.0
    for e in f.events[:5]:
        pct = e.time_s / total * 100
        if e.wait_class:
            avg = e.time_s * 1000 / e.waits if e.waits else 0.0
            out.append(f"{e.name:<41} {num(e.waits, 0):>12} {e.time_s:>11,.0f} {avg:>6.0f} {pct:>6.1f}")
        else:
            out.append(f"{'CPU time':<41} {'':>12} {e.time_s:>11,.0f} {'':>6} {pct:>6.1f}")
    idle = max(0.0, 100 - f.user_pct - f.sys_pct)
    cpus = f"(CPUs: {host.cpus})" if old else f"(CPUs: {host.cpus}  Cores: {host.cores}  Sockets: {host.sockets})"
    out += [_RULE, f"Host CPU  {cpus}",
            "~~~~~~~~              Load Average",
            "                      Begin     End      User  System    Idle     WIO     WCPU",
            "                    ------- -------   ------- ------- ------- ------- --------",
            f"                    {f.load_begin:>7.2f} {f.load_end:>7.2f}   {f.user_pct:>7.2f} {f.sys_pct:>7.2f} "
            f"{idle:>7.2f} {f.wio_pct:>7.2f}", "",
            f"Time Model System Stats  DB/Inst: {db.name}/{db.instance}  Snaps: {iv.begin_snap}-{iv.end_snap}",
            "", "Statistic                                       Time (s) " + ("% of DB time" if old else "% DB time"),
            "----------------------------------- -------------------- " + ("------------" if old else "---------"),
            f"{'DB CPU':<35} {num(f.db_cpu * iv.elapsed_s):>20} {f.db_cpu / max(f.db_time, 1e-9) * 100:>9.1f}",
            f"{'DB time':<35} {num(f.db_time * iv.elapsed_s):>20}", _RULE, "", "End of Report", ""]
    return "\n".join(out)


def _statspack_head(f: Figures, host: HostInfo, db: DbInfo, iv: Interval, sessions: int) -> list[str]:
    """11.2.0.4 / 12.1's summary page down to Instance Efficiency (tests/data/statspack's real reports)."""
    el_min, dbt_min = iv.elapsed_s / 60, f.db_time * iv.elapsed_s / 60
    aas = f.db_time
    out = ["STATSPACK report for", "",
           "Database    DB Id    Instance     Inst Num  Startup Time   Release     RAC",
           "~~~~~~~~ ----------- ------------ -------- --------------- ----------- ---",
           f"{'':<8} {db.dbid:>11} {db.instance:<12} {db.inst_num:>8} {db.startup:<15} {db.release:<11} "
           f"{'YES' if db.rac else 'NO'}", "",
           "Host Name             Platform                CPUs Cores Sockets   Memory (G)",
           "~~~~ ---------------- ---------------------- ----- ----- ------- ------------",
           f"     {host.name[:16]:<16} {host.platform:<22} {host.cpus:>5} {host.cores:>5} {host.sockets:>7} "
           f"{host.memory_gb:>12.1f}", "",
           "Snapshot       Snap Id     Snap Time      Sessions Curs/Sess Comment",
           "~~~~~~~~    ---------- ------------------ -------- --------- ------------------",
           f"Begin Snap: {iv.begin_snap:>10} {stamp(iv.begin):<18} {sessions + 40:>8} {1.2:>9.1f}",
           f"  End Snap: {iv.end_snap:>10} {stamp(iv.end):<18} {sessions + 40:>8} {1.3:>9.1f}",
           f"   Elapsed: {num(el_min, 2):>10} (mins) Av Act Sess: {aas:>10.1f}",
           f"   DB time: {num(dbt_min, 2):>10} (mins)      DB CPU: {num(f.db_cpu * iv.elapsed_s / 60, 2):>10} (mins)",
           "", "Cache Sizes            Begin        End", "~~~~~~~~~~~       ---------- ----------",
           f"    Buffer Cache: {_size(db.buffer_cache_mb):>10}              Std Block Size: {db.block_kb:>9}K",
           f"     Shared Pool: {_size(db.shared_pool_mb):>10}                  Log Buffer: {db.log_buffer_kb:>9,}K",
           "", "Load Profile              Per Second    Per Transaction    Per Exec    Per Call",
           "~~~~~~~~~~~~      ------------------  ----------------- ----------- -----------"]
    tps = max(f.transactions, 0.01)
    for label, s, t, per_exec, per_call in db_time_rows(f, iv)[:2]:
        out.append(f"{label.replace('Time', 'time') + ':':>17} {num(s):>18} {num(t):>18} {per_exec:>11.2f} "
                   f"{per_call:>11.2f}")
    for label, v in (("Redo size", f.redo_bytes), ("Logical reads", f.logical_reads),
                     ("Block changes", f.block_changes), ("Physical reads", f.read_blocks),
                     ("Physical writes", f.write_blocks), ("User calls", f.user_calls),
                     ("Parses", f.executes * 0.1), ("Hard parses", 0.02), ("W/A MB processed", 0.2),
                     ("Logons", 0.03), ("Executes", f.executes), ("Rollbacks", 0.0)):
        out.append(f"{label + ':':>17} {num(v):>18} {num(v / tps):>18}")
    out.append(f"{'Transactions:':>17} {num(f.transactions):>18}")
    return out + ["", "Instance Efficiency Indicators", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
                  "            Buffer Nowait %:  100.00       Redo NoWait %:  100.00",
                  f"            Buffer  Hit   %: {f.buffer_hit_pct:>7.2f}  Optimal W/A Exec %:  100.00", ""]
