"""asm_diskgroup: create an ASM disk group or add disks to it, through the ASM instance (sqlplus / as sysasm).

The ASM instance is this node's, read from the database (V$ASM_CLIENT: +ASM1 on RAC node 1) or stated as
``asm_sid`` (planner.db.identity); it is reached as ``grid_user`` (default: oracle_user) with ORACLE_HOME=grid_home
via become, so a role-separated Grid owner works and a user outside OSASM is refused at check (ORA-01031 + hint).

Every disk's v$asm_disk.header_status is checked first (the one read that discovers; the later ones use the _STAT
views): CANDIDATE, PROVISIONED and FORMER are usable; a
MEMBER of another group is refused naming that group. Revert drops only what the run created, and only when
the step had ``destructive: true`` (as a step option or inside asm_diskgroup's arguments: dropping a disk group
destroys its data); otherwise it says what it left, and the entry stays unreverted (the report says so).
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.db.access import Database, DbConfig, config_for
from planner.db.identity import asm_config, open_asm
from planner.errors import StepError
from planner.plan.model import Section
from planner.status import Status
from planner.steps.base import Change, Outcome, Reversible, StepContext
from planner.transport.connection import CommandResult
from planner.units import parse_size

GROUP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]*$")
DISK_SPEC = re.compile(r"^[A-Za-z0-9_./:*?\[\]@+=,-]+$")
ATTR_NAME = re.compile(r"^[a-z][a-z0-9_.]*$")
ATTR_VALUE = re.compile(r"^[A-Za-z0-9_.:/+-]+$")
USABLE = ("CANDIDATE", "PROVISIONED", "FORMER")


@dataclass(frozen=True, slots=True)
class AsmDisk:
    path: str
    header_status: str
    group_number: int
    name: str | None


@dataclass(frozen=True, slots=True)
class AsmView:
    groups: Mapping[str, int]  # name -> group_number
    disks: tuple[AsmDisk, ...]

    def group_name(self, number: int) -> str | None:
        return next((n for n, g in self.groups.items() if g == number), None)


def read_asm(db: Database, discover: bool = True) -> AsmView:
    """The disk groups and disks. Only the read that looks for the plan's new disks discovers (V$ASM_DISK rescans
    every disk the disk string matches); the reads after it use the _STAT views, which "display ... in the same way
    ..., but without performing discovery of new disks" (Oracle Database Reference, V$ASM_DISK_STAT,
    V$ASM_DISKGROUP_STAT), so a restore or a verification never rescans a busy system's disks."""
    stat = "" if discover else "_stat"
    groups = {str(r[1]): int(r[0] or 0) for r in db.query(f"select group_number, name from v$asm_diskgroup{stat}")}
    disks = tuple(AsmDisk(str(r[0]), str(r[1]), int(r[2] or 0), r[3]) for r in
                  db.query(f"select path, header_status, group_number, name from v$asm_disk{stat}") if r[0])
    return AsmView(groups, disks)


@dataclass(frozen=True, slots=True)
class AsmPlan:
    name: str
    exists: bool
    add: tuple[AsmDisk, ...]  # disks to put in (create or add)


