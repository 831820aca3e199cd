"""io_scheduler where it counts on dm-multipath, udev rules by stable keys, and root-only sysfs (issue 16 row 7).

The hosts are sandboxes built by planner.rehearsal.sandbox.add_devices (what rehearsals use): request-based dm
devices with dm/name, dm/uuid and slaves, SCSI disks with device/wwid. The last tests log in to the real sshd lab
as a non-root user (planner.rehearsal.labuser) to see the kernel's "Permission denied" and sudo getting through.
"""

from __future__ import annotations

import json
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from prep_helpers import context, newest_run

from planner.cli.main import main
from planner.errors import StepError
from planner.extras import SchedulersSet
from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import LabUser
from planner.rehearsal.sandbox import add_devices
from planner.status import Status
from planner.steps.base import StepContext
from planner.steps.blockdev import RULE_FILE
from planner.steps.prep_os import IoScheduler, parse_scheduler
from planner.transport.ssh.client import SSHConnection

LUN1_UUID = "mpath-3600a0b80000000000000000000000000"  # add_devices: NAA prefix, pattern 0, index 0


def active(root: Path, dev: str) -> str:
    return parse_scheduler((root / "sys/block" / dev / "queue/scheduler").read_text())[0]


@pytest.fixture
def mpath_root(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    made = add_devices(root, ["/dev/mapper/violin_lun[1-2]", "/dev/sdq"])
    assert made == {"/dev/mapper/violin_lun1": "dm-0", "/dev/mapper/violin_lun2": "dm-1", "/dev/sdq": "sdq"}
    return root


def test_the_sandbox_shows_dm_multipath_as_sysfs_does(mpath_root: Path) -> None:
    dm0 = mpath_root / "sys/block/dm-0"
    assert (dm0 / "dm/name").read_text() == "violin_lun1\n"
    assert (dm0 / "dm/uuid").read_text() == LUN1_UUID + "\n"
    (path,) = [p.name for p in (dm0 / "slaves").iterdir()]
    assert [p.name for p in (mpath_root / "sys/block" / path / "holders").iterdir()] == ["dm-0"]
    assert (mpath_root / "sys/block" / path / "device/wwid").read_text() == "naa." + LUN1_UUID[7:] + "\n"
    assert (dm0 / "queue/scheduler").read_text() == "[mq-deadline] kyber bfq none\n"  # dm-mq has an elevator
    mode = (dm0 / "queue/scheduler").stat().st_mode
    assert stat.S_IMODE(mode) == 0o644  # sysfs attributes: read for all, written by the owner (root) only


@pytest.mark.slow
def test_a_multipath_map_is_set_on_the_dm_device_and_its_paths_are_left_alone(mpath_root: Path) -> None:
    """Today's code set the paths (sdb) and left dm-0 alone: the bypassed scheduler, the wrong one."""
    ctx = context(mpath_root)
    step = IoScheduler({"devices": "/dev/mapper/violin_lun1", "scheduler": "noop"})
    change = step.check(ctx)
    assert change.diff is not None and change.diff.startswith("dm-0: mq-deadline -> none")
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert isinstance(out.extra, SchedulersSet)
    assert out.status is Status.CHANGED and out.extra.counts == ("dm-0",)
    assert out.msg == ("set dm-0=none (noop is none on this blk-mq kernel; request-based multipath: the dm device's "
                       "scheduler counts, its paths' are bypassed)")
    assert active(mpath_root, "dm-0") == "none" and active(mpath_root, "sdb") == "mq-deadline"
    assert step.revert(ctx, saved).status is Status.CHANGED and active(mpath_root, "dm-0") == "mq-deadline"


@pytest.mark.slow
def test_a_path_device_named_alone_is_set_on_its_multipath_map_and_says_so(mpath_root: Path) -> None:
    ctx = context(mpath_root)
    out = IoScheduler({"devices": ["sdb", "/dev/sdc"], "scheduler": "kyber"}).apply(ctx)
    assert isinstance(out.extra, SchedulersSet) and dict(out.extra.devices) == {"dm-0": "kyber", "dm-1": "kyber"}
    assert "sdb is a path of dm-0 (violin_lun1): set there" in out.msg
    assert active(mpath_root, "sdb") == "mq-deadline" and active(mpath_root, "dm-0") == "kyber"


@pytest.mark.slow
def test_lvm_on_multipath_is_walked_down_to_the_map_that_schedules(mpath_root: Path) -> None:
    """A bio-based dm (an LVM volume: only "none") passes bios down; under it the multipath map schedules."""
    lv = mpath_root / "sys/block/dm-5"
    (lv / "queue").mkdir(parents=True)
    (lv / "queue/scheduler").write_text("none\n")
    (lv / "dm").mkdir()
    (lv / "dm/name").write_text("vg_data-lv_data\n")
    (lv / "dm/uuid").write_text("LVM-abc\n")
    (lv / "slaves/dm-0").mkdir(parents=True)
    (mpath_root / "dev/vg_data").mkdir()
    (mpath_root / "dev/vg_data/lv_data").symlink_to("../dm-5")
    out = IoScheduler({"devices": "/dev/vg_data/lv_data", "scheduler": "kyber"}).apply(context(mpath_root))
    assert isinstance(out.extra, SchedulersSet) and dict(out.extra.devices) == {"dm-0": "kyber"}
    assert "dm-5 keeps none (bio-based: its slaves' schedulers count)" in out.msg
    assert active(mpath_root, "sdb") == "mq-deadline"


@pytest.mark.slow
def test_persist_by_dm_uuid_and_wwid_and_restore_removes_exactly_planners_rules(mpath_root: Path) -> None:
    rule = mpath_root / RULE_FILE.lstrip("/")
    rule.parent.mkdir(parents=True)
    theirs = 'ACTION=="add", ENV{DM_UUID}=="mpath-3600other", ATTR{queue/scheduler}="bfq"'
    old_mine = f'ACTION=="add", ENV{{DM_UUID}}=="{LUN1_UUID}", ATTR{{queue/scheduler}}="bfq"'
    rule.write_text(f"# site rules\n{theirs}\n{old_mine}\n")
    ctx = context(mpath_root)
    step = IoScheduler({"devices": ["/dev/mapper/violin_lun1", "/dev/sdq"], "scheduler": "none", "persist": True})
    saved = step.save(ctx)
    step.apply(ctx)
    text = rule.read_text()
    assert "KERNEL" not in text and theirs in text and old_mine not in text
    assert (f'ACTION=="add|change", SUBSYSTEM=="block", ENV{{DM_UUID}}=="{LUN1_UUID}", '
            f'ATTR{{queue/scheduler}}="none"') in text
    wwid = (mpath_root / "sys/block/sdq/device/wwid").read_text().strip()
    assert f'ATTRS{{wwid}}=="{wwid}", ATTR{{queue/scheduler}}="none"' in text
    assert step.check(ctx).changed is False
    later = 'ACTION=="add", ENV{DM_NAME}=="later", ATTR{queue/scheduler}="bfq"'
    rule.write_text(rule.read_text() + later + "\n")  # another step's rule, written after ours
    step.revert(ctx, saved)
    assert rule.read_text().splitlines() == ["# site rules", theirs, later, old_mine]


@pytest.mark.slow
def test_persist_without_a_stable_key_is_refused_before_anything_changes(mpath_root: Path) -> None:
    (mpath_root / "sys/block/sdq/device/wwid").unlink()
    ctx = context(mpath_root)
    step = IoScheduler({"devices": ["/dev/mapper/violin_lun1", "/dev/sdq"], "scheduler": "none", "persist": True})
    with pytest.raises(StepError, match=r"stable key for sdq .*drop persist"):
        step.apply(ctx)
    assert active(mpath_root, "dm-0") == "mq-deadline" and not (mpath_root / RULE_FILE.lstrip("/")).exists()
    (mpath_root / "sys/block/dm-1/dm/uuid").write_text("\n")  # dmsetup-made map: no uuid, DM_NAME then
    step = IoScheduler({"devices": "/dev/mapper/violin_lun2", "scheduler": "none", "persist": True})
    step.apply(ctx)
    assert 'ENV{DM_NAME}=="violin_lun2"' in (mpath_root / RULE_FILE.lstrip("/")).read_text()


# -- the real sshd lab, logged in as a non-root user -----------------------------------------------------------


@pytest.fixture
def nonroot_lab() -> Iterator[Lab]:
    reason = sshd_available() or LabUser.unavailable()
    if reason:
        pytest.skip(f"non-root SSH lab unavailable: {reason}")
    # pytest's tmp_path sits under a 0700 folder: the lab user could not reach its sandbox from there.
    top = Path(tempfile.mkdtemp(prefix="planner-nonroot-lab-"))
    top.chmod(0o755)
    try:
        with build_lab(top / "lab", 1, user=LabUser()) as lab:
            yield lab
    finally:
        shutil.rmtree(top, ignore_errors=True)


def ssh_context(lab: Lab, conn: SSHConnection, *, become: bool) -> StepContext:
    host = lab.hosts[0]
    run = lab.root / "run"
    run.mkdir(exist_ok=True)
    return StepContext(host=host, conn=conn, vars=dict(host.vars), step_path="plays[0].prep[0]", plan_dir=run,
                       artifacts=run, run_dir=run, log=lambda *_: None, become=become)


@pytest.mark.slow
@pytest.mark.ssh
def test_root_only_sysfs_refuses_a_non_root_user_and_become_gets_through(nonroot_lab: Lab) -> None:
    """Before: the sandbox was writable by the SSH user (root in CI), so a plan without become passed here and
    failed on every real host. Now the non-root login really gets "Permission denied" and sudo really works."""
    sandbox = nonroot_lab.sandbox(nonroot_lab.hosts[0].name)
    add_devices(sandbox, ["/dev/mapper/violin_lun1"])
    sched = sandbox / "sys/block/dm-0/queue/scheduler"
    assert sched.stat().st_uid == 0 and stat.S_IMODE(sched.stat().st_mode) == 0o644
    step = {"devices": "/dev/mapper/violin_lun1", "scheduler": "none", "persist": True}
    with SSHConnection(nonroot_lab.hosts[0]) as conn:
        assert conn.run(["id", "-un"]).stdout.strip() == "planner-lab"
        with pytest.raises(StepError, match="Permission denied") as e:
            IoScheduler(step).apply(ssh_context(nonroot_lab, conn, become=False))
        assert "become: true" in str(e.value)
        assert active(sandbox, "dm-0") == "mq-deadline" and not (sandbox / RULE_FILE.lstrip("/")).exists()
        ctx = ssh_context(nonroot_lab, conn, become=True)
        sudo = IoScheduler(step)
        saved = sudo.save(ctx)
        assert sudo.apply(ctx).status is Status.CHANGED
        assert active(sandbox, "dm-0") == "none"
        assert f'ENV{{DM_UUID}}=="{LUN1_UUID}"' in (sandbox / RULE_FILE.lstrip("/")).read_text()
        assert sudo.revert(ctx, saved).status is Status.CHANGED
    assert active(sandbox, "dm-0") == "mq-deadline" and not (sandbox / RULE_FILE.lstrip("/")).exists()


PLAN = """\
plan: nonroot
description: io_scheduler as a non-root SSH user
plays:
  - name: prep
    hosts: all
    prep:
      - io_scheduler: {{devices: /dev/mapper/violin_lun1, scheduler: none}}
        become: {become}
    workloads:
      - command: {{argv: ['true']}}
"""


@pytest.mark.slow
@pytest.mark.ssh
def test_apply_as_a_non_root_user_becomes_root_for_the_step_and_for_its_restore(nonroot_lab: Lab) -> None:
    """Before: the end-of-play restore ran without the step's become, so on a real host (and on this root-only
    sandbox) the scheduler stayed changed after the study: "cannot create .../queue/scheduler: Permission
    denied"."""
    sandbox = nonroot_lab.sandbox(nonroot_lab.hosts[0].name)
    add_devices(sandbox, ["/dev/mapper/violin_lun1"])
    inv, runs = nonroot_lab.root / "hosts.yml", nonroot_lab.root / "runs"
    nonroot_lab.write_inventory(inv)
    outcomes = {}
    for become in ("false", "true"):
        plan = nonroot_lab.root / f"plan_{become}.yaml"
        plan.write_text(PLAN.format(become=become))
        code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"])
        latest = newest_run(runs)
        results = {r["title"]: (r["status"], r["msg"]) for r in json.loads((latest / "results.json").read_text())}
        outcomes[become] = code, results
        assert active(sandbox, "dm-0") == "mq-deadline"  # unchanged, or put back by the restore
    code, results = outcomes["false"]
    assert code != 0 and "Permission denied" in results["io_scheduler"][1]
    code, results = outcomes["true"]
    assert code == 0, results
    assert results["io_scheduler"][0] == "changed" and results["restore io_scheduler"][0] == "changed"
