"""OS prep steps: io_scheduler, sysctl, hugepages. Every system path goes through ctx.path (sandbox roots).

io_scheduler resolves each device (path, glob, multipath alias, WWID) on the host with one fixed script
(planner.steps.blockdev): symlinks are followed; the scheduler is set where it counts, on a request-based
(multipath) dm device itself, on the slaves of a bio-based one, and udev rules match stable keys. Classic names
map onto blk-mq kernels (noop -> none, deadline -> mq-deadline, cfq -> bfq) when the device does not offer the classic
name. In a sandbox (planner_root set) the fake sysfs file is a plain file, so planner writes it the way the kernel shows
it ("[none] mq-deadline ...").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.errors import StepError
from planner.plan.model import Section
from planner.status import Status
from planner.steps.base import Change, Outcome, Probe, Reversible, StepContext
from planner.steps.blockdev import (
    RESOLVE,
    RULE_FILE,
    BlockDev,
    has_rules,
    merge_rules,
    parse_resolve,
    rule_line,
    rules_for,
    unmerge_rules,
)
from planner.units import parse_size

BLK_MQ = {"noop": "none", "deadline": "mq-deadline", "cfq": "bfq"}
DEV_SPEC = re.compile(r"^[A-Za-z0-9_./:*?\[\]@+=,-]+$")
WWID = re.compile(r"^(0x)?[0-9a-fA-F]{16,}$")
WRITE = 'printf "%s\\n" "$1" > "$2"'  # values are positional parameters, never script text
# io_scheduler: every device's write ($1 value, $2 path, $3 value, $4 path...), then each read back, one line
# per device, in one round trip (a changed step costs one exec, not two per device).
WRITE_ALL = ('n=0; for a in "$@"; do n=$((n+1)); if [ $((n % 2)) = 1 ]; then v=$a; '
             'else printf "%s\\n" "$v" > "$a" || { printf "\\nplanner-failed\\t%s\\n" "$a" >&2; exit 1; }; fi; done; '
             'n=0; for a in "$@"; do n=$((n+1)); if [ $((n % 2)) = 0 ]; then l=; '
             '{ read -r l < "$a"; } 2>/dev/null; printf "%s\\n" "$l"; fi; done')
SYSCTL_NAME = re.compile(r"^[a-z0-9_][a-z0-9_.\-/]*$")

def parse_scheduler(text: str) -> tuple[str, tuple[str, ...]]:
    """'[mq-deadline] kyber bfq none' -> ('mq-deadline', (all four)); a bare word is the active one."""
    words = text.split()
    active = next((w[1:-1] for w in words if w.startswith("[") and w.endswith("]")), words[0] if words else "")
    return active, tuple(w.strip("[]") for w in words)


def kernel_view(active: str, available: tuple[str, ...]) -> str:
    return " ".join(f"[{w}]" if w == active else w for w in (available or (active,)))


def choose(want: str, available: tuple[str, ...]) -> tuple[str, str] | None:
    """The scheduler to write and a note when a classic name was mapped onto blk-mq; None if not offered."""
    if want in available:
        return want, ""
    mapped = BLK_MQ.get(want)
    if mapped and mapped in available:
        return mapped, f"{want} is {mapped} on this blk-mq kernel"
    return None


def device_specs(devices: Any) -> list[str]:
    specs = [devices] if isinstance(devices, str) else [str(d) for d in devices]
    out, bad = [], []
    for s in specs:
        if not DEV_SPEC.fullmatch(s) or ".." in s.split("/") or len(s) > 255:
            bad.append(s)
        elif WWID.fullmatch(s):
            out.append(f"/dev/disk/by-id/*{s.lower().removeprefix('0x')}")
        elif s.startswith("/dev/"):
            out.append(s)
        elif "/" not in s:
            out.append(f"/dev/{s}")
        else:
            bad.append(s)
    if bad:
        raise StepError(f"refused device name(s): {', '.join(map(repr, bad))}",
                        hint="give /dev paths, globs, multipath aliases or WWIDs (no .., spaces or shell characters)")
    return out


@dataclass(frozen=True, slots=True)
class SchedChange:
    device: str
    path: str  # the (sandbox-mapped) queue/scheduler file
    active: str
    target: str | None  # None: left alone (a dm device that does not offer the scheduler)
    available: tuple[str, ...]
    note: str = ""
    match: str | None = None  # the udev rule's stable key (blockdev.BlockDev.udev_match)


_KERNEL_NAME = re.compile(r"[A-Za-z0-9_.:+-]+")  # a /sys/block entry (sda, nvme0n1, dm-3); never "." or ".."


def _scheduler_path(ctx: StepContext, dev: object) -> str:
    if not _KERNEL_NAME.fullmatch(str(dev)) or str(dev) in (".", ".."):
        raise StepError(f"refused block device name {dev!r}", hint="a kernel name such as sda or dm-3")
    return ctx.path(f"/sys/block/{dev}/queue/scheduler")


class IoScheduler(Reversible):
    kind = "io_scheduler"
    args_schema = {
        "description": "set the block I/O scheduler of devices (path, glob, multipath alias or WWID)",
        "type": "object",
        "properties": {
            "devices": {
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
            },
            "scheduler": {
                "type": "string",
                "enum": ["noop", "none", "deadline", "mq-deadline", "cfq", "bfq", "kyber"],
            },
            "persist": {"type": "boolean"},
        },
        "additionalProperties": False,
        "required": ["devices", "scheduler"],
    }
    sections = frozenset({Section.PREP})
    device_args = ("devices",)

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        by_sched: dict[str, list[str]] = {}
        for dev, d in dict(saved.get("devices", {})).items():
            active = d.get("active", "?") if isinstance(d, Mapping) else str(d)
            by_sched.setdefault(str(active), []).append(str(dev))
        text = "; ".join(f"{s} on {', '.join(devs)}" for s, devs in by_sched.items())
        if saved.get("persist"):
            text += "; udev rule " + ("absent" if saved.get("rule") is None else "present")
        return text

    def validate(self) -> None:
        device_specs(self.args["devices"])

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        rule = [ctx.read_probe(ctx.path(RULE_FILE))] if self.args.get("persist") else []
        return [ctx.sh_probe(RESOLVE, ctx.root, *device_specs(self.args["devices"]), plain=True), *rule]

    def _resolve(self, ctx: StepContext) -> list[SchedChange]:
        specs = device_specs(self.args["devices"])
        found = parse_resolve(ctx.sh(RESOLVE, ctx.root, *specs).stdout)
        if found.missing:
            raise StepError("device(s) not found: " + ", ".join(found.missing) + f" on {ctx.host.name}",
                            hint="nothing was changed on this host; check the names (a partition is not a disk)")
        want = str(self.args["scheduler"])
        topo = found.devices
        out: dict[str, SchedChange] = {}
        problems = []

        def visit(dev: str, required: bool, why: str = "") -> None:
            if dev in out:
                return
            d = topo.get(dev, BlockDev(dev))
            paths = [h for h in d.holders if topo[h].request_based] if not d.is_dm else []
            if paths:  # a path of a multipath map: the map's scheduler is the one used
                for h in paths:
                    visit(h, True, f"{dev} is a path of {topo[h].label}: set there, request-based multipath "
                                   f"bypasses the paths' schedulers")
                return
            if d.request_based:  # the dm device schedules; its paths are bypassed and left alone
                # one wording for every map, so a 16-LUN step's message stays one line (the diff names each)
                why = why or "request-based multipath: the dm device's scheduler counts, its paths' are bypassed"
            children = () if d.request_based else d.slaves
            for child in children:  # bio-based dm (LVM, md): the bios reach the slaves, theirs count
                visit(child, True)
            if not d.scheduler.strip():
                if not children:
                    problems.append(f"{dev} has no queue/scheduler")
                return
            active, available = parse_scheduler(d.scheduler)
            pick = choose(want, available)
            path = _scheduler_path(ctx, dev)
            if pick is None and (required and not children):
                problems.append(f"{d.label} does not offer {want} (offers: {' '.join(available)})")
                return
            if pick:
                target, note = pick[0], "; ".join(n for n in (pick[1], why) if n)
            else:
                target, note = None, f"{dev} keeps {active} (bio-based: its slaves' schedulers count)"
            out[dev] = SchedChange(dev, path, active, target, available, note, d.udev_match())

        for spec in specs:
            for k in found.matches.get(spec, ()):
                visit(k, True)
        if problems:
            raise StepError("; ".join(problems), hint="nothing was changed on this host")
        return list(out.values())

    @staticmethod
    def _mine(ctx: StepContext, devices: list[SchedChange]) -> dict[str, str]:
        """Rule lines by stable key (never KERNEL=="sdX": kernel names follow discovery order, they change)."""
        no_key = [d.device for d in devices if d.target and d.match is None]
        if no_key:
            raise StepError(f"persist: true needs a stable key for {', '.join(no_key)} on {ctx.host.name}, and sysfs "
                            f"gives none (no dm/uuid or dm/name, no device/wwid)",
                            hint="nothing was changed; a rule by kernel name (sdX, dm-N) could hit another disk "
                                 "after a reboot: drop persist, or name the multipath map (/dev/mapper/...)")
        return {d.match: rule_line(d.match, d.target) for d in devices if d.target and d.match}

    def _predict(self, ctx: StepContext) -> tuple[list[SchedChange], list[SchedChange], str | None, str | None]:
        # save() runs right before apply() in this same context: reuse its resolve (one round trip less).
        memo = ctx.take_save_read()
        devices = list(memo) if isinstance(memo, tuple) and memo else self._resolve(ctx)
        todo = [d for d in devices if d.target and d.target != d.active]
        have_rule = ctx.conn.read_text(ctx.path(RULE_FILE)) if self.args.get("persist") else None
        rule = merge_rules(have_rule, self._mine(ctx, devices)) if self.args.get("persist") else None
        return devices, todo, rule, have_rule

    @staticmethod
    def _notes(devices: list[SchedChange]) -> str:
        notes = sorted({d.note for d in devices if d.note})
        return f" ({'; '.join(notes)})" if notes else ""

    def _diff(self, todo: list[SchedChange], rule: str | None, have_rule: str | None) -> str:
        lines = [f"{d.device}: {d.active} -> {d.target}" + (f" ({d.note})" if d.note else "") for d in todo]
        if rule is not None and rule != have_rule:
            lines.append(f"{RULE_FILE}: {'rewritten' if have_rule is not None else 'created'}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def need_root(ctx: StepContext) -> None:
        """/sys/block/*/queue/scheduler and /etc/udev/rules.d are root's (sysfs attributes are mode 0644 root:
        root, Documentation/block/queue-sysfs.rst: "scheduler (RW)"): on a real host, a step that does not run as
        root and has no become fails with "Permission denied" half-way. Refused before anything is written."""
        if ctx.root or ctx.host.user == "root" or (ctx.become and ctx.become_user == "root"):
            return  # a sandbox root (tests, rehearsal), the root login, or sudo to root
        raise StepError(f"io_scheduler writes /sys/block/*/queue/scheduler, which only root may write, but "
                        f"{ctx.host.name} is reached as {ctx.host.user or 'a non-root user'} without become",
                        hint="give the step become: true (sudo to root), or connect as root")

    def check(self, ctx: StepContext) -> Change:
        self.need_root(ctx)
        devices, todo, rule, have_rule = self._predict(ctx)
        if not todo and rule == have_rule:
            return Change(False, f"{len(devices)} device(s) already on {self.args['scheduler']}{self._notes(devices)}")
        return Change(True, f"would set {len(todo)} device(s){self._notes(devices)}", self._diff(todo, rule, have_rule))

    def apply(self, ctx: StepContext) -> Outcome:
        self.need_root(ctx)
        devices, todo, rule, have_rule = self._predict(ctx)
        pairs = [x for d in todo for x in (kernel_view(d.target or "", d.available) if ctx.root else d.target or "",
                                           d.path)]
        try:
            now = (ctx.sh(WRITE_ALL, *pairs).stdout.split("\n") if todo else []) + [""] * len(todo)
        except StepError as e:
            failed = str(e).rpartition("planner-failed\t")[2].split("\n")[0].strip()
            d = next((d for d in todo if d.path == failed), None)
            if d is None or "denied" not in str(e):
                raise
            raise StepError(f"{ctx.host.name} refused the write to {d.path} ({d.device}): Permission denied; "
                            f"only root may write queue/scheduler", hint="give the step become: true (sudo to "
                            "root), or connect as root") from e
        wrong = [d.device for d, line in zip(todo, now, strict=False) if parse_scheduler(line)[0] != d.target]
        if wrong:
            raise StepError(f"the scheduler did not change on {', '.join(wrong)}",
                            hint="is the device busy, or does the kernel refuse the scheduler?")
        if rule is not None and rule != have_rule:
            ctx.sh('mkdir -p "${2%/*}" && cat > "$2"', "", ctx.path(RULE_FILE), stdin=rule.encode())
        counts = sorted({d.device for d in devices if d.target})
        if not todo and rule == have_rule:
            return Outcome(Status.OK, f"{len(devices)} device(s) already on {self.args['scheduler']}"
                           f"{self._notes(devices)}")
        summary = ", ".join(f"{d.device}={d.target}" for d in todo) or "udev rule"
        from planner.extras import SchedulersSet  # here: the extras (9 classes) load when a step changed something

        return Outcome(Status.CHANGED, f"set {summary}{self._notes(devices)}", self._diff(todo, rule, have_rule),
                       extra=SchedulersSet(tuple({d.device: d.target for d in devices if d.target}.items()),
                                           tuple(counts)))

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        devices = self._resolve(ctx)
        ctx.save_read = tuple(devices)
        rule_path = ctx.path(RULE_FILE)
        saved: dict[str, Any] = {"devices": {d.device: {"path": d.path, "active": d.active} for d in devices},
                                 "rule_path": rule_path, "persist": bool(self.args.get("persist"))}
        if self.args.get("persist"):
            have = ctx.conn.read_text(rule_path)
            mine = self._mine(ctx, devices)
            saved.update(rule=have, wrote=sorted(mine.values()), replaced=rules_for(have, mine))
        return saved

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        done = []
        for dev, d in saved["devices"].items():
            path = _scheduler_path(ctx, dev)  # the log's own paths are never used as given
            active, available = parse_scheduler(ctx.conn.read_text(path) or "")
            if active != d["active"]:
                ctx.sh(WRITE, kernel_view(d["active"], available) if ctx.root else d["active"], path)
                done.append(f"{dev}: {active} -> {d['active']}")
        if saved.get("persist"):
            path, original = ctx.path(RULE_FILE), saved.get("rule")
            now = ctx.conn.read_text(path)
            # exactly the rules planner wrote go (and the ones they replaced come back); other rules stay
            back = (unmerge_rules(now, saved["wrote"], saved.get("replaced", {})) if "wrote" in saved
                    else original or "")  # a record from before per-rule restore: the whole file as it was
            if now is not None and back != now:
                if original is None and not has_rules(back):
                    ctx.run(["rm", "-f", "--", path])
                else:
                    ctx.sh('cat > "$2"', "", path, stdin=back.encode())
                done.append(f"{RULE_FILE}: planner's rule(s) removed")
        if not done:
            return Outcome(Status.OK, "schedulers already as they were")
        return Outcome(Status.CHANGED, "; ".join(done))