class AsmDiskgroup(Reversible):
    kind = "asm_diskgroup"
    args_schema = {
        "description": "create an ASM disk group or add disks to it",
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "pattern": "^[A-Za-z][A-Za-z0-9_$#]*$",
                "x-hint": "give an ASM disk group name (letters, digits, _ $ #)",
            },
            "disks": {
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
            },
            "redundancy": {"type": "string", "enum": ["external", "normal", "high"]},
            "au_size": {
                "type": ["string", "integer"],
                "pattern": "^[0-9]+([.][0-9]+)?[kKmMgGtT]?[bB]?$",
                "x-hint": "give a size such as 64M, 1g or 8192",
            },
            "attributes": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
            "add_disks": {"type": "boolean"},
            "rebalance_power": {"type": "integer", "minimum": 0},
            "destructive": {
                "type": "boolean",
                "description": "the same as destructive: true on the step: restore drops the disk group "
                               "(or the disks) this run created",
            },
        },
        "additionalProperties": False,
        "required": ["name", "disks"],
    }
    sections = frozenset({Section.PREP})
    needs_database = True
    device_args = ("disks",)

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        name = saved.get("name", "?")
        if not saved.get("existed"):
            return f"disk group {name} did not exist"
        return f"disk group {name} with {len(list(saved.get('members', [])))} disk(s)"

    def group(self) -> str:
        name = str(self.args["name"])
        if not GROUP_NAME.fullmatch(name):
            raise StepError(f"refused disk group name {name!r}", hint="letters, digits, _ $ #")
        return name.upper()

    def validate(self) -> None:
        self.group()
        self.specs()
        self._power()

    def specs(self) -> list[str]:
        disks = self.args["disks"]
        specs = [disks] if isinstance(disks, str) else [str(d) for d in disks]
        bad = [s for s in specs if not DISK_SPEC.fullmatch(s) or ".." in s]
        if bad:
            raise StepError(f"refused disk specification(s): {', '.join(map(repr, bad))}",
                            hint="paths, globs or ASM labels (ORCL:X, AFD:X) without quotes or spaces")
        return specs

    def _plan(self, view: AsmView, pending: Mapping[str, Any] | None = None) -> AsmPlan:
        """What to put in. ``pending`` (check mode): disk groups earlier steps would have made, name -> paths,
        so the preview of a later add says what apply will do after them (not "create" with every disk)."""
        name = self.group()
        planned = set((pending or {}).get(name, ()))
        matched: dict[str, AsmDisk] = {}
        missing = []
        for spec in self.specs():
            hits = [d for d in view.disks if fnmatch.fnmatchcase(d.path, spec)]
            if not hits:
                missing.append(spec)
            matched.update((d.path, d) for d in hits)
        if missing:
            raise StepError(f"disk(s) not visible to ASM: {', '.join(missing)}",
                            hint="check the paths and the ASM instance's asm_diskstring")
        number = view.groups.get(name)
        if number is None and name in (pending or {}):
            number = -1  # not there yet, but an earlier step of this check creates it
        add = []
        for d in matched.values():
            if number is not None and d.group_number == number or d.path in planned:
                continue
            if d.header_status == "MEMBER":
                other = view.group_name(d.group_number) or "a disk group that is not mounted"
                raise StepError(f"disk {d.path} is a MEMBER of disk group {other}",
                                hint="pick CANDIDATE, PROVISIONED or FORMER disks")
            if d.header_status not in USABLE:
                raise StepError(f"disk {d.path} has header status {d.header_status}",
                                hint=f"only {', '.join(USABLE)} disks can be used")
            add.append(d)
        if number is not None and add and not self.args.get("add_disks", False):
            raise StepError(f"disk group {name} exists and lacks {', '.join(d.path for d in add)}",
                            hint="set add_disks: true to add them")
        return AsmPlan(name, number is not None, tuple(add))

    def _power(self) -> str:
        power = self.args.get("rebalance_power")
        if power is None:
            return ""
        if isinstance(power, bool) or not isinstance(power, int) or power < 0:
            raise StepError(f"rebalance_power must be a whole number >= 0, not {power!r}")
        return f" rebalance power {power}"

    def _create_sql(self, plan: AsmPlan) -> str:
        red = self.args.get("redundancy")
        if red is not None and str(red).lower() not in ("external", "normal", "high"):
            raise StepError(f"redundancy must be external, normal or high, not {red!r}")
        attrs: dict[str, str] = {}
        if self.args.get("au_size") is not None:
            au = str(self.args["au_size"]).upper().removesuffix("B")
            if parse_size(au, suffixes="KMG") is None:  # ASM takes an AU size in K, M or G
                raise StepError(f"au_size must be a size such as 4M, not {self.args['au_size']!r}")
            attrs["au_size"] = au
        for k, v in (self.args.get("attributes") or {}).items():
            text = str(v).lower() if isinstance(v, bool) else str(v)
            if not ATTR_NAME.fullmatch(str(k)) or not ATTR_VALUE.fullmatch(text):
                raise StepError(f"refused disk group attribute {k!r}={v!r}")
            attrs[str(k)] = text
        sql = f"create diskgroup {plan.name}" + (f" {str(red).lower()} redundancy" if red else "")
        sql += " disk " + ", ".join(f"'{d.path}'" for d in plan.add)
        if attrs:
            sql += " attribute " + ", ".join(f"'{k}'='{v}'" for k, v in attrs.items())
        return sql

    def _diff(self, plan: AsmPlan) -> str:
        verb = "add to" if plan.exists else "create"
        return "".join(f"{verb} {plan.name}: + {d.path} ({d.header_status})\n" for d in plan.add)

    def check(self, ctx: StepContext) -> Change:
        pending = ctx.predicted.setdefault("asm_diskgroups", {})
        plan = self._plan(read_asm(open_asm(ctx, asm_config(ctx, config_for(ctx)))), pending)
        pending.setdefault(plan.name, set()).update(d.path for d in plan.add)
        if not plan.add:
            return Change(False, f"disk group {plan.name} has its disks")
        self._power()
        if not plan.exists:
            self._create_sql(plan)  # validates the arguments in check mode too
        what = "add disks to" if plan.exists else "create"
        return Change(True, f"would {what} disk group {plan.name}{self._redundancy_note(plan)}", self._diff(plan))

    def _redundancy_note(self, plan: AsmPlan) -> str:
        """CREATE DISKGROUP without a redundancy clause is NORMAL redundancy: "If you do not specify a redundancy
        level, then NORMAL REDUNDANCY is the default" (Oracle ASM Administrator's Guide, "Creating Disk Groups"),
        i.e. every write mirrored twice - said, since a benchmark then writes double what the plan suggests."""
        if plan.exists or self.args.get("redundancy") is not None:
            return ""
        return "; redundancy not given: Oracle's default NORMAL (two-way mirrored writes) — state redundancy: external"

    def apply(self, ctx: StepContext) -> Outcome:
        cfg = asm_config(ctx, config_for(ctx))
        db = open_asm(ctx, cfg)
        plan = self._plan(read_asm(db))
        if not plan.add:
            return Outcome(Status.OK, f"disk group {plan.name} has its disks")
        if plan.exists:
            db.execute(f"alter diskgroup {plan.name} add disk " + ", ".join(f"'{d.path}'" for d in plan.add)
                       + self._power())
            wait_rebalance(db, cfg, plan.name)
            msg = f"added {len(plan.add)} disk(s) to {plan.name}; rebalance done"
        else:
            db.execute(self._create_sql(plan))
            msg = (f"created disk group {plan.name} on {len(plan.add)} disk(s){self._redundancy_note(plan)}"
                   + mount_everywhere(ctx, cfg, plan.name))
        if self._plan(read_asm(db, discover=False)).add:
            raise StepError(f"disk group {plan.name} still lacks disks after the change")
        return Outcome(Status.CHANGED, msg, self._diff(plan))

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        cfg = asm_config(ctx, config_for(ctx))  # saved with the ASM SID read: restore connects the same way
        view = read_asm(open_asm(ctx, cfg), discover=False)  # a group's members are known disks
        name = self.group()
        number = view.groups.get(name)
        members = [d.path for d in view.disks if number is not None and d.group_number == number]
        return {"db": cfg.to_json(), "name": name, "existed": number is not None, "members": members,
                "destructive": ctx.destructive or self.args.get("destructive") is True}

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        cfg = DbConfig.from_json(saved["db"])
        db = open_asm(ctx, cfg if cfg.asm_sid else asm_config(ctx, cfg))
        view = read_asm(db, discover=False)
        name = str(saved["name"])
        if not GROUP_NAME.fullmatch(name):
            raise StepError(f"bad disk group name in the run record: {name!r}")
        number = view.groups.get(name)
        if number is None:
            return Outcome(Status.OK, f"disk group {name} is not there" + (" (it existed before: not recreated)"
                                                                            if saved["existed"] else ""))
        added = [d for d in view.disks if d.group_number == number and d.path not in saved["members"]]
        if saved["existed"] and not added:
            return Outcome(Status.OK, f"disk group {name} as it was")
        if not saved.get("destructive"):
            what = f"disk group {name}" if not saved["existed"] else f"disks {', '.join(d.path for d in added)}"
            # not restored: SKIPPED keeps the entry unreverted, so the report says restored "no", not "yes"
            return Outcome(Status.SKIPPED, f"left {what} in place: the step was not destructive: true "
                                           "(drop it by hand)")
        if not saved["existed"]:
            first = dismount_elsewhere(ctx, cfg, db, name)
            db.execute(f"drop diskgroup {name} including contents")
            return Outcome(Status.CHANGED, f"dropped disk group {name} (created by this run){first}")
        names = [str(d.name) for d in added]
        if not all(re.fullmatch(r"[A-Za-z0-9_$#]+", n) for n in names):
            raise StepError(f"unexpected ASM disk names {names!r}")
        db.execute(f"alter diskgroup {name} drop disk {', '.join(names)}")
        wait_rebalance(db, cfg, name)
        return Outcome(Status.CHANGED, f"dropped {', '.join(d.path for d in added)} from {name}")


