"""Block devices on a host as io_scheduler sees them: where the I/O scheduler counts, and udev rules by stable keys.

Where the scheduler counts:

- dm-multipath is *request-based* (since 2.6.31; blk-mq "dm-mq" since 4.x): the dm device has a request queue
  with its own elevator, and dm-rq hands each scheduled request to a path with blk_insert_cloned_request(),
  whose comment reads "Since we have a scheduler attached on the top device, bypass a potential scheduler on
  the bottom device for insert" (block/blk-core.c to 5.15, block/blk-mq.c from 5.16; only zoned sequential
  writes differ, 6.x). Kernel commit 76e33fe4e2c4 ("dm mpath: reinstate bio-based support", 2016) gives the
  reason: request-based multipath leverages "block core's request-based IO schedulers ... _before_ DM multipath
  would make the decision on where to steer the IO". Red Hat, "How to set a permanent I/O scheduler on one or
  more specific devices using udev" (https://access.redhat.com/solutions/3756041, RHEL 7-9): "When using
  multipath devices, starting on RHEL6, only the scheduler of the DM device (i.e. /sys/block/dm-X/queue/
  scheduler) is applicable and takes effect." Its ``queue/scheduler`` offers real choices
  (Documentation/block/queue-sysfs.rst "scheduler (RW)"), e.g. "[mq-deadline] kyber bfq none".
- bio-based dm targets (linear, striped: LVM; multipath with queue_mode bio) have no elevator ("none" is all
  they show) and pass bios down: there the slaves' schedulers are the ones used.

So: a request-based dm device is set itself and its paths are left alone; a path device named in a plan that is
a slave of a request-based dm device is set on that dm device (a storage engineer names the LUN's path, means
the LUN: writing the path would change nothing the benchmark measures); a bio-based dm device is walked down to
its slaves.

Persistence (udev(7): ENV{key} matches a device property, ATTRS{file} a sysfs attribute of the device or a
parent): a kernel name (sdX, dm-N) is assigned in discovery order and can change at the next boot ("Device names
such as sdN are not guaranteed to be persistent across reboots", the same Red Hat solution), so rules
match DM_UUID (dm/uuid: "mpath-<wwid>" for multipath, set by 10-dm.rules), else DM_NAME, or, for a plain SCSI
disk, the SCSI device's ``wwid`` attribute (VPD page 0x83, the WWID multipath and scsi_id derive theirs from)
read from the very sysfs file the rule matches, so no translation (scsi_id's "3"+NAA, ID_WWN's truncation) can
make the rule miss.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

RULE_FILE = "/etc/udev/rules.d/60-planner-scheduler.rules"
RULE_HEADER = ("# written by planner io_scheduler: one rule per device, matched by a stable key "
               "(DM_UUID, DM_NAME or the SCSI WWID); planner's restore removes exactly the rules it wrote")
# A value that is not a udev glob and cannot end the quoted string: anything else is refused (no rule).
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9 ._:@+=,/-]+$")
_KEY = re.compile(r'(ENV\{DM_UUID\}|ENV\{DM_NAME\}|ATTRS\{wwid\})=="([^"]*)"')

# $1 = sandbox root ('' on a real host), then device specs (validated, no spaces). Globs expand here.
# S: scheduler text; D: dm name and uuid; W: the SCSI wwid; L: a slave; H: a dm device holding a named one.
# The sysfs attributes are one line each: read with the shell's `read`, not a `cat` per device (this runs in
# every warm play's one exec).
RESOLVE = r"""
IFS='
'
root=$1; shift
info() {
  d="$root/sys/block/$1"
  q=; [ -r "$d/queue/scheduler" ] && read -r q <"$d/queue/scheduler"
  printf 'S\t%s\t%s\n' "$1" "$q"
  if [ -d "$d/dm" ]; then
    n=; u=; { read -r n <"$d/dm/name"; read -r u <"$d/dm/uuid"; } 2>/dev/null
    printf 'D\t%s\t%s\t%s\n' "$1" "$n" "$u"
  fi
  if [ -r "$d/device/wwid" ]; then w=; read -r w <"$d/device/wwid"; printf 'W\t%s\t%s\n' "$1" "$w"; fi
}
emit() {
  info "$1"
  [ "$2" -lt 3 ] && [ -d "$root/sys/block/$1/slaves" ] || return 0
  for s in "$root/sys/block/$1/slaves"/*; do
    [ -e "$s" ] || [ -L "$s" ] || continue
    printf 'L\t%s\t%s\n' "$1" "${s##*/}"
    emit "${s##*/}" $(($2 + 1))
  done
}
holders() {
  for h in "$root"/sys/block/dm-*/slaves/"$1"; do
    [ -e "$h" ] || [ -L "$h" ] || continue
    h=${h%/slaves/*}; h=${h##*/}
    printf 'H\t%s\t%s\n' "$1" "$h"
    emit "$h" 0
  done
}
for spec in "$@"; do
  found=0
  for f in $root$spec; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    n=0; while [ -L "$f" ] && [ $n -lt 40 ]; do
      n=$((n+1)); l=$(readlink -- "$f") || continue 2
      case $l in /*) f=$root$l;; *) f=${f%/*}/$l;; esac
    done
    [ -e "$f" ] || [ -d "$root/sys/block/${f##*/}" ] || continue  # a link to a name the kernel has a device of
    k=${f##*/}
    found=1
    if [ -d "$root/sys/block/$k" ]; then printf 'M\t%s\t%s\n' "$spec" "$k"; emit "$k" 0; holders "$k"
    else printf 'N\t%s\t%s\n' "$spec" "$k"; fi
  done
  [ $found = 1 ] || printf 'X\t%s\n' "$spec"
done
"""


@dataclass(frozen=True, slots=True)
class BlockDev:
    """One /sys/block entry as RESOLVE read it."""

    name: str
    scheduler: str = ""  # the queue/scheduler text ("" when the device has none)
    dm_name: str = ""
    dm_uuid: str = ""
    is_dm: bool = False
    wwid: str = ""  # device/wwid of a SCSI disk
    slaves: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()  # dm devices this one is a path of

    @property
    def request_based(self) -> bool:
        """A dm device with an elevator of its own (multipath): more on offer than "none"."""
        return self.is_dm and any(w.strip("[]") != "none" for w in self.scheduler.split())

    @property
    def label(self) -> str:
        return f"{self.name} ({self.dm_name})" if self.dm_name else self.name

    def udev_match(self) -> str | None:
        """The rule's stable match for this device, or None when sysfs gives no stable key (or an unsafe one)."""
        for key, value in (("ENV{DM_UUID}", self.dm_uuid), ("ENV{DM_NAME}", self.dm_name)) if self.is_dm else \
                (("ATTRS{wwid}", self.wwid),):
            if value.strip() and _SAFE_VALUE.fullmatch(value.strip()):
                return f'{key}=="{value.strip()}"'
        return None


@dataclass(frozen=True, slots=True)
class Resolved:
    """What RESOLVE found: each spec's devices, every device seen, and the specs that matched nothing."""

    matches: Mapping[str, tuple[str, ...]]
    devices: Mapping[str, BlockDev]
    missing: tuple[str, ...]


def parse_resolve(text: str) -> Resolved:
    matches: dict[str, list[str]] = {}
    fields: dict[str, dict[str, object]] = {}
    missing: list[str] = []

    def dev(name: str) -> dict[str, object]:
        return fields.setdefault(name, {"name": name, "slaves": [], "holders": []})

    for line in text.splitlines():
        kind, *f = line.split("\t")
        if kind == "M":
            matches.setdefault(f[0], []).append(f[1])
        elif kind == "S":
            dev(f[0])["scheduler"] = f[1] if len(f) > 1 else ""
        elif kind == "D":
            dev(f[0]).update(is_dm=True, dm_name=(f + ["", ""])[1], dm_uuid=(f + ["", "", ""])[2])
        elif kind == "W":
            dev(f[0])["wwid"] = f[1] if len(f) > 1 else ""
        elif kind in ("L", "H"):
            parent, child = (f[0], f[1]) if kind == "L" else (f[1], f[0])
            for lst, item in ((dev(parent)["slaves"], child), (dev(child)["holders"], parent)):
                assert isinstance(lst, list)
                if item not in lst:
                    lst.append(item)
        elif kind == "X":
            missing.append(f[0])
        elif kind == "N":
            missing.append(f"{f[0]} ({f[1]})")
    devices = {}
    for name, d in fields.items():
        slaves, holders = d.pop("slaves"), d.pop("holders")
        assert isinstance(slaves, list) and isinstance(holders, list)
        devices[name] = BlockDev(**d, slaves=tuple(slaves), holders=tuple(holders))  # type: ignore[arg-type]
    return Resolved({k: tuple(v) for k, v in matches.items()}, devices, tuple(missing))


def rule_line(match: str, scheduler: str) -> str:
    return f'ACTION=="add|change", SUBSYSTEM=="block", {match}, ATTR{{queue/scheduler}}="{scheduler}"'


def rule_key(line: str) -> str | None:
    m = _KEY.search(line)
    return f'{m.group(1)}=="{m.group(2)}"' if m and not line.lstrip().startswith("#") else None


def merge_rules(have: str | None, mine: Mapping[str, str]) -> str:
    """The rule file with ``mine`` (match -> line) in place of any rule for the same device; others kept."""
    lines = [ln for ln in (have or RULE_HEADER + "\n").splitlines() if rule_key(ln) not in mine]
    return "\n".join([*lines, *mine.values()]) + "\n"


def unmerge_rules(have: str | None, wrote: Iterable[str], replaced: Mapping[str, str]) -> str:
    """Restore: drop exactly the lines planner wrote and put back the ones they replaced."""
    gone = set(wrote)
    lines = [ln for ln in (have or "").splitlines() if ln not in gone]
    lines += [ln for ln in replaced.values() if ln not in lines]
    return "\n".join(lines) + "\n"


def has_rules(text: str | None) -> bool:
    """Any line that is not blank or a comment."""
    return any(ln.strip() and not ln.lstrip().startswith("#") for ln in (text or "").splitlines())


def rules_for(have: str | None, keys: Iterable[str]) -> dict[str, str]:
    """The lines of ``have`` that match one of ``keys`` (what planner's rules will replace)."""
    wanted = set(keys)
    return {k: ln for ln in (have or "").splitlines() if (k := rule_key(ln) or "") in wanted}
