"""Issue 25 (odb rows): planner reads what the Oracle host is, and the stand-ins vary as real hosts do.

Each test names the row of docs/oracle-behaviour.md it proves; the stand-ins cite the same public sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.rehearsal.standins import load_state, update_state
from planner.status import Status
from planner.steps.prep_db import InitOra


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
