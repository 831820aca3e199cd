"""The kit's fetched logs are searched for errors a line at a time at apply time (issue 40: a fetched file may be
as large as the fetch cap, 1 GiB by default, and was read whole)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from planner.host import Host
from planner.kinds.slob.step import Slob
from planner.status import Artifact
from planner.steps.base import StepContext
from planner.transport.connection import LocalConnection


def _ctx(run_dir: Path) -> StepContext:
    host = Host(name="alpha", address="127.0.0.1", connection="local")
    return StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].workloads[0]",
                       plan_dir=run_dir, artifacts=run_dir, run_dir=run_dir, log=None)


def test_a_large_fetched_log_is_searched_for_errors_without_being_held(tmp_path: Path) -> None:
    log = tmp_path / "sqlplus.out"
    with log.open("wb") as f:  # 24 MiB of NUL (sparse, no newline), then the kit's error lines
        f.truncate(24 << 20)
        f.seek(24 << 20)
        f.write(b"\nSQL> exec slob.run\nERROR at line 1:\nORA-01031: insufficient privileges\n"
                b"ORA-01031: insufficient privileges\nSP2-0310: unable to open file \"x.sql\"\n")
    (tmp_path / "slob_debug.out").write_text("FATAL: schema user1 not found\nall fine\n")
    fetched = [Artifact("sqlplus.out", ""), Artifact("slob_debug.out", ""), Artifact("awr.txt", "awr_text")]
    tracemalloc.start()
    try:
        errors = Slob._log_errors(_ctx(tmp_path), fetched)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert errors == ["ORA-01031: insufficient privileges", 'SP2-0310: unable to open file "x.sql"',
                      "FATAL: schema user1 not found"]
    assert peak < 8 << 20, peak
