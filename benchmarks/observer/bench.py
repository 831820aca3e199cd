"""What planner costs the measurement: observer effect, host CPU in the window, dead time per point.

    python benchmarks/observer/bench.py [--pairs 5] [--runtime 15] [--points 20] [--point-runtime 1]
                                        [--loops 2] [--work DIR] [--backing DIR] [--out RESULTS.md]

One host, this machine (``ansible_connection: local``), with the Oracle stand-ins for the AWR snapshots. The
device is a loop device (``losetup --direct-io=on`` over a 1 GiB file, so reads reach the disk, not the page
cache) where the machine allows it, else that file with direct=1. Its block node is made again inside the
host's sandbox (``planner_root``), so planner's fio reads the very same device.

1. Observer effect: ``--pairs`` planner runs, each between two alone runs (alone, planner, alone, planner, ...,
   alone), compared with the mean of its neighbours; the alone runs compared with each other are the control (what
   the machine's own drift does to a ratio). fio random reads alone (the job file planner wrote, run by hand), and
   as a planner point with iostat, mpstat, vmstat and AWR snapshots around it. IOPS and latency from fio's JSON.
   While fio runs, a poller reads ``/proc/<pid>/stat`` (utime + stime) of planner's processes: the apply's process
   tree and the sampler group (its own session), fio excluded; their CPU during fio's run, as a share of one core.
   planner runs on a pseudo-terminal, so its live progress line is drawn as a user would see it.
2. Dead time: a ``--points``-point sweep (iodepth 1..N) of a ``--point-runtime``-second job under planner (same
   collect, report included), then the same commands as a shell loop: planner's own job files, and when the
   plan collects AWR the same snapshots around each fio run with the same sqlplus (the stand-in), in the
   sessions planner uses: a first begin snapshot session, then after each fio one session for the end
   snapshot, its report and the next begin. ``--loops`` pairs, interleaved; the sweep with
   AWR, then without. Dead time per point = (planner wall - loop wall) / points: planner's own overhead; beside
   it the CPU time (user + system) of each side's process tree, which a shared machine's load disturbs less.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import stat
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from planner.rehearsal.standins import install_standins, standin_vars  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
SAMPLER_MARKER = b"planner-ostats"  # $0 of the sampler group's leader (planner.transport.ostats.MARKER)
PLANNER = [sys.executable, "-m", "planner"]

PLAN = """\
plan: observer_bench
version: 1
plays:
  - name: observed
    hosts: bench
    workloads:
      - name: random reads
        fio: {{target: {target}, rw: randread, bs: 4k, iodepth: {iodepth}, ioengine: libaio, direct: 1,
               runtime: {runtime}, job: {{name: obs}}}}
    collect:
      - iostat: {{}}
      - mpstat: {{}}
      - vmstat: {{}}
{awr}"""
AWR = "      - awr: {}\n"


# -- the device and the host ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Device:
    path: str  # what fio reads outside planner
    in_host: str  # the same device as the plan names it (inside the host's planner_root)
    kind: str  # what it is, in words
    loop: str  # the loop device to detach at the end ("" when none)


def make_device(backing_dir: Path, root: Path) -> Device:
    backing = backing_dir / "disk.img"
    if not backing.exists():  # written, not sparse: a read of a hole never reaches the disk
        subprocess.run(["fio", "--name=fill", f"--filename={backing}", "--size=1g", "--rw=write", "--bs=1m",
                        "--direct=1", "--ioengine=libaio", "--iodepth=4", "--output=/dev/null"], check=True)
    (root / "dev").mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0 and Path("/dev/loop-control").exists() and shutil.which("losetup"):
        r = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", str(backing)],
                           capture_output=True, text=True)
        if r.returncode == 0:
            dev = r.stdout.strip()
            node = root / "dev" / Path(dev).name
            node.unlink(missing_ok=True)
            os.mknod(node, 0o600 | stat.S_IFBLK, os.stat(dev).st_rdev)
            return Device(dev, f"/dev/{Path(dev).name}", f"loop device {dev} (direct I/O) over a 1 GiB file in "
                          f"{backing_dir}", dev)
    inside = root / "data" / "disk.img"
    inside.parent.mkdir(parents=True, exist_ok=True)
    if not inside.exists():
        os.link(backing, inside)
    return Device(str(inside), "/data/disk.img", "a 1 GiB file read with direct=1 (no loop device here)", "")


def make_host(work: Path, backing_dir: Path) -> tuple[Path, Device]:
    root = work / "host"
    root.mkdir(parents=True, exist_ok=True)
    install_standins(root)
    dev = make_device(backing_dir, root)
    hv = {"ansible_connection": "local", **standin_vars(root)}
    lines = ["all:", "  hosts:", "    bench:"] + [f"      {k}: {json.dumps(v)}" for k, v in hv.items()]
    inv = work / "inventory.yml"
    inv.write_text("\n".join(lines) + "\n")
    return inv, dev


# -- CPU of planner's processes while fio runs -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Proc:
    comm: str
    ppid: int
    sid: int
    ticks: int  # utime + stime


def _scan() -> dict[tuple[int, int], Proc]:
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        head, _, rest = raw.rpartition(b")")
        fields = rest.split()
        # after ")": state ppid pgrp session ... utime(12) stime(13) ... starttime(20)
        out[(int(entry.name), int(fields[19]))] = Proc(head.split(b"(", 1)[1].decode(errors="replace"),
                                                       int(fields[1]), int(fields[3]),
                                                       int(fields[11]) + int(fields[12]))
    return out


class Poller:
    """Every ``interval`` s: every process's CPU ticks. ``window`` gives fio's run (first to last poll that saw
    fio under ``root``) and the ticks planner's processes used between those polls."""

    def __init__(self, root: int, where: Path, interval: float = 0.1) -> None:
        self.root, self.interval = root, interval
        self.where = str(where).encode()  # only sampler groups writing under here are this run's
        self.polls: list[tuple[float, dict[tuple[int, int], Proc]]] = []
        self.marked: dict[tuple[int, int], bool] = {}  # sampler-group leaders, by cmdline (read once)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.polls.append((time.monotonic(), _scan()))
            self._stop.wait(self.interval)

    def _is_sampler_leader(self, key: tuple[int, int], p: Proc) -> bool:
        if key not in self.marked:
            try:
                with open(f"/proc/{key[0]}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
                self.marked[key] = (p.comm == "sh" and len(args) > 4 and args[3] == SAMPLER_MARKER
                                    and args[4].startswith(self.where))
            except OSError:
                self.marked[key] = False
        return self.marked[key]

    def _tree(self, procs: dict[tuple[int, int], Proc]) -> set[tuple[int, int]]:
        """planner's processes in one poll: descendants of root (fio excluded) and the sampler sessions."""
        by_pid = {pid: (pid, st) for pid, st in procs}
        kids: dict[int, list[int]] = {}
        for (pid, _), p in procs.items():
            kids.setdefault(p.ppid, []).append(pid)
        found, todo = set(), [self.root]
        while todo:
            pid = todo.pop()
            if pid in by_pid:
                found.add(by_pid[pid])
            todo.extend(kids.get(pid, []))
        # the samplers' group left planner's tree (setsid, its starter exited): found by its leader's argv
        sids = {k[0] for k, p in procs.items() if p.sid == k[0] and self._is_sampler_leader(k, p)}
        found |= {k for k, p in procs.items() if p.sid in sids}
        return {k for k in found if procs[k].comm != "fio"}

    def fio_seen(self, procs: dict[tuple[int, int], Proc]) -> bool:
        return any(p.comm == "fio" for k, p in procs.items() if k in self._fio_tree(procs))

    def _fio_tree(self, procs: dict[tuple[int, int], Proc]) -> set[tuple[int, int]]:
        by_pid = {pid: (pid, st) for pid, st in procs}
        kids: dict[int, list[int]] = {}
        for (pid, _), p in procs.items():
            kids.setdefault(p.ppid, []).append(pid)
        found, todo = set(), [self.root]
        while todo:
            pid = todo.pop()
            if pid in by_pid:
                found.add(by_pid[pid])
            todo.extend(kids.get(pid, []))
        return found

    def window(self) -> tuple[float, int, dict[str, int]]:
        """(fio's run in seconds as polled, planner's ticks in it, ticks by command name)."""
        seen = [i for i, (_, procs) in enumerate(self.polls) if self.fio_seen(procs)]
        if not seen:
            return 0.0, 0, {}
        first, last = seen[0], seen[-1]
        base = self.polls[first][1]
        used: dict[tuple[int, int], int] = {}
        names: dict[tuple[int, int], str] = {}
        for _, procs in self.polls[first:last + 1]:
            for k in self._tree(procs):
                used[k] = procs[k].ticks - (base[k].ticks if k in base else 0)
                names[k] = procs[k].comm
        by_name: dict[str, int] = {}
        for k, t in used.items():
            by_name[names[k]] = by_name.get(names[k], 0) + t
        return self.polls[last][0] - self.polls[first][0], sum(used.values()), by_name


# -- running things ----------------------------------------------------------------------------------------------

def on_pty(argv: list[str], log: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], threading.Thread]:
    """Start argv on a pseudo-terminal (planner draws its live line as on a user's terminal); its output to log."""
    master, slave = os.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=REPO, env=env)
    os.close(slave)

    def drain() -> None:
        with log.open("wb") as out:
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out.write(data)
        os.close(master)

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    return proc, t


