"""Fan-out benchmark: the same host prep through planner, ansible-playbook, pyinfra and a bare paramiko script.

    python benchmarks/fanout/bench.py [--sizes 1,10,30] [--rtt 0,20,50] [--reps 3] [--reps-large 2]
                                      [--reps-ansible 1] [--reps-ansible-large 1] [--ansible-rtt-large 0,50]
                                      [--pyinfra PATH]
                                      [--tools planner,ansible,pyinfra,bare] [--out RESULTS.md]

For each N a lab of N real sshd processes on loopback is built (planner.rehearsal.lab); every host gets a sandbox with
4 fake block devices and a small result file. For each RTT above 0 a latency proxy (latency_proxy.py, its own
process) stands between the tools and the sshds: one 127.0.0.1 port per host, each direction delayed by RTT/2, and
every tool's inventory and known_hosts name the proxy's ports. Each repetition runs every tool (in a rotating
order) cold (fresh sandboxes) then warm (nothing left to change), timing the whole command and sampling the RSS of
its process tree. Results: medians per (tool, N, RTT, cold/warm), ratios against planner, and the peak tree RSS.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from planner.rehearsal.lab import Lab, build_lab  # noqa: E402
from planner.rehearsal.sandbox import add_devices  # noqa: E402

DEVICES = ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]
INIT_ORA = "# init.ora fragment written by the fan-out benchmark\n*.cpu_count=16\n*.db_recycle_cache_size=64M\n"
PAGE = os.sysconf("SC_PAGE_SIZE")
LOADS: list[tuple[str, tuple[float, float, float]]] = []  # (when, 1/5/15-minute load average)


@dataclass(frozen=True, slots=True)
class Measure:
    seconds: float
    tree_rss: int  # peak sum of RSS over the process tree, bytes
    max_rss: int  # largest single process (getrusage of the children), bytes
    hwm: int  # the tool's own process: VmHWM (peak resident set) last read before it exited, bytes
    rc: int
    out: str
    cpu: float = 0.0  # user + system seconds of the tool and the children it reaped (wait4): the controller's
    # own work, which a shared machine's load disturbs less than the wall time (sshd is not the tool's child)


@dataclass(frozen=True, slots=True)
class Sample:
    tool: str
    n: int
    rtt: int  # added round-trip time, ms (0: no proxy)
    phase: str  # cold | warm
    rep: int
    m: Measure


# -- process-tree memory ------------------------------------------------------------------------------------

def _tree_rss(root: int) -> int:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(kids.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError):
            pass
    return total


def _vm_hwm(pid: int) -> int:
    """The process's own peak RSS (VmHWM), bytes; 0 once it is gone. Not ru_maxrss: that is the largest of a
    process and its reaped children, so a forked helper or the forking parent's size could be read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def measured(argv: list[str], *, cwd: Path, env: dict[str, str], log: Path, interval: float = 0.02) -> Measure:
    """Run argv, sampling its process tree's RSS every ``interval`` seconds until it exits."""
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        peak = hwm = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak, hwm
            while not done.is_set():
                peak = max(peak, _tree_rss(proc.pid))
                hwm = max(hwm, _vm_hwm(proc.pid))  # monotonic: the last read is the peak up to then
                done.wait(interval)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # wait4: this child's own rusage; its ru_maxrss is the largest process among it and its reaped children
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    return Measure(seconds, peak, usage.ru_maxrss * 1024, hwm, proc.returncode, log.read_text(errors="replace"),
                   usage.ru_utime + usage.ru_stime)


# -- the lab -------------------------------------------------------------------------------------------------

def reset_sandboxes(lab: Lab) -> None:
    """Fresh per-host state: 4 devices on mq-deadline, no init.ora, a result file to fetch."""
    for h in lab.hosts:
        sb = lab.sandbox(h.name)
        for sub in ("sys", "dev", "tmp"):
            shutil.rmtree(sb / sub, ignore_errors=True)
        add_devices(sb, DEVICES)
        (sb / "tmp").mkdir(exist_ok=True)  # add_devices makes it (1777) since main fd65581
        (sb / "tmp" / "result.txt").write_text(f"result of {h.name}\n")


