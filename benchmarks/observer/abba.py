"""The observer effect decided by statistics (issue 47): ABBA blocks of fixed-work fio runs pinned to one CPU on
a memory-backed device, with alone/alone control blocks interleaved, and planner's CPU per process in fio's window.

    python benchmarks/observer/abba.py [--blocks 20] [--ios 200000] [--cpu 1] [--backing /dev/shm/DIR]
                                       [--work DIR] [--out FILE]

Run as root from the checkout (a loop device over a 1 GiB file in ``--backing``, /dev/shm by default, so fio is
bound by CPU, not by a disk). What removes noise by design rather than by hope:

- **fio pinned to one CPU** (``cpus_allowed=--cpu`` in the job file, so both arms run the same job file with the
  same pinning); this bench's own poller thread is pinned to the other CPU; planner is left where the scheduler
  puts it (on a user's host it is not pinned either), so it competes with fio as it would.
- **Fixed work**: each run does ``--ios`` I/Os (``number_ios``, no runtime), and its IOPS is fio's own
  total_ios / job_runtime: a slow stretch costs time, not a different amount of work.
- **ABBA blocks**: alone, planner, planner, alone; a block's log ratio (mean planner IOPS / mean alone IOPS) is
  free of any linear drift of the machine within the block. **Control blocks** (alone, alone', alone', alone),
  alternating with the planner blocks, give the same statistic where nothing differs: how much this machine can
  decide. Geometric mean with a 95% CI (paired t on the blocks' log ratios and a bootstrap) for both.
- **The same instrument in both arms**: the poller that reads planner's CPU in fio's window (a /proc scan every
  0.1 s, pinned to the CPU fio is not on, which is where the loop device's workers complete fio's I/O) watches
  the alone runs too. Stops 52–54's first runs had it in the planner arm only (see RESULTS.md, stop 54).
- **Matched spacing** (``--spacing matched``, the default): a control block leaves the same idle gaps between its
  runs as its planner block's applies took around their fio (start-up, samplers, AWR sessions), so both blocks
  span the same seconds of the machine's drift; the per-block difference of the two log ratios is then reported
  too. Back to back (``--spacing none``, stops 52–53) the control was tighter than the planner blocks by design.
- **CPU accounting**: while fio runs (first to last poll that sees it), every process of planner's (the apply's
  tree, fio excluded, and the samplers' session) by name, and the apply's threads (main / others), in
  nanoseconds from /proc/<pid>/schedstat; as a share of one core, summed over the blocks.

Under planner: one point with ``collect: iostat, mpstat, vmstat, awr`` (the Oracle stand-ins answer AWR), local
transport, the apply on a pseudo-terminal so its live progress line is drawn.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (the device, the host, planner's job file, the intervals)

PLAN = """\
plan: observer_abba
version: 1
plays:
  - name: observed
    hosts: bench
    workloads:
      - name: random reads
        fio: {{target: {target}, rw: randread, bs: 4k, iodepth: 16, ioengine: libaio, direct: 1,
               job: {{name: obs, number_ios: {ios}, cpus_allowed: {cpu}}}}}
    collect:
      - iostat: {{}}
      - mpstat: {{}}
      - vmstat: {{}}
      - awr: {{}}
