"""Synthetic run folders for the report/store/compare tests, written in the run record layout.

Values come from the seed write-up (SLOB on Violin and Exadata, flashdba 2012); artifacts are small AWR
excerpts in the format the seed quotes, or copies of tests/data files.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow]

DATA = Path(__file__).parent / "data"

PLAN = """\
plan: slob_violin_vs_exadata
description: SLOB physical read IOPS on two systems
plays:
  - name: exadata
    hosts: exa
    rated: {physical_read_iops: 1500000}
    prep:
      - flashback: {state: "off"}
    workloads:
      - slob: {kit: /home/oracle/SLOB, readers: [16, 256], writers: 0}
        repeat: 3
        warmup: 1
  - name: violin
    hosts: vio
    workloads:
      - slob: {kit: /home/oracle/SLOB, readers: 16, writers: 0}
reproduces:
  - {source: "flashdba 2012", play: violin, metric: physical_read_iops, expected: 159183.9, tolerance_pct: 10}
  - {source: "flashdba 2012", play: exadata, metric: physical_read_iops, expected: 138010.5, tolerance_pct: 10}
"""


def awr_excerpt(physical: float, logical: float | None = None, host: str = "oel57", cpus: int = 16, cores: int = 8,
                sockets: int = 2, memory_gb: float = 11.74, idle_pct: float = 40.0, cache_mb: int = 64,
                events: str = "") -> str:
    logical = physical * 1.05 if logical is None else logical
    events = events or (
        "db file sequential read         177,142,915       4,804      0   60.0 User I/O\n"
        "DB CPU                                            1,573          20.8\n"
        "latch free                           16,703         226     14    3.0 Other\n")
    return f"""\
Host Name        Platform                         CPUs Cores Sockets Memory(GB)
---------------- -------------------------------- ---- ----- ------- ----------
{host:<16} Linux x86 64-bit                 {cpus:>4} {cores:>5} {sockets:>7} {memory_gb:>10}

Cache Sizes                       Begin        End
~~~~~~~~~~~                  ---------- ----------
               Buffer Cache:     {cache_mb:,}M     {cache_mb:,}M  Std Block Size:         8K

Load Profile              Per Second    Per Transaction
~~~~~~~~~~~~         ---------------    ---------------
      Logical reads:       {logical:,.1f}             10.0
     Physical reads:       {physical:,.1f}             10.0

Top 5 Timed Foreground Events
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                                                           Avg
                                                          wait   % DB
Event                                 Waits     Time(s)   (ms)   time Wait Class
------------------------------ ------------ ----------- ------ ------ ----------
{events}
Host CPU (CPUs: {cpus} Cores: {cores} Sockets: {sockets})
~~~~~~~~         Load Average
               Begin       End     %User   %System      %WIO     %Idle
           --------- --------- --------- --------- --------- ---------
               23.16     75.62      50.0      {100 - idle_pct - 50:.1f}       0.0      {idle_pct:.1f}
