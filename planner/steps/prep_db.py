"""Database prep step init_ora: parameters, and the restart when one is static (flashback: prep_flashback.py).

ALTER SYSTEM cannot take binds, so a parameter name must match ``^[A-Za-z_][A-Za-z0-9_$#]*$`` AND exist in
v$parameter (a bound query), and its value is rendered by the parameter's type. Restart policy: one restart
per play. Run by the engine, init_ora defers its restart (``ctx.defer_restart``, at apply and on revert): it
answers with ``Outcome.restart``, and the engine restarts once at the end of the play's prep (``restart_once``,
which also checks every deferred step's parameters are in effect) and once after the play's restore
(``restart_restored``). Alone (no deferral, e.g. ``planner restore RUN``) a step restarts itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner import kindspec
from planner.db.access import Database, DbConfig, Row, cdb_root, config_for, open_database
from planner.db.container import read_container, refuse_outside_a_pdb
from planner.db.identity import restart_way
from planner.db.memory import CACHE_PARAMETERS, BufferPools, configured_pools, read_pools, rounded
from planner.db.oracle import restart_database
from planner.db.pfile import (
    ParameterFile,
    backup_path,
    read_parameter_file,
    take_backup,
)
from planner.db.segments import KitPool
from planner.errors import StepError
from planner.extras import InitOraDone
from planner.plan.model import Section
from planner.status import RestartRequest, Status
from planner.steps.base import Change, Outcome, Rehearsed, RestartDeferring, StepContext, StepType
from planner.units import parse_size

PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$#]*$")
SAFE_STRING = re.compile(r"^[A-Za-z0-9_.,:/+@%= -]*$")  # user string values; quotes, $, (, ;, newlines refused
SUGAR = {"recycle_pool": "db_recycle_cache_size"}
# Parameters of type "Big integer" in the Oracle Database Reference (each parameter's "Parameter type" row), written
# as a number with an optional K, M or G suffix (size_bytes also takes T and P); anything else ALTER SYSTEM refuses.
SIZE_PARAMETERS = frozenset({
    "db_cache_size", "db_keep_cache_size", "db_recycle_cache_size", "db_2k_cache_size", "db_4k_cache_size",
    "db_8k_cache_size", "db_16k_cache_size", "db_32k_cache_size", "sga_target", "sga_max_size", "memory_target",
    "memory_max_target", "pga_aggregate_target", "pga_aggregate_limit", "shared_pool_size", "large_pool_size",
    "java_pool_size", "streams_pool_size", "db_recovery_file_dest_size", "inmemory_size",
})
# A kind's cache option (``KindSpec.cache_option``, e.g. "a small cache in the pool the kit's tables use") names
# no parameter: the kind reads which pool its tables use (KEEP or RECYCLE) and init_ora sets that pool's parameter.


def size_bytes(value: object) -> float | None:
    """A big integer parameter's value in bytes (64M, 1g, 8192), else None: planner also takes T and P."""
    return parse_size(str(value), suffixes="KMGTP")


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter as v$parameter (memory) and v$spparameter (spfile) show it."""

    name: str
    type: int  # 1 boolean, 2 string, 3 integer, 6 big integer
    memory: str | None
    issys_modifiable: str  # IMMEDIATE, DEFERRED or FALSE
    spfile: str | None = None
    specified: bool = False

    @property
    def dynamic(self) -> bool:
        return self.issys_modifiable == "IMMEDIATE"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "memory": self.memory, "issys_modifiable":
                self.issys_modifiable, "spfile": self.spfile, "specified": self.specified}


def check_name(name: str) -> str:
    if not PARAM_NAME.fullmatch(name):
        raise StepError(f"refused parameter name {name!r}", hint="letters, digits, _ $ #; not starting with a digit")
    return name.lower()


def read_params(db: Database, names: Sequence[str]) -> dict[str, Param]:
    """Memory and spfile values of ``names``; unknown names are an error naming them."""
    names = [check_name(n) for n in names]
    binds = {f"n{i}": n for i, n in enumerate(names)}
    marks = ", ".join(f":n{i}" for i in range(len(names)))
    mem = db.query(f"select name, type, value, issys_modifiable from v$parameter where name in ({marks})", binds)
    sp = {str(r[0]): r for r in db.query(
        f"select name, value, isspecified from v$spparameter where name in ({marks}) and sid = '*'", binds) if r[0]}
    found = {}
    for name, ptype, value, sysmod in mem:
        if name is None:
            continue
        spr = sp.get(name, (name, None, "FALSE"))
        found[name] = Param(name, int(ptype or 0), value, sysmod or "FALSE", spr[1], spr[2] == "TRUE")
    found.update(_hidden(db, [n for n in names if n not in found and n.startswith("_")], sp))
    missing = [n for n in names if n not in found]
    if missing:
        raise StepError(f"unknown initialization parameter(s): {', '.join(missing)}",
                        hint="check the spelling against v$parameter")
    return found


def _hidden(db: Database, names: Sequence[str], sp: Mapping[str, Row]) -> dict[str, Param]:
    """Hidden ("_") parameters at their default are not in V$PARAMETER; X$KSPPI (names, types) and X$KSPPCV
    (current values) list every parameter and are readable as SYSDBA. Whether one can change without a restart
    is not published, so planner takes it as static: SCOPE=SPFILE and the play's restart."""
    if not names:
        return {}
    binds = {f"n{i}": n for i, n in enumerate(names)}
    marks = ", ".join(f":n{i}" for i in range(len(names)))
    index = {str(r[0]): (str(r[1]), int(float(r[2] or 0))) for r in db.query(
        f"select indx, ksppinm, ksppity from x$ksppi where ksppinm in ({marks})", binds) if r[0] is not None}
    if not index:
        return {}
    ids = ", ".join(f":i{i}" for i in range(len(index)))
    values = {str(r[0]): r[1] for r in db.query(f"select indx, ksppstvl from x$ksppcv where indx in ({ids})",
                                                 {f"i{i}": int(k) for i, k in enumerate(index)})}
    out = {}
    for indx, (name, ptype) in index.items():
        spr = sp.get(name, (name, None, "FALSE"))
        out[name] = Param(name, ptype, values.get(indx), "FALSE", spr[1], spr[2] == "TRUE")
    return out


