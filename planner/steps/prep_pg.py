"""Host prep for PostgreSQL, kind pg_conf: parameters set with ALTER SYSTEM, one restart per play, restored after.

The mirror of init_ora (prep_db.py) for PostgreSQL. Before any change the step reads ``pg_settings`` for every
name and checks every value as the server would (planner.db.pg_settings: type, unit, min_val..max_val,
enumvals), so a refused value leaves postgresql.auto.conf untouched; a parameter the server's command line sets
(pg_settings.source) is refused too, as ALTER SYSTEM could not take effect over it. It then copies
postgresql.auto.conf beside itself (once per run; a copy, passwords masked, goes in the record), sets each value
with ALTER SYSTEM and reloads. A ``postmaster`` parameter needs a restart: run by the engine the step defers it
(``Outcome.restart``) and the engine restarts once at the end of the play's prep (``restart_once``, which checks
every deferred step's values are in effect) and once after the play's restore (``restart_restored``). A server
that does not start gets its original postgresql.auto.conf back and is started again (pg_server.restart).
Restore puts each name back as the original file had it (ALTER SYSTEM SET, or RESET when it was not there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from planner.db.pg_server import (
    MASK,
    State,
    Target,
    drop_backup,
    locate,
    psql,
    read_backup,
    read_state,
    redact_conf,
    restart,
    take_backup,
)
from planner.db.pg_settings import Setting, auto_conf, checked, literal, names, same, shown
from planner.errors import StepError
from planner.files import sha256_file
from planner.plan.model import Section
from planner.status import Artifact, RestartRequest, Status
from planner.steps.base import Change, Outcome, Rehearsed, RestartDeferring, StepContext, StepType

_FIXED = ("command line", "environment variable", "override")  # sources ALTER SYSTEM cannot override
_POLL = 50  # reads of pg_settings after a reload (each a psql round trip) before a value is called not in effect


@dataclass(frozen=True, slots=True)
class _Todo:
    """One parameter to change: the value the server will store, and what it takes."""

    setting: Setting
    value: str
    alter: bool  # postgresql.auto.conf does not hold it yet
    running: bool  # the running value differs

    @property
    def restart(self) -> bool:
        return self.running and self.setting.restart

    @property
    def key(self) -> str:
        """The name as planner keys it: pg_settings spells some in mixed case (TimeZone), the files in lower."""
        return self.setting.name.lower()

    def line(self, auto: Mapping[str, str]) -> str:
        s = self.setting  # each value with a conninfo's password masked: the line goes in the record
        before = redact_conf(shown(s)) + ("" if self.key not in auto else
                                          f", postgresql.auto.conf {redact_conf(auto[self.key])!r}")
        note = (" (restart needed)" if self.restart else " (reload)" if self.running else
                " (postgresql.auto.conf only: it runs with this value already)")
        return f"{s.name}: {before} -> {redact_conf(shown(s, self.value))}{note}"


class PgConf(RestartDeferring, Rehearsed):
    """PostgreSQL parameters with ``ALTER SYSTEM`` through the host's psql (``pg_host``/``pg_port``/``pg_user``,
    ``pg_password`` or ~/.pgpass), each checked against ``pg_settings`` before any change; one restart per play
    when a ``postmaster`` parameter changed (``pg_ctl restart``, or ``systemctl restart`` when ``pg_service`` is
    set); the original postgresql.auto.conf kept beside itself and put back when the server will not start;
    every parameter restored after the play."""

    kind: ClassVar[str] = "pg_conf"
    db_engine: ClassVar[str] = "postgresql"
    args_schema = {
        "description": "set PostgreSQL parameters with ALTER SYSTEM (restarting once per play when one needs it), "
                       "restored afterwards",
        "type": "object",
        "properties": {
            "params": {"type": "object", "minProperties": 1,
                       "additionalProperties": {"type": ["string", "number", "boolean"]},
                       "propertyNames": {"pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$",
                                         "x-hint": "a PostgreSQL parameter name: letters, digits and _"},
                       "description": "parameter: value, as postgresql.conf takes it (shared_buffers: 256MB)"},
            "database": {"type": "string", "minLength": 1, "pattern": r"^[^\s\"'\\]+$",
                         "description": "the database psql connects to (postgres by default)"},
        },
        "additionalProperties": False,
        "required": ["params"],
    }
    sections = frozenset({Section.PREP})
    # A rehearsal sets them on the real PostgreSQL it starts (planner.rehearsal.postgres), with real restarts.
    real_in_rehearsal = True
    rehearsal_server = "postgresql"

    @classmethod
    def server_databases(cls, args: Mapping[str, Any]) -> Sequence[str]:
        db = str(args.get("database") or "postgres")
        return [] if db == "postgres" else [db]

    @classmethod
    def rehearsal_notes(cls, host: str, args: Mapping[str, Any]) -> Sequence[str]:
        given = args.get("params")
        if not isinstance(given, Mapping) or not given:
            return []
        return [f"{host}: pg_conf sets {', '.join(sorted(map(str, given)))} with ALTER SYSTEM; one the server reads "
                "only at start (pg_settings.context postmaster) restarts the PostgreSQL server once per play, and "
                "once more when it is restored"]

    @property
    def params(self) -> dict[str, Any]:
        given = self.args.get("params")
        return {str(k).lower(): v for k, v in given.items()} if isinstance(given, Mapping) else {}

    def validate(self) -> None:
        """What the argument schema cannot say (it names a missing, empty or ill-named params itself)."""
        given = self.args.get("params")
        lowered = [str(n).lower() for n in given] if isinstance(given, Mapping) else []
        if len(set(lowered)) != len(lowered):
            raise StepError("a parameter is given twice (PostgreSQL's names are case-insensitive)",
                            hint="give each parameter once")
        for name, value in self.params.items():
            if isinstance(value, str) and ("\0" in value or "\n" in value or "\r" in value):
                raise StepError(f"refused value {value!r} for {name}", hint="one line, no NUL")

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        auto = dict(saved.get("auto") or {})
        out = [f"{n} {s.get('setting')}" + (f" (postgresql.auto.conf {auto[n]!r})" if n in auto else
                                              " (not in postgresql.auto.conf)")
               for n, s in dict(saved.get("settings") or {}).items() if isinstance(s, Mapping)]
        return "; ".join(out)

    # -- reading ----------------------------------------------------------------------------------------------
    def _target(self, ctx: StepContext) -> Target:
        return Target.of({**ctx.host.vars, **ctx.vars}, str(self.args.get("database") or "postgres"))

    def _read(self, ctx: StepContext) -> tuple[Target, State]:
        kept = ctx.take_save_read()
        if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], State):
            return kept[0], kept[1]
        t = self._target(ctx)
        state = read_state(ctx, t, names(self.params))
        t = locate(ctx, t, state.data)
        return replace(t, backup=f"{t.auto_conf()}.planner-{ctx.run_dir.name}"), state

    def _plan(self, state: State) -> list[_Todo]:
        """What must change; every value is checked first, so a refusal comes before any change."""
        auto = auto_conf(state.auto or "")
        todo, refused = [], []
        for name, value in self.params.items():
            s = state.settings[name]
            try:
                if s.context == "internal" or name == "data_directory":  # ALTER SYSTEM refuses them (its docs)
                    raise StepError(f"{name} cannot be changed with ALTER SYSTEM (pg_settings.context {s.context}: "
                                    "fixed when the cluster was built, or the server's own location)")
                stored = checked(s, value)
                in_file = name in auto and _same_text(s, auto[name], stored)
                running = not same(s, stored)
                if running and s.source in _FIXED:
                    raise StepError(f"{name} is set by the server's {s.source} (pg_settings.source), which "
                                    "overrides postgresql.auto.conf: ALTER SYSTEM cannot change it")
            except StepError as e:
                refused.append(str(e))
                continue
            # running as asked and no other value in postgresql.auto.conf for the next start: nothing to do
            if running or (name in auto and not in_file):
                todo.append(_Todo(s, stored, not in_file, running))
        if refused:
            raise StepError("pg_conf: refused before any change: " + "; ".join(refused),
                            hint="give values the server takes (pg_settings min_val, max_val, enumvals, unit)")
        return todo

    # -- check ------------------------------------------------------------------------------------------------
    def check(self, ctx: StepContext) -> Change:
        t, state = self._read(ctx)
        todo = self._plan(state)
        if not todo:
            return Change(False, "parameters already set")
        return Change(True, self._words(t, todo, "would set"), self._diff(state, todo))

    @staticmethod
    def _words(t: Target, todo: Sequence[_Todo], verb: str) -> str:
        alter = [d.setting.name for d in todo if d.alter]
        msg = f"{verb} {', '.join(alter)} with ALTER SYSTEM" if alter else "postgresql.auto.conf holds them already"
        if any(d.restart for d in todo):
            msg += f"; a restart is needed ({t.way()})"
        elif any(d.running for d in todo):
            msg += "; a reload (pg_reload_conf)"
        return msg

    @staticmethod
    def _diff(state: State, todo: Sequence[_Todo]) -> str:
        auto = auto_conf(state.auto or "")
        return "".join(d.line(auto) + "\n" for d in todo)

    # -- apply ------------------------------------------------------------------------------------------------
    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        t, state = self._read(ctx)
        ctx.save_read = (t, state)
        auto = auto_conf(state.auto or "")
        return {"target": t.to_json(), "auto_conf": state.auto is not None,
                "auto": {n: redact_conf(auto[n]) for n in self.params if n in auto},
                "settings": {n: {"setting": redact_conf(s.setting), "context": s.context}
                             for n, s in state.settings.items()}}

    def apply(self, ctx: StepContext) -> Outcome:
        t, state = self._read(ctx)
        todo = self._plan(state)
        if not todo:
            return Outcome(Status.OK, "parameters already set")
        arts: tuple[Artifact, ...] = ()
        note = ""
        if any(d.alter for d in todo):
            note = f"; postgresql.auto.conf backed up to {t.backup}" if take_backup(ctx, t) == "taken" else (
                f"; the backup {t.backup} kept from earlier in this run")
            arts = self._keep_original(ctx, state)
            self._alter(ctx, t, state, [d for d in todo if d.alter])
        if any(d.running and not d.restart for d in todo):
            psql(ctx, t, "select pg_reload_conf()")
        msg, diff = self._words(t, todo, "set") + note, self._diff(state, todo)
        reloaded = [d for d in todo if not d.restart]
        if any(d.restart for d in todo) and ctx.defer_restart:
            self._in_effect(ctx, t, reloaded)
            return Outcome(Status.CHANGED, msg + "; the server restarts once at the end of the play's prep", diff,
                           artifacts=arts, restart=RestartRequest(t.to_json()))
        if any(d.restart for d in todo):
            msg += f"; restarted ({restart(ctx, t)})"
        self._in_effect(ctx, t, todo)
        return Outcome(Status.CHANGED, msg, diff, artifacts=arts)

    def _alter(self, ctx: StepContext, t: Target, state: State, todo: Sequence[_Todo]) -> None:
        """ALTER SYSTEM for each; one the server refuses anyway puts back those already written."""
        r = psql(ctx, t, *(f"alter system set {d.setting.name} = {literal(d.value)}" for d in todo), check=False)
        if r.ok:
            return
        _put_back(ctx, t, auto_conf(state.auto or ""), [d.key for d in todo])
        said = redact_conf((r.stderr or r.stdout).strip())[-600:]
        raise StepError(f"pg_conf: the server refused ALTER SYSTEM: {said}; "
                        "the parameters already written were put back: nothing changed",
                        hint="give a value the server takes")

    def _keep_original(self, ctx: StepContext, state: State) -> tuple[Artifact, ...]:
        """The original postgresql.auto.conf in the record (passwords a conninfo holds masked)."""
        if state.auto is None:
            return ()
        local = ctx.artifacts / "postgresql.auto.conf.orig"
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(redact_conf(state.auto))
        return (Artifact(str(local.relative_to(ctx.run_dir)), sha256=sha256_file(local)),)

    def _in_effect(self, ctx: StepContext, t: Target, todo: Sequence[_Todo]) -> None:
        """Each value running; a reload takes effect when the postmaster has read the file: read again a while."""
        left: list[str] = [d.key for d in todo]
        for _ in range(_POLL if todo else 0):
            now = read_state(ctx, t, [d.key for d in todo]).settings
            left = [f"{d.setting.name} is {shown(now[d.key])}, not {shown(d.setting, d.value)}"
                    for d in todo if not same(now[d.key], d.value)]
            if not left:
                return
        if left:
            raise StepError(f"pg_conf: parameters not in effect after the change: {redact_conf('; '.join(left))}",
                            hint="check the server's log and pg_file_settings for an error in the files")

    # -- restore ----------------------------------------------------------------------------------------------
    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        """Each name back as the original file had it. The values come from planner's copy of that file on the host
        (the record's copy has a conninfo's password masked); the copy is removed once the whole file is back,
        not before: the play's other steps, reverted after this one, and a failed restart still need it."""
        t = Target.from_json(saved["target"])
        settings: dict[str, Any] = dict(saved.get("settings") or {})
        state = read_state(ctx, t, list(settings))
        kept = read_backup(ctx, t)
        whole = auto_conf(kept) if kept is not None else None
        original = ({n: whole[n] for n in settings if n in whole} if whole is not None
                    else dict(saved.get("auto") or {}))
        now = auto_conf(state.auto or "")
        back = [n for n in settings if now.get(n) != original.get(n)]
        masked = [n for n in back if MASK in original.get(n, "")]
        if masked:
            raise StepError(f"pg_conf: cannot put back {', '.join(masked)}: the copy of the original "
                            f"postgresql.auto.conf ({t.backup}) is gone and the record masks its password",
                            hint=f"set {', '.join(masked)} back by hand (ALTER SYSTEM SET ...)")
        if back:
            _put_back(ctx, t, original, back)
            psql(ctx, t, "select pg_reload_conf()")
        after = {**{n: v for n, v in now.items() if n not in back}, **{n: original[n] for n in back if n in original}}
        done = whole is not None and after == whole  # every parameter of the file as it was
        changed = [n for n in settings if redact_conf(state.settings[n].setting) != str(settings[n].get("setting"))]
        need = [n for n in changed if settings[n].get("context") == "postmaster"]
        if need and ctx.defer_restart:  # restart_restored removes the copy after the play's one restart
            return Outcome(Status.CHANGED, f"postgresql.auto.conf put back for {', '.join(back) or 'nothing'}; "
                           "the server restarts once after the play's restore", restart=RestartRequest(t.to_json()))
        how = f"; restarted ({restart(ctx, t)})" if need else ""
        if done:
            drop_backup(ctx, t)
        if not back and not need:
            return Outcome(Status.OK, "parameters already as they were")
        return Outcome(Status.CHANGED, f"postgresql.auto.conf put back for {', '.join(back) or 'nothing'}{how}")

    @classmethod
    def restart_once(cls, ctx: StepContext, request: RestartRequest, steps: Sequence[StepType]) -> Outcome:
        """The play's one restart; every pg_conf step's values must then be running."""
        t = Target.from_json(request.target)
        how = restart(ctx, t)
        for step in steps:
            if isinstance(step, PgConf):
                state = read_state(ctx, t, names(step.params))
                step._in_effect(ctx, t, [replace(d, alter=False) for d in step._plan(state)])
        return Outcome(Status.CHANGED, f"restarted once for the play's postmaster parameters ({how})")

    @classmethod
    def restart_restored(cls, ctx: StepContext, request: RestartRequest) -> Outcome:
        t = Target.from_json(request.target)
        how = restart(ctx, t)
        drop_backup(ctx, t)
        return Outcome(Status.CHANGED, f"restarted once for the parameters put back ({how})")


def _same_text(s: Setting, text: str, stored: str) -> bool:
    """Whether a value postgresql.auto.conf holds means ``stored``."""
    try:
        return same(s, stored, checked(s, text))
    except StepError:
        return False


def _put_back(ctx: StepContext, t: Target, original: Mapping[str, str], names_: Sequence[str]) -> None:
    """Each name as the original postgresql.auto.conf had it: its value, or RESET when it was not there."""
    psql(ctx, t, *(f"alter system set {n} = {literal(original[n])}" if n in original else f"alter system reset {n}"
                   for n in names_))