def wait_rebalance(db: Database, cfg: DbConfig, name: str) -> None:
    """Poll v$asm_operation until no operation is left for the group (deadline: asm_rebalance_timeout_s)."""
    deadline = time.monotonic() + cfg.rebalance_timeout_s
    while True:
        rows = db.query("select group_number, name from v$asm_diskgroup_stat where name = :g", {"g": name})
        if not rows:
            return
        ops = db.query("select count(*) from v$asm_operation where group_number = :n", {"n": int(rows[0][0] or 0)})
        if not ops or int(ops[0][0] or 0) == 0:
            return
        if time.monotonic() > deadline:
            raise StepError(f"rebalance of {name} still running after {cfg.rebalance_timeout_s:.0f}s",
                            hint="raise asm_rebalance_timeout_s or the rebalance power")
        time.sleep(cfg.poll_s)



# On a cluster, CREATE DISKGROUP mounts the new group in this node's ASM instance only; the other nodes' instances
# mount their own ASM_DISKGROUPS, and DROP DISKGROUP fails while another one has it mounted (ORA-15073). Disk group
# resources belong to Grid: srvctl of the Grid home, as the Grid owner ("srvctl start diskgroup -g name [-n nodes]",
# 11.2; 12.1+ also -diskgroup/-node: Oracle RAC Administration and Deployment Guide, "srvctl start diskgroup").
_RUNNING = re.compile(r"is running on (\S+)")