def sql_name(name: str) -> str:
    """A hidden parameter's name must be double-quoted in ALTER SYSTEM (a nonquoted identifier begins with a
    letter: SQL Language Reference, "Database Object Names and Qualifiers")."""
    return f'"{name}"' if name.startswith("_") else name


def render_value(p: Param, value: Any, *, trusted: bool = False) -> str:
    """The value as ALTER SYSTEM text, by the parameter's type; anything else is refused.

    ``trusted`` values come from the database itself (saved originals), so any printable string is quoted.
    """
    if p.type == 1:
        text = ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value).upper()
        if text not in ("TRUE", "FALSE"):
            raise StepError(f"{p.name} takes TRUE or FALSE, not {value!r}")
        return text
    if p.type in (3, 6):
        if isinstance(value, bool) or size_bytes(value) is None:
            raise StepError(f"{p.name} takes a number or a size such as 64M, not {value!r}")
        return str(value).upper()
    if p.type == 2:
        text = str(value)
        ok = text.isprintable() if trusted else bool(SAFE_STRING.fullmatch(text))
        if isinstance(value, bool) or not ok:
            raise StepError(f"refused value {value!r} for {p.name}",
                            hint="string values may hold letters, digits, spaces and _ . , : / + @ % = -")
        return "'" + text.replace("'", "''") + "'"
    raise StepError(f"{p.name} has v$parameter type {p.type}: planner does not set it")


def canon(p: Param, text: str | None) -> str | None:
    """A value for comparison: sizes in bytes, booleans and strings case-folded, quotes dropped."""
    if text is None:
        return None
    t = str(text).strip().strip("'")
    if p.type in (3, 6) and (size := size_bytes(t)) is not None:
        return str(int(size))
    return t.upper()


def alter_set(p: Param, rendered: str, scope: str) -> str:
    return f"alter system set {sql_name(p.name)}={rendered} scope={scope} sid='*'"


@dataclass(frozen=True, slots=True)
class _Set:
    param: Param
    rendered: str
    scope: str  # both | spfile | memory

    @property
    def restart(self) -> bool:
        return self.scope == "spfile" and not self.param.dynamic

# Parameters Oracle only takes at startup (V$PARAMETER.ISSYS_MODIFIABLE = FALSE), among those labs set:
# a rehearsal says the lab run will restart the database for them.
STATIC_PARAMETERS = frozenset({
    "sga_max_size", "processes", "filesystemio_options", "disk_asynch_io", "use_large_pages", "db_block_size",
    "db_writer_processes", "compatible", "memory_max_target", "sessions", "db_files", "log_buffer",
    "_db_block_prefetch_quota", "_db_block_prefetch_limit", "_db_file_noncontig_mblock_read_count", "lock_sga",
    "pre_page_sga",
})


