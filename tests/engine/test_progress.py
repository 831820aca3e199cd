"""The run's ETA after a --resume counts only what is left (issue 15 item 13)."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from planner.engine.console import Console
from planner.engine.resume import Previous
from planner.engine.runner import Runner, RunOptions
from planner.host import Host
from planner.plan.loader import load_plan


def test_eta_after_a_resume_counts_what_is_left(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(textwrap.dedent("""\
        plan: eta
        plays:
          - name: p
            hosts: all
            workloads:
              - fio: {target: /data/x, rw: [read, write], bs: 4k, size: 1m, runtime: 30}
                repeat: 2
        """))
    plan = load_plan(plan_file)
    host = Host("alpha", "localhost", connection="local")
    step = plan.plays[0].workloads[0].path

    def runner(previous: Previous | None) -> Runner:
        r = Runner(plan, {"p": [host]}, RunOptions(), Console(io.StringIO()), lambda hs: {}, previous)
        r._plan_run_progress()
        return r

    assert runner(None).progress.left_s() == 4 * 30  # 2 points x 2 repeats of 30 s
    done = frozenset({("alpha", step, 0), ("alpha", step, 1), ("alpha", step, 2)})
    resumed = runner(Previous(tmp_path, {}, (), (), done))
    assert resumed.progress.left_s() == 30