"""


FLASHBACK_EVENTS = (
    "flashback buf free by RVWR           19,358       2,211    114   47.5 Configurat\n"
    "cell single block physical rea    2,003,269       1,238      1   26.6 User I/O\n"
    "DB CPU                                              695          14.9\n"
    "latch free                          135,055         377      3    8.1 Other\n"
    "free buffer waits                    17,982         135      8    2.9 Configurat\n")


@dataclass
class Exec:
    """One step execution on one host and what it left (artifacts: name -> text, or a tests/data path)."""

    step: str
    title: str
    host: str
    artifacts: dict[str, tuple[str | Path, str]] = field(default_factory=dict)  # name -> (text|path, kind)
    params: dict[str, Any] = field(default_factory=dict)
    point: int | None = None
    repeat: int = 0
    warmup: bool = False
    status: str = "changed"
    diff: str | None = None
    msg: str = ""
    simulated: bool = False


def write_run(runs_dir: Path, run_id: str, execs: list[Exec], plays: list[dict[str, Any]],
              plan: str | None = PLAN, facts: dict[str, dict[str, Any]] | None = None, simulated: bool = False,
              restore: list[dict[str, Any]] | None = None, status: str = "complete") -> Path:
    run = runs_dir / run_id
    run.mkdir(parents=True)
    hosts = sorted({h for p in plays for h in p["hosts"]})
    meta = {"run_id": run_id, "plan": "slob_violin_vs_exadata", "plan_file": "/lab/plans/slob.yaml",
            "description": "SLOB physical read IOPS on two systems",
            "git": {"commit": "0123456789abcdef", "dirty": False, "plan_dirty": False},
            "planner_version": "0.1.0", "python": "3.11.2", "started": "2026-01-01T10:00:00Z",
            "ended": "2026-01-01T11:00:00Z", "status": status, "exit_code": 0, "simulated": simulated,
            "argv": ["apply", "plans/slob.yaml"],
            "hosts": {h: {"address": "127.0.0.1", "port": 22} for h in hosts}, "plays": plays}
    (run / "meta.json").write_text(json.dumps(meta))
    if plan is not None:
        (run / "plan.yaml").write_text(plan)
    (run / "commands.jsonl").write_text("")
    results = []
    for i, e in enumerate(execs):
        arts = []
        for name, (content, kind) in e.artifacts.items():
            rel = Path("artifacts") / e.host / f"exec{i:03d}" / name
            (run / rel).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                shutil.copy(content, run / rel)
            else:
                (run / rel).write_text(content)
            arts.append({"path": str(rel), "kind": kind, "sha256": "", "simulated": e.simulated})
        results.append({"step": e.step, "title": e.title, "host": e.host, "status": e.status, "msg": e.msg,
                        "diff": e.diff, "point": e.point, "params": e.params, "repeat": e.repeat,
                        "warmup": e.warmup, "artifacts": arts, "data": {}, "started": "", "ended": "",
                        "ignored": False})
    (run / "results.json").write_text(json.dumps(results))
    (run / "facts").mkdir()
    for h in hosts:
        f = (facts or {}).get(h, {"hostname": h, "cpus": 16, "cores": 8, "sockets": 2, "memory_gb": 11.74,
                                  "kernel": "5.4.17", "cpu_model": "Xeon E5530", "distribution": "OL 5.7"})
        (run / "facts" / f"{h}.json").write_text(json.dumps(f))
    if restore is not None:
        (run / "restore.json").write_text(json.dumps(restore))
    return run


def seed_study(runs_dir: Path, run_id: str = "20260101T100000Z-slob", simulated: bool = False,
               violin_iops: float = 159_183.9) -> Path:
    """The headline study: exadata swept over readers with repeats and a warm-up, violin at one point."""
    execs = [Exec("plays[0].prep[0]", "flashback", "exa", diff="flashback: on -> off")]
    exa = {16: (60_000.0, 62_000.0, 61_000.0), 256: (138_010.5, 120_000.0, 150_000.0)}
    point = 0
    for readers, values in exa.items():
        execs.append(Exec("plays[0].workloads[0]", "slob", "exa", {"awr.txt": (awr_excerpt(
            10_000.0, host="exadataX2-8", cpus=128, cores=64, sockets=8, memory_gb=1009.4), "awr_excerpt")},
            {"readers": readers}, point, 0, warmup=True))
        point += 1
        for r, v in enumerate(values):
            execs.append(Exec("plays[0].workloads[0]", "slob", "exa", {"awr.txt": (awr_excerpt(
                v, host="exadataX2-8", cpus=128, cores=64, sockets=8, memory_gb=1009.4), "awr_excerpt")},
                {"readers": readers}, point, r))
            point += 1
    execs.append(Exec("plays[1].workloads[0]", "slob", "vio",
                      {"awr.txt": (awr_excerpt(violin_iops, idle_pct=2.0), "awr_excerpt"),
                       "mpstat.txt": (DATA / "ostats" / "mpstat-P-ALL.txt", "mpstat"),
                       "iostat.txt": (DATA / "ostats" / "iostat-x-t.txt", "iostat")}, {}, 0, 0))
    restore = [{"play": "plays[0]", "host": "exa", "step": "plays[0].prep[0]", "title": "flashback",
                "kind": "flashback", "args": {"state": "off"}, "saved": {"flashback_on": "YES"}, "reverted": True}]
    return write_run(runs_dir, run_id, execs, [{"name": "exadata", "hosts": ["exa"]},
                                               {"name": "violin", "hosts": ["vio"]}],
                     simulated=simulated, restore=restore)


def test_seed_study_is_a_readable_run_folder(tmp_path: Path) -> None:
    from planner.results.measure import read_run

    data = read_run(seed_study(tmp_path))
    assert data.plan is not None and data.step_kinds["plays[0].workloads[0]"] == "slob"
    assert {a.kind for a in data.artifacts} == {"awr_excerpt", "mpstat", "iostat"}
    assert all(a.parsed_ok for a in data.artifacts)
    iops = [m for m in data.measurements if m.metric == "physical_read_iops" and m.host == "vio"]
    assert [m.value for m in iops] == [159_183.9] and iops[0].headline and iops[0].play == "violin"
