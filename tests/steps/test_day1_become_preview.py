"""``--check --diff`` says which commands run under sudo for every workload kind that runs its tool under
``become`` (issue 39). Before, only fio's preview did; iozone, ORION, SLB and ``command`` showed the bare command
though the run sends it through ``sudo -n -H -u root -- sh -c``. The exact lines are pinned in
tests/kinds/cases/*/become.json; here each kind's every command line is checked, with and without become."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.steps import REGISTRY
from planner.testing import ScriptedConnection, scripted_host, step_context

ARGS: dict[str, dict[str, Any]] = {
    "fio": {"target": "/dev/sdb", "rw": "randread", "bs": "8k", "runtime": 5},
    "command": {"argv": ["blockdev", "--getra", "/dev/sdb"]},
    "iozone": {"binary": "/usr/local/bin/iozone", "record_size": "8k", "file_size": "1m", "tests": [0], "threads": 2,
               "files": "/data/iozone/file", "create_files": True},
    "orion": {"testname": "t", "luns": ["/dev/sdb"]},
    "slb": {"users": 2, "seconds": 5},
}


def _lines(kind: str, tmp_path: Path, become: bool) -> list[str]:
    host = scripted_host(oracle_home="/u01/app/oracle/product/19.0.0/dbhome_1")
    ctx = step_context(ScriptedConnection(host, {}), tmp_path, check_mode=True, become=become)
    said = REGISTRY[kind](ARGS[kind]).preview(ctx)
    lines = [x for x in said.splitlines() if x.startswith(("$ ", "would run "))]
    assert lines, said
    return lines


@pytest.mark.parametrize("kind", sorted(ARGS))
def test_every_command_a_become_step_runs_is_shown_through_sudo(kind: str, tmp_path: Path) -> None:
    for line in _lines(kind, tmp_path, become=True):
        if line.startswith("would run ") and kind != "command":
            continue  # check()'s one-line summary after the preview's command lines
        assert line.removeprefix("$ ").removeprefix("would run ").startswith("sudo -n -H -u root -- sh -c "), line
    assert not any("sudo" in x for x in _lines(kind, tmp_path, become=False))