@dataclass(frozen=True, slots=True)
class Point:
    iops: float
    lat_ms: float  # completion latency, mean
    p99_ms: float
    window_s: float  # fio's run as polled
    cpu_share: float  # planner's processes' CPU in the window / one core (0 alone)
    by_name: dict[str, int]
    fio: FioCpu


@dataclass(frozen=True, slots=True)
class FioCpu:
    """What fio itself spent per I/O (its JSON: usr_cpu + sys_cpu, % of job_runtime; ctx; read total_ios):
    a neighbour that takes fio's CPU or caches shows here as more CPU or more switches per I/O, whatever the
    machine's IOPS drift does to the run's length."""

    us_per_io: float
    ctx_per_kio: float


def fio_figures(path: Path) -> tuple[float, float, float]:
    job = json.loads(path.read_text())["jobs"][0]["read"]
    return (float(job["iops"]), job["clat_ns"]["mean"] / 1e6,
            job["clat_ns"]["percentile"].get("99.000000", 0) / 1e6)


def fio_cpu(path: Path) -> FioCpu:
    job = json.loads(path.read_text())["jobs"][0]
    ios = max(1, int(job["read"]["total_ios"]))
    cpu_us = (float(job["usr_cpu"]) + float(job["sys_cpu"])) / 100 * float(job["job_runtime"]) * 1000
    return FioCpu(cpu_us / ios, 1000 * float(job["ctx"]) / ios)


