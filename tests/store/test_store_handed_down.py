"""The push at the end of an apply reads the run folder with the plan the apply ran (handed down, not the
folder's copy parsed again): what the store holds is the same as a later ``planner store push`` of the folder
(issue 47)."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_report_helpers import seed_study

from planner.cli.store import push_after_apply, push_folders
from planner.plan.loader import load_plan
from planner.store import SqliteStore, parse_store_url


def test_store_row_from_the_applied_plan_equals_the_folder_read_back(tmp_path: Path) -> None:
    run = seed_study(tmp_path / "runs", simulated=True)  # the headline study, rehearsed (simulated)
    applied = tmp_path / "plans" / "slob.yaml"  # the plan file the apply loaded, beside its inventory
    applied.parent.mkdir()
    shutil.copy(run / "plan.yaml", applied)
    warned: list[str] = []
    handed = tmp_path / "handed.sqlite"
    push_after_apply(parse_store_url(f"sqlite:///{handed}", tmp_path), run, warned.append,
                     plan=load_plan(applied, inventory_must_exist=False))
    with SqliteStore(tmp_path / "read_back.sqlite") as back:
        assert push_folders(back, [run], quiet=True) == (1, 0)
        from_folder = back.stored_run(run.name)
    with SqliteStore(handed) as st:
        from_apply = st.stored_run(run.name)
    assert warned == []
    assert from_apply is not None and from_folder is not None
    assert from_apply.measurements and from_apply.findings and from_apply.verdicts  # a run worth comparing
    assert from_apply == from_folder
