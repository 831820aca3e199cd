"""init_ora, flashback and asm_diskgroup against the Oracle stand-ins (sqlplus backend, local transport)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context

from planner.errors import OracleError, StepError
from planner.extras import InitOraDone
from planner.rehearsal.standins import load_state, update_state
from planner.status import Status
from planner.steps.prep_asm import AsmDiskgroup
from planner.steps.prep_db import InitOra
from planner.steps.prep_flashback import Flashback

pytestmark = [pytest.mark.slow]


def test_dynamic_parameter_set_with_scope_both_and_restored(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = InitOra({"recycle_pool": "64M", "cpu_count": 1})
    change = step.check(ctx)
    assert change.diff == ("db_recycle_cache_size: 0 (not in spfile) -> 64M\n"
                           "cpu_count: 16 (not in spfile) -> 1\n")
    assert load_state(prep_root)["spfile"] == {}  # check changed nothing
    saved = step.save(ctx)
    out = step.apply(ctx)
    # the effective pools (V$SGA_DYNAMIC_COMPONENTS) come with a cache change (issue 16 row 1)
    assert isinstance(out.extra, InitOraDone)
    assert out.status is Status.CHANGED and out.extra.restarted is False
    assert out.extra.buffer_pools["RECYCLE"] == 64 << 20 and "effective buffer pools" in out.msg
    state = load_state(prep_root)
    assert state["spfile"] == {"db_recycle_cache_size": "64M", "cpu_count": "1"}
    assert state["memory"]["db_recycle_cache_size"] == "67108864" and state["restarts"] == 0
    assert "alter system set db_recycle_cache_size=64M scope=both sid='*'" in state["history"]
    assert step.check(ctx).changed is False and step.apply(ctx).status is Status.OK
    assert step.revert(ctx, saved).status is Status.CHANGED
    state = load_state(prep_root)
    assert state["spfile"] == {} and state["memory"] == {"db_recycle_cache_size": "0", "cpu_count": "16"}
    assert step.revert(ctx, saved).status is Status.OK


def test_static_parameter_restarts_once_with_sqlplus(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = InitOra({"filesystemio_options": "SETALL", "disk_asynch_io": True, "db_cache_size": "8G"})
    assert "(static: restart)" in (step.check(ctx).diff or "")
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert "restarted (sqlplus shutdown immediate / startup)" in out.msg
    state = load_state(prep_root)
    assert state["restarts"] == 1 and state["database"]["status"] == "OPEN"
    assert state["memory"]["filesystemio_options"] == "SETALL"
    assert "alter system set filesystemio_options='SETALL' scope=spfile sid='*'" in state["history"]
    step.revert(ctx, saved)
    state = load_state(prep_root)
    assert state["restarts"] == 2 and state["spfile"] == {}
    assert "alter system reset filesystemio_options scope=spfile sid='*'" in state["history"]


def test_restart_goes_through_srvctl_when_registered(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(registered=True))
    out = InitOra({"processes": 600}).apply(context(prep_root))
    assert "srvctl stop/start database -d orcl" in out.msg
    history = load_state(prep_root)["history"]
    assert "srvctl stop database -d orcl -o immediate" in history and "srvctl start database -d orcl" in history


def test_spfile_value_kept_on_revert(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["spfile"].update(db_cache_size="2G"))
    ctx = context(prep_root)
    step = InitOra({"db_cache_size": "4G"})
    assert step.check(ctx).diff == "db_cache_size: 2G -> 4G\n"
    saved = step.save(ctx)
    step.apply(ctx)
    step.revert(ctx, saved)
    assert load_state(prep_root)["spfile"] == {"db_cache_size": "2G"}


@pytest.mark.parametrize(("args", "error"), [
    ({"x; drop table t": 1}, "refused parameter name"),
    ({"cpu_count\n": 1}, "refused parameter name"),
    ({"no_such_param": 1}, "unknown initialization parameter.*no_such_param"),
    ({"db_cache_size": "64M' scope=memory --"}, "takes a number or a size"),
    ({"filesystemio_options": "setall' scope=memory"}, "refused value"),
    ({"filesystemio_options": "a\nb"}, "refused value"),
    ({"filesystemio_options": "$(reboot)"}, "refused value"),
    ({"cpu_count": "abc"}, "takes a number"),
    ({"disk_asynch_io": "yes"}, "TRUE or FALSE"),
])
def test_injection_and_bad_values_refused(prep_root: Path, args: dict, error: str) -> None:
    with pytest.raises(StepError, match=error):
        InitOra(args).apply(context(prep_root))
    state = load_state(prep_root)
    assert state["spfile"] == {} and not any(h.startswith("alter") for h in state["history"])


def test_database_down_is_an_oracle_error_with_hint(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(status="SHUTDOWN"))
    with pytest.raises(OracleError, match="ORA-01034: ORACLE not available") as e:
        InitOra({"cpu_count": 2}).check(context(prep_root))
    assert e.value.hint and "instance is down" in e.value.hint


def test_flashback_off_and_back(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = Flashback({"state": "off"})
    assert step.check(ctx).diff == "flashback_on: YES -> NO\n"
    saved = step.save(ctx)
    assert step.apply(ctx).status is Status.CHANGED
    assert load_state(prep_root)["database"]["flashback_on"] == "NO"
    assert step.apply(ctx).status is Status.OK
    assert step.revert(ctx, saved).status is Status.CHANGED
    assert load_state(prep_root)["database"]["flashback_on"] == "YES"
    assert step.revert(ctx, saved).status is Status.OK


def test_asm_create_add_and_drop_only_what_was_created(prep_root: Path) -> None:
    ctx = context(prep_root, destructive=True)
    create = AsmDiskgroup({"name": "slob", "disks": "/dev/mapper/lun0[12]", "redundancy": "external",
                           "au_size": "4M", "attributes": {"compatible.asm": "19.0"}})
    assert create.check(ctx).diff == ("create SLOB: + /dev/mapper/lun01 (CANDIDATE)\n"
                                      "create SLOB: + /dev/mapper/lun02 (CANDIDATE)\n")
    saved = create.save(ctx)
    assert create.apply(ctx).status is Status.CHANGED
    history = load_state(prep_root)["history"]
    assert ("create diskgroup SLOB external redundancy disk '/dev/mapper/lun01', '/dev/mapper/lun02' "
            "attribute 'au_size'='4M', 'compatible.asm'='19.0'") in history
    assert create.apply(ctx).status is Status.OK
    grow = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun0*"], "add_disks": True, "rebalance_power": 8})
    with pytest.raises(StepError, match="SLOB exists and lacks /dev/mapper/lun03"):
        AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun03"]}).apply(ctx)  # add_disks not set
    grow_saved = grow.save(ctx)
    out = grow.apply(ctx)
    assert "rebalance done" in out.msg
    state = load_state(prep_root)
    assert ("alter diskgroup SLOB add disk '/dev/mapper/lun03', '/dev/mapper/lun04' rebalance power 8"
            in state["history"])
    assert sum(h.startswith("select count(*) from v$asm_operation") for h in state["history"]) == 3  # polled
    assert grow.revert(ctx, grow_saved).status is Status.CHANGED
    assert create.revert(ctx, saved).status is Status.CHANGED
    state = load_state(prep_root)
    assert set(state["diskgroups"]) == {"DATA"}
    assert {d["header_status"] for d in state["disks"] if "lun" in d["path"]} == {"FORMER"}
    assert create.revert(ctx, saved).status is Status.OK


def test_asm_member_of_another_group_refused_by_name(prep_root: Path) -> None:
    with pytest.raises(StepError, match="/dev/mapper/data01 is a MEMBER of disk group DATA"):
        AsmDiskgroup({"name": "X", "disks": ["/dev/mapper/lun01", "/dev/mapper/data01"]}).check(context(prep_root))
    with pytest.raises(StepError, match="not visible to ASM: /dev/mapper/nothing"):
        AsmDiskgroup({"name": "X", "disks": ["/dev/mapper/nothing"]}).check(context(prep_root))
    with pytest.raises(StepError, match="refused disk specification"):
        AsmDiskgroup({"name": "X", "disks": ["/dev/x' drop diskgroup DATA --"]}).check(context(prep_root))


def test_asm_revert_without_destructive_leaves_the_group(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = AsmDiskgroup({"name": "KEEP", "disks": ["/dev/mapper/lun01"]})
    saved = step.save(ctx)
    step.apply(ctx)
    out = step.revert(ctx, saved)
    assert out.status is Status.SKIPPED and "not destructive: true" in out.msg
    assert "KEEP" in load_state(prep_root)["diskgroups"]


def test_asm_preview_of_a_later_add_agrees_with_apply(prep_root: Path) -> None:
    """Issue 15 item 10: in check mode a second step growing the group an earlier step creates was previewed
    as "create SLOB: + <every disk>" while apply then "added" only the new ones."""
    ctx = context(prep_root)
    create = AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun0[12]", "redundancy": "external"})
    grow = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun0*"], "add_disks": True})
    assert create.check(ctx).diff == ("create SLOB: + /dev/mapper/lun01 (CANDIDATE)\n"
                                      "create SLOB: + /dev/mapper/lun02 (CANDIDATE)\n")
    preview = grow.check(ctx)
    assert preview.msg == "would add disks to disk group SLOB"
    assert preview.diff == ("add to SLOB: + /dev/mapper/lun03 (CANDIDATE)\n"
                            "add to SLOB: + /dev/mapper/lun04 (CANDIDATE)\n")
    applied = context(prep_root)  # apply, step by step, on a fresh context: what the preview promised
    create.apply(applied)
    assert grow.apply(applied).diff == preview.diff


def test_sessions_is_a_static_parameter_the_standin_accepts(prep_root: Path) -> None:
    # SESSIONS: integer, default (1.5 * PROCESSES) + 22, not modifiable (Oracle Database Reference 11.2-19c,
    # SESSIONS): SCOPE=SPFILE and a restart; the stand-in once refused it as an illegal option
    ctx = context(prep_root)
    step = InitOra({"sessions": 1000})
    assert "sessions: 472 (not in spfile) -> 1000 (static: restart)" in (step.check(ctx).diff or "")
    out = step.apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    state = load_state(prep_root)
    assert state["memory"]["sessions"] == "1000" and state["restarts"] == 1