def verify(lab: Lab) -> list[str]:
    """What is wrong with the hosts after a run (empty when the prep is in place)."""
    bad = []
    for h in lab.hosts:
        sb = lab.sandbox(h.name)
        for dev in DEVICES:
            text = (sb / "sys/block" / dev.rsplit("/", 1)[1] / "queue/scheduler").read_text().strip()
            if "[none]" not in text and text != "none":
                bad.append(f"{h.name}: {dev} is {text!r}")
        ora = sb / "tmp/init_bench.ora"
        if not ora.exists() or ora.read_text() != INIT_ORA:
            bad.append(f"{h.name}: init_bench.ora missing or wrong")
    return bad


Endpoint = tuple[str, int]  # (address, port) a tool connects to for one host


def write_known_hosts(lab: Lab, endpoints: dict[str, Endpoint], path: Path) -> None:
    """The lab's host keys under the names the tools will connect to: ``[127.0.0.1]:<proxy port>`` through the
    proxy, so every tool still verifies the host key (against the sshd behind that port)."""
    keys = {}
    for line in lab.known_hosts.read_text().splitlines():
        name, rest = line.split(" ", 1)
        keys[name] = rest
    path.write_text("".join(f"[{endpoints[h.name][0]}]:{endpoints[h.name][1]} {keys[f'[{h.address}]:{h.port}']}\n"
                            for h in lab.hosts))


def write_inventories(lab: Lab, endpoints: dict[str, Endpoint], known_hosts: Path, work: Path) -> None:
    """inventory.yml (planner, ansible-playbook, bare: the keys Lab.write_inventory writes) and
    inventory_pyinfra.py, both naming ``endpoints`` and ``known_hosts``."""
    import yaml

    common_args = f"-o UserKnownHostsFile={known_hosts} -o StrictHostKeyChecking=yes"
    hosts = {h.name: {"ansible_host": endpoints[h.name][0], "ansible_port": endpoints[h.name][1],
                      "ansible_user": lab.user, "ansible_ssh_private_key_file": str(lab.client_key),
                      "ansible_ssh_common_args": common_args, "planner_root": str(lab.sandbox(h.name)),
                      "planner_known_hosts": str(known_hosts)} for h in lab.hosts}
    (work / "inventory.yml").write_text(yaml.safe_dump({"all": {"hosts": hosts}}, sort_keys=False))
    py_hosts = [(h.name, {"ssh_hostname": endpoints[h.name][0], "ssh_port": endpoints[h.name][1],
                          "ssh_user": lab.user, "ssh_key": str(lab.client_key),
                          "ssh_known_hosts_file": str(known_hosts), "ssh_strict_host_key_checking": "yes",
                          "planner_root": str(lab.sandbox(h.name))}) for h in lab.hosts]
    (work / "inventory_pyinfra.py").write_text(f"hosts = {py_hosts!r}\n")


class Proxy:
    """latency_proxy.py in its own process (not in any tool's process tree, not on bench's GIL) in front of the
    lab's sshds. Its stdin is a pipe from us: closing it, or our death, stops it."""

    def __init__(self, lab: Lab, rtt_ms: int, log: Path) -> None:
        targets = [f"{h.address}:{h.port}" for h in lab.hosts]
        self._log = log.open("w")
        self.proc = subprocess.Popen([sys.executable, str(HERE / "latency_proxy.py"), "--rtt-ms", str(rtt_ms),
                                      *targets], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log, text=True)
        self.endpoints: dict[str, Endpoint] = {}
        assert self.proc.stdout is not None
        routes = {}
        for line in self.proc.stdout:
            if line.strip() == "ready":
                break
            listen, target = line.split()
            address, port = listen.rsplit(":", 1)
            routes[target] = (address, int(port))
        else:
            self.stop()
            raise RuntimeError(f"latency proxy exited before it was ready: {log.read_text()[-2000:]}")
        self.endpoints = {h.name: routes[f"{h.address}:{h.port}"] for h in lab.hosts}

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()  # EOF: the proxy closes its listeners and exits
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # only our own child, by its pid
            self.proc.wait()
        self._log.close()


# -- the tools -----------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    argv: Callable[[int, Path, str], list[str]]  # (N, work dir, run tag) -> argv
    changed: Callable[[str], int | None]  # changes the tool reported (None: it does not say)
    cleanup: Callable[[Path, str], None] = lambda work, tag: None


