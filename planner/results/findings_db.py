"""Findings a DBA raises at first sight of a database report or an OS sampler's output.

Each says what the DBA sees, why it matters to the measurement, and where the rule comes from:
- CPU steal: mpstat(1)/sar(1) ``%steal``, "time spent in involuntary wait by the virtual CPU or CPUs while the
  hypervisor was servicing another virtual processor" (vmstat's ``st``). A guest whose CPUs wait on the
  hypervisor measures the host's contention, not the storage.
- Concurrency: the Concurrency wait class (Oracle Database Reference, "Classes of Wait Events": waits for
  internal database resources, e.g. latches and mutexes: ``library cache: mutex X``, ``cursor: pin S wait on X``),
  and the hard parse rate (Performance Tuning Guide, "Instance Tuning Using Performance Views": hard parses
  are expensive in CPU and shared pool latches). Time spent queueing on each other is not I/O time.
- Commit and redo: ``log file sync`` (the user session's wait for LGWR at commit) and ``log file parallel
  write`` (LGWR's own write) — Oracle Database Reference, "Descriptions of Wait Events".
- Reads that bypass the buffer cache: ``direct path read`` (Database Reference: "a session reads buffers
  from disk directly into the PGA"): a study of buffered single-block reads (SLOB) measures another path.
- RAC global cache: the Cluster wait class (``gc cr/current ...``): blocks shipped over the interconnect.
- Exadata single-block reads against the flash cache's sub-millisecond answer (``flash_latency``).
- CPU saturation: DB CPU per second against the host's CPUs, and average active sessions (DB time per
  second) against them — the "Max CPU" line of Enterprise Manager's Average Active Sessions chart (Oracle
  Database 2 Day + Performance Tuning Guide, "Monitoring Instance Activity").

The thresholds are planner's own, stated in each finding's numbers.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from planner import kindspec
from planner.results.finding import About, Finding, Severity, groups, index, where
from planner.results.stats import Series, fmt

Place = tuple[str, str, str, str]


def not_storage_kinds() -> frozenset[str]:
    """The step and file kinds whose figures are not storage figures: each kind whose spec says it is not a
    storage test (a CPU and memory test), and its parsers' kinds. Cached reads, CPU-bound hosts and rated IOPS
    say nothing of them."""
    return frozenset(k for s in kindspec.specs() if not s.storage_test for k in (s.kind, *(p.kind for p in s.parsers)))


@dataclass(frozen=True, slots=True)
class DbThresholds:
    steal_pct: float = 10.0
    concurrency_pct: float = 20.0
    hard_parses_per_s: float = 100.0
    commit_pct: float = 10.0
    lgwr_write_ms: float = 10.0
    direct_read_pct: float = 10.0
    cluster_pct: float = 10.0
    cpu_used_fraction: float = 0.9
    cell_flash_ms: float = 2.0


def storage_series(all_series: Sequence[Series]) -> list[Series]:
    """The series a storage finding may judge: none of a kind that is not a storage test."""
    not_storage = not_storage_kinds()
    return [s for s in all_series if s.kind not in not_storage]


def _mean(values: Iterable[float]) -> float | None:
    vs = list(values)
    return statistics.fmean(vs) if vs else None


# -- CPU steal ------------------------------------------------------------------------------------------------
_STEAL = ("mpstat.steal_pct", "iostat.cpu_steal_pct", "vmstat.st", "os.cpu_steal_pct")


def _steal_rows(ss: Sequence[Series]) -> list[float]:
    out = []
    for s in ss:
        if s.metric not in _STEAL or s.label("cpu", "all") != "all" or s.label("time") == "Average":
            continue
        if s.metric != "os.cpu_steal_pct" and s.metric != "mpstat.steal_pct" and s.label("sample") == "1":
            continue  # iostat's and vmstat's first report is the average since boot
        out.append(s.summary.median)
    return out


def cpu_steal(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    groups: dict[Place, list[Series]] = defaultdict(list)
    for s in all_series:
        if s.metric in _STEAL:
            groups[where(s)].append(s)
    out = []
    for place, ss in groups.items():
        steal = _mean(_steal_rows(ss))
        if steal is not None and steal >= t.steal_pct and all(s.simulated for s in ss):
            out.append(_rehearsal_steal(steal, place, t))
        elif steal is not None and steal >= t.steal_pct:
            out.append(Finding(
                "cpu_steal", Severity.WARNING, f"The hypervisor took {steal:.1f}% of the CPUs (steal)", *place,
                f"the virtual CPUs waited {steal:.1f}% of the time for the hypervisor (%steal): the figures describe "
                "the host's contention between guests, not the storage — rerun on dedicated CPUs or a quiet host",
                (("CPU steal %", f"{steal:.1f}"), ("threshold %", f"{t.steal_pct:g}"),
                 ("source", "mpstat(1) %steal"))))
    return out


def _rehearsal_steal(steal: float, place: Place, t: DbThresholds) -> Finding:
    """In a rehearsal whose workload is a stand-in, mpstat ran on the rehearsing machine, not on the simulated
    host: its steal says nothing of the figures (stand-in numbers), only that this machine was shared."""
    return Finding(
        "cpu_steal", Severity.NOTE, f"The rehearsing machine's hypervisor took {steal:.1f}% of its CPUs (steal)",
        *place, f"a rehearsal's OS samplers run on the machine that rehearses: its virtual CPUs waited {steal:.1f}% "
        "of the time for the hypervisor; the simulated host's figures come from stand-ins and are not affected, "
        "but on the lab the same steal would make them describe the hypervisor, not the storage",
        (("CPU steal % (rehearsing machine)", f"{steal:.1f}"), ("threshold %", f"{t.steal_pct:g}"),
         ("source", "mpstat(1) %steal")), About.REHEARSAL)


# -- wait classes and events --------------------------------------------------------------------------------
def _top_events(ss: Iterable[Series]) -> list[Series]:
    return [s for s in ss if s.metric == "wait.pct_db_time" and s.label("section", "top") == "top"]


def _class_share(ms: dict[str, Series], events: list[Series], cls: str) -> tuple[float | None, list[Series]]:
    members = [s for s in events if s.label("wait_class") == cls]
    if members:
        return sum(s.summary.median for s in members), members
    derived = next((s for s in ms.values() if s.metric == "wait_class_share_pct" and s.label("wait_class") == cls),
                   None)
    return (derived.summary.median if derived else None), []


def _event_share(events: list[Series], *names: str) -> tuple[float, list[Series]]:
    hit = [s for s in events if s.label("event").lower() in names]
    return sum(s.summary.median for s in hit), hit


def _avg_ms(ss: Iterable[Series], event: str) -> float | None:
    return _mean(s.summary.median for s in ss if s.metric == "wait.avg_ms" and s.label("event").lower() == event)


def _places(all_series: Sequence[Series]) -> Iterable[tuple[Place, list[Series], dict[str, Series]]]:
    """Each place's series, and the same by metric key and name (the first of each, as findings.index)."""
    by_place = index(all_series)
    for place, ss in groups(all_series).items():
        yield place, ss, by_place[place]


