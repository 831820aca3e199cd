"""Stand-in AWR / Statspack reports: a toy performance model and the real report layouts around it.

Used by the stand-in SLOB kit (planner/kinds/slob/bin/runit.sh) and by the sqlplus stand-in's
AWR_REPORT_TEXT / Statspack handlers (planner/standins/sql_workload.py). Nothing here talks to a database:
the numbers follow from the inputs through ``simulate`` (more sessions -> more physical reads/s, saturating
at PLANNER_STANDIN_MAX_IOPS, or 15,000 IOPS per LUN of the largest ASM disk group when that is more; a buffer
cache larger than the data set -> fewer physical reads), and the
renderers write them in the layouts of the database's release (AWR text and HTML: 19c's, and awrgen_legacy's
before 12.2) and 11.2.0.4+ (Statspack) that shared/reference/output-formats.md describes, so the project's real
parsers read them.

Every report carries the line ``PLANNER STAND-IN`` (a text line before the header, an HTML comment) and the
database is named ``STANDIN``: nobody can mistake one for a measurement.

The stand-in kit runs ``python -m planner.rehearsal.standins.awrgen_cli slob ...``, which writes awr.txt + awr.html
(or statspack.txt) from this model.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

MARKER = "PLANNER STAND-IN"
STATE_DIR = "var/lib/planner-standin"  # under the sandbox root: snapshot counter, db state


@dataclass(frozen=True, slots=True)
class HostInfo:
    name: str
    platform: str = "Linux x86 64-bit"
    cpus: int = 8
    cores: int = 4
    sockets: int = 1
    memory_gb: float = 31.25


@dataclass(frozen=True, slots=True)
class DbInfo:
    name: str = "STANDIN"
    dbid: int = 3141592653
    instance: str = "standin"
    inst_num: int = 1
    release: str = "19.0.0.0.0"
    startup: str = "01-Jan-25 08:00"
    buffer_cache_mb: int = 1024
    shared_pool_mb: int = 512
    log_buffer_kb: int = 16384
    block_kb: int = 8
    asm_disks: int = 0  # members of the largest ASM disk group: more LUNs raise the device limit
    rac: bool = False  # database.cluster_database with more than one instance (awrgen_rac)
    cdb: bool = False  # V$DATABASE.CDB (12.1+): the stand-in's ``cdb`` knob
    containers: tuple[tuple[int, str], ...] = ()  # a CDB's (CON_DBID, name): CDB$ROOT, PDB$SEED, its PDBs


@dataclass(frozen=True, slots=True)
class Workload:
    sessions: int = 0  # 0: an idle database (AWR around ORION / fio / CALIBRATE_IO)
    update_pct: int = 0
    run_time_s: float = 300.0
    work_unit: int = 64
    redo_stress: str = "LITE"
    scale_blocks: int = 10000  # per schema
    schemas: int = 1


@dataclass(frozen=True, slots=True)
class Interval:
    begin_snap: int
    end_snap: int
    begin: datetime
    elapsed_s: float

    @property
    def end(self) -> datetime:
        return self.begin + timedelta(seconds=self.elapsed_s)


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    waits: float  # 0 for DB CPU
    time_s: float
    wait_class: str  # "" for DB CPU


@dataclass(frozen=True, slots=True)
class Figures:
    """Per-second rates over the interval, and the foreground events (sorted by time, DB CPU included)."""

    db_time: float
    db_cpu: float
    bg_cpu: float
    redo_bytes: float
    logical_reads: float
    block_changes: float
    read_blocks: float
    write_blocks: float
    read_reqs: float
    write_reqs: float
    redo_reqs: float
    user_calls: float
    executes: float
    transactions: float
    read_latency_ms: float
    events: tuple[Event, ...]
    user_pct: float
    sys_pct: float
    wio_pct: float
    load_begin: float
    load_end: float
    buffer_hit_pct: float


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def simulate(w: Workload, host: HostInfo, db: DbInfo) -> Figures:
    """The toy model. Each session alternates a single-block read (base latency) with some CPU per logical
    read; offered IOPS saturate smoothly at the device limit; DB CPU follows the reads (_time_split) and the
    waits share the rest of DB time, so the latency follows from Little's law."""
    # The device limit: the host's, or the LUNs' together when an ASM disk group spreads over more of them
    # (the seed's Violin went from 159k to 236k IOPS with 8 more LUNs): more LUNs only ever raise it.
    max_iops = max(_env_float("PLANNER_STANDIN_MAX_IOPS", 60000.0),
                   _env_float("PLANNER_STANDIN_LUN_IOPS", 15000.0) * db.asm_disks)
    base_ms = _env_float("PLANNER_STANDIN_BASE_LATENCY_MS", 0.3)
    cpu_per_lio_ms = 0.004
    data_blocks = max(1, w.schemas * w.scale_blocks)
    cache_blocks = db.buffer_cache_mb * 1024 / db.block_kb
    miss = max(0.02, 1.0 - min(0.98, cache_blocks / data_blocks))  # a big cache hides the data set
    n = max(0, w.sessions)
    per_session = 1000.0 / (base_ms + cpu_per_lio_ms / miss)
    offered = n * per_session
    iops = max_iops * (1.0 - math.exp(-offered / max_iops)) if n else 0.0
    u = min(max(w.update_pct, 0), 100) / 100.0
    logical = iops / miss if iops else 2.0
    changes = iops * u * 2.0
    heavy = str(w.redo_stress).upper() == "HEAVY"
    redo = changes * (2900.0 if heavy else 420.0) + 800.0
    write_reqs = iops * u * 0.55 + 0.4
    db_time = n * 1.0 if n else 0.05
    dbcpu, lat_ms, events = _time_split(n, iops, logical, write_reqs, u, heavy, host, base_ms, w.run_time_s)
    # %User / %System: a SLOB read's CPU is the foreground's own (DB CPU), about 4/5 user and 1/5 system on the
    # seed's saturated host (79.7 / 19.7, docs/oracle-behaviour.md 41.f2), plus the background's writes
    busy_user = min(95.0, dbcpu * 0.8 / host.cpus * 100.0 + 0.5)
    busy_sys = min(100.0 - busy_user, (dbcpu * 0.2 + write_reqs * 0.00002) / host.cpus * 100.0 + 0.3)
    wio = min(100.0 - busy_user - busy_sys, n / host.cpus * 8.0)
    return Figures(
        db_time=db_time, db_cpu=dbcpu, bg_cpu=0.02 + write_reqs * 0.00002, redo_bytes=redo,
        logical_reads=logical, block_changes=changes + 1.0, read_blocks=iops, write_blocks=write_reqs * 1.3,
        read_reqs=iops, write_reqs=write_reqs, redo_reqs=changes * 0.1 + 0.2,
        user_calls=n * 0.5 + 0.3, executes=iops / max(1, w.work_unit) * 2 + 1.5, transactions=changes / 10 + 0.05,
        read_latency_ms=lat_ms, events=tuple(events), user_pct=busy_user, sys_pct=busy_sys, wio_pct=wio,
        load_begin=0.4, load_end=round(0.4 + n * 0.9, 2), buffer_hit_pct=max(0.0, 100.0 * (1 - iops / logical)))


