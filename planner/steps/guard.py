"""The destructive-write guard: a workload may write to raw devices only when the plan says so, twice.

A step that would overwrite devices (ORION ``write > 0``, fio writes to a block device) must carry
``destructive: true``, and every device must either be blank or be listed in the plan's ``allow_destroy``.
A device that holds a filesystem, a partition table, an LVM label, swap, an ASM disk header or an Oracle
datafile header is refused, and the message shows the evidence. Evidence comes from ``blkid -p`` and ``wipefs
-n`` when the host has them, plus planner's own look at the first bytes, which also works on the plain files
that play devices in a sandbox (and on hosts without util-linux). A target that is in use is refused too: a
data file or ASM disk of the host's database (V$DATAFILE, V$ASM_DISK, when the inventory names an Oracle SID),
a file some process holds open (/proc/<pid>/fd), a mounted device (/proc/self/mounts) and a device that
another one is built on (sysfs ``holders/``: a multipath map, LVM, md).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.errors import PlannerError, StepError

if TYPE_CHECKING:  # planner.steps imports this module: no import cycle at run time
    from planner.steps.base import StepContext

# Every signature below lies within the first 64 KiB (swap on 64 KiB pages ends at 65536), so that is all
# we read: reading 1 MiB as hex over SSH would cost 3 MiB of text per device for nothing.
PROBE_BYTES = 65536
_SAFE_PATH = re.compile(r"^/[A-Za-z0-9_./:+@,=-]*$")
_SBIN_PATH = 'PATH="$PATH:/sbin:/usr/sbin"; export PATH; '
_BLKID = _SBIN_PATH + 'command -v blkid >/dev/null 2>&1 || exit 127; exec blkid -p -o export "$1"'
_WIPEFS = _SBIN_PATH + 'command -v wipefs >/dev/null 2>&1 || exit 127; exec wipefs -n -i -p -O TYPE,OFFSET,USAGE "$1"'
_BYTES = ('test -e "$1" || { echo "no such file or device" >&2; exit 3; }; '
          'head -c "$2" "$1" | od -An -v -tx1')


@dataclass(frozen=True, slots=True)
class Signature:
    """One piece of evidence that a device holds data."""

    what: str  # "ext4 filesystem", "dos partition table", "ASM disk header"
    detail: str  # "blkid: TYPE=ext4 UUID=...", "ORCLDISK at offset 32, disk group DATA"

    def __str__(self) -> str:
        return f"{self.what} ({self.detail})"


def check_path(device: str) -> None:
    """Refuse a device path that is relative, climbs with '..' or holds shell metacharacters."""
    if not _SAFE_PATH.match(device) or ".." in device.split("/"):
        raise StepError(f"refusing device path {device!r}",
                        hint="give an absolute path of letters, digits and _ . / : + @ , = - without '..'")


def is_device(ctx: StepContext, path: str) -> bool:
    """A target that is a device: under /dev (also in a sandbox, where it is a plain file) or a block device."""
    if path.startswith("/dev/"):
        return True
    r = ctx.run(["test", "-b", ctx.path(path)], check=False)
    return r.exit_code == 0


def check_destructive(ctx: StepContext, devices: Sequence[str], *, what: str) -> None:
    """Raise StepError unless ``what`` may write to every one of ``devices`` on this host.

    Allowed when the step has ``destructive: true`` and each device is either blank or listed in the plan's
    ``allow_destroy``. Device paths are system paths (mapped into the host's sandbox with ctx.path).
    """
    for dev in devices:
        check_path(dev)
    if not devices:
        return
    names = ", ".join(devices)
    if not ctx.destructive:
        raise StepError(f"{what} would overwrite data on {names} and the step is not marked destructive",
                        hint="add 'destructive: true' to the step if destroying the data on these devices is intended")
    refused: list[str] = []
    for dev in devices:
        if dev in ctx.allow_destroy:
            continue  # the plan names it: whatever it holds may go
        found = signatures(ctx, dev)
        if found:
            refused.append(f"{dev} holds " + "; ".join(str(s) for s in found))
    if refused:
        raise StepError(f"{what} refused: " + " | ".join(refused),
                        hint="wipe the device yourself, or list it under the plan's allow_destroy: if its data "
                             "may be destroyed")


def signatures(ctx: StepContext, device: str) -> list[Signature]:
    """Everything that says ``device`` holds data (empty when it looks blank). Unreadable counts as evidence."""
    check_path(device)
    target = ctx.path(device)
    found: list[Signature] = []
    r = ctx.sh(_BYTES, target, str(PROBE_BYTES), check=False)
    if not r.ok:
        why = (r.stderr.strip() or f"exit code {r.exit_code}")[-300:]
        return [Signature("unknown content", f"cannot read {target}: {why}")]
    found += _blkid(ctx, target)
    seen = " ".join(s.detail for s in found)
    found += [s for t, s in _wipefs(ctx, target) if f"TYPE={t}" not in seen]  # wipefs adds what blkid missed
    found += byte_signatures(_hex_bytes(r.stdout))
    found += in_use(ctx, device)
    return _dedupe(found)


# One round trip: mounts of the device, processes holding it open, devices built on it (sysfs holders/). /proc is
# the real one (a sandbox's files are real files too); sysfs is the host's (``$2``, mapped into a sandbox).
_IN_USE = ('t=$(readlink -f -- "$1" 2>/dev/null) || t=$1; '
           'awk -v t="$t" -v d="$1" \'$1 == t || $1 == d { print "mount " $2 }\' /proc/self/mounts 2>/dev/null; '
           'find /proc/[0-9]*/fd -maxdepth 1 -lname "$t" 2>/dev/null | head -n 50 | while read -r f; do '
           'p=${f#/proc/}; p=${p%%/*}; printf "open %s %s\\n" "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done '
           '| sort -u | head -n 10; n=${t##*/}; '
           'for h in "$2/class/block/$n/holders"/* "$2/block/$n/holders"/*; do '
           '[ -e "$h" ] && printf "holder %s\\n" "${h##*/}"; done | sort -u | head -n 10; exit 0')


def in_use(ctx: StepContext, device: str) -> list[Signature]:
    """Evidence that ``device`` is in use now: the database's own files and disks, mounts, open handles,
    holders. What cannot be read on the database is evidence too (a file of an unknown database may be its)."""
    r = ctx.sh(_IN_USE, ctx.path(device), ctx.path("/sys"), check=False)
    out: list[Signature] = []
    for line in r.stdout.splitlines()[:40]:
        what, _, rest = line.partition(" ")
        if what == "mount":
            out.append(Signature("mounted filesystem", f"/proc/self/mounts: mounted on {rest[:200]}"))
        elif what == "open":
            out.append(Signature("open file", f"/proc/{rest[:80]} holds it open"))
        elif what == "holder":
            out.append(Signature("device in use", f"sysfs holders/: {rest[:80]} is built on it"))
    return out + database_files(ctx, device)


def database_files(ctx: StepContext, device: str) -> list[Signature]:
    """V$DATAFILE names and V$ASM_DISK paths of the host's database (only where the inventory names an Oracle
    SID: planner then knows a database runs there)."""
    if not ctx.vars.get("oracle_sid") and not ctx.host.vars.get("oracle_sid"):
        return []
    from planner.db.access import config_for, open_database  # the guard needs the database only here

    try:
        db = open_database(ctx, config_for(ctx))
        files = {str(r[0]) for r in db.query("select name from v$datafile") if r and r[0]}
        disks = {str(r[0]) for r in db.query("select path from v$asm_disk_stat where group_number <> 0") if r and r[0]}
    except PlannerError as e:
        return [Signature("database files unknown", f"V$DATAFILE / V$ASM_DISK could not be read: "
                                                    f"{str(e).splitlines()[0][:200]}")]
    if device in files:
        return [Signature("Oracle data file", f"V$DATAFILE lists {device}")]
    if device in disks:
        return [Signature("ASM disk of the database", f"V$ASM_DISK lists {device} in a disk group")]
    return []


def _hex_bytes(od_text: str) -> bytes:
    return bytes(int(tok, 16) for tok in od_text.split())


def byte_signatures(head: bytes) -> list[Signature]:
    """planner's own check of a device's first bytes (pure: works on any bytes)."""
    out: list[Signature] = []

    def at(offset: int, magic: bytes) -> bool:
        return head[offset:offset + len(magic)] == magic

    if at(28, b"\x7d\x7c\x7b\x7a") or at(28, b"\x7a\x7b\x7c\x7d"):
        out.append(Signature("Oracle datafile header", _datafile_detail(head)))
    if at(32, b"ORCLDISK"):
        # kfed's layout: kfbh (32 bytes), then kfdhdb with dskname at +0x028 and grpname at +0x048
        disk = _text(head[72:104])
        group = _text(head[104:136])
        detail = "ORCLDISK at offset 32" + (f", disk group {group}" if group else "") + (
            f", disk {disk}" if disk else "")
        out.append(Signature("ASM disk header", detail))
    if at(1080, b"\x53\xef"):
        out.append(Signature("ext2/3/4 filesystem", "superblock magic 0xEF53 at offset 1080"))
    if at(0, b"XFSB"):
        out.append(Signature("xfs filesystem", "XFSB at offset 0"))
    for offset in (512, 4096):
        if at(offset, b"EFI PART"):
            out.append(Signature("gpt partition table", f"EFI PART at offset {offset}"))
            break
    if at(510, b"\x55\xaa") and not out:
        out.append(Signature("dos partition table", "boot signature 0x55AA at offset 510"))
    for offset in (0, 512, 1024, 1536):
        if at(offset, b"LABELONE"):
            out.append(Signature("LVM physical volume", f"LABELONE at offset {offset}"))
            break
    for page in (4096, 8192, 16384, 65536):
        for magic in (b"SWAPSPACE2", b"SWAP-SPACE"):
            if at(page - 10, magic):
                out.append(Signature("swap space", f"{magic.decode()} at offset {page - 10}"))
    return out


def _datafile_detail(head: bytes) -> str:
    """Block 0 of an Oracle data file (the OS block header): magic 0x7A7B7C7D at offset 28 and the block size
    at 20; block 1 (the file header, kcvfh) starts with type 0x0b. Public dumps: a 12.1.0.2 system01.dbf ``od``
    (topic.alibabacloud.com, "Size of the datafile recorded in the Oracle database datafile header"), a
    10.2.0.2 users01.dbf byte listing (comp.databases.oracle.server, 2006-09-05) and an 11g BBED ``print kcvfh``."""
    little = head[28:32] == b"\x7d\x7c\x7b\x7a"
    size = int.from_bytes(head[20:24], "little" if little else "big")
    detail = "magic 0x7A7B7C7D at offset 28"
    if size in (2048, 4096, 8192, 16384, 32768):
        detail += f", block size {size}"
        if len(head) > size and head[size] == 0x0B:
            detail += ", file header block (type 0x0b) at block 1"
    return detail


def _text(raw: bytes) -> str:
    return raw.split(b"\x00", 1)[0].decode("ascii", errors="replace").strip()


def _blkid(ctx: StepContext, target: str) -> list[Signature]:
    r = ctx.sh(_BLKID, target, check=False)
    if r.exit_code != 0:  # 2: nothing found; 127: no blkid; others: ambivalent/unreadable (bytes decide)
        if "ambivalent" in (r.stderr + r.stdout).lower():
            return [Signature("several signatures", f"blkid: {r.stderr.strip() or r.stdout.strip()}")]
        return []
    fields = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    fields.pop("DEVNAME", None)
    shown = " ".join(f"{k}={shlex.quote(v)}" for k, v in fields.items() if k in
                     ("TYPE", "PTTYPE", "UUID", "PTUUID", "LABEL", "USAGE"))
    out: list[Signature] = []
    if "TYPE" in fields:
        usage = fields.get("USAGE", "")
        kind = "ASM disk header" if fields["TYPE"] == "oracleasm" else (
            f"{fields['TYPE']} {usage.replace('_', ' ') or 'signature'}")
        out.append(Signature(kind, f"blkid: {shown}"))
    if "PTTYPE" in fields:
        out.append(Signature(f"{fields['PTTYPE']} partition table", f"blkid: {shown}"))
    return out


def _wipefs(ctx: StepContext, target: str) -> list[tuple[str, Signature]]:
    r = ctx.sh(_WIPEFS, target, check=False)
    if not r.ok:
        return []
    out: list[tuple[str, Signature]] = []
    for line in r.stdout.splitlines():
        parts = line.split(",")
        if len(parts) >= 2 and parts[0]:
            usage = parts[2].replace("-", " ") if len(parts) > 2 and parts[2] else "signature"
            out.append((parts[0], Signature(f"{parts[0]} {usage}", f"wipefs: {parts[0]} at offset {parts[1]}")))
    return out


def _dedupe(found: list[Signature]) -> list[Signature]:
    seen: set[str] = set()
    out: list[Signature] = []
    for s in found:
        if str(s) not in seen:
            seen.add(str(s))
            out.append(s)
    return out
