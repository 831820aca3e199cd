"""The destructive-write guard (planner/steps/guard.py) on sandbox "devices": plain files under <root>/dev."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.steps.base import StepContext
from planner.steps.guard import byte_signatures, check_destructive, check_path, signatures
from planner.transport.connection import LocalConnection

SIZE = 4 * 1024 * 1024


def make_ctx(root: Path, *, destructive: bool = True, allow: tuple[str, ...] = ()) -> StepContext:
    host = Host("g", "localhost", connection="local", vars={"planner_root": str(root)})
    run = root.parent / "run"
    run.mkdir(exist_ok=True)
    return StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].workloads[0]",
                       plan_dir=root.parent, artifacts=run, run_dir=run, log=lambda *_: None,
                       destructive=destructive, allow_destroy=allow)


def blank(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.truncate(SIZE)
    return path


def poke(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "host"
    dev = r / "dev"
    blank(dev / "blank")
    ext4 = blank(dev / "ext4")
    if shutil.which("mkfs.ext4"):
        subprocess.run(["mkfs.ext4", "-F", "-q", str(ext4)], check=True, capture_output=True, timeout=30)
    else:  # e2fsprogs missing: the superblock magic alone
        poke(ext4, 1080, b"\x53\xef")
    poke(blank(dev / "mbr"), 510, b"\x55\xaa")
    gpt = blank(dev / "gpt")
    poke(gpt, 510, b"\x55\xaa")  # protective MBR
    poke(gpt, 512, b"EFI PART")
    asm = blank(dev / "asm")
    # the disk header block as kfed prints it: kfbh (32 bytes), then kfdhdb: driver.provstr at +0x000 (the
    # ASMLib label after ORCLDISK), dskname at +0x028, grpname at +0x048, fgname at +0x068
    poke(asm, 32, b"ORCLDISKDATA_0000")  # kfdhdb.driver.provstr
    poke(asm, 72, b"DATA_0000")  # kfdhdb.dskname
    poke(asm, 104, b"DATA")  # kfdhdb.grpname
    poke(asm, 136, b"DATA_0000")  # kfdhdb.fgname
    poke(blank(dev / "lvm"), 512, b"LABELONE")
    poke(blank(dev / "swap"), 4086, b"SWAPSPACE2")
    return r


def refused(ctx: StepContext, dev: str) -> str:
    with pytest.raises(StepError) as e:
        check_destructive(ctx, [dev], what="test write")
    return str(e.value)


@pytest.mark.slow
def test_blank_device_is_allowed_only_when_destructive(root: Path) -> None:
    check_destructive(make_ctx(root), ["/dev/blank"], what="test write")  # no exception
    msg = refused(make_ctx(root, destructive=False), "/dev/blank")
    assert "not marked destructive" in msg and "/dev/blank" in msg and "destructive: true" in msg


@pytest.mark.slow
def test_ext4_is_refused_with_blkid_evidence(root: Path) -> None:
    msg = refused(make_ctx(root), "/dev/ext4")
    assert "/dev/ext4 holds" in msg and "0xEF53 at offset 1080" in msg
    if shutil.which("mkfs.ext4") and shutil.which("blkid"):
        assert "ext4 filesystem (blkid: " in msg and "TYPE=ext4" in msg and "UUID=" in msg
    assert "allow_destroy" in msg


@pytest.mark.slow
@pytest.mark.parametrize(("dev", "evidence"), [
    ("/dev/mbr", "dos partition table"),
    ("/dev/gpt", "gpt partition table"),
    ("/dev/asm", "ASM disk header (ORCLDISK at offset 32, disk group DATA"),
    ("/dev/lvm", "LVM physical volume (LABELONE at offset 512)"),
    ("/dev/swap", "swap space (SWAPSPACE2 at offset 4086)"),
])
def test_signed_devices_are_refused_with_evidence(root: Path, dev: str, evidence: str) -> None:
    msg = refused(make_ctx(root), dev)
    assert evidence in msg, msg


@pytest.mark.slow
def test_allow_destroy_lets_a_signed_device_through(root: Path) -> None:
    ctx = make_ctx(root, allow=("/dev/ext4", "/dev/asm"))
    check_destructive(ctx, ["/dev/ext4", "/dev/asm", "/dev/blank"], what="test write")
    # one refused device among allowed ones still refuses the whole write, naming only it
    msg = refused(make_ctx(root, allow=("/dev/ext4",)), "/dev/mbr")
    assert "/dev/mbr holds" in msg and "/dev/ext4" not in msg


@pytest.mark.slow
def test_missing_device_counts_as_unknown_content(root: Path) -> None:
    msg = refused(make_ctx(root), "/dev/nothere")
    assert "cannot read" in msg and "no such file" in msg


@pytest.mark.slow
@pytest.mark.parametrize("bad", ["dev/sdb", "/dev/../etc/passwd", "/dev/sdb; rm -rf /", "/dev/$(id)", "/dev/a b"])
def test_unsafe_paths_are_refused_before_any_command(root: Path, bad: str) -> None:
    with pytest.raises(StepError, match="refusing device path"):
        check_path(bad)
    with pytest.raises(StepError, match="refusing device path"):
        check_destructive(make_ctx(root, destructive=False), [bad], what="test write")


def test_byte_signatures_pure() -> None:
    assert byte_signatures(bytes(8192)) == []
    head = bytearray(8192)
    head[0:4] = b"XFSB"
    assert [s.what for s in byte_signatures(bytes(head))] == ["xfs filesystem"]
    head = bytearray(8192)
    head[32:40] = b"ORCLDISK"
    head[72:81] = b"RECO_0003"  # kfdhdb.dskname (kfed: 0x028 past the 32-byte block header)
    head[104:108] = b"RECO"  # kfdhdb.grpname (0x048)
    (sig,) = byte_signatures(bytes(head))
    # the group is the group, the disk is the disk (the disk's name once passed for its group)
    assert sig.what == "ASM disk header" and sig.detail == "ORCLDISK at offset 32, disk group RECO, disk RECO_0003"


@pytest.mark.slow
def test_signatures_lists_everything_found(root: Path) -> None:
    found = signatures(make_ctx(root), "/dev/asm")
    assert any(s.what == "ASM disk header" for s in found)
    assert signatures(make_ctx(root), "/dev/blank") == []
