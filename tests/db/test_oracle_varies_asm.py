"""ASM as it varies (docs/oracle-behaviour.md 25.15c): only the read that looks for new disks discovers (V$ASM_DISK
rescans every disk); verification, save and restore read the _STAT views, as Oracle's Reference advises."""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.rehearsal.standins import load_state, update_state
from planner.status import Status
from planner.steps.prep_asm import AsmDiskgroup

pytestmark = [pytest.mark.slow]  # the stand-in sqlplus runs as a process

def _discoveries(root: Path) -> int:
    return int(load_state(root).get("asm_discoveries", 0))


def test_only_the_search_for_new_disks_rescans_them(prep_root: Path) -> None:
    step = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun01"], "redundancy": "external",
                         "destructive": True})
    saved = step.save(context(prep_root))
    assert _discoveries(prep_root) == 0  # the group's members are known disks: no rescan
    assert step.apply(context(prep_root)).status is Status.CHANGED
    assert _discoveries(prep_root) == 1  # the plan's new disk had to be found; the verification did not rescan
    assert "SLOB" in load_state(prep_root)["diskgroups"]
    assert step.revert(context(prep_root), saved).status is Status.CHANGED
    assert _discoveries(prep_root) == 1 and "SLOB" not in load_state(prep_root)["diskgroups"]


def test_the_standins_stat_view_shows_no_disk_new_to_the_system(prep_root: Path) -> None:
    from planner.db.access import config_for
    from planner.db.identity import asm_config, open_asm
    from planner.steps.prep_asm import read_asm

    def fresh(state: dict) -> None:
        for d in state["disks"]:
            d.pop("discovered", None)

    update_state(prep_root, fresh)
    ctx = context(prep_root)
    db = open_asm(ctx, asm_config(ctx, config_for(ctx)))
    assert {d.path for d in read_asm(db, discover=False).disks} == {"/dev/mapper/data01"}  # members only
    assert "/dev/mapper/lun01" in {d.path for d in read_asm(db).disks}  # V$ASM_DISK discovers it
    assert "/dev/mapper/lun01" in {d.path for d in read_asm(db, discover=False).disks}  # and it is known from then on


GRID_HOME = "/u01/app/19.0.0/grid"


def test_on_rac_a_new_disk_group_is_mounted_on_every_node_and_dismounted_there_before_its_drop(
        tmp_path: Path) -> None:
    from planner.db.access import config_for
    from planner.db.identity import asm_config, open_asm
    from planner.errors import OracleError
    from planner.rehearsal.standins import install_standins

    root = tmp_path / "node1"
    install_standins(root, grid_home=GRID_HOME, rac=True)
    nodes = sorted(i["host_name"] for i in load_state(root)["database"]["instances"])
    assert len(nodes) == 2
    ctx = context(root, oracle_sid="SLOB1", grid_home=GRID_HOME)
    step = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun01"], "redundancy": "external",
                         "destructive": True})
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED
    assert load_state(root)["diskgroups"]["SLOB"]["mounted_on"] == nodes, out.msg  # not this node's ASM only
    assert f"mounted on every node ({', '.join(nodes)}) by srvctl start diskgroup" in out.msg
    assert "srvctl start diskgroup -g SLOB" in load_state(root)["history"]
    with pytest.raises(OracleError, match="ORA-15073"):  # the stand-in refuses a drop another node has mounted
        open_asm(ctx, asm_config(ctx, config_for(ctx))).execute("drop diskgroup SLOB including contents")
    back = step.revert(ctx, saved)
    assert back.status is Status.CHANGED and f"dismounted on {nodes[1]} first" in back.msg, back.msg
    assert "SLOB" not in load_state(root)["diskgroups"]


def test_a_single_instance_disk_group_needs_no_srvctl_mount(prep_root: Path) -> None:
    out = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun01"], "redundancy": "external"}).apply(
        context(prep_root))
    assert out.status is Status.CHANGED and "srvctl" not in out.msg
    assert not any(h.startswith("srvctl start diskgroup") for h in load_state(prep_root)["history"])


def test_orion_is_taken_from_the_grid_home_on_rac(tmp_path: Path) -> None:
    from planner.kinds.orion.standin import link
    from planner.kinds.orion.step import Orion
    from planner.rehearsal.standins import DEFAULT_HOME, install_standins

    root = tmp_path / "node1"
    install_standins(root, grid_home=GRID_HOME, rac=True)
    for home in (DEFAULT_HOME, GRID_HOME):  # many RAC installs ship it in the Grid home only; here both have it
        link(root / home.lstrip("/") / "bin" / "orion")
    step = Orion({"testname": "t", "luns": ["/dev/sdb"]})
    ctx = context(root, oracle_sid="SLOB1", grid_home=GRID_HOME)
    assert step.binary(ctx) == ctx.path(GRID_HOME + "/bin/orion")  # both homes ship it: on RAC, the Grid home's
    assert step.argv(ctx)[0] == ctx.path(GRID_HOME + "/bin/orion")
    (root / GRID_HOME.lstrip("/") / "bin" / "orion").unlink()
    assert step.binary(ctx) == ctx.path(DEFAULT_HOME + "/bin/orion")  # where the Grid home has none
    assert Orion({"testname": "t", "luns": ["/dev/sdb"], "binary": "/opt/orion"}).binary(ctx) == ctx.path("/opt/orion")