def _memory_only(pf: ParameterFile) -> str:
    return ("; the instance runs from a text pfile (V$PARAMETER SPFILE is empty): set in memory only (SCOPE=MEMORY), "
            "lost at the next restart" if pf.pfile else "")


class InitOra(RestartDeferring, Rehearsed):
    kind = "init_ora"
    args_schema = {
        "description": "set init.ora parameters (any valid name: value; recycle_pool: SIZE sets the recycle pool)",
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": ["string", "number", "boolean"]},
        "minProperties": 1,
        "propertyNames": {
            "pattern": "^[A-Za-z_][A-Za-z0-9_$#]*$",
            "x-hint": "an Oracle parameter name has letters, digits, _ $ # and does not start with a digit",
        },
    }
    sections = frozenset({Section.PREP})
    needs_database = True

    def __init__(self, args: Mapping[str, Any]) -> None:
        super().__init__(args)
        self._kit: KitPool | None = None  # a kind's cache option's pool: the kit is read once per step

    @classmethod
    def rehearsal_notes(cls, host: str, args: Mapping[str, Any]) -> Sequence[str]:
        static = sorted(k for k in args if k.lower() in STATIC_PARAMETERS)
        return [f"{host}: init_ora {', '.join(static)} need a database restart "
                "(planner restarts once per play, and again when it restores them)"] if static else []

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        out = []
        for name, p in dict(saved.get("params", {})).items():
            if not isinstance(p, Mapping):
                out.append(f"{name} {p}")
                continue
            where = f"spfile {p.get('spfile')}" if p.get("specified") else "not in spfile"
            out.append(f"{name} {p.get('memory')} ({where})")
        return "; ".join(out)

    def wanted(self, ctx: StepContext | None = None) -> dict[str, Any]:
        """Parameter -> value; a kind's cache option becomes its kit's pool parameter when ``ctx`` is given."""
        out: dict[str, Any] = {}
        options = kindspec.cache_options()
        for key, value in self.args.items():
            name = SUGAR.get(key, key)
            if key in options:
                if not isinstance(value, str | int) or isinstance(value, bool) or size_bytes(value) is None:
                    raise StepError(f"{key} takes a size such as 64M, not {value!r}")
                if ctx is None:
                    continue  # the kit is read on the host
                if self._kit is None:
                    self._kit = kindspec.load(options[key])(ctx)
                name = self._kit.parameter
            if name in out:
                raise StepError(f"{key} and {name} both given", hint=f"{key} is sugar for {name}: give one")
            out[check_name(name)] = value
        return out

    def validate(self) -> None:
        for name, value in self.wanted().items():
            # the parameter's type needs the database; a string no type would accept is refused now
            if isinstance(value, str) and not SAFE_STRING.fullmatch(value):
                raise StepError(f"refused value {value!r} for {name}",
                                hint="values may hold letters, digits, spaces and _ . , : / + @ % = -")
            if name in SIZE_PARAMETERS and (isinstance(value, bool) or size_bytes(str(value).strip()) is None):
                # known before any host: ALTER SYSTEM would refuse it (ORA-02097/ORA-00096) after earlier prep
                # steps had already changed the host
                raise StepError(f"{name} takes a size (big integer): a number of bytes or one with K, M, G, T or P, "
                                f"not {value!r}", hint=f"write it as Oracle takes it, e.g. {name}: 64M")

    def _plan(self, params: Mapping[str, Param], pools: BufferPools | None = None,
              ctx: StepContext | None = None, pf: ParameterFile | None = None) -> list[_Set]:
        todo = []
        pfile = pf is not None and pf.pfile
        pools = pools or BufferPools(0, 0, 0, 0)
        cpus = int(canon(params["cpu_count"], params["cpu_count"].memory) or 1) if "cpu_count" in params else 1
        for name, value in self.wanted(ctx).items():
            p = params[name]
            rendered = render_value(p, value)
            want = canon(p, rendered)
            sp_ok = not p.specified or canon(p, p.spfile) == want
            mem_ok = canon(p, p.memory) == want
            if name in CACHE_PARAMETERS and want is not None and not mem_ok:
                # Oracle shows the rounded value (planner.db.memory): 64M asked on 128 CPUs reads back 512M
                mem_ok = canon(p, p.memory) == str(rounded(name, int(want), pools.granule, cpus))
            if sp_ok and mem_ok or pfile and mem_ok:
                continue
            if pfile and not p.dynamic:
                raise StepError(f"{name} is static (ISSYS_MODIFIABLE={p.issys_modifiable}) and the instance runs "
                                "from a text pfile (V$PARAMETER SPFILE is empty): ALTER SYSTEM cannot write it "
                                "(SCOPE=SPFILE fails ORA-32001)",
                                hint="set it in the instance's init.ora by hand, or create an spfile (CREATE SPFILE "
                                     "FROM PFILE) and restart on it")
            todo.append(_Set(p, rendered, "memory" if pfile else "both" if p.dynamic else "spfile"))
        return todo

    @staticmethod
    def _diff(todo: Sequence[_Set]) -> str:
        lines = []
        for s in todo:
            old = s.param.spfile if s.param.specified else f"{s.param.memory} (not in spfile)"
            note = " (static: restart)" if s.restart else ""
            lines.append(f"{s.param.name}: {old} -> {s.rendered.strip(chr(39))}{note}")
        return "\n".join(lines) + "\n"

    def _read(self, ctx: StepContext, db: Database) -> tuple[dict[str, Param], BufferPools]:
        names = list(self.wanted(ctx))
        cache = any(n in CACHE_PARAMETERS for n in names)
        params = read_params(db, names + (["cpu_count"] if cache and "cpu_count" not in names else []))
        return params, (read_pools(db) if cache else BufferPools(0, 0, 0, 0))

    def check(self, ctx: StepContext) -> Change:
        cfg = config_for(ctx)
        db = open_database(ctx, cfg)
        pf, where = self._where(ctx, db)
        todo = self._plan(*self._read(ctx, db), ctx=ctx, pf=pf)
        if not todo:
            return Change(False, "parameters already set")
        # how the restart will go is read now: a RAC database srvctl does not manage is refused at check
        restart = (f" and restart the database ({restart_way(ctx, cfg, db).describe()})"
                   if any(s.restart for s in todo) else "")
        kit = f"; {self._cache_option()}: {self._kit.source}" if self._kit else ""
        return Change(True, f"would set {', '.join(s.param.name for s in todo)}{restart}{_memory_only(pf)}{where}{kit}",
                      self._diff(todo))

    def _where(self, ctx: StepContext, db: Database) -> tuple[ParameterFile, str]:
        """The parameter file and the container; in a PDB what it cannot set is refused here, before any change."""
        container = read_container(db)
        refuse_outside_a_pdb(db, container, list(self.wanted(ctx)))
        note = ""
        if container.pdb:
            note = f"; in {container.describe()}"
            if "db_cache_size" in self.wanted(ctx):
                note += " DB_CACHE_SIZE is a minimum guaranteed to the PDB, not its cache size"
        return read_parameter_file(db), note

    def apply(self, ctx: StepContext) -> Outcome:
        cfg = config_for(ctx)
        db = open_database(ctx, cfg)
        pf, where = self._where(ctx, db)
        todo = self._plan(*self._read(ctx, db), ctx=ctx, pf=pf)
        if not todo:
            return Outcome(Status.OK, "parameters already set" + self._effective(ctx, db)[0])
        restarted = any(s.restart for s in todo)
        if restarted:
            restart_way(ctx, cfg, db)  # refused before the spfile changes, not after
        backup = ""
        if not pf.pfile:
            cfg = dataclasses.replace(cfg, pfile_backup=backup_path(cfg, ctx.run_dir.name), spfile=pf.spfile)
            root = open_database(ctx, cdb_root(cfg)) if cfg.pdb else db
            backup = (f"; spfile backed up to {cfg.pfile_backup}" if take_backup(ctx, root, cfg.pfile_backup) else
                      f"; spfile backup {cfg.pfile_backup} kept from earlier in this run")
        for s in todo:
            db.execute(alter_set(s.param, s.rendered, s.scope))
        msg = f"set {', '.join(s.param.name for s in todo)}{_memory_only(pf)}{where}{backup}"
        if restarted and ctx.defer_restart:
            left = [s for s in self._plan(read_params(db, list(self.wanted()))) if not s.restart]
            if left:
                raise StepError(f"parameters not in effect after the change: {', '.join(s.param.name for s in left)}")
            return Outcome(Status.CHANGED, msg + "; the database restarts once at the end of the play's prep",
                           self._diff(todo), restart=RestartRequest(cfg.to_json()))
        if restarted:
            how, db = restart_database(ctx, cfg)
            msg += f"; restarted ({how})"
        left = self._plan(*self._read(ctx, db), ctx=ctx, pf=pf)
        if left:
            raise StepError(f"parameters not in effect after the change: {', '.join(s.param.name for s in left)}")
        note, pools = self._effective(ctx, db)
        return Outcome(Status.CHANGED, msg + note, self._diff(todo) + note.lstrip("; ") + "\n",
                       extra=InitOraDone(restarted, pools.to_json() if pools else {}))

    def _cache_option(self) -> str | None:
        """The kind's cache option this step was given (a kind's ``<kit>_cache``), if any."""
        return next((key for key in self.args if key in kindspec.cache_options()), None)

    def _effective(self, ctx: StepContext, db: Database) -> tuple[str, BufferPools | None]:
        """After a cache change: the pools as the instance has them (not as asked), and for a kind's cache option
        a check that the kit's tables now live in a pool of about the asked size (never in a big DEFAULT)."""
        names = set(self.wanted(ctx))
        if not names & CACHE_PARAMETERS:
            return "", None
        pools = read_pools(db)
        have = configured_pools(db)
        note = f"; {pools.describe()}"
        option = self._cache_option()
        if option is not None:
            kit: KitPool = self._kit or kindspec.load(kindspec.cache_options()[option])(ctx)
            pool = kit.pool
            if pool not in have or pools.holding(pool) != pool:
                raise StepError(f"{kit.tables} use {kit.source}, but the instance has no {pool} pool after the change "
                                f"(V$BUFFER_POOL: {', '.join(have) or 'none'})",
                                hint="check the alert log: the SGA may have no room for the pool")
            note += f"; {kit.tables}' pool ({kit.source}) cached in {pool} {pools.size(pool) >> 20}M"
        return note, pools

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        cfg = config_for(ctx)
        params = read_params(open_database(ctx, cfg), list(self.wanted(ctx)))
        return {"db": cfg.to_json(), "params": {n: p.to_json() for n, p in params.items()}}

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        cfg = DbConfig.from_json(saved["db"])
        db = open_database(ctx, cfg)
        originals = {n: Param(**d) for n, d in saved["params"].items()}
        now = read_params(db, list(originals))
        done, restart = [], False
        for name, orig in originals.items():
            cur = now[name]
            # the spfile first (SCOPE=SPFILE), then memory: dynamic ones directly, static ones by a restart
            if orig.specified and (not cur.specified or canon(cur, cur.spfile) != canon(orig, orig.spfile)):
                db.execute(alter_set(orig, render_value(orig, orig.spfile, trusted=True), "spfile"))
                done.append(f"{name}: spfile -> {orig.spfile}")
            elif not orig.specified and cur.specified:
                db.execute(f"alter system reset {sql_name(name)} scope=spfile sid='*'")
                done.append(f"{name}: reset (was not in the spfile)")
            if canon(cur, cur.memory) != canon(orig, orig.memory):
                if orig.dynamic:
                    db.execute(alter_set(orig, render_value(orig, orig.memory, trusted=True), "memory"))
                    done.append(f"{name}: memory -> {orig.memory}")
                else:
                    restart = True
        if not done and not restart:
            return Outcome(Status.OK, "parameters already as they were")
        msg = "; ".join(done) or "spfile as it was"
        if restart and ctx.defer_restart:
            return Outcome(Status.CHANGED, msg + "; the database restarts once after the play's restore",
                           restart=RestartRequest(dict(saved["db"])))
        if restart:
            how, _ = restart_database(ctx, cfg)
            msg += f"; restarted ({how})"
        return Outcome(Status.CHANGED, msg)

    @classmethod
    def restart_once(cls, ctx: StepContext, request: RestartRequest, steps: Sequence[StepType]) -> Outcome:
        """The play's one restart for the static parameters its init_ora steps set; each must then be in effect."""
        how, db = restart_database(ctx, DbConfig.from_json(request.target))
        mine = [step for step in steps if isinstance(step, InitOra)]
        left = [s.param.name for step in mine for s in step._plan(read_params(db, list(step.wanted())))]
        if left:
            raise StepError(f"parameters not in effect after the restart: {', '.join(left)}")
        return Outcome(Status.CHANGED, f"restarted once for the play's static parameters ({how})")

    @classmethod
    def restart_restored(cls, ctx: StepContext, request: RestartRequest) -> Outcome:
        how, _ = restart_database(ctx, DbConfig.from_json(request.target))
        return Outcome(Status.CHANGED, f"restarted once for the static parameters put back ({how})")