class Sysctl(Reversible):
    """Kernel parameters through /proc/sys (mapped via ctx.path), written like `sysctl -w` does."""

    kind = "sysctl"
    args_schema = {
        "description": "set kernel parameters",
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": ["string", "number"]},
        "minProperties": 1,
        "propertyNames": {
            "pattern": "^[a-z0-9_][a-z0-9_.\\-/]*$",
            "x-hint": "give a sysctl name such as vm.swappiness",
        },
    }
    sections = frozenset({Section.PREP})

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        return "; ".join(f"{k} {v}" for k, v in dict(saved.get("values", {})).items())

    def validate(self) -> None:
        self.wanted(None)

    def wanted(self, ctx: StepContext | None) -> dict[str, str]:
        out = {}
        for name, value in self.args.items():
            self._name(name)
            text = str(value)
            if isinstance(value, bool) or not text.isprintable() or not text.strip():
                raise StepError(f"refused value {value!r} for {name}", hint="one line of printable text")
            out[str(name)] = text
        return out

    @staticmethod
    def _name(name: object) -> str:
        if not SYSCTL_NAME.fullmatch(str(name)) or ".." in str(name):
            raise StepError(f"refused sysctl name {name!r}",
                            hint="give a name such as vm.swappiness (lower-case letters, digits, _ . - /)")
        return str(name)

    @staticmethod
    def proc_path(ctx: StepContext, name: str) -> str:
        return ctx.path("/proc/sys/" + (name if "/" in name else name.replace(".", "/")))

    def _current(self, ctx: StepContext, names: list[str]) -> dict[str, str]:
        have = {n: ctx.conn.read_text(self.proc_path(ctx, n)) for n in names}
        missing = [n for n, v in have.items() if v is None]
        if missing:
            raise StepError(f"unknown kernel parameter(s): {', '.join(missing)} on {ctx.host.name}",
                            hint="nothing was changed on this host; see `sysctl -a`")
        return {n: " ".join(str(v).split()) for n, v in have.items()}

    def _todo(self, ctx: StepContext) -> tuple[dict[str, str], dict[str, str]]:
        want = self.wanted(ctx)
        have = self._current(ctx, list(want))
        return {n: v for n, v in want.items() if " ".join(v.split()) != have[n]}, have

    def check(self, ctx: StepContext) -> Change:
        todo, have = self._todo(ctx)
        if not todo:
            return Change(False, "kernel parameters already set")
        return Change(True, f"would set {', '.join(todo)}",
                      "".join(f"{n}: {have[n]} -> {v}\n" for n, v in todo.items()))

    def verify(self, ctx: StepContext, todo: Mapping[str, str]) -> None:
        now = self._current(ctx, list(todo))
        wrong = [f"{n}={now[n]} (wanted {v})" for n, v in todo.items() if now[n] != " ".join(v.split())]
        if wrong:
            raise StepError(f"the kernel did not take {', '.join(wrong)}")

    def apply(self, ctx: StepContext) -> Outcome:
        todo, have = self._todo(ctx)
        if not todo:
            return Outcome(Status.OK, "kernel parameters already set")
        for n, v in todo.items():
            ctx.sh(WRITE, v, self.proc_path(ctx, n))
        self.verify(ctx, todo)
        return Outcome(Status.CHANGED, f"set {', '.join(f'{n}={v}' for n, v in todo.items())}",
                       "".join(f"{n}: {have[n]} -> {v}\n" for n, v in todo.items()))

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        names = list(self.wanted(ctx))
        return {"values": self._current(ctx, names), "paths": {n: self.proc_path(ctx, n) for n in names}}

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        done = []
        for n, original in saved["values"].items():
            path = self.proc_path(ctx, self._name(n))  # the log's own paths are never used as given
            now = " ".join((ctx.conn.read_text(path) or "").split())
            if now != original:
                ctx.sh(WRITE, original, path)
                done.append(f"{n}: {now} -> {original}")
        return Outcome(Status.CHANGED, "; ".join(done)) if done else Outcome(Status.OK, "already as they were")