def concurrency(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    out = []
    for place, ss, ms in _places(all_series):
        share, members = _class_share(ms, _top_events(ss), "Concurrency")
        hard = ms.get("hard_parses_per_s")
        hard_rate = hard.summary.median if hard else None
        if (share is None or share < t.concurrency_pct) and (hard_rate is None or hard_rate < t.hard_parses_per_s):
            continue
        named = ", ".join(f"{s.label('event')} {fmt(s.summary.median)}%" for s in members[:3])
        what = f"Concurrency waits take {share:.1f}% of DB time" if share and share >= t.concurrency_pct \
            else f"{fmt(hard_rate or 0)} hard parses per second"
        out.append(Finding(
            "concurrency", Severity.WARNING, what, *place,
            f"{what}{' (' + named + ')' if named else ''}: sessions queue on each other for latches, mutexes "
            "and the shared pool, so the run measured contention, not the storage",
            (*((("Concurrency % DB time", f"{share:.1f}"),) if share is not None else ()),
             *((("hard parses/s", fmt(hard_rate)),) if hard_rate is not None else ()),
             ("threshold %", f"{t.concurrency_pct:g}"), ("threshold hard parses/s", f"{t.hard_parses_per_s:g}"))))
    return out


def commit_and_redo(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    out = []
    for place, ss in groups(all_series).items():
        share, _ = _event_share(_top_events(ss), "log file sync")
        sync_ms, lgwr_ms = _avg_ms(ss, "log file sync"), _avg_ms(ss, "log file parallel write")
        if share >= t.commit_pct:
            out.append(Finding(
                "commit_wait", Severity.WARNING, f"Commits wait on redo: log file sync {share:.1f}% of DB time",
                *place, f"sessions spent {share:.1f}% of DB time in 'log file sync'"
                f"{f' ({fmt(sync_ms)} ms a commit)' if sync_ms is not None else ''}: the throughput is bound by "
                "commit latency (the redo log's device and LGWR), not by the data files",
                (("log file sync % DB time", f"{share:.1f}"),
                 *((("log file sync avg ms", fmt(sync_ms)),) if sync_ms is not None else ()),
                 ("threshold %", f"{t.commit_pct:g}"))))
        if lgwr_ms is not None and lgwr_ms >= t.lgwr_write_ms:
            out.append(Finding(
                "redo_write_slow", Severity.NOTE, f"LGWR writes take {fmt(lgwr_ms)} ms", *place,
                f"'log file parallel write' averages {fmt(lgwr_ms)} ms: the redo log's device is slow, and every "
                "commit waits for it",
                (("log file parallel write avg ms", fmt(lgwr_ms)), ("threshold ms", f"{t.lgwr_write_ms:g}"))))
    return out


def direct_reads(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    out = []
    for place, ss in groups(all_series).items():
        share, hit = _event_share(_top_events(ss), "direct path read", "direct path read temp")
        if share >= t.direct_read_pct:
            names = " and ".join(sorted({s.label("event") for s in hit}))
            out.append(Finding(
                "direct_reads", Severity.NOTE, f"{share:.1f}% of DB time in direct path reads", *place,
                f"{names} take {share:.1f}% of DB time: these reads bypass the buffer cache into the sessions' "
                "PGA, so a study of buffered single-block reads (SLOB) measured another path here; a scan test "
                "means to",
                (("direct path read % DB time", f"{share:.1f}"), ("threshold %", f"{t.direct_read_pct:g}"))))
    return out


def cluster_waits(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    out = []
    for place, ss, ms in _places(all_series):
        share, members = _class_share(ms, _top_events(ss), "Cluster")
        if share is None or share < t.cluster_pct:
            continue
        named = ", ".join(s.label("event") for s in members[:3])
        out.append(Finding(
            "cluster_waits", Severity.WARNING, f"RAC global cache waits take {share:.1f}% of DB time", *place,
            f"the Cluster wait class takes {share:.1f}% of DB time{' (' + named + ')' if named else ''}: blocks "
            "travel between instances over the interconnect, so read latency and IOPS include that transfer",
            (("Cluster % DB time", f"{share:.1f}"), ("threshold %", f"{t.cluster_pct:g}"))))
    return out


def cpu_saturation(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    out = []
    for place, _ss, ms in _places(all_series):
        cpus_s = ms.get("cpus")
        if cpus_s is None or cpus_s.summary.median <= 0:
            continue
        cpus = cpus_s.summary.median
        cpu = ms.get("db_cpu_per_s")
        aas_s = ms.get("aas") or ms.get("db_time_per_s")
        used = cpu.summary.median if cpu else None
        aas = aas_s.summary.median if aas_s else None
        if used is not None and used >= t.cpu_used_fraction * cpus:
            out.append(Finding(
                "cpu_saturated", Severity.WARNING, f"DB CPU uses {fmt(used)} of {cpus:g} CPUs", *place,
                f"the database used {fmt(used)} CPU seconds per second on {cpus:g} CPUs: sessions queue for "
                "CPU, so waits and throughput describe the CPU, not the storage",
                (("DB CPU per second", fmt(used)), ("CPUs", fmt(cpus)),
                 ("threshold", f"{t.cpu_used_fraction:g} x CPUs"))))
        elif aas is not None and aas > cpus:
            out.append(Finding(
                "sessions_over_cpus", Severity.NOTE, f"{fmt(aas)} average active sessions on {cpus:g} CPUs",
                *place, _over_cpus(aas, cpus, used),
                (("average active sessions", fmt(aas)), ("CPUs", fmt(cpus)),
                 *((("DB CPU per second", fmt(used)),) if used is not None else ()))))
    return out


def _over_cpus(aas: float, cpus: float, used: float | None) -> str:
    """More active sessions than CPUs is CPU queueing only when the sessions want the CPU: an OLTP sweep whose
    DB time is mostly I/O waits has 64 active sessions on 16 CPUs with a few of them on CPU, waiting on the
    storage, not queueing for the CPU (AWR: DB time = DB CPU + non-idle waits)."""
    if used is not None and used < cpus / 2:
        return (f"on average {fmt(aas)} sessions were active on {cpus:g} CPUs but only {fmt(used)} of them on CPU: "
                "the others were waiting (the top wait events say on what), not queueing for the CPU")
    return (f"on average {fmt(aas)} sessions were active on {cpus:g} CPUs: more work than CPUs, so part of the "
            "DB time is queueing")


_CELL_READ = "cell single block physical read"


def _cell_single_block(event: str) -> bool:
    """The cell read event, as AWR text cuts names (to 30 characters in a Top 5); not 19c's split-out
    ": flash cache" / ": pmem cache" events, which are the cache's own."""
    if "flash" in event or "pmem" in event:
        return False
    return event.startswith(_CELL_READ) or (len(event) >= 20 and _CELL_READ.startswith(event))


def flash_latency(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    """Exadata's single-block reads against their device class: the flash cache answers in well under a
    millisecond (Oracle Exadata System Software User's Guide, "Exadata Smart Flash Cache"), so an average of
    ``cell_flash_ms`` or more says many reads went to the cells' disks."""
    out = []
    for place, ss in groups(all_series).items():
        reads = [(s.label("event"), s.summary.median) for s in ss if s.metric == "wait.avg_ms"
                 and _cell_single_block(s.label("event").lower())]
        slow = [(e, v) for e, v in reads if v >= t.cell_flash_ms]
        if slow:
            event, ms = max(slow, key=lambda ev: ev[1])
            out.append(Finding(
                "cell_reads_from_disk", Severity.NOTE, f"Exadata single-block reads average {fmt(ms)} ms", *place,
                f"'{event}' averages {fmt(ms)} ms where the flash cache answers in well under 1 ms: many reads came "
                "from the cells' disks, so the figure describes disk, not flash",
                (("avg ms", fmt(ms)), ("threshold ms", f"{t.cell_flash_ms:g}"))))
    return out


def db_findings(all_series: Sequence[Series], t: DbThresholds = DbThresholds()) -> list[Finding]:
    """Every check of this module."""
    return [*cpu_steal(all_series, t), *concurrency(all_series, t), *commit_and_redo(all_series, t),
            *direct_reads(all_series, t), *cluster_waits(all_series, t), *cpu_saturation(all_series, t),
            *flash_latency(all_series, t)]