def apply(plan: Path, inv: Path, runs: Path, log: Path, *, report: bool) -> tuple[float, Poller, Path]:
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(REPO)}
    argv = [*PLANNER, "apply", str(plan), "-i", str(inv), "--runs-dir", str(runs)]
    if not report:
        argv.append("--no-report")
    runs.mkdir(parents=True, exist_ok=True)
    before = set(runs.iterdir())
    start = time.perf_counter()
    proc, drain = on_pty(argv, log, env)
    with Poller(proc.pid, runs.parent) as poller:
        rc = proc.wait()
    wall = time.perf_counter() - start
    drain.join()
    if rc != 0:
        raise SystemExit(f"planner apply failed ({rc}): see {log}")
    run_dir = next(p for p in runs.iterdir() if p not in before and p.is_dir())
    return wall, poller, run_dir


def alone(job: Path, out: Path) -> Point:
    start = subprocess.Popen(["fio", "--output-format=json", f"--output={out}", str(job)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    with Poller(start.pid, out.parent) as poller:
        if start.wait() != 0:
            raise SystemExit(f"fio alone failed: {job}")
    window_s, _, _ = poller.window()
    return Point(*fio_figures(out), window_s, 0.0, {}, fio_cpu(out))


def under_planner(plan: Path, inv: Path, runs: Path, log: Path) -> tuple[Point, Path]:
    _, poller, run_dir = apply(plan, inv, runs, log, report=False)
    window_s, ticks, by_name = poller.window()
    fio_json = next(run_dir.rglob("fio.json"))
    share = ticks / TICK / window_s if window_s else 0.0
    return Point(*fio_figures(fio_json), window_s, share, by_name, fio_cpu(fio_json)), run_dir


def plain_job(run_dir: Path, dev: Device, dest: Path) -> list[Path]:
    """planner's own job files, the device path put back outside the sandbox."""
    dest.mkdir(parents=True, exist_ok=True)
    jobs = []
    for i, job in enumerate(sorted(run_dir.rglob("job.fio"))):
        text = job.read_text()
        for line in text.splitlines():
            if line.startswith("filename="):
                text = text.replace(line, f"filename={dev.path}")
            elif line.startswith(("write_iops_log=", "write_bw_log=", "write_lat_log=")):  # planner's point
                # folder is gone after the run: the loop's fio writes the same logs beside its job
                text = text.replace(line, f"{line.split('=', 1)[0]}={dest / f'job{i:03d}'}")
        (p := dest / f"job{i:03d}.fio").write_text(text)
        jobs.append(p)
    return jobs


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished, waited-for children and their descendants."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _t975(df: int) -> float:
    """Student's t, 97.5th percentile (Cornish-Fisher expansion around the normal: 2.093 at df 19 as the
    tables give, within 0.01 from df 10; no scipy needed)."""
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def interval(ratios: list[float], resamples: int = 10_000) -> str:
    """The geometric mean of the ratios with its 95% confidence interval twice: a paired t on the log ratios
    and a percentile bootstrap of their mean (seeded: the same figures give the same text)."""
    import math
    import random

    logs = [math.log(r) for r in ratios]
    n, mean = len(logs), statistics.fmean(logs)
    if n < 2:
        return f"{math.exp(mean):.3f} (one pair: no interval)"
    half = _t975(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    rng = random.Random(47)
    boot = sorted(statistics.fmean(rng.choices(logs, k=n)) for _ in range(resamples))
    lo, hi = boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]
    return (f"{math.exp(mean):.4f}, 95% CI {math.exp(mean - half):.4f}–{math.exp(mean + half):.4f} (t on log "
            f"ratios, n={n}), bootstrap {math.exp(lo):.4f}–{math.exp(hi):.4f}")


def share_bound(shares: list[float]) -> str:
    """planner's CPU share of one core in fio's window: mean and the upper end of its one-sided 95% interval.
    On a CPU-bound fio it bounds the direct effect: planner cannot take more of fio's core than it runs."""
    import math

    n, mean = len(shares), statistics.fmean(shares)
    if n < 2:
        return f"{100 * mean:.2f}% (one pair)"
    upper = mean + 1.645 * statistics.stdev(shares) / math.sqrt(n)
    return f"mean {100 * mean:.2f}% of one core, one-sided 95% upper bound {100 * upper:.2f}% (n={n})"


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


# -- the two measurements ----------------------------------------------------------------------------------------

def observer(work: Path, inv: Path, dev: Device, pairs: int, runtime: int) -> list[str]:
    """alone, planner, alone, planner, ..., alone: each planner run against the mean of the alone runs on
    either side of it, and each alone run against the one before it (the control: what the machine's own
    drift does to a ratio when nothing differs)."""
    plan = work / "observer.yaml"
    plan.write_text(PLAN.format(target=dev.in_host, iodepth=16, runtime=runtime, awr=AWR))
    _, warm = under_planner(plan, inv, work / "runs-warm", work / "warm.log")  # warm-up, not counted
    job = plain_job(warm, dev, work / "alone")[0]
    rows, ratios, controls, shares, loads = [], [], [], [], [load()]
    cpu_ratios, cpu_controls, ctx_ratios = [], [], []
    before = alone(job, work / "alone-0.json")
    for i in range(pairs):
        p, _ = under_planner(plan, inv, work / "runs-observer", work / f"planner-{i}.log")
        after = alone(job, work / f"alone-{i + 1}.json")
        loads.append(load())
        base = (before.iops + after.iops) / 2
        ratios.append(p.iops / base)
        controls.append(after.iops / before.iops)
        shares.append(p.cpu_share)
        cpu_ratios.append(p.fio.us_per_io / ((before.fio.us_per_io + after.fio.us_per_io) / 2))
        cpu_controls.append(after.fio.us_per_io / before.fio.us_per_io)
        ctx_ratios.append(p.fio.ctx_per_kio / max(1e-9, (before.fio.ctx_per_kio + after.fio.ctx_per_kio) / 2))
        top = ", ".join(f"{k} {v}" for k, v in sorted(p.by_name.items(), key=lambda kv: -kv[1])[:5])
        rows.append(f"| {i + 1} | {before.iops:,.0f} | {before.lat_ms:.3f} / {before.p99_ms:.3f} | {p.iops:,.0f} | "
                    f"{p.lat_ms:.3f} / {p.p99_ms:.3f} | {after.iops:,.0f} | {ratios[-1]:.3f} | {controls[-1]:.3f} | "
                    f"{100 * p.cpu_share:.2f}% | {p.window_s:.1f} | {top} | {before.fio.us_per_io:.2f} / "
                    f"{p.fio.us_per_io:.2f} / {after.fio.us_per_io:.2f} | {p.fio.ctx_per_kio:.0f} | {loads[-1]} |")
        print(rows[-1], flush=True)
        before = after
    return ["| pair | IOPS alone before | latency alone, ms (mean / p99) | IOPS under planner | latency under "
            "planner, ms (mean / p99) | IOPS alone after | ratio (planner / mean of the alone runs) | control "
            "(alone after / alone before) | planner CPU in the window (one core) | window, s | ticks by process "
            "| fio CPU per I/O, µs (alone / planner / alone) | fio switches per 1k I/O under planner | load after |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|", *rows, "",
            f"load average (1/5/15 min) before: {loads[0]}, after: {loads[-1]}",
            f"control (alone / alone, median): {statistics.median(controls):.3f}, "
            f"range {min(controls):.3f}-{max(controls):.3f}; planner ratios range {min(ratios):.3f}-{max(ratios):.3f}",
            "",
            f"observer effect: {statistics.median(ratios):.3f} (median)",
            f"planner / alone, geometric mean: {interval(ratios)}; goal: the interval inside 0.99–1.01",
            f"control (alone / alone), geometric mean: {interval(controls)}",
            f"fio's CPU per I/O, planner / alone: {interval(cpu_ratios)}",
            f"fio's CPU per I/O, control (alone / alone): {interval(cpu_controls)}",
            f"fio's context switches per I/O, planner / alone: {interval(ctx_ratios)}",
            f"planner's CPU in fio's window: {share_bound(shares)}",
            f"host CPU used by planner during a point: {100 * statistics.median(shares):.1f}%"]


# what each command of a point is, from the fixed text planner sends (commands.jsonl)
KINDS = (("sqlplus", "database session (sqlplus; here the stand-in)"), ("fio --output-format", "fio"),
         ("marker=$2", "OS samplers: start"), ("limit=$2", "OS samplers: wait for their first samples"),
         ("kill -s", "OS samplers: stop"), ("ps -e", "OS samplers: stop"), ("ostats.pgid", "OS samplers: stop"),
         ("rm -rf", "point folder emptied"), ('[ -s "$f" ]', "which outputs exist (before the fetch)"))


def where_it_goes(run_dir: Path, points: int, wall: float, shell: float, awr: bool) -> list[str]:
    """The sweep's host commands by what they are (seconds per point), and what is left: planner's own."""
    spent: dict[str, list[float]] = {}
    for line in (run_dir / "commands.jsonl").read_text().splitlines():
        r = json.loads(line)
        what = next((name for key, name in KINDS if key in r["command"]), "other host commands")
        spent.setdefault(what, []).append(float(r["duration_s"]))
    rows = [f"| {k} | {len(v) / points:.1f} | {sum(v) / points:.2f} |"
            for k, v in sorted(spent.items(), key=lambda kv: -sum(kv[1]))]
    on_host = sum(sum(v) for v in spent.values())
    return ["| per point | commands | seconds |", "|---|---:|---:|", *rows,
            f"| planner's own (wall minus every host command: start-up, facts, records, fetch, parse, report) | "
            f"| {(wall - on_host) / points:.2f} |",
            f"| the shell loop's {'2 sqlplus sessions + fio' if awr else 'fio'}, for comparison | "
            f"{3.0 if awr else 1.0} | {shell / points:.2f} |"]


@dataclass(frozen=True, slots=True)
class Sqlplus:
    """The host's sqlplus (the stand-in), as the shell loop runs it: the binary planner runs and its env."""

    path: str
    env: dict[str, str]
    dbid: str
    inst: str


def host_sqlplus(root: Path) -> Sqlplus:
    """The sqlplus planner runs on the host; the DBID and instance number read once, as one would before a loop."""
    hv = standin_vars(root)
    path = str(root / str(hv["oracle_home"]).lstrip("/") / "bin" / "sqlplus")
    env = {**os.environ, "ORACLE_HOME": str(hv["oracle_home"]), "ORACLE_SID": str(hv["oracle_sid"])}
    script = "set heading off feedback off pagesize 0\nselect dbid from v$database;\n" \
             "select instance_number from v$instance;\nexit\n"
    out = subprocess.run([path, "-S", "/ as sysdba"], input=script, capture_output=True, text=True, env=env,
                         check=True).stdout.split()
    return Sqlplus(path, env, out[0], out[1])


# The loop's AWR bracket, as planner takes it (issue 47): the first begin snapshot in a session of its own; after
# each fio, one session takes the end snapshot, the report between the two (the end id through a bind variable)
# and, unless it is the last, the next point's begin snapshot (its id after a PROMPT line).
LOOP_AWR = r"""
snap() {
  printf 'set heading off feedback off pagesize 0\nvariable s number\n%s\nselect :s from dual;\nexit\n' \
    'exec :s := dbms_workload_repository.create_snapshot' | "$sqlplus" -S / as sysdba | tr -d ' \n'
}
report() {
  printf 'set heading off feedback off pagesize 0 linesize 32767 trimout on\nvariable s number\n%s\n%s\nexit\n' \
    'exec :s := dbms_workload_repository.create_snapshot' \
    "select output from table(dbms_workload_repository.awr_report_text($dbid, $inst, $1, :s));" \
    | "$sqlplus" -S / as sysdba > "$2"
}
report_snap() {
  printf '%s\nvariable s number\n%s\n%s\n%s\n%s\n%s\nexit\n' \
    'set heading off feedback off pagesize 0 linesize 32767 trimout on' \
    'exec :s := dbms_workload_repository.create_snapshot' \
    "select output from table(dbms_workload_repository.awr_report_text($dbid, $inst, $1, :s));" \
    'prompt planner-bench-next' 'exec :s := dbms_workload_repository.create_snapshot' 'select :s from dual;' \
    | "$sqlplus" -S / as sysdba > "$2.all" || return 1
  sed '/^planner-bench-next$/,$d' "$2.all" > "$2"
  sed '1,/^planner-bench-next$/d' "$2.all" | tr -d ' \n'
}
"""


def loop_wall(jobs: list[Path], out: Path, sqlplus: Sqlplus | None = None) -> float:
    """The same fio commands as a shell loop; with ``sqlplus``, each between the same AWR snapshots too."""
    out.mkdir(parents=True, exist_ok=True)
    fio = 'fio --output-format=json --output="$j.json" "$j" || exit 1'
    if sqlplus is None:
        script, env, args = f'for j in "$@"; do {fio}; done', None, []
    else:
        script = (LOOP_AWR + f'sqlplus=$1 dbid=$2 inst=$3; shift 3\nb=$(snap) || exit 1; left=$#\n'
                  f'for j in "$@"; do {fio}; left=$((left - 1)); if [ "$left" -eq 0 ]; then '
                  'report "$b" "$j.awr.txt" || exit 1; else b=$(report_snap "$b" "$j.awr.txt") || exit 1; fi; done')
        env, args = sqlplus.env, [sqlplus.path, sqlplus.dbid, sqlplus.inst]
    start = time.perf_counter()
    subprocess.run(["sh", "-c", script, "sh", *args, *map(str, jobs)], check=True, cwd=out, env=env)
    wall = time.perf_counter() - start
    if sqlplus is not None and not all("WORKLOAD REPOSITORY" in Path(f"{j}.awr.txt").read_text() for j in jobs):
        raise SystemExit(f"the shell loop's AWR reports in {out} are not reports")
    return wall


def dead_time(work: Path, inv: Path, dev: Device, points: int, runtime: int, loops: int, awr: bool) -> list[str]:
    plan = work / f"sweep-{'awr' if awr else 'os'}.yaml"
    depths = "[" + ", ".join(str(d) for d in range(1, points + 1)) + "]"
    plan.write_text(PLAN.format(target=dev.in_host, iodepth=depths, runtime=runtime, awr=AWR if awr else ""))
    rows, dead, cpu_dead, profile = [], [], [], []
    for i in range(loops):
        cpu0 = children_cpu()
        wall, _, run_dir = apply(plan, inv, work / "runs-sweep", work / f"{plan.stem}-{i}.log", report=True)
        cpu_planner = children_cpu() - cpu0
        jobs = plain_job(run_dir, dev, work / f"loop-{i}")
        if len(jobs) != points:
            raise SystemExit(f"expected {points} job files in {run_dir}, found {len(jobs)}")
        sqlplus = host_sqlplus(work / "host") if awr else None
        cpu1 = children_cpu()
        shell = loop_wall(jobs, work / f"loop-{i}", sqlplus)
        cpu2 = children_cpu()
        dead.append((wall - shell) / points)
        cpu_dead.append((cpu_planner - (cpu2 - cpu1)) / points)
        profile = where_it_goes(run_dir, points, wall, shell, awr)
        rows.append(f"| {i + 1} | {wall:.1f} | {shell:.1f} | {dead[-1]:.2f} | {cpu_planner:.1f} | {cpu2 - cpu1:.1f} "
                    f"| {cpu_dead[-1]:.2f} | {load()} |")
        print(rows[-1], flush=True)
    what = "iostat, mpstat, vmstat and AWR snapshots" if awr else "iostat, mpstat, vmstat only (no AWR)"
    return [f"### collect: {what}", "",
            f"| pair | planner apply, s ({points} points + report) | shell loop, s | dead time per point, s "
            "| planner CPU, s | loop CPU, s | CPU per point beyond the loop's, s | load after |",
            "|---:|---:|---:|---:|---:|---:|---:|---|", *rows, "",
            "where the last sweep's time went (from its commands.jsonl):", "", *profile, "",
            ("" if awr else "without AWR, ") + f"dead time per point: {statistics.median(dead):.1f} s "
            f"(CPU beyond the loop's: {statistics.median(cpu_dead):.2f} s a point)"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=15)
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--point-runtime", type=int, default=1)
    ap.add_argument("--loops", type=int, default=2)
    ap.add_argument("--skip", choices=("observer", "dead"), default=None)
    ap.add_argument("--work", type=Path, default=Path("/tmp/planner-observer-bench"))
    ap.add_argument("--out", type=Path, default=None)
    # /dev/shm: the device reads from memory, so fio is bound by CPU, where planner's own CPU would show most
    ap.add_argument("--backing", type=Path, default=None, help="folder of the loop device's file (default --work)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    a.backing = a.backing or a.work
    a.backing.mkdir(parents=True, exist_ok=True)
    inv, dev = make_host(a.work, a.backing)
    started = time.monotonic()
    head = [f"{platform.platform()}, {os.cpu_count()} CPUs, fio on {dev.kind}; load average at the start "
            f"{load()}", ""]
    try:
        body = [] if a.skip == "observer" else observer(a.work, inv, dev, a.pairs, a.runtime) + [""]
        for awr in () if a.skip == "dead" else (True, False):
            body += dead_time(a.work, inv, dev, a.points, a.point_runtime, a.loops, awr) + [""]
    finally:
        if dev.loop:
            subprocess.run(["losetup", "-d", dev.loop], check=False)
    cmd = "python benchmarks/observer/bench.py " + " ".join(sys.argv[1:])
    text = "\n".join([*head, *body, "", f"command: `{cmd.strip()}` ({time.monotonic() - started:.0f} s)", ""])
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