IOPS_PER_CORE = 20000.0  # the seed: "almost exactly 20k IOPS per core" (docs/oracle-behaviour.md 41.f2)


def _time_split(n: int, iops: float, logical: float, write_reqs: float, u: float, heavy: bool, host: HostInfo,
                base_ms: float, elapsed: float) -> tuple[float, float, list[Event]]:
    """DB CPU (s/s), the single-block read latency (ms) and the foreground events, within DB time (n sessions
    always active): the reads' CPU first (1 / IOPS_PER_CORE core-seconds each, the cached rest 4 us a logical
    read), the waits share what is left, and CPU plus waits never pass 99% of DB time (a DBA's first check)."""
    if not n:  # idle: a sliver of control-file traffic, as an idle instance shows
        return 0.02, base_ms, sorted([
            Event("control file sequential read", 12.0 * elapsed, 0.003 * elapsed, "System I/O"),
            Event("DB CPU", 0, 0.02 * elapsed, ""),
            Event("db file sequential read", 0.5 * elapsed, 0.0004 * elapsed, "User I/O")],
            key=lambda e: e.time_s, reverse=True)
    per_core = _env_float("PLANNER_STANDIN_IOPS_PER_CORE", IOPS_PER_CORE)
    budget = n * 0.99
    dbcpu = min(float(host.cpus), budget, iops / per_core + max(0.0, logical - iops) * 0.000004 + n * 0.002)
    # other waits, as shares of the single-block reads' time (parallel reads, buffer contention, DBWR)
    extra = 0.012 + 0.004 + (0.03 + 0.02 if heavy else 0.006 + 0.002) * (1 if u else 0)
    latch = 0.0004 * n
    dfsr = max(0.0, budget - dbcpu - latch) / (1 + extra)
    lat_ms = max(base_ms, dfsr * 1000.0 / iops) if iops else base_ms
    dfsr = iops * lat_ms / 1000.0
    dbcpu = min(dbcpu, max(0.0, budget - dfsr * (1 + extra) - latch))  # CPU-bound: the queue is not DB CPU
    events = [Event("db file sequential read", iops * elapsed, dfsr * elapsed, "User I/O"),
              Event("DB CPU", 0, dbcpu * elapsed, ""),
              Event("db file parallel read", iops * 0.004 * elapsed, dfsr * 0.012 * elapsed, "User I/O"),
              Event("read by other session", iops * 0.002 * elapsed, dfsr * 0.004 * elapsed, "User I/O"),
              Event("latch: cache buffers chains", n * 3.0 * elapsed / 60, latch * elapsed, "Concurrency")]
    if u:
        events += [Event("free buffer waits", write_reqs * 0.01 * elapsed, dfsr * (0.03 if heavy else 0.006) * elapsed,
                         "Configuration"),
                   Event("log file switch completion", 2.0 * elapsed / 60,
                         dfsr * (0.02 if heavy else 0.002) * elapsed, "Configuration")]
    return dbcpu, lat_ms, sorted(events, key=lambda e: e.time_s, reverse=True)