def _recap_changed(out: str) -> int | None:
    counts = [int(c) for c in re.findall(r"changed=(\d+)", out)]
    return sum(counts) if counts else None


def _bare_changed(out: str) -> int | None:
    m = re.search(r"hosts=\d+ changed=(\d+)", out)
    return int(m.group(1)) if m else None


def _ansible_cleanup(work: Path, tag: str) -> None:
    """Close the ControlPersist masters this run's ansible started (their sockets are in our dir)."""
    cp = work / "cp" / tag
    if not cp.is_dir():
        return
    for sock in cp.iterdir():
        subprocess.run(["ssh", "-O", "exit", "-o", f"ControlPath={sock}", "lab"], capture_output=True,
                       stdin=subprocess.DEVNULL, check=False)


def tools(pyinfra: str | None) -> dict[str, Tool]:
    py = sys.executable
    found: dict[str, Tool] = {
        "planner": Tool("planner", lambda n, w, tag: [
            py, "-m", "planner", "apply", str(HERE / "plan.yaml"), "-i", str(w / "inventory.yml"),
            "--runs-dir", str(w / "runs"), "--no-report", "--keep-prep", "-f", str(max(n, 5))], _recap_changed),
        "ansible": Tool("ansible", lambda n, w, tag: [
            shutil.which("ansible-playbook") or "ansible-playbook", "-i", str(w / "inventory.yml"),
            "-f", str(max(n, 5)), str(HERE / "playbook.yml")], _recap_changed, _ansible_cleanup),
        "bare": Tool("bare", lambda n, w, tag: [py, str(HERE / "bare.py"), str(w / "inventory.yml"),
                                                str(w / "fetch" / tag)], _bare_changed),
    }
    if pyinfra:
        found["pyinfra"] = Tool("pyinfra", lambda n, w, tag: [
            pyinfra, "-y", "--parallel", str(max(n, 5)), str(w / "inventory_pyinfra.py"),
            str(HERE / "deploy.py")], lambda out: None)
    return found


