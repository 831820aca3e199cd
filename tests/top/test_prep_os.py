"""io_scheduler, sysctl, hugepages on a sandbox host (fake sysfs and /proc, local transport)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import WWID
from prep_helpers import context

from planner.errors import StepError
from planner.extras import SchedulersSet
from planner.status import Status
from planner.steps.prep_os import Hugepages, IoScheduler, Sysctl, choose, parse_scheduler


def sched(root: Path, dev: str) -> str:
    return (root / "sys/block" / dev / "queue/scheduler").read_text()


def test_blk_mq_mapping_and_parsing() -> None:
    assert parse_scheduler("[mq-deadline] kyber bfq none\n") == ("mq-deadline", ("mq-deadline", "kyber", "bfq", "none"))
    assert choose("noop", ("mq-deadline", "none")) == ("none", "noop is none on this blk-mq kernel")
    assert choose("deadline", ("mq-deadline", "none"))[0] == "mq-deadline"  # type: ignore[index]
    assert choose("cfq", ("noop", "deadline", "cfq")) == ("cfq", "")
    assert choose("kyber", ("none",)) is None


@pytest.mark.slow
def test_multipath_alias_resolves_to_its_paths_and_maps_noop(prep_root: Path) -> None:
    step = IoScheduler({"devices": "/dev/mapper/violin_lun1", "scheduler": "noop"})
    ctx = context(prep_root)
    change = step.check(ctx)
    assert change.changed and "noop is none on this blk-mq kernel" in change.msg
    assert change.diff == ("sdb: mq-deadline -> none (noop is none on this blk-mq kernel)\n"
                           "sdc: mq-deadline -> none (noop is none on this blk-mq kernel)\n")
    assert sched(prep_root, "sdb") == "[mq-deadline] kyber bfq none\n"  # check changed nothing
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and "noop is none" in out.msg
    assert (parse_scheduler(sched(prep_root, "sdb"))[0] == "none"
            and parse_scheduler(sched(prep_root, "sdc"))[0] == "none")
    assert step.apply(ctx).status is Status.OK
    assert step.revert(ctx, saved).status is Status.CHANGED
    assert sched(prep_root, "sdb") == "[mq-deadline] kyber bfq none\n"
    assert step.revert(ctx, saved).status is Status.OK


@pytest.mark.slow
def test_wwid_glob_and_classic_kernel(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = IoScheduler({"devices": [WWID, "/dev/sd[d]"], "scheduler": "deadline"})
    out = step.apply(ctx)
    assert isinstance(out.extra, SchedulersSet)
    assert dict(out.extra.devices) == {"sdb": "mq-deadline", "sdc": "mq-deadline", "sdd": "deadline"}
    assert sched(prep_root, "sdd") == "noop [deadline] cfq\n"  # the old kernel offers deadline itself
    assert "dm-0 keeps none" in out.msg  # the dm device does not offer it: left alone, and said so


@pytest.mark.slow
def test_missing_device_fails_before_anything_changes(prep_root: Path) -> None:
    step = IoScheduler({"devices": ["sdb", "/dev/mapper/nope", "sdz"], "scheduler": "none"})
    with pytest.raises(StepError, match=r"not found: /dev/mapper/nope, /dev/sdz") as e:
        step.apply(context(prep_root))
    assert "nothing was changed" in str(e.value)
    assert sched(prep_root, "sdb") == "[mq-deadline] kyber bfq none\n"


@pytest.mark.parametrize("bad", ["sdb; rm -rf /", "/dev/../etc/passwd", "$(reboot)", "sd`id`", "/dev/sdb|x",
                                 "/etc/passwd", "sdb\nsdc", "../sdb"])
def test_device_injection_refused(prep_root: Path, bad: str) -> None:
    log: list = []
    with pytest.raises(StepError, match="refused device name"):
        IoScheduler({"devices": [bad], "scheduler": "none"}).check(context(prep_root, log=log))
    assert log == []  # refused before any command ran


@pytest.mark.slow
def test_persist_writes_and_restores_a_udev_rule(prep_root: Path) -> None:
    """By the disk's WWID (issue 16 row 7): a disk without one is refused, never given a KERNEL=="sdb" rule."""
    rule = prep_root / "etc/udev/rules.d/60-planner-scheduler.rules"
    ctx = context(prep_root)
    step = IoScheduler({"devices": ["sdb"], "scheduler": "kyber", "persist": True})
    with pytest.raises(StepError, match="stable key for sdb"):
        step.check(ctx)
    (prep_root / "sys/block/sdb/device").mkdir()
    (prep_root / "sys/block/sdb/device/wwid").write_text("naa.600a0b80001234560000abcd12345678\n")
    saved = step.save(ctx)
    step.apply(ctx)
    assert ('ATTRS{wwid}=="naa.600a0b80001234560000abcd12345678", ATTR{queue/scheduler}="kyber"'
            in rule.read_text())
    assert "KERNEL" not in rule.read_text()
    assert step.check(ctx).changed is False
    step.revert(ctx, saved)
    assert not rule.exists()


@pytest.mark.slow
def test_sysctl_set_idempotent_restore(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = Sysctl({"vm.swappiness": 1, "kernel.sem": "250 32000 100 256"})
    assert step.check(ctx).diff == "vm.swappiness: 60 -> 1\nkernel.sem: 250 32000 100 128 -> 250 32000 100 256\n"
    saved = step.save(ctx)
    assert step.apply(ctx).status is Status.CHANGED
    assert (prep_root / "proc/sys/vm/swappiness").read_text() == "1\n"
    assert step.apply(ctx).status is Status.OK
    assert step.revert(ctx, saved).status is Status.CHANGED
    assert (prep_root / "proc/sys/vm/swappiness").read_text() == "60\n"
    assert Sysctl({"vm.swappiness": 60}).check(ctx).changed is False


@pytest.mark.slow
def test_sysctl_refuses_unknown_and_injected(prep_root: Path) -> None:
    ctx = context(prep_root)
    with pytest.raises(StepError, match="unknown kernel parameter.*vm.nope"):
        Sysctl({"vm.nope": 1}).apply(ctx)
    with pytest.raises(StepError, match="refused sysctl name"):
        Sysctl({"../../etc/passwd": 1}).check(ctx)
    with pytest.raises(StepError, match="refused value"):
        Sysctl({"vm.swappiness": "1\n2"}).check(ctx)
    Sysctl({"vm.swappiness": "-n $(id)"}).apply(ctx)  # odd but harmless: written literally, never run
    assert (prep_root / "proc/sys/vm/swappiness").read_text() == "-n $(id)\n"


@pytest.mark.slow
def test_hugepages_by_size_uses_the_page_size(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = Hugepages({"size": "1G"})
    saved = step.save(ctx)
    assert step.check(ctx).diff == "vm.nr_hugepages: 0 -> 512\n"
    step.apply(ctx)
    assert (prep_root / "proc/sys/vm/nr_hugepages").read_text() == "512\n"
    assert Hugepages({"count": 512}).check(ctx).changed is False
    step.revert(ctx, saved)
    assert (prep_root / "proc/sys/vm/nr_hugepages").read_text() == "0\n"