def _srvctl(ctx: StepContext, cfg: DbConfig, *args: str) -> CommandResult:
    user = cfg.grid_user
    return ctx.run([ctx.path(cfg.grid_home) + "/bin/srvctl", *args], check=False, become=True if user else None,
                   become_user=user, login=bool(user), env={"ORACLE_HOME": cfg.grid_home}, timeout=cfg.open_timeout_s)


def _nodes(r: CommandResult) -> list[str]:
    m = _RUNNING.search(r.stdout) if r.ok else None
    return m.group(1).split(",") if m else []


def mount_everywhere(ctx: StepContext, cfg: DbConfig, name: str) -> str:
    """After CREATE DISKGROUP: on a cluster ("srvctl status asm" names more than one node), start the group on every
    node and check it runs there; '' where ASM runs on one node or srvctl cannot run (no Grid: nothing to mount)."""
    asm = _nodes(_srvctl(ctx, cfg, "status", "asm"))
    if len(asm) < 2:
        return ""
    r = _srvctl(ctx, cfg, "start", "diskgroup", "-g", name)
    if not r.ok and "PRCC-1014" not in r.stdout:  # PRCC-1014: already running everywhere
        raise StepError(f"disk group {name} was created on this node, but srvctl start diskgroup failed: "
                        f"{(r.stdout + r.stderr).strip()[-300:]}",
                        hint=f"the other nodes' ASM must see the disks (asm_diskstring); then srvctl start diskgroup "
                             f"-g {name} as the Grid owner")
    on = _nodes(_srvctl(ctx, cfg, "status", "diskgroup", "-g", name))
    missing = [n for n in asm if n not in on]
    if missing:
        raise StepError(f"disk group {name} is not mounted on {', '.join(missing)} after srvctl start diskgroup",
                        hint=f"check that node's ASM alert log; srvctl status diskgroup -g {name}")
    return f"; mounted on every node ({', '.join(on)}) by srvctl start diskgroup"


def dismount_elsewhere(ctx: StepContext, cfg: DbConfig, db: Database, name: str) -> str:
    """Before DROP DISKGROUP: stop the group on the other nodes that have it mounted (srvctl stop diskgroup -n)."""
    on = _nodes(_srvctl(ctx, cfg, "status", "diskgroup", "-g", name))
    rows = db.query("select host_name from v$instance") if on else []
    here = str(rows[0][0]).split(".")[0] if rows and rows[0] else ""
    others = [n for n in on if n.split(".")[0] != here]
    if not others:
        return ""
    r = _srvctl(ctx, cfg, "stop", "diskgroup", "-g", name, "-n", ",".join(others))
    if not r.ok:
        raise StepError(f"cannot drop disk group {name}: it is mounted on {', '.join(others)} and srvctl stop "
                        f"diskgroup failed: {(r.stdout + r.stderr).strip()[-300:]}",
                        hint="stop the databases using it there, or dismount it by hand")
    return f" (dismounted on {', '.join(others)} first)"
