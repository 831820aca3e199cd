"""A lock another user made first in the host's /tmp (issue 40 L8: `nobody` making /tmp/planner.lock.<host>)
blocked every run on that host, with no way round it but root. The inventory may now name the folder locks
are made in (``planner_lock_dir``), and the refusal says how to clear the squat and how to move the locks."""

from __future__ import annotations

import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_fault_host_tmp import _dead_pid, _project, as_attacker, host_tmp  # noqa: F401 (a fixture)
from test_fault_resume import planner

from planner.engine.hostlock import lock_path
from planner.host import Host


def _host(**variables: str) -> Host:
    return Host(name="db01", address="127.0.0.1", vars=variables)


def test_the_lock_folder_is_the_inventory_s_to_choose() -> None:
    assert lock_path("", _host()) == "/tmp/planner.lock.db01"
    assert lock_path("", _host(planner_lock_dir="/home/oracle/.planner/")) == "/home/oracle/.planner/planner.lock.db01"
    assert lock_path("/sandbox", _host(planner_lock_dir="/var/lock")) == "/sandbox/var/lock/planner.lock.db01"
    assert lock_path("", _host(planner_lock_dir="/var/lock", planner_lock="/x/one.lock")) == "/x/one.lock"


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.timeout(120)
def test_a_squatted_lock_is_said_how_to_clear_and_planner_lock_dir_moves_past_it(
        tmp_path: Path, host_tmp: Path, make_lab: Callable[..., Any]) -> None:  # noqa: F811
    host, plan, inv, runs, _sleep = _project(tmp_path, host_tmp, make_lab)
    plan.write_text("plan: lock_dir\nplays:\n  - name: p\n    hosts: all\n    prep:\n"
                    "      - command: {argv: ['true']}\n")
    data = yaml.safe_load(inv.read_text())
    hv = data["all"]["hosts"][host]
    hv.pop("planner_lock")
    hv["planner_lock_dir"] = str(host_tmp)
    inv.write_text(yaml.safe_dump(data))
    squat = host_tmp / f"planner.lock.{host}"
    holder = f'{{"run_id": "20200101T000000Z-x", "controller": "{platform.node()}", "pid": {_dead_pid()}}}'
    as_attacker("sh", "-c", 'mkdir "$1" && printf "%s\\n" "$2" > "$1/holder.json"', "sh", str(squat), holder)
    refused = planner("apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report")
    out = refused.stdout + refused.stderr
    assert refused.returncode == 2 and f"sudo rm -rf -- {squat}" in out and "planner_lock_dir" in out, out
    own = tmp_path / "locks"
    own.mkdir(mode=0o700)
    hv["planner_lock_dir"] = str(own)
    inv.write_text(yaml.safe_dump(data))
    done = planner("apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert squat.is_dir() and not list(own.iterdir())  # the squat left alone; our lock released
