"""Issue 25 (odb rows): planner reads what the Oracle host is, and the stand-ins vary as real hosts do.

Each test names the row of docs/oracle-behaviour.md it proves; the stand-ins cite the same public sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for
from planner.errors import StepError
from planner.rehearsal.standins import DEFAULT_HOME, load_state, update_state
from planner.status import Status
from planner.steps.prep_db import InitOra, restart_database


def _cpus(root: Path, n: int) -> None:
    update_state(root, lambda s: s["memory"].__setitem__("cpu_count", str(n)))


# -- 1d: the 4 MB x CPU_COUNT floor of the KEEP and RECYCLE caches ----------------------------------------------
@pytest.mark.parametrize("name", ["db_keep_cache_size", "db_recycle_cache_size"])
def test_keep_and_recycle_caches_have_the_4m_per_cpu_floor_and_the_check_accepts_it(prep_root: Path,
                                                                                   name: str) -> None:
    """64M on a 128-CPU host reads back 512M for KEEP and RECYCLE too: not a failed change, and idempotent."""
    _cpus(prep_root, 128)
    ctx = context(prep_root)
    out = InitOra({name: "64M"}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert load_state(prep_root)["memory"][name] == str(512 << 20)
    assert InitOra({name: "64M"}).check(ctx).changed is False
    pool = "KEEP" if "keep" in name else "RECYCLE"
    assert out.data["buffer_pools"][pool] == 512 << 20 and f"{pool} 512M" in out.msg


# -- 7: init_ora on a pfile instance, the spfile backup, the way back when the instance will not start ----------
def _pfile_instance(root: Path) -> None:
    update_state(root, lambda s: s["database"].update(pfile=True, no_spfile=True))


def test_init_ora_on_a_pfile_instance_sets_dynamic_ones_in_memory_and_refuses_static_ones(prep_root: Path) -> None:
    _pfile_instance(prep_root)
    ctx = context(prep_root)
    step = InitOra({"db_recycle_cache_size": "64M"})
    assert "set in memory only" in step.check(ctx).msg
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and "SCOPE=MEMORY" in out.msg, out.msg
    state = load_state(prep_root)
    assert "alter system set db_recycle_cache_size=64M scope=memory sid='*'" in state["history"]
    assert state["memory"]["db_recycle_cache_size"] == str(64 << 20) and state["spfile"] == {}
    assert step.check(ctx).changed is False
    assert step.revert(ctx, saved).status is Status.CHANGED
    assert load_state(prep_root)["memory"]["db_recycle_cache_size"] == "0"
    with pytest.raises(StepError, match="static .* text pfile .*ORA-32001"):
        InitOra({"filesystemio_options": "SETALL"}).check(ctx)
    with pytest.raises(StepError, match="ORA-32001"):
        InitOra({"filesystemio_options": "SETALL"}).apply(ctx)
    assert not any(h.startswith("alter") and "filesystemio" in h for h in load_state(prep_root)["history"])


def test_the_spfile_is_backed_up_once_per_run_before_the_first_write(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["spfile"].update(db_cache_size="2G"))
    ctx = context(prep_root)
    out = InitOra({"processes": 600}).apply(ctx)
    backup = prep_root / DEFAULT_HOME.lstrip("/") / "dbs" / f"planner_initorcl_{ctx.run_dir.name}.ora"
    assert f"spfile backed up to {DEFAULT_HOME}/dbs/planner_initorcl_" in out.msg, out.msg
    assert backup.read_text() == "*.db_cache_size=2G\n"  # the spfile before the change, not after
    history = load_state(prep_root)["history"]
    assert history.index(f"create pfile='{DEFAULT_HOME}/dbs/{backup.name}' from spfile") < next(
        i for i, h in enumerate(history) if h.startswith("alter system set processes"))
    out = InitOra({"db_recycle_cache_size": "64M"}).apply(ctx)
    assert "kept from earlier in this run" in out.msg and backup.read_text() == "*.db_cache_size=2G\n"


def test_an_instance_that_will_not_start_comes_back_from_the_backup_pfile(prep_root: Path) -> None:
    """sga_max_size beyond the host's memory: ORA-27102 at startup; planner starts from the backup, puts the
    spfile back and fails the step saying so; the database is OPEN with its old parameters."""
    update_state(prep_root, lambda s: s["database"].update(max_sga=8 << 30))
    ctx = context(prep_root)
    with pytest.raises(StepError, match="ORA-27102.*backup pfile .*runs as before") as e:
        InitOra({"sga_max_size": "64G"}).apply(ctx)
    assert "lower the sizes" in (e.value.hint or "")
    state = load_state(prep_root)
    assert state["database"]["status"] == "OPEN" and state["spfile"] == {} and not state["database"]["pfile"]
    assert any(h.startswith("startup pfile=") for h in state["history"])
    assert state["memory"].get("sga_max_size") is None


def test_a_restart_of_a_down_instance_only_starts_it(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(status="SHUTDOWN"))
    ctx = context(prep_root)
    how, _db = restart_database(ctx, config_for(ctx))
    assert "was down" in how
    state = load_state(prep_root)
    assert state["database"]["status"] == "OPEN" and "shutdown immediate" not in state["history"]
