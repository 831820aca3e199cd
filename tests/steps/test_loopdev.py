"""Real kernel parts where the machine has them: a loop device (losetup) is a real block device with a real
sysfs queue. The io_scheduler step sets its scheduler through /sys/block/loopN/queue/scheduler and puts it
back; the destructive-write guard reads real filesystem and partition signatures (mkfs.ext4, an MBR) off it.
Skipped where there are no loop devices, except under CI=true when /dev/loop-control exists: there a skip would
hide that the real block layer went untested."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.status import Status
from planner.steps.base import StepContext
from planner.steps.guard import check_destructive
from planner.steps.prep_os import IoScheduler, parse_scheduler
from planner.transport.connection import LocalConnection

pytestmark = [pytest.mark.slow]


def _unavailable() -> str | None:
    if shutil.which("losetup") is None:
        return "losetup is not installed"
    if not Path("/dev/loop-control").exists():
        return "no /dev/loop-control (no loop driver)"
    if os.geteuid() != 0:
        return "loop devices need root"
    return None


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    """A fresh 32 MiB loop device (its backing file in tmp_path), detached after the test."""
    why = _unavailable()
    if why and os.environ.get("CI") == "true" and Path("/dev/loop-control").exists():
        pytest.fail(f"CI has /dev/loop-control but no usable loop device: {why}")
    if why:
        pytest.skip(why)
    backing = tmp_path / "disk.img"
    with backing.open("wb") as f:
        f.truncate(32 << 20)
    r = subprocess.run(["losetup", "--find", "--show", str(backing)], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"losetup failed under CI: {r.stderr.strip()}")
        pytest.skip(f"losetup refused here: {r.stderr.strip()}")
    dev = r.stdout.strip()
    queue = Path(f"/sys/block/{Path(dev).name}/queue/scheduler")
    before = queue.read_text() if queue.exists() else ""
    try:
        yield dev
    finally:
        if before:  # whatever the test did, the kernel's choice comes back before the device goes
            active, _ = parse_scheduler(before)
            subprocess.run(["sh", "-c", 'echo "$1" > "$2"', "sh", active, str(queue)], check=False, timeout=10)
        subprocess.run(["losetup", "-d", dev], check=False, timeout=30)


def ctx(*, destructive: bool = False, tmp: Path) -> StepContext:
    host = Host("loophost", "localhost", user="root", connection="local", vars={})  # no planner_root: real /sys
    return StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].prep[0]",
                       plan_dir=tmp, artifacts=tmp, run_dir=tmp, log=lambda *_: None, diff_mode=True,
                       destructive=destructive)


def test_the_scheduler_is_set_through_real_sysfs_and_put_back(loop: str, tmp_path: Path) -> None:
    queue = Path(f"/sys/block/{Path(loop).name}/queue/scheduler")
    active, offered = parse_scheduler(queue.read_text())
    other = next((s for s in offered if s != active), None)
    if other is None:
        pytest.skip(f"the kernel offers one scheduler only for {loop}: {queue.read_text().strip()}")
    c = ctx(tmp=tmp_path)
    step = IoScheduler({"devices": [loop], "scheduler": other})
    assert step.check(c).changed
    saved = step.save(c)
    assert step.apply(c).status is Status.CHANGED
    assert parse_scheduler(queue.read_text())[0] == other, "the kernel took it"
    assert step.check(c).changed is False
    assert step.revert(c, saved).status is Status.CHANGED
    assert parse_scheduler(queue.read_text())[0] == active


def test_the_guard_reads_real_signatures_off_a_block_device(loop: str, tmp_path: Path) -> None:
    check_destructive(ctx(destructive=True, tmp=tmp_path), [loop], what="test write")  # blank: allowed
    subprocess.run(["mkfs.ext4", "-F", "-q", loop], check=True, capture_output=True, timeout=60)
    with pytest.raises(StepError) as e:
        check_destructive(ctx(destructive=True, tmp=tmp_path), [loop], what="test write")
    assert f"{loop} holds" in str(e.value) and "ext4" in str(e.value)
    subprocess.run(["wipefs", "-a", "-q", loop], check=True, capture_output=True, timeout=30)
    with open(loop, "r+b") as f:  # an MBR partition table: the boot signature at 510
        f.seek(510)
        f.write(b"\x55\xaa")
    with pytest.raises(StepError) as e:
        check_destructive(ctx(destructive=True, tmp=tmp_path), [loop], what="test write")
    assert f"{loop} holds" in str(e.value), str(e.value)
    subprocess.run(["wipefs", "-a", "-q", loop], check=True, capture_output=True, timeout=30)
    check_destructive(ctx(destructive=True, tmp=tmp_path), [loop], what="test write")  # blank again
