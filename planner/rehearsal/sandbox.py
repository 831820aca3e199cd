"""Sandbox contents for simulated hosts (rehearsal and tests): a fake sysfs and /dev, Oracle stand-ins, kits.

A sandbox directory plays a host's "/" (the ``planner_root`` host var). Block devices are sparse files under
``dev/`` with the sysfs entries Linux would show: ``sys/block/<dev>/queue/scheduler``, a SCSI disk's
``device/wwid`` and, for a multipath alias under ``/dev/mapper``, a request-based ``dm-N`` device (its own
elevator, ``dm/name``, ``dm/uuid`` "mpath-<wwid>") whose ``slaves/`` lists its path device (which lists the dm
device in ``holders/``), as drivers/md/dm-sysfs.c and the block layer show them.

sysfs is root's: every attribute is mode 0644 (read for all, written by root only; Documentation/block/
queue-sysfs.rst "scheduler (RW)", fs/sysfs: attributes are created root-owned). The sandbox writes its files
0644 and its directories 0755 whatever the umask, so when the controller runs as root (CI) a non-root SSH user
gets "Permission denied" exactly where a real host refuses, and ``become: true`` (sudo) gets through.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from planner import kindspec
from planner.host import Host
from planner.rehearsal.kitsite import KitSite, host_line
from planner.rehearsal.standins.profile import HostProfile, profile_for
from planner.steps import REGISTRY
from planner.steps.base import KitStandIn, rehearsed

SCHEDULERS = "[mq-deadline] kyber bfq none"  # what a current blk-mq kernel shows for a SCSI disk
# and for a request-based dm-multipath map (dm-mq): it has an elevator of its own (drivers/md/dm-rq.c)
DM_SCHEDULERS = SCHEDULERS
NAA_PREFIX = "600a0b80"  # an NAA-6 vendor prefix; each sandbox LUN gets a distinct 32-hex-digit WWID
DEVICE_BYTES = 256 << 20  # sparse: costs no disk until written
_RANGE = re.compile(r"\[(\d+)-(\d+)\]")


def expand_brackets(pattern: str) -> list[str]:
    """``/dev/mapper/lun[1-3]`` -> lun1, lun2, lun3 (the glob form plans use for LUN sets)."""
    m = _RANGE.search(pattern)
    if not m:
        return [pattern]
    lo, hi = int(m.group(1)), int(m.group(2))
    out: list[str] = []
    for i in range(lo, hi + 1):
        out += expand_brackets(pattern[: m.start()] + str(i) + pattern[m.end():])
    return out


def _disk_names() -> Iterator[str]:
    for n in itertools.count(1):
        letters = ""
        while n:
            n, r = divmod(n, 26)
            letters = chr(97 + r) + letters
        yield "sd" + letters  # sdb, sdc, ... (sda is the system disk)


def add_devices(root: Path, devices: Iterable[str]) -> dict[str, str]:
    """Create each device (path or bracket range) in the sandbox; returns path -> kernel name."""
    root = Path(root)
    tmp = root / "tmp"  # a host's /tmp is everyone's (1777): the engine's lock and run folders go there
    tmp.mkdir(parents=True, exist_ok=True)
    tmp.chmod(0o1777)
    names = _disk_names()
    made: dict[str, str] = {}
    dm = 0
    for n, pattern in enumerate(sorted(devices)):
        for i, path in enumerate(expand_brackets(pattern)):
            if not path.startswith("/dev/") or path in made or ".." in path:
                continue
            disk = next(names)
            naa = f"{NAA_PREFIX}{n:08x}{i:016x}"  # sysfs wwid "naa.<hex>"; multipath's WWID is "3<hex>"
            if path.startswith("/dev/mapper/") or path.startswith("/dev/disk/"):
                dmname = f"dm-{dm}"
                dm += 1
                _block(root, disk, SCHEDULERS, wwid=naa)
                _block(root, dmname, DM_SCHEDULERS)
                _dir(root / "sys/block" / dmname / "slaves" / disk)
                _dir(root / "sys/block" / disk / "holders" / dmname)
                _file(root / "sys/block" / dmname / "dm" / "name", Path(path).name)
                _file(root / "sys/block" / dmname / "dm" / "uuid", f"mpath-3{naa}")
                link = root / path.lstrip("/")
                _dir(link.parent)
                if not link.is_symlink():
                    depth = len(Path(path).parts) - 3  # /dev/mapper/x -> ../dm-0
                    link.symlink_to("../" * depth + dmname)
                made[path] = dmname
            else:
                made[path] = Path(path).name  # a plan naming /dev/sdq gets exactly that device
                _block(root, Path(path).name, SCHEDULERS, wwid=naa)
    return made


def _dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)


def _file(path: Path, text: str) -> None:
    """A sysfs attribute: 0644, the owner is whoever builds the sandbox (root in CI)."""
    _dir(path.parent)
    path.write_text(text + "\n")
    path.chmod(0o644)


def _block(root: Path, name: str, schedulers: str, *, wwid: str = "") -> None:
    sysdir = root / "sys/block" / name
    for d in (root / "sys", root / "sys/block", sysdir):
        _dir(d)
    _file(sysdir / "queue" / "scheduler", schedulers)
    _file(sysdir / "queue" / "rotational", "0")
    if wwid:
        _file(sysdir / "device" / "wwid", f"naa.{wwid}")
    dev = root / "dev" / name
    _dir(dev.parent)
    if not dev.exists():
        with dev.open("wb") as f:
            f.truncate(DEVICE_BYTES)


def populate(root: Path, host: Host, *, devices: Iterable[str], kits: Mapping[str, str], oracle: bool,
             files: Iterable[str] = ()) -> None:
    """Everything a simulated host needs for the plan: devices, files, Oracle stand-ins, SLOB kit, ORION, iozone."""
    root = Path(root)
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    made = add_devices(root, devices)
    for name in files:
        if name.startswith("/") and ".." not in name:
            f = root / name.lstrip("/")
            f.parent.mkdir(parents=True, exist_ok=True)
            with f.open("ab") as fh:
                fh.truncate(DEVICE_BYTES)
    profile = profile_for(host.vars)  # what the inventory says the host's Oracle and SLOB kit are
    if oracle:
        from planner.rehearsal.standins import DEFAULT_HOME, install_standins, update_state

        home = str(host.vars.get("oracle_home") or DEFAULT_HOME)
        grid = host.vars.get("grid_home")
        # the login is the user who installed ASM (the OSASM group's first member), as the lab user is the lab's
        install_standins(root, home, grid_home=str(grid) if grid else None, grid_user=host.user or None,
                        profile=profile)
        # the AWR host line of every report the stand-in database writes (AWR_REPORT_TEXT, spreport) is the
        # inventory's host, as the kit's standin.env makes it for the kit's own reports: never this machine's
        line = host_line(host)
        update_state(root, lambda s: s.__setitem__("host_line", line))
        cpus = int(float(line.get("PLANNER_STANDIN_CPUS", "0")))  # cpus, else ansible_processor_vcpus
        if cpus > 0:
            # the stand-in's CPU_COUNT is the host's: Oracle's cache rounding (4 MB x CPU_COUNT) depends on it
            update_state(root, lambda s: s["memory"].__setitem__("cpu_count", str(cpus)))
        if made:
            disks = [{"path": p, "header_status": "CANDIDATE", "group": None, "name": None, "os_mb": 102400}
                     for p in sorted(made)]
            # The host's LUNs are candidates; the stand-in's own DATA group disks stay as they were.
            update_state(root, lambda s: s.__setitem__("disks", [d for d in s["disks"] if d["group"]] + disks))
    for kind, path in kits.items():
        _install_kit(root, kind, path, host, profile)


def _kit_standin(kind: str) -> KitStandIn | None:
    """What the step kind says a sandbox puts at its kit path (StepType.kit_args)."""
    step_type = REGISTRY.get(kind)
    as_rehearsed = rehearsed(step_type) if step_type is not None else None
    return None if as_rehearsed is None else next(iter(as_rehearsed.kit_args.values()), None)


def _install_kit(root: Path, kind: str, path: str, host: Host, profile: HostProfile) -> None:
    """The stand-in for a user's kit or binary at the path the plan names (never a real third-party kit): the
    kind's own (its spec's ``standin``), else what its kit argument says."""
    from planner.rehearsal import standins

    spec = kindspec.spec(kind)
    if spec is not None and spec.standin:
        kindspec.load(spec.standin)(KitSite(root, path, host, profile))
        return

    base = Path(standins.__file__).parent
    target = root / path.lstrip("/")
    standin = _kit_standin(kind)
    if standin is KitStandIn.BINARY and (base / "bin" / kind).exists() and path.startswith("/"):
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(base / "bin" / kind)
