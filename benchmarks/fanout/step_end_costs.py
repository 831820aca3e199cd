"""What a warm N-host play's step ends cost the controller, piece by piece, in-process (issue 47, stop 54).

    python benchmarks/fanout/step_end_costs.py [--tree DIR] [--hosts 30] [--reps 15]

The pieces stop 54 changed, each as a warm play of benchmarks/fanout/plan.yaml does it, without hosts:
  - resolved: plan.resolved.yaml, 4 steps x N hosts' arguments noted, one write a step (a secret set, as the lab's);
  - template: the template step's save() then apply() on N hosts whose file is already as rendered (an in-memory
    connection answers the read);
  - scrub: N fetched files (no secret in them) checked for the run's secret;
  - console: 4 steps x N result lines, each step's results ready together (pool.on_hosts with an executor whose work
    is done when submitted), written to a file.
``--tree`` measures another checkout's planner (a ``git archive`` of main): run base and branch one after the
other, interleaved (base, branch, base, branch). Prints each piece's CPU (time.process_time) per play, min and
median of ``--reps`` after a warm-up. CPU, not wall: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SECRET = ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAA\n" * 6
          + "-----END OPENSSH PRIVATE KEY-----\n")  # about the lab client key's size: every run's secret


def resolved(n: int) -> Callable[[], None]:
    from planner.engine.runrecord import RunRecord

    runs = Path(tempfile.mkdtemp(prefix="step-end-"))
    args = [{"devices": ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"], "scheduler": "none"},
            {"src": "templates/init_bench.ora.j2", "dest": "/tmp/init_bench.ora", "mode": "0644"},
            {"argv": ["uname", "-a"], "changed_when": False}, {"src": "/tmp/result.txt"}]

    def play() -> None:
        rec = RunRecord(runs, "fanout_prep", secrets=(SECRET,))
        for k, a in enumerate(args):
            step = f"plays[0].{'collect[0]' if k == 3 else f'prep[{k}]'}"
            for i in range(n):
                entry = {"title": f"step {k}", "kind": "x", "args": dict(a)}
                rec.note_resolved("host prep", f"lab{i:02d}", step, entry, write=False)
            rec.note_resolved("host prep", "", step, None)
        rec.close()
    return play


def template(n: int) -> Callable[[], None]:
    from planner.host import Host
    from planner.steps import step_class
    from planner.steps.base import StepContext
    from planner.transport.connection import Connection

    class Files(Connection):
        def __init__(self, name: str, text: str) -> None:
            self.host = Host(name=name, address="127.0.0.1", connection="local")
            self.text = text

        def read_text(self, remote: str) -> str | None:
            return self.text

        def run(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("a warm host's template step sends nothing")

        put = get = run

        def close(self) -> None:
            pass

    plan_dir = HERE
    variables: Mapping[str, Any] = {"cpu_count": 16, "db_recycle_cache_size": "64M",
                                    "inventory_hostname": "lab00", "planner_facts": {}}
    ctx0 = StepContext(host=Host(name="x", address="127.0.0.1"), conn=None, vars=variables,  # type: ignore[arg-type]
                       step_path="plays[0].prep[1]", plan_dir=plan_dir, artifacts=plan_dir, run_dir=plan_dir,
                       log=lambda *_: None)
    step = step_class("template")({"src": "templates/init_bench.ora.j2", "dest": "/tmp/init_bench.ora", "mode": "0644"})
    rendered = step.content(ctx0)  # type: ignore[attr-defined]
    conns = [Files(f"lab{i:02d}", rendered) for i in range(n)]

    def play() -> None:
        import dataclasses

        for c in conns:
            ctx = dataclasses.replace(ctx0, host=c.host, conn=c)
            step.save(ctx)  # type: ignore[attr-defined]
            step.apply(ctx)
    return play


def scrub(n: int) -> Callable[[], None]:
    from planner.engine import runrecord

    d = Path(tempfile.mkdtemp(prefix="step-end-scrub-"))
    files = []
    for i in range(n):
        f = d / f"lab{i:02d}" / "result.txt"
        f.parent.mkdir()
        f.write_text(f"result of lab{i:02d}\n" * 3)
        files.append(f)

    def play() -> None:
        for f in files:
            runrecord.scrub_file(f, (SECRET,))
    return play


def console(n: int) -> Callable[[], None]:
    from planner.engine.console import Console
    from planner.engine.execute import HostState
    from planner.engine.pool import HostPool
    from planner.host import Host
    from planner.status import Status, StepResult

    class Ready:  # every host's result there at once, as in a warm play
        def submit(self, fn: Any, *a: Any) -> Future[Any]:
            f: Future[Any] = Future()
            f.set_result(fn(*a))
            return f

    states = [HostState(Host(name=f"lab{i:02d}", address="127.0.0.1"), None) for i in range(n)]
    out = open(os.path.join(tempfile.mkdtemp(prefix="step-end-console-"), "out.log"), "w")  # noqa: SIM115

    def play() -> None:
        c = Console(out, colour=False)
        pool = HostPool(lambda hosts: {}, c, forks=n, break_stale_lock=False, previous=None, add=lambda r: None,
                        set_phase=lambda p: None)
        pool._shared = lambda forks, k: Ready()  # type: ignore[assignment,method-assign,return-value]
        for k in range(4):
            c.banner("TASK", f"step {k}")
            pool.on_hosts(lambda hs: StepResult("s", "t", hs.host.name, Status.OK), states, n)
    return play


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=str(HERE.parent.parent), help="the checkout whose planner is measured")
    ap.add_argument("--hosts", type=int, default=30)
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    sys.path.insert(0, str(Path(a.tree).resolve()))
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="step-end-config-"))
    from planner.engine import runrecord

    assert Path(runrecord.__file__).is_relative_to(Path(a.tree).resolve()), runrecord.__file__
    cells = []
    for name, make in (("resolved", resolved), ("template", template), ("scrub", scrub), ("console", console)):
        play = make(a.hosts)
        play()  # warm-up: imports, caches made once per process
        used = []
        for _ in range(a.reps):
            t = time.process_time()
            play()
            used.append((time.process_time() - t) * 1000)
        cells.append(f"{name} {min(used):.2f} / {statistics.median(used):.2f}")
    print(f"{a.tree}: N={a.hosts}, ms per play min / median of {a.reps}: {'; '.join(cells)}; "
          f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
