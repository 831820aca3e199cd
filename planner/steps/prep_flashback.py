"""Database prep step flashback: ALTER DATABASE FLASHBACK ON/OFF, the way each Oracle version takes it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from planner.db.access import Database, DbConfig, SqlplusDatabase, cdb_root, config_for, open_database
from planner.db.identity import oracle_run_kw, restart_way
from planner.db.oracle import wait_open
from planner.errors import StepError
from planner.plan.model import Section
from planner.status import Status
from planner.steps.base import Change, Outcome, Rehearsed, Reversible, StepContext

# FLASHBACK OFF deletes every flashback log ("Disabling Flashback Database Logging", Oracle Database Backup and
# Recovery User's Guide 11.2+, https://docs.oracle.com/cd/E11882_01/backup.112/e10642/flashdb.htm): the restore
# can turn flashback back ON, but the window before the run is gone. Said at preflight, dry run and in the report.
WINDOW_LOST = ("FLASHBACK OFF deletes the existing flashback logs: the restore turns flashback back ON, but the "
               "database can no longer be flashed back to any time before this run")


def db_version(db: Database) -> tuple[int, int]:
    rows = db.query("select version from v$instance")
    m = re.match(r"(\d+)\.(\d+)", str(rows[0][0] if rows and rows[0][0] else ""))
    if not m:
        raise StepError("v$instance returned no version")
    return int(m.group(1)), int(m.group(2))


def set_flashback(ctx: StepContext, cfg: DbConfig, db: Database, on: bool) -> tuple[str, Database]:
    """ALTER DATABASE FLASHBACK ON/OFF the way the version takes it: 11.2+ OPEN; 10g-11.1 only MOUNTed by one
    instance (ORA-38759 otherwise: "Before 11.2 you must mount the database, not open it", Backup and Recovery
    User's Guide 11.2, "Enabling Flashback Database", URL above). Returns (how, an open database)."""
    stmt = f"alter database flashback {'on' if on else 'off'}"
    version = db_version(db)
    if version >= (11, 2):
        db.execute(stmt)
        return f"OPEN (Oracle {version[0]}.{version[1]})", db
    way = restart_way(ctx, cfg, db)  # a RAC database srvctl does not list is refused, not MOUNTed on one node
    sqlplus = SqlplusDatabase(ctx, cfg)
    if way.srvctl is not None:
        # every instance down, then this one alone MOUNTed ("mounted by only one instance"), then all back
        kw = oracle_run_kw(cfg)
        ctx.run(way.argv(ctx, cfg, "stop"), **kw)
        sqlplus.run_script(f"startup mount\n{stmt};\nshutdown immediate", "flashback in MOUNT",
                           timeout=cfg.open_timeout_s)
        ctx.run(way.argv(ctx, cfg, "start"), **kw)
    else:
        sqlplus.run_script(f"shutdown immediate\nstartup mount\n{stmt};\nalter database open;",
                           "flashback in MOUNT", timeout=cfg.open_timeout_s)
    return f"MOUNTed, then reopened (Oracle {version[0]}.{version[1]} takes it only MOUNTed)", wait_open(ctx, cfg)


RESTORE_POINT_ONLY = "RESTORE POINT ONLY"


class Flashback(Reversible, Rehearsed):
    kind = "flashback"
    args_schema = {
        "description": "flashback database on or off",
        "oneOf": [
            {"type": "string", "enum": ["on", "off"]},
            {
                "type": "object",
                "properties": {"state": {"type": "string", "enum": ["on", "off"]}},
                "required": ["state"],
                "additionalProperties": False,
            },
        ],
        "x-hint": "write flashback: on or flashback: off",
    }
    sections = frozenset({Section.PREP})
    needs_database = True

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        return f"flashback {saved.get('flashback_on', '?')}"

    def validate(self) -> None:
        self.want()

    @classmethod
    def rehearsal_notes(cls, host: str, args: Mapping[str, Any]) -> Sequence[str]:
        """Preflight: FLASHBACK OFF cannot be undone in full (WINDOW_LOST)."""
        if str(args.get("state", "")).lower() in ("off", "false"):
            return [f"{host}: flashback off — WARNING: {WINDOW_LOST}"]
        return ()

    def want(self) -> str:
        state = str(self.args.get("state", "")).lower()
        if state not in ("on", "off"):
            raise StepError(f"flashback must be on or off, not {state!r}")
        return "YES" if state == "on" else "NO"

    @staticmethod
    def current(db: Database) -> str:
        rows = db.query("select flashback_on from v$database")
        if not rows or rows[0][0] is None:
            raise StepError("v$database returned no flashback_on")
        return str(rows[0][0])

    def _refuse_restore_points(self, db: Database, have: str, want: str) -> None:
        """V$DATABASE.FLASHBACK_ON "RESTORE POINT ONLY": "Flashback is ON but one can only flashback to
        guaranteed restore points" (Oracle Database Reference 11.1+, V$DATABASE). A guaranteed restore point keeps
        flashback logs written for changed blocks whatever FLASHBACK OFF says, so OFF cannot be reached; planner
        never drops a restore point it did not create."""
        if have != RESTORE_POINT_ONLY or want != "NO":
            return
        names = [str(r[0]) for r in db.query(
            "select name from v$restore_point where guarantee_flashback_database = 'YES'") if r and r[0]]
        raise StepError(f"flashback off cannot be reached: FLASHBACK_ON is RESTORE POINT ONLY — the guaranteed "
                        f"restore point(s) {', '.join(names) or '(V$RESTORE_POINT lists none)'} keep writing flashback "
                        "logs for changed blocks (the 'flashback buf free by RVWR' waits), and ALTER DATABASE "
                        "FLASHBACK OFF does not stop that",
                        hint="drop them by hand (DROP RESTORE POINT name) if they are no longer needed, or remove "
                             "the flashback step and say so in the study")

    def check(self, ctx: StepContext) -> Change:
        cfg = cdb_root(config_for(ctx))
        db = open_database(ctx, cfg)
        have, want = self.current(db), self.want()
        self._refuse_restore_points(db, have, want)
        if have == want:
            return Change(False, f"flashback_on is {have}")
        note = f"; WARNING: {WINDOW_LOST}" if want == "NO" else ""
        # before 11.2 it restarts: how is read now (a RAC database srvctl does not list is refused at check)
        mount = (f"; Oracle before 11.2: restarts into MOUNT for it ({restart_way(ctx, cfg, db).describe()})"
                 if db_version(db) < (11, 2) else "")
        return Change(True, f"would turn flashback {self.args['state']}{mount}{note}",
                      f"flashback_on: {have} -> {want}\n")

    def apply(self, ctx: StepContext) -> Outcome:
        cfg = cdb_root(config_for(ctx))
        db = open_database(ctx, cfg)
        have, want = self.current(db), self.want()
        self._refuse_restore_points(db, have, want)
        if have == want:
            return Outcome(Status.OK, f"flashback_on is {have}")
        how, db = set_flashback(ctx, cfg, db, want == "YES")
        if self.current(db) != want:
            raise StepError(f"flashback_on is still {self.current(db)} after ALTER DATABASE FLASHBACK")
        note = f" — WARNING: {WINDOW_LOST}" if want == "NO" else ""
        return Outcome(Status.CHANGED, f"flashback {self.args['state']} ({how}){note}",
                       f"flashback_on: {have} -> {want}{note}\n")

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        cfg = cdb_root(config_for(ctx))
        return {"db": cfg.to_json(), "flashback_on": self.current(open_database(ctx, cfg))}

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        cfg = DbConfig.from_json(saved["db"])
        db = open_database(ctx, cfg)
        want = "YES" if saved["flashback_on"] == "YES" else "NO"  # RESTORE POINT ONLY counts as off
        have = self.current(db)
        if have == want:
            return Outcome(Status.OK, f"flashback_on already {have}")
        how, _ = set_flashback(ctx, cfg, db, want == "YES")
        lost = " (a new, empty flashback window: the one before the run was deleted)" if want == "YES" else ""
        return Outcome(Status.CHANGED, f"flashback_on: {have} -> {want} ({how}){lost}")