"""


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _ns(pid: int, tid: int | None = None) -> int | None:
    """Run time in ns of one thread, or of every thread of a process (/proc/<pid>/schedstat is its main
    thread's only)."""
    if tid is not None:
        raw = _read(f"/proc/{pid}/task/{tid}/schedstat")
        return None if raw is None else int(raw.split()[0])
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = [_ns(pid, int(t)) for t in tids]
    return sum(t for t in total if t is not None)


@dataclass(slots=True)
class Window:
    """planner's CPU while fio ran: ns by process name and by the apply's thread (main / others)."""

    seconds: float = 0.0
    by_name: dict[str, int] = field(default_factory=dict)
    main_ns: int = 0
    threads_ns: int = 0
    threads: int = 0

    @property
    def total_ns(self) -> int:
        return sum(self.by_name.values())


class Poller:
    """Every ``interval`` s (on the CPU not fio's): the processes under ``root`` and in this run's sampler
    session, with their run time in ns, and the root's threads."""

    def __init__(self, root: int, where: Path, cpu: int | None, interval: float = 0.1) -> None:
        self.helper = bench.Poller(root, where)  # its tree and sampler-session rules, not its loop
        self.root, self.cpu, self.interval = root, cpu, interval
        self.polls: list[tuple[float, bool, dict[tuple[int, int], tuple[str, int]], dict[int, int]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        if self.cpu is not None:
            os.sched_setaffinity(threading.get_native_id(), {self.cpu})
        while not self._stop.is_set():
            procs = bench._scan()
            fio = self.helper.fio_seen(procs)
            mine = {}
            for k in self.helper._tree(procs):
                ns = _ns(k[0])
                if ns is not None:
                    mine[k] = (procs[k].comm, ns)
            tasks = {}
            for tid in os.listdir(f"/proc/{self.root}/task") if os.path.isdir(f"/proc/{self.root}/task") else ():
                ns = _ns(self.root, int(tid))
                if ns is not None:
                    tasks[int(tid)] = ns
            self.polls.append((time.monotonic(), fio, mine, tasks))
            self._stop.wait(self.interval)

    def window(self) -> Window:
        seen = [i for i, p in enumerate(self.polls) if p[1]]
        w = Window()
        if not seen:
            return w
        first, last = seen[0], seen[-1]
        base, tbase = self.polls[first][2], self.polls[first][3]
        used: dict[tuple[int, int], tuple[str, int]] = {}
        tused: dict[int, int] = {}
        for _, _, mine, tasks in self.polls[first:last + 1]:
            for k, (comm, ns) in mine.items():
                used[k] = (comm, ns - base.get(k, (comm, 0))[1])
            for tid, ns in tasks.items():
                tused[tid] = ns - tbase.get(tid, 0)
        w.seconds = self.polls[last][0] - self.polls[first][0]
        for comm, ns in used.values():
            w.by_name[comm] = w.by_name.get(comm, 0) + ns
        w.main_ns = tused.get(self.root, 0)
        w.threads_ns = sum(v for t, v in tused.items() if t != self.root)
        w.threads = len(tused)
        return w


@dataclass(frozen=True, slots=True)
class Run:
    iops: float
    us_per_io: float  # fio's own CPU per I/O
    window: Window
    before: float = 0.0  # s from the apply's start to fio's start (0 alone)
    after: float = 0.0  # s from fio's end to the apply's exit


def _fio_span(out: Path) -> tuple[float, float]:
    """fio's own start and end, epoch seconds: its JSON's timestamp_ms is the end, job_runtime its length."""
    import json

    doc = json.loads(out.read_text())
    end = float(doc["timestamp_ms"]) / 1000
    return end - float(doc["jobs"][0]["job_runtime"]) / 1000, end


def run_alone(job: Path, out: Path, other_cpu: int | None) -> Run:
    """fio alone, watched by the same poller as a planner run: the instrument (a /proc scan every 0.1 s, ~2-4 ms
    of CPU each, on the CPU where the loop device's workers complete fio's I/O) is then in both arms. Until stop
    54 it ran in the planner arm only, and its cost was counted as planner's."""
    proc = subprocess.Popen(["fio", "--output-format=json", f"--output={out}", str(job)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL)
    with Poller(proc.pid, out.parent, other_cpu):
        rc = proc.wait()
    if rc != 0:
        raise SystemExit(f"fio alone failed ({rc}): {job}")
    return Run(bench.fio_figures(out)[0], bench.fio_cpu(out).us_per_io, Window())


def run_planner(plan: Path, inv: Path, runs: Path, log: Path, other_cpu: int | None) -> tuple[Run, Path]:
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(bench.REPO)}
    argv = [*bench.PLANNER, "apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"]
    runs.mkdir(parents=True, exist_ok=True)
    before = set(runs.iterdir())
    began = time.time()
    proc, drain = bench.on_pty(argv, log, env)
    with Poller(proc.pid, runs.parent, other_cpu) as poller:
        rc = proc.wait()
    ended = time.time()
    drain.join()
    if rc != 0:
        raise SystemExit(f"planner apply failed ({rc}): see {log}")
    run_dir = next(p for p in runs.iterdir() if p not in before and p.is_dir())
    out = next(run_dir.rglob("fio.json"))
    start, end = _fio_span(out)
    return Run(bench.fio_figures(out)[0], bench.fio_cpu(out).us_per_io, poller.window(),
               max(0.0, start - began), max(0.0, ended - end)), run_dir


def control_block(alone: Callable[[], Run], planner_runs: tuple[Run, ...]) -> tuple[Run, Run, Run, Run]:
    """alone x4. Matched: idle where the planner block's applies ran around their fio, so both kinds of block
    span the same time and the machine's drift over seconds weighs on both alike; the difference of their log
    ratios is then planner's presence alone (the position effect cancels too)."""
    gaps = [0.0, 0.0, 0.0]
    if planner_runs:
        b1, b2 = planner_runs
        gaps = [b1.before, b1.after + b2.before, b2.after]
    runs = [alone()]
    for gap in gaps:
        time.sleep(gap)  # spacing by design, not synchronisation: the runs it separates are independent
        runs.append(alone())
    return runs[0], runs[1], runs[2], runs[3]


def share(w: Window) -> str:
    return f"{100 * w.total_ns / 1e9 / w.seconds:.2f}%" if w.seconds else "-"


def log_ratio(a1: Run, b1: Run, b2: Run, a2: Run) -> float:
    return math.log((b1.iops + b2.iops) / (a1.iops + a2.iops))


def cpu_lines(windows: list[Window]) -> list[str]:
    secs = sum(w.seconds for w in windows)
    names: dict[str, int] = {}
    for w in windows:
        for k, v in w.by_name.items():
            names[k] = names.get(k, 0) + v
    shares = [w.total_ns / 1e9 / w.seconds for w in windows if w.seconds]
    n = len(shares)
    upper = statistics.fmean(shares) + 1.645 * statistics.stdev(shares) / math.sqrt(n) if n > 1 else shares[0]
    rows = [f"| {k} | {v / 1e6:.1f} | {100 * v / 1e9 / secs:.3f}% |"
            for k, v in sorted(names.items(), key=lambda kv: -kv[1])]
    main = sum(w.main_ns for w in windows)
    others = sum(w.threads_ns for w in windows)
    return [f"planner's processes while fio ran ({n} windows, {secs:.1f} s in all), CPU from /proc/<pid>/schedstat:",
            "", "| process | ms in all windows | share of one core |", "|---|---:|---:|", *rows,
            f"| (the apply's main thread) | {main / 1e6:.1f} | {100 * main / 1e9 / secs:.3f}% |",
            f"| (the apply's other threads, {max(w.threads for w in windows) - 1} at most) | {others / 1e6:.1f} | "
            f"{100 * others / 1e9 / secs:.3f}% |", "",
            f"share of one core per window: mean {100 * statistics.fmean(shares):.3f}%, one-sided 95% upper bound "
            f"{100 * upper:.3f}%, max {100 * max(shares):.3f}%"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=20, help="ABBA blocks of each kind (planner, control)")
    ap.add_argument("--ios", type=int, default=200_000, help="I/Os per fio run (number_ios)")
    ap.add_argument("--cpu", type=int, default=1, help="the CPU fio is pinned to (the poller takes another)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/planner-observer-abba"))
    ap.add_argument("--backing", type=Path, default=Path("/dev/shm/planner-observer-abba"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--spacing", choices=("matched", "none"), default="matched",
                    help="matched: a control block's runs are as far apart as its planner block's fio windows were "
                         "(idle in between); none: back to back (stop 52-53's design)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    a.backing.mkdir(parents=True, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))
    other = next((c for c in cpus if c != a.cpu), None)
    inv, dev = bench.make_host(a.work, a.backing)
    started, load0 = time.monotonic(), bench.load()
    try:
        lines = measure(a, inv, dev, other)
    finally:
        if dev.loop:
            subprocess.run(["losetup", "-d", dev.loop], check=False)
        if a.backing.name.startswith("planner-observer"):
            subprocess.run(["rm", "-rf", "--", str(a.backing)], check=False)
    head = [f"{bench.platform.platform()}, {os.cpu_count()} CPUs, fio pinned to CPU {a.cpu} on {dev.kind}, "
            f"{a.ios:,} I/Os a run; load average {load0} at the start, {bench.load()} at the end, "
            f"{time.monotonic() - started:.0f} s", ""]
    text = "\n".join([*head, *lines, "", f"command: `python benchmarks/observer/abba.py {' '.join(sys.argv[1:])}`", ""])
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0


def measure(a: argparse.Namespace, inv: Path, dev: bench.Device, other: int | None) -> list[str]:
    plan = a.work / "abba.yaml"
    plan.write_text(PLAN.format(target=dev.in_host, ios=a.ios, cpu=a.cpu))
    _, warm = run_planner(plan, inv, a.work / "runs-warm", a.work / "warm.log", other)  # warm-up, not counted
    job = bench.plain_job(warm, dev, a.work / "alone")[0]
    n = [0]

    def alone() -> Run:
        n[0] += 1
        return run_alone(job, a.work / f"alone-{n[0]}.json", other)

    def planner() -> Run:
        n[0] += 1
        return run_planner(plan, inv, a.work / "runs", a.work / f"planner-{n[0]}.log", other)[0]

    effect, control, cpu_effect, windows, rows = [], [], [], [], []
    for i in range(a.blocks):
        a1, b1, b2, a2 = alone(), planner(), planner(), alone()
        effect.append(log_ratio(a1, b1, b2, a2))
        cpu_effect.append(math.log((b1.us_per_io + b2.us_per_io) / (a1.us_per_io + a2.us_per_io)))
        windows += [b1.window, b2.window]
        c1, d1, d2, c2 = control_block(alone, (b1, b2) if a.spacing == "matched" else ())
        control.append(log_ratio(c1, d1, d2, c2))
        rows.append(f"| {i + 1} | {a1.iops:,.0f} / {b1.iops:,.0f} / {b2.iops:,.0f} / {a2.iops:,.0f} | "
                    f"{math.exp(effect[-1]):.3f} | {c1.iops:,.0f} / {d1.iops:,.0f} / {d2.iops:,.0f} / {c2.iops:,.0f} "
                    f"| {math.exp(control[-1]):.3f} | {share(b1.window)} / {share(b2.window)} | {bench.load()} |")
        print(rows[-1], flush=True)
    ratios = [math.exp(x) for x in effect]
    controls = [math.exp(x) for x in control]
    return ["| block | IOPS: alone / planner / planner / alone | ratio | control IOPS: alone x4 | control ratio "
            "| planner CPU in fio's window (one core) | load after |", "|---:|---|---:|---|---:|---|---|", *rows, "",
            f"planner / alone (ABBA, geometric mean): {bench.interval(ratios)}; goal: inside 0.99–1.01",
            f"control, alone / alone (the same design): {bench.interval(controls)}",
            f"fio's CPU per I/O, planner / alone: {bench.interval([math.exp(x) for x in cpu_effect])}",
            "planner's effect against the control, block by block (planner ratio / control ratio): "
            f"{bench.interval([math.exp(p - c) for p, c in zip(effect, control, strict=True)])}", "",
            *cpu_lines(windows)]


if __name__ == "__main__":
    sys.exit(main())
