"""The push at the end of an apply reads the run folder with the plan the apply ran (handed down, not the
folder's copy parsed again): what the store holds is the same as a later ``planner store push`` of the folder
(issue 47)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_helpers import Exec, seed_study, write_run

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


@pytest.mark.slow
def test_a_prep_only_run_is_pushed_without_the_parsers(tmp_path: Path) -> None:
    """A run whose artifacts no parser reads (fetched files, templates: the fan-out's) is read and captured for
    the store without importing planner.parsers (a third of the push's CPU after such a run); its artifacts are
    still listed with their sums, their content not kept."""
    run = write_run(tmp_path, "20260101T100000Z-prep", [
        Exec("plays[0].collect[0]", "fetch", "exa", {"result.txt": ("result of exa\n", "")})],
        [{"name": "exadata", "hosts": ["exa"]}])
    code = ("import sys; from pathlib import Path; from planner.results.measure import read_run; "
            "from planner.store.record import capture; "
            f"s = capture(read_run(Path({str(run)!r}))); "
            "print('planner.parsers' in sys.modules, [(str(a.kind), a.content, len(a.sha256)) for a in s.artifacts])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert out[0] == "False"
    assert out[1].strip() == "[('', None, 64)]"


def test_never_parsed_kinds_are_no_parser_kinds() -> None:
    from planner.parsers import KINDS
    from planner.results.measure import NEVER_PARSED, tables

    assert not NEVER_PARSED & set(KINDS) and tables().parsed == frozenset(KINDS)
