"""The destructive guard sees what a lab's Oracle host holds: datafile headers, the database's own files and ASM
disks (V$DATAFILE, V$ASM_DISK), open handles, mounts and holders/ (planner/steps/guard.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from prep_helpers import context

from planner.errors import StepError
from planner.host import Host
from planner.rehearsal.standins import install_standins, update_state
from planner.steps.base import StepContext
from planner.steps.guard import byte_signatures, check_destructive, signatures
from planner.transport.connection import LocalConnection

SIZE = 1 << 20


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.truncate(SIZE)
    return path


def plain(root: Path) -> StepContext:
    """A host with no Oracle in the inventory (no oracle_sid): the guard asks no database."""
    host = Host("g", "localhost", connection="local", vars={"planner_root": str(root)})
    return StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].workloads[0]",
                       plan_dir=root, artifacts=root, run_dir=root, log=lambda *_: None, destructive=True)


def _datafile_header(path: Path, block: int = 8192) -> None:
    """Block 0 as a Linux x86-64 Oracle data file has it (OS block header: format byte 0xa2, block size at 20,
    magic 0x7A7B7C7D little-endian at 28), block 1 of type 0x0b (the file header)."""
    with path.open("r+b") as f:
        f.seek(1)
        f.write(b"\xa2")
        f.seek(20)
        f.write(block.to_bytes(4, "little") + (12800).to_bytes(4, "little") + b"\x7d\x7c\x7b\x7a")
        f.seek(block)
        f.write(b"\x0b\xa2")


def test_an_oracle_datafile_header_is_recognised() -> None:
    head = bytearray(16384)
    head[20:24] = (8192).to_bytes(4, "little")
    head[28:32] = b"\x7d\x7c\x7b\x7a"
    head[8192] = 0x0B
    (sig,) = byte_signatures(bytes(head))
    assert sig.what == "Oracle datafile header" and "block size 8192" in sig.detail and "type 0x0b" in sig.detail
    assert byte_signatures(bytes(16384)) == []


@pytest.mark.slow
def test_orion_write_on_a_dbf_file_with_destructive_true_is_refused(tmp_path: Path) -> None:
    """The SSD plan's ORION targets are .dbf files: marked destructive, they still hold a database's data."""
    root = tmp_path / "host"
    dbf = _file(root / "u02/oradata/ssd01.dbf")
    _datafile_header(dbf)
    ctx = plain(root)
    with pytest.raises(StepError, match="Oracle datafile header") as e:
        check_destructive(ctx, ["/u02/oradata/ssd01.dbf"], what="ORION -write 30")
    assert "magic 0x7A7B7C7D" in str(e.value)


@pytest.mark.slow
def test_the_databases_own_files_and_asm_disks_are_refused_even_blank(tmp_path: Path) -> None:
    root = tmp_path / "host"
    install_standins(root)
    _file(root / "u02/oradata/users01.dbf")
    _file(root / "dev/mapper/data01")
    update_state(root, lambda s: s["tablespaces"].__setitem__("USERS", {"files": ["/u02/oradata/users01.dbf"]}))
    ctx = context(root, destructive=True)
    assert [s.what for s in signatures(ctx, "/u02/oradata/users01.dbf")] == ["Oracle data file"]
    assert [s.what for s in signatures(ctx, "/dev/mapper/data01")] == ["ASM disk of the database"]
    _file(root / "dev/mapper/lun01")  # a CANDIDATE disk of no group: blank, free
    assert signatures(ctx, "/dev/mapper/lun01") == []
    update_state(root, lambda s: s["database"].__setitem__("status", "SHUTDOWN"))
    (sig,) = signatures(ctx, "/dev/mapper/lun01")  # a database that cannot say which files are its own
    assert sig.what == "database files unknown" and "ORA-01034" in sig.detail


@pytest.mark.slow
def test_a_file_held_open_and_a_device_with_holders_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "host"
    held = _file(root / "data/held.dat")
    ctx = plain(root)
    with held.open("rb"):  # this process holds it open, as a database writer would
        (sig,) = signatures(ctx, "/data/held.dat")
    assert sig.what == "open file" and "holds it open" in sig.detail
    assert signatures(ctx, "/data/held.dat") == []
    _file(root / "dev/sdb")
    (root / "sys/block/sdb/holders/dm-0").mkdir(parents=True)  # sdb is a path of multipath map dm-0
    (sig,) = signatures(ctx, "/dev/sdb")
    assert sig.what == "device in use" and "dm-0 is built on it" in sig.detail


@pytest.mark.slow
def test_a_mounted_loop_device_is_refused(tmp_path: Path) -> None:
    img = _file(tmp_path / "img")
    r = subprocess.run(["losetup", "--find", "--show", str(img)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no loop device here: {r.stderr.strip()}")
    loop = r.stdout.strip()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", loop], check=True, capture_output=True, timeout=60)
        subprocess.run(["mount", loop, str(mnt)], check=True, capture_output=True, timeout=60)
        try:
            found = {s.what: s.detail for s in signatures(plain(Path("/")), loop)}
        finally:
            subprocess.run(["umount", str(mnt)], check=False, capture_output=True, timeout=60)
    finally:
        subprocess.run(["losetup", "-d", loop], check=False, capture_output=True, timeout=60)
    assert found["mounted filesystem"] == f"/proc/self/mounts: mounted on {mnt}"