class Hugepages(Sysctl):
    """vm.nr_hugepages by count, or by total size (divided by Hugepagesize from /proc/meminfo)."""

    kind = "hugepages"
    args_schema = {
        "description": "reserve huge pages by count or by total size",
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "size": {
                "type": ["string", "integer"],
                "pattern": "^[0-9]+([.][0-9]+)?[kKmMgGtT]?[bB]?$",
                "x-hint": "give a size such as 64M, 1g or 8192",
            },
        },
        "additionalProperties": False,
        "minProperties": 1,
        "maxProperties": 1,
    }

    def validate(self) -> None:
        self._size()

    def _size(self) -> float | None:
        """The size in bytes (None when given by count: 1.5g, 8GB, 8192); refuses bad arguments without the host."""
        if "count" in self.args:
            count = self.args["count"]
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise StepError(f"hugepages count must be a whole number >= 0, not {count!r}")
            return None
        total = parse_size(str(self.args.get("size", "")), fraction=True, byte_suffix=True)
        if total is None:
            raise StepError(f"hugepages size must be a size such as 8G, not {self.args.get('size')!r}")
        return total

    def wanted(self, ctx: StepContext | None) -> dict[str, str]:
        total = self._size()
        if total is None:
            return {"vm.nr_hugepages": str(self.args["count"])}
        assert ctx is not None  # a size needs the host's huge page size
        meminfo = ctx.conn.read_text(ctx.path("/proc/meminfo")) or ""
        hp = re.search(r"^Hugepagesize:\s+(\d+)\s*kB", meminfo, re.M)
        if not hp:
            raise StepError("no Hugepagesize in /proc/meminfo", hint="give count: instead of size:")
        return {"vm.nr_hugepages": str(math.ceil(total / (int(hp.group(1)) * 1024)))}

    def verify(self, ctx: StepContext, todo: Mapping[str, str]) -> None:
        now = self._current(ctx, ["vm.nr_hugepages"])["vm.nr_hugepages"]
        if now != todo["vm.nr_hugepages"]:
            raise StepError(f"the kernel reserved {now} of {todo['vm.nr_hugepages']} huge pages",
                            hint="memory is fragmented: reserve them at boot (vm.nr_hugepages in sysctl.conf)")
