"""Who the database is, read from the database and from Grid, never guessed (a guess names the wrong one).

- db_unique_name: V$DATABASE.DB_UNIQUE_NAME. srvctl's ``-d`` takes it ("srvctl config database [-db
  db_unique_name]", Oracle RAC Administration and Deployment Guide, SRVCTL reference); the instance name (SLOB1)
  is not it. An inventory ``oracle_db_name`` that disagrees is an error naming both.
- Instances: GV$INSTANCE (and CLUSTER_DATABASE). On RAC a restart goes through srvctl for the whole database;
  when srvctl does not list the database (``srvctl config database`` lists "all configured databases that are
  registered with Oracle Clusterware", same reference) the restart is refused, never done on this node alone.
- The ASM instance of this node: V$ASM_CLIENT in the database instance, which "displays information about the
  Oracle ASM instance if the database has any open Oracle ASM files" (Oracle Database Reference, V$ASM_CLIENT),
  i.e. +ASM on a single-instance Grid / Oracle Restart host and +ASM1, +ASM2... on RAC nodes; else the one
  asm_pmon_+ASMn process running here; else the inventory's ``asm_sid``; else refused with that hint. An
  ``asm_sid`` that disagrees with what was read is an error naming both.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from planner.db.access import Database, DbConfig, StepContext, open_database
from planner.db.config import Row
from planner.errors import OracleError, StepError

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_$#.]*$")
ASM_SID_HINT = ("set asm_sid in the inventory: the ASM instance on this node (+ASM on a single-instance Grid or "
                "Oracle Restart host, +ASM1, +ASM2... on RAC nodes; `srvctl status asm` and the asm_pmon_+ASMn "
                "process say which)")


@dataclass(frozen=True, slots=True)
class Instance:
    inst_id: int
    name: str
    host: str


@dataclass(frozen=True, slots=True)
class DbIdentity:
    """What V$DATABASE and GV$INSTANCE say: the db_unique_name and the running instances."""

    unique_name: str
    instances: tuple[Instance, ...]
    cluster_database: bool = False

    @property
    def rac(self) -> bool:
        return self.cluster_database or len(self.instances) > 1

    def names(self) -> str:
        return ", ".join(f"{i.name} on {i.host}" for i in self.instances)


def read_identity(db: Database) -> DbIdentity:
    rows = db.query("select db_unique_name from v$database")
    if not rows or not rows[0][0]:
        raise StepError("V$DATABASE returned no DB_UNIQUE_NAME")
    return DbIdentity(str(rows[0][0]), read_instances(db), read_cluster_database(db))


INSTANCES_SQL = "select inst_id, instance_name, host_name from gv$instance order by inst_id"
CLUSTER_DATABASE_SQL = "select value from v$parameter where name = 'cluster_database'"


def instances_from(rows: list[Row]) -> tuple[Instance, ...]:
    return tuple(Instance(int(r[0] or 0), str(r[1]), str(r[2] or "")) for r in rows if r[1])


def cluster_database_from(rows: list[Row]) -> bool:
    return bool(rows) and str(rows[0][0] or "").strip().upper() == "TRUE"


def read_instances(db: Database) -> tuple[Instance, ...]:
    """GV$INSTANCE: one row per running instance of the database (more than one: RAC)."""
    return instances_from(db.query(INSTANCES_SQL))


def read_cluster_database(db: Database) -> bool:
    """CLUSTER_DATABASE is TRUE on RAC, even while only one of its instances is open."""
    return cluster_database_from(db.query(CLUSTER_DATABASE_SQL))


def checked_unique_name(cfg: DbConfig, ident: DbIdentity) -> str:
    """The db_unique_name; an inventory ``oracle_db_name`` must be the same name."""
    if cfg.db_name and cfg.db_name.upper() != ident.unique_name.upper():
        raise StepError(f"oracle_db_name {cfg.db_name} (inventory) is not this database's db_unique_name "
                        f"{ident.unique_name} (V$DATABASE.DB_UNIQUE_NAME)",
                        hint=f"set oracle_db_name: {ident.unique_name}, or remove it (planner reads it)")
    return ident.unique_name


def oracle_run_kw(cfg: DbConfig) -> dict[str, Any]:
    """How srvctl runs for the database: as the oracle user (become, login shell) with the database home."""
    user = cfg.oracle_user
    return {"become": True if user else None, "become_user": user, "login": bool(user),
            "env": {"ORACLE_HOME": cfg.oracle_home}, "timeout": cfg.open_timeout_s}


def registered_databases(ctx: StepContext, cfg: DbConfig) -> list[str] | None:
    """``srvctl config database``: the db_unique_names Grid manages; None when srvctl cannot be run here."""
    r = ctx.run([ctx.path(cfg.oracle_home) + "/bin/srvctl", "config", "database"], check=False, **oracle_run_kw(cfg))
    if not r.ok:
        return None
    return [line.strip() for line in r.stdout.splitlines() if _NAME.fullmatch(line.strip())]


@dataclass(frozen=True, slots=True)
class RestartWay:
    """How this database restarts: srvctl for the whole database (``srvctl`` = its db_unique_name as srvctl lists
    it), or sqlplus on its one instance (``srvctl`` None: a single instance Grid does not manage)."""

    srvctl: str | None
    ident: DbIdentity

    def argv(self, ctx: StepContext, cfg: DbConfig, verb: str) -> list[str]:
        assert self.srvctl is not None
        tail = ["-o", "immediate"] if verb == "stop" else []
        return [ctx.path(cfg.oracle_home) + "/bin/srvctl", verb, "database", "-d", self.srvctl, *tail]

    def describe(self) -> str:
        if self.srvctl is None:
            return "sqlplus shutdown immediate / startup"
        n = len(self.ident.instances)
        every = f"; all {n} instances: {self.ident.names()}" if self.ident.rac else ""
        return f"srvctl stop/start database -d {self.srvctl} (db_unique_name from V$DATABASE{every})"


def restart_way(ctx: StepContext, cfg: DbConfig, db: Database | None = None) -> RestartWay:
    """Read how to restart: refuses a RAC database srvctl does not list (a local-only restart would leave the
    other instances running with the old parameters, or be refused by them)."""
    ident = read_identity(db or open_database(ctx, cfg))
    unique = checked_unique_name(cfg, ident)
    listed = registered_databases(ctx, cfg)
    match = next((n for n in listed or () if n.upper() == unique.upper()), None)
    if match is not None:
        return RestartWay(match, ident)
    if ident.rac:
        why = "srvctl could not be run" if listed is None else "`srvctl config database` does not list it"
        raise StepError(f"database {unique} is a RAC database ({ident.names() or 'CLUSTER_DATABASE=TRUE'}) and "
                        f"{why}: planner restarts a RAC database only through srvctl, never one instance alone",
                        hint=f"register it with Grid (srvctl add database -db {unique}) or check oracle_home "
                             "(its bin/srvctl is run as oracle_user)")
    return RestartWay(None, ident)


def asm_sid(ctx: StepContext, cfg: DbConfig) -> str:
    """This node's ASM SID: V$ASM_CLIENT in the database, or the inventory's asm_sid (they must agree)."""
    stated, read, why = cfg.asm_sid, "", ""
    if cfg.oracle_sid or cfg.access == "thin":
        try:
            rows = open_database(ctx, cfg).query("select instance_name from v$asm_client")
            names = sorted({str(r[0]) for r in rows if r and r[0] and str(r[0]).startswith("+")})
            if len(names) == 1:
                read = names[0]
            else:
                why = (f"V$ASM_CLIENT names {', '.join(names)}" if names else
                       "the database has no open ASM files (V$ASM_CLIENT is empty)")
        except OracleError as e:
            why = f"the database could not be asked ({e})"
    else:
        why = "oracle_sid is not set, so the database cannot be asked (V$ASM_CLIENT)"
    source = "the ASM instance this database uses, {} (V$ASM_CLIENT.INSTANCE_NAME)"
    if not read:
        running = running_asm_sids(ctx)
        if len(running) == 1:
            read, source = running[0], "the ASM instance running on this node, {} (its asm_pmon_{} process)"
        elif running:
            why += f"; several ASM instances run here ({', '.join(running)})"
    if read and stated and read.upper() != stated.upper():
        raise StepError(f"asm_sid {stated} (inventory) is not {source.format(read, read)}",
                        hint=f"set asm_sid: {read}, or remove it (planner reads it)")
    if read or stated:
        return read or stated
    raise StepError(f"cannot tell which ASM instance runs on this node: {why}", hint=ASM_SID_HINT)


_PMON = re.compile(r"^asm_pmon_(\+ASM[0-9]*)$")


def running_asm_sids(ctx: StepContext) -> list[str]:
    """The ASM instances running on this host, by their PMON process: on Linux and UNIX background processes are
    named <prefix>_<process>_<SID>, asm_pmon_+ASM1 for an ASM instance's PMON (Oracle Database Reference,
    "Background Processes": https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/background-processes.html)."""
    r = ctx.run(["ps", "-eo", "args"], check=False)
    names = {m.group(1) for line in r.stdout.splitlines() if line.split() and (m := _PMON.match(line.split()[0]))}
    return sorted(names) if r.ok else []


def asm_config(ctx: StepContext, cfg: DbConfig) -> DbConfig:
    """``cfg`` with its ASM SID read (asm_sid): what the ASM steps connect with and save for restore."""
    return dataclasses.replace(cfg, asm_sid=asm_sid(ctx, cfg))


def open_asm(ctx: StepContext, cfg: DbConfig) -> Database:
    """The ASM instance, as the grid user with grid_home and this node's ASM SID (cfg must come from asm_config)."""
    if not cfg.asm_sid:
        raise StepError("the ASM SID is not known", hint=ASM_SID_HINT)
    return open_database(ctx, cfg, asm=True)