def discover_host() -> HostInfo:
    """This machine's host line; env PLANNER_STANDIN_HOSTNAME/CPUS/CORES/SOCKETS/MEMORY_GB override it."""
    cpus = os.cpu_count() or 1
    mem_gb = 0.0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    cpus = int(_env_float("PLANNER_STANDIN_CPUS", cpus))
    return HostInfo(
        name=os.environ.get("PLANNER_STANDIN_HOSTNAME") or socket.gethostname(),
        cpus=cpus, cores=int(_env_float("PLANNER_STANDIN_CORES", max(1, cpus // 2))),
        sockets=int(_env_float("PLANNER_STANDIN_SOCKETS", 1)),
        memory_gb=round(_env_float("PLANNER_STANDIN_MEMORY_GB", mem_gb or 16.0), 2))


@dataclass(frozen=True, slots=True)
class Instance:
    inst_id: int
    instance_name: str
    host_name: str


def instances(state: Mapping[str, Any]) -> tuple[Instance, ...]:
    """GV$INSTANCE of the stand-in database: more than one only when it is RAC (cluster_database true)."""
    d = state.get("database", {}) if isinstance(state, Mapping) else {}
    rows = d.get("instances") if isinstance(d, Mapping) else None
    if not d.get("cluster_database") or not isinstance(rows, list) or len(rows) < 2:
        return ()
    out = []
    for i, r in enumerate(rows, 1):
        if isinstance(r, Mapping):
            out.append(Instance(int(r.get("inst_id", i)), str(r.get("instance_name", f"inst{i}")),
                                str(r.get("host_name", f"host{i}"))))
    return tuple(sorted(out, key=lambda x: x.inst_id))


def load_instances(state_dir: Path) -> tuple[Instance, ...]:
    try:
        return instances(json.loads((state_dir / "db.json").read_text()))
    except (OSError, ValueError, TypeError):
        return ()


def state_dir(root: str, fallback: Path) -> Path:
    """Where the stand-in database keeps its state: the sandbox's when there is one, else ``fallback``."""
    return Path(root) / STATE_DIR if root else fallback


def load_db(state: Path, pool: str = "DEFAULT") -> DbInfo:
    """Identity and the cache the workload's data lives in, from the stand-in database's state (``db.json``
    of planner/rehearsal/standins, written by install_standins). ``pool`` is the BUFFER_POOL the workload's
    segments were created with (SLOB 2.x: KEEP); the sizes and the KEEP-in-DEFAULT fallback are the sqlplus
    stand-in's own (``_standin.buffer_pools`` / ``segment_pool``, which cite the Oracle documentation)."""
    db = DbInfo()
    try:
        data = json.loads((state / "db.json").read_text())
    except (OSError, ValueError):
        return db
    d = data.get("database", {})
    sys.path.insert(0, str(Path(__file__).resolve().parent / "bin"))
    try:
        import _standin  # type: ignore[import-not-found]  # the stand-ins' own memory model: one definition
        import _standin_cdb  # type: ignore[import-not-found]  # the PDBs' names and DBIDs: one definition

        cdb = bool(d.get("cdb")) and _standin.version_tuple(data) >= (12, 1)
        containers = tuple((_standin_cdb.pdb_dbid(data, n), n) for n in ("PDB$SEED", *_standin_cdb.pdb_names(data)))
        pools = _standin.buffer_pools(data)
        cache = pools[_standin.segment_pool(data, pool.upper())] >> 20
        sga = max(int(_standin.memory_value(data, "sga_target")), 1 << 30) >> 20
    except (KeyError, TypeError, ValueError):
        cache, sga, cdb, containers = db.buffer_cache_mb, 4096, False, ()
    finally:
        sys.path.pop(0)
    members: dict[str, int] = {}
    for disk in data.get("disks", []):
        if isinstance(disk, dict) and disk.get("group"):
            members[str(disk["group"])] = members.get(str(disk["group"]), 0) + 1
    insts = instances(data)
    first = insts[0].instance_name if insts else str(d.get("instance_name", db.instance))
    return replace(db, name=str(d.get("name", db.name)), dbid=int(d.get("dbid", db.dbid)), rac=bool(insts),
                   instance=first, release=str(d.get("version", db.release)),
                   buffer_cache_mb=max(4, cache), shared_pool_mb=max(64, int(sga * 0.2)),
                   asm_disks=max(members.values(), default=0), cdb=cdb,
                   containers=((int(d.get("dbid", db.dbid)), "CDB$ROOT"), *containers) if cdb else ())


def slob_pool(state: Path) -> str:
    """USER1.CF1's BUFFER_POOL in the stand-in database (DBA_SEGMENTS; DEFAULT when it has none)."""
    try:
        seg = json.loads((state / "db.json").read_text()).get("segments", {}).get("USER1.CF1", {})
        return str(seg.get("buffer_pool") or "DEFAULT")
    except (OSError, ValueError, AttributeError):
        return "DEFAULT"


def next_snap_id(state: Path) -> int:
    """A monotonically rising snapshot id kept beside the stand-in database's state."""
    state.mkdir(parents=True, exist_ok=True)
    f = state / "awr_snap_id"
    try:
        n = int(f.read_text().strip()) + 1
    except (OSError, ValueError):
        n = 101
    f.write_text(f"{n}\n")
    return n


# -- formatting ------------------------------------------------------------------------------------------
def num(v: float, decimals: int = 1) -> str:
    return f"{v:,.{decimals}f}"


def avg_wait(ms: float) -> str:
    """19c Avg Wait cells: ``268.69us``, ``3.23ms``, ``52.86 s``."""
    if ms < 1.0:
        return f"{ms * 1000:.2f}us"
    if ms < 1000.0:
        return f"{ms:.2f}ms"
    return f"{ms / 1000:.2f} s"


def stamp(t: datetime, seconds: bool = True) -> str:
    return t.strftime("%d-%b-%y %H:%M:%S" if seconds else "%d-%b-%y %H:%M")


def load_profile_rows(f: Figures) -> list[tuple[str, float, float | None]]:
    """(19c label, per second, per transaction) in report order."""
    tps = max(f.transactions, 0.01)
    rows = [("Redo size (bytes)", f.redo_bytes), ("Logical read (blocks)", f.logical_reads),
            ("Block changes", f.block_changes), ("Physical read (blocks)", f.read_blocks),
            ("Physical write (blocks)", f.write_blocks), ("Read IO requests", f.read_reqs),
            ("Write IO requests", f.write_reqs), ("Read IO (MB)", f.read_blocks * 8 / 1024),
            ("Write IO (MB)", f.write_blocks * 8 / 1024), ("User calls", f.user_calls),
            ("Parses (SQL)", f.executes * 0.1), ("Hard parses (SQL)", 0.02), ("Logons", 0.03),
            ("Executes (SQL)", f.executes), ("Rollbacks", 0.0)]
    return [(label, v, v / tps) for label, v in rows] + [("Transactions", f.transactions, None)]


def db_time_rows(f: Figures, iv: Interval) -> list[tuple[str, float, float, float, float]]:
    """DB Time / DB CPU / Background CPU: per second, per transaction, per exec, per call."""
    tps, eps, cps = max(f.transactions, 0.01), max(f.executes, 0.01), max(f.user_calls, 0.01)
    return [(label, v, v / tps, v / eps, v / cps) for label, v in
            (("DB Time(s)", f.db_time), ("DB CPU(s)", f.db_cpu), ("Background CPU(s)", f.bg_cpu))]


def pct_db_time(e: Event, f: Figures, iv: Interval) -> float:
    return e.time_s / max(f.db_time * iv.elapsed_s, 1e-9) * 100.0


def wait_classes(f: Figures) -> list[tuple[str, float, float]]:
    """(class, waits, time s) summed over the events, DB CPU as its own row, by time."""
    acc: dict[str, list[float]] = {}
    for e in f.events:
        key = e.wait_class or "DB CPU"
        a = acc.setdefault(key, [0.0, 0.0])
        a[0] += e.waits
        a[1] += e.time_s
    return sorted(((k, v[0], v[1]) for k, v in acc.items()), key=lambda r: r[2], reverse=True)


def io_profile_rows(f: Figures) -> list[tuple[str, float, float]]:
    return [("Total Requests", f.read_reqs, f.write_reqs + f.redo_reqs),
            ("Database Requests", f.read_reqs, f.write_reqs), ("Optimized Requests", 0.0, 0.0),
            ("Redo Requests", 0.0, f.redo_reqs),
            ("Total (MB)", f.read_blocks * 8 / 1024, (f.write_blocks * 8 * 1024 + f.redo_bytes) / 1048576),
            ("Database (MB)", f.read_blocks * 8 / 1024, f.write_blocks * 8 / 1024),
            ("Optimized Total (MB)", 0.0, 0.0), ("Redo (MB)", 0.0, f.redo_bytes / 1048576),
            ("Database (blocks)", f.read_blocks, f.write_blocks),
            ("Via Buffer Cache (blocks)", f.read_blocks, f.write_blocks), ("Direct (blocks)", 0.0, 0.0)]