def planner_env() -> dict[str, str]:
    """The environment planner runs in: this checkout's planner first on the path, whatever tree the venv's
    editable install points at (a scratch worktree measures its own code)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def tool_env(work: Path, tag: str, tool: str) -> dict[str, str]:
    env = planner_env() if tool == "planner" else dict(os.environ)
    env.update(ANSIBLE_CONFIG=str(HERE / "ansible.cfg"), ANSIBLE_SSH_CONTROL_PATH_DIR=str(work / "cp" / tag),
               ANSIBLE_NOCOLOR="1", FANOUT_FETCH_DIR=str(work / "fetch" / tag), PYTHONDONTWRITEBYTECODE="0")
    return env


# -- the run -------------------------------------------------------------------------------------------------

def run_size(n: int, rtts: list[int], reps: dict[int, dict[str, int]], chosen: list[Tool], base: Path,
             log: Callable[[str], None]) -> list[Sample]:
    """One lab of n hosts, measured at each RTT in turn (a proxy per RTT above 0); ``reps[rtt][tool name]``."""
    lab = build_lab(base / f"n{n}" / "lab", n)
    samples: list[Sample] = []
    try:
        for rtt in rtts:
            load = os.getloadavg()
            LOADS.append((f"N={n} RTT={rtt} ms", load))
            log(f"N={n} RTT={rtt} ms: load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
            work = base / f"n{n}" / f"rtt{rtt}"
            work.mkdir(parents=True, exist_ok=True)
            proxy = Proxy(lab, rtt, work / "proxy.log") if rtt else None
            try:
                if proxy:
                    write_known_hosts(lab, proxy.endpoints, work / "known_hosts")
                    write_inventories(lab, proxy.endpoints, work / "known_hosts", work)
                else:
                    write_inventories(lab, {h.name: (h.address, h.port or 22) for h in lab.hosts},
                                      lab.known_hosts, work)
                samples += _run_cell(lab, n, rtt, reps[rtt], chosen, work, log)
            finally:
                if proxy:
                    proxy.stop()
    finally:
        lab.stop()
    return samples


def _run_cell(lab: Lab, n: int, rtt: int, reps: dict[str, int], chosen: list[Tool], work: Path,
              log: Callable[[str], None]) -> list[Sample]:
    samples: list[Sample] = []
    for rep in range(max(reps.values(), default=0)):
        order = chosen[rep % len(chosen):] + chosen[:rep % len(chosen)]  # rotate: no tool always first
        for tool in order:
            if rep >= reps[tool.name]:
                continue
            reset_sandboxes(lab)
            tag = f"{tool.name}-{rep}"
            (work / "fetch" / tag).mkdir(parents=True, exist_ok=True)
            for phase in ("cold", "warm"):
                m = measured(tool.argv(n, work, tag), cwd=HERE, env=tool_env(work, tag, tool.name),
                             log=work / f"{tag}-{phase}.log")
                problems = verify(lab)
                changed = tool.changed(m.out)
                log(f"N={n:<3} RTT={rtt:<3} rep={rep} {tool.name:<8} {phase}: {m.seconds:7.2f} s  CPU {m.cpu:6.2f} s"
                    f"  tree {m.tree_rss >> 20:4d} MB  VmHWM {m.hwm >> 20:4d} MB  rc={m.rc} changed={changed}")
                if m.rc != 0 or problems:
                    raise RuntimeError(f"{tool.name} N={n} RTT={rtt} {phase} failed (rc={m.rc}): {problems[:3]}\n"
                                       f"{m.out[-3000:]}")
                if phase == "warm" and tool.name in ("planner", "bare") and changed:
                    raise RuntimeError(f"{tool.name} warm run changed {changed}: not idempotent")
                samples.append(Sample(tool.name, n, rtt, phase, rep, m))
            tool.cleanup(work, tag)
    return samples


def machine() -> str:
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal:"))
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.machine())
    return (f"{os.cpu_count()} CPUs ({model}), {mem_kb / 1024 / 1024:.1f} GiB RAM, Linux {platform.release()}, "
            f"Python {platform.python_version()}")


def portable(text: str) -> str:
    """``text`` without this machine's absolute paths (RESULTS.md is read on other machines): the checkout
    reads ``.``, the temporary folder ``$TMPDIR``, the home folder ``~``."""
    for root, word in ((str(REPO), "."), (tempfile.gettempdir(), "$TMPDIR"), (str(Path.home()), "~")):
        if root not in ("", "/"):
            text = re.sub(rf"{re.escape(root.rstrip('/'))}(?=/|\b|$)", word, text)
    return text


def versions(pyinfra: str | None) -> str:
    def first_line(argv: list[str]) -> str:
        try:
            out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60, env=planner_env())
            return (out.stdout or out.stderr).splitlines()[0].strip()
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"

    import paramiko

    where = first_line([sys.executable, "-c", "import planner; print(planner.__file__)"])
    parts = [first_line([sys.executable, "-m", "planner", "--version"]) + f" (from {where})",
             first_line(["ansible-playbook", "--version"]), f"paramiko {paramiko.__version__} (bare)"]
    if pyinfra:
        parts.append(first_line([pyinfra, "--version"]))
    return portable(", ".join(p for p in parts if p))


def per_host(samples: list[Sample], sizes: list[int], names: list[str]) -> list[str]:
    """Time and controller memory per host, warm at RTT 0: the whole command over N, and the growth from the
    smallest N measured (what one more host costs), against the flat-within-20% and 5 MB goals."""
    def med(tool: str, n: int, field: str) -> float | None:
        xs = [getattr(s.m, field) for s in samples if (s.tool, s.n, s.rtt, s.phase) == (tool, n, 0, "warm")]
        return statistics.median(xs) if xs else None

    rows = ["| tool | N | warm s | s per host | s per added host | CPU s | CPU s per host | VmHWM MB | "
            "MB per added host |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    first = min(sizes)
    for t in (t for t in ("planner", "bare") if t in names):
        t0, m0 = med(t, first, "seconds"), med(t, first, "hwm")
        for n in sizes:
            sec, hwm, cpu = med(t, n, "seconds"), med(t, n, "hwm"), med(t, n, "cpu")
            if sec is None or hwm is None or cpu is None:
                continue
            added = f"{(sec - t0) / (n - first):.4f}" if t0 is not None and n > first else "-"
            grown = f"{(hwm - m0) / (n - first) / 2**20:.2f}" if m0 is not None and n > first else "-"
            rows.append(f"| {t} | {n} | {sec:.2f} | {sec / n:.4f} | {added} | {cpu:.2f} | {cpu / n:.4f} | "
                        f"{hwm / 2**20:.0f} | {grown} |")
    return rows


def report(samples: list[Sample], sizes: list[int], rtts: list[int], names: list[str], command: str,
           pyinfra_note: str, sched_note: str, pyinfra: str | None, elapsed: float) -> str:
    def med(tool: str, n: int, rtt: int, phase: str) -> float | None:
        xs = [s.m.seconds for s in samples if (s.tool, s.n, s.rtt, s.phase) == (tool, n, rtt, phase)]
        return statistics.median(xs) if xs else None

    def peak(tool: str, n: int) -> int | None:
        xs = [s.m.tree_rss for s in samples if (s.tool, s.n) == (tool, n)]
        return max(xs) if xs else None

    def single(tool: str, n: int) -> int | None:
        xs = [s.m.max_rss for s in samples if (s.tool, s.n) == (tool, n)]
        return max(xs) if xs else None

    def reps(n: int, rtt: int) -> str:
        """'3', or '3, ansible 1' when a tool had fewer repetitions (the time budget)."""
        per = {t: len({s.rep for s in samples if (s.tool, s.n, s.rtt) == (t, n, rtt)}) for t in names}
        most = max(per.values(), default=0)
        return ", ".join([str(most), *(f"{t} {k}" if k else f"{t} not run" for t, k in per.items() if k != most)])

    # the ratios the targets are about first, then the rest
    others: list[str] = [t for t in ("bare", "pyinfra", "ansible") if t in names]
    others += [t for t in names if t not in others and t != "planner"]
    lines = [f"| N | RTT ms | phase | reps | {' | '.join(f'{t} s' for t in names)} | "
             + " | ".join(f"planner/{t}" for t in others) + " |",
             "|---:|---:|---|---|" + "---:|" * (len(names) + len(others))]
    for n in sizes:
        for rtt in rtts:
            for phase in ("cold", "warm"):
                p = med("planner", n, rtt, phase)
                cells = [f"{v:.2f}" if (v := med(t, n, rtt, phase)) is not None else "n/m" for t in names]
                ratios = [f"{p / v:.3f}" if p and (v := med(t, n, rtt, phase)) else "n/m" for t in others]
                lines.append(f"| {n} | {rtt} | {phase} | {reps(n, rtt)} | {' | '.join(cells)} | "
                             f"{' | '.join(ratios)} |")
    mem = [f"| N | {' | '.join(f'{t} tree MB' for t in names)} | {' | '.join(f'{t} largest process MB' for t in names)} |",
           "|---:|" + "---:|" * (2 * len(names))]
    for n in sizes:
        tree = [f"{v / 2**20:.0f}" if (v := peak(t, n)) else "n/m" for t in names]
        one = [f"{v / 2**20:.0f}" if (v := single(t, n)) else "n/m" for t in names]
        mem.append(f"| {n} | {' | '.join(tree)} | {' | '.join(one)} |")
    raw = ["| tool | N | RTT ms | phase | seconds (each repetition) |", "|---|---:|---:|---|---|"]
    for t in names:
        for n in sizes:
            for rtt in rtts:
                for phase in ("cold", "warm"):
                    xs = [f"{s.m.seconds:.2f}" for s in samples
                          if (s.tool, s.n, s.rtt, s.phase) == (t, n, rtt, phase)]
                    if xs:
                        raw.append(f"| {t} | {n} | {rtt} | {phase} | {', '.join(xs)} |")
    loads = "; ".join(f"{when}: {a:.1f} {b:.1f} {c:.1f}" for when, (a, b, c) in LOADS)
    return "\n".join([
        "<!-- generated by benchmarks/fanout/bench.py; the analysis below the tables is written by hand -->",
        "## Measured",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {machine()}",
        "",
        f"Versions: {versions(pyinfra)}",
        "",
        f"Load average (1, 5, 15 min) when each cell started and at the end: {loads} (the machine is shared; "
        "other work running beside the benchmark shows here)",
        "",
        f"Whole run: {elapsed:.0f} s. I/O scheduler step in the planner plan: {sched_note}. {pyinfra_note}",
        "",
        "RTT: round-trip time added by benchmarks/fanout/latency_proxy.py between every tool and every host "
        "(0: no proxy, straight to the loopback sshd). Wall time of the whole command (start-up included), "
        "median of the repetitions; ratio = planner time / other tool's time (below 1: planner is faster).",
        "",
        *lines,
        "",
        "Peak memory: the sum of RSS over the tool's whole process tree, sampled every 20 ms (max over all runs "
        "at that N), and the largest single process (ru_maxrss from os.wait4 on the tool).",
        "",
        *mem,
        "",
        "Per host, warm, RTT 0 (medians): the tool's own process VmHWM (its peak resident set, read from "
        "/proc every 20 ms until it exits); 'added host' = growth from the smallest N of this run.",
        "",
        *per_host(samples, sizes, names),
        "",
        "Every repetition:",
        "",
        *raw,
        "",
    ])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1,10,30")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per size")
    ap.add_argument("--reps-large", type=int, default=None, help="repetitions at the largest size (time budget)")
    ap.add_argument("--rtt", default="0", help="round-trip times to add, ms, e.g. 0,20,50 (0: no proxy)")
    ap.add_argument("--reps-ansible", type=int, default=None,
                    help="ansible-playbook's repetitions (default: as the others; it is ~20x slower)")
    ap.add_argument("--reps-ansible-large", type=int, default=None,
                    help="ansible-playbook's repetitions at the largest size")
    ap.add_argument("--ansible-rtt-large", default=None,
                    help="the RTTs at which ansible-playbook runs at the largest size (default: all of --rtt)")
    ap.add_argument("--tools", default="planner,ansible,pyinfra,bare")
    ap.add_argument("--pyinfra", default=shutil.which("pyinfra"),
                    help="pyinfra executable (a separate venv: pyinfra pins paramiko<5)")
    ap.add_argument("--out", type=Path, default=None, help="write the Markdown tables here")
    ap.add_argument("--work", type=Path, default=None, help="work folder (default: a temp dir, removed)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rtts = [int(r) for r in args.rtt.split(",")]
    if any(r < 0 for r in rtts):
        ap.error("--rtt: round-trip times are milliseconds >= 0")
    wanted = [t.strip() for t in args.tools.split(",")]
    available = tools(args.pyinfra)
    pyinfra_note = ""
    if "pyinfra" in wanted and "pyinfra" not in available:
        pyinfra_note = "pyinfra: not measured (no pyinfra executable; pass --pyinfra PATH)."
    chosen = [available[t] for t in wanted if t in available]
    names = [t.name for t in chosen]
    from planner.steps import REGISTRY

    sched_note = ("the `io_scheduler` step" if REGISTRY["io_scheduler"].__name__ == "IoScheduler"
                  else "`command` + `when` (io_scheduler not implemented)")
    base = args.work or Path(tempfile.mkdtemp(prefix="fanout-"))
    base.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    t0 = time.monotonic()
    try:
        for n in sizes:
            large = n == max(sizes)
            reps = args.reps_large if (args.reps_large and large) else args.reps
            ansible = args.reps_ansible_large if (args.reps_ansible_large is not None and large) else \
                args.reps_ansible if args.reps_ansible is not None else reps
            ansible_rtts = set(rtts)
            if large and args.ansible_rtt_large is not None:
                ansible_rtts = {int(r) for r in args.ansible_rtt_large.split(",") if r}
            per_cell = {rtt: {t: (ansible if rtt in ansible_rtts else 0) if t == "ansible" else reps for t in names}
                        for rtt in rtts}
            samples += run_size(n, rtts, per_cell, chosen, base, lambda s: print(s, flush=True))
    finally:
        if args.work is None:
            shutil.rmtree(base, ignore_errors=True)
    LOADS.append(("end", os.getloadavg()))
    command = portable("python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, REPO), *sys.argv[1:]]))
    elapsed = time.monotonic() - t0
    text = report(samples, sizes, rtts, names, command, pyinfra_note, sched_note, args.pyinfra, elapsed)
    print(text)
    print(f"total {elapsed:.0f} s", file=sys.stderr)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
