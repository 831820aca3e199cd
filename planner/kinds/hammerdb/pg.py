"""HammerDB's TPROC-C on PostgreSQL (``db: pg`` in the step, HammerDB's ``dbset db pg``), on a host whose inventory
says ``db_engine: postgresql``.

HammerDB's PostgreSQL dictionary (config/postgresql.xml at v3.3, v4.0, v4.5, v4.12, v5.0): ``diset connection
pg_host/pg_port`` and ``diset tpcc pg_count_ware, pg_num_vu, pg_superuser, pg_superuserpass, pg_defaultdbase,
pg_user, pg_pass, pg_dbase, pg_storedprocs, pg_driver, pg_rampup, pg_duration, pg_allwarehouse,
pg_timeprofile``; ``pg_tspace`` only from 4.0 (3.3 says "key doesn't" exist and keeps going: planner refuses a
tablespace for 3.3 instead). The build connects as ``pg_superuser`` to ``pg_defaultdbase``, creates ``pg_user``
and ``pg_dbase`` owned by it (pgoltp.tcl CreateUserDatabase), then the tables. The timed driver counts
``sum(xact_commit + xact_rollback)`` of pg_stat_database and ``sum(d_next_o_id)`` of district around its timed
window: TPM is the server's transactions a minute (every database's), NOPM the new orders a minute; it prints
them TPM first at 3.3 and NOPM first from 4.0 (tpcccommon's testresult): the parser reads both.

The connection: hammerdbcli's Pgtcl gets host and port from the host's ``pg_host``/``pg_port`` (HammerDB's own
``localhost``/``5432`` when unset), the superuser is the host's ``pg_user`` (else the step's ``superuser``, else
HammerDB's ``postgres``) with the secret ``pg_password``; the TPROC-C user's password is the secret
``hammerdb_tpcc_password`` (else HammerDB's default, the user's name). Both are in the .tcl scripts only: 0600,
removed after the point, masked in the kept copies. planner itself asks the server with psql (libpq's private
PGPASSFILE, planner.db.libpq) whether the schema is there and how many warehouses it holds (``max(w_id)``, what
the driver reads: pgoltp.tcl v3.3 line 2565, v4.12 line 3208).

On a load generator host (``ctx.generator``, docs/load-generator-host.md) hammerdbcli runs there, its scripts
(0600, removed after the point) on that host only; the scripts' ``pg_host`` is then the database host's
``pg_host`` when it names the server on the network, else the database host's address: a socket directory or a
loopback name means the server as the database host itself reaches it, which from the client is nothing or the
client itself (a loopback pg_host is kept when the database host's own address is loopback: a lab, one
machine). planner's own questions (the schema, max(w_id)) and pg_stat stay on the database host, over its own
``pg_host``. A server that does not admit the client (pg_hba.conf, listen_addresses) fails the point with Pgtcl's
and libpq's words: "Connection to database failed" and the server's reason (docs/oracle-behaviour.md 43.h13).
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.db.libpq import DROP, PASSWORD_VAR, RUN, Server, write_passfile
from planner.errors import ParseError, StepError
from planner.extras import LoadGenerator
from planner.kinds.hammerdb.release import Release
from planner.kinds.hammerdb.tcl import tcl_quote
from planner.metrics import Parsed
from planner.parsers import parse_file
from planner.status import Artifact
from planner.steps.base import Change, Outcome, StepContext
from planner.steps.wl_common import finish, point_dir, tail

PG = "pg"  # HammerDB's prefix for PostgreSQL (config/database.xml): the step's ``db``
TPCC_PASSWORD_VAR = "hammerdb_tpcc_password"
# capped in a rehearsal: a few warehouses load in seconds (the stand-in builds them in the real server)
REHEARSAL_CAPS = {"warehouses": 4, "build_virtual_users": 1, "rampup": 1, "duration": 2}
# psql answers: whether pg_dbase has the WAREHOUSE table, then its max(w_id); dollar-quoted (no quote to escape)
_HAS_TABLE = "select to_regclass($$warehouse$$) is not null"
_MAX_W_ID = "select coalesce(max(w_id), 0) from warehouse"


# what a preview says of the scripts it masks: the passwords are in them as written (PgRun.apply, run_tcl)
SCRIPTS_PRIVATE = ("build.tcl and run.tcl hold both passwords: written at mode 0600 for the user who runs "
                   "hammerdbcli, removed from the host when hammerdbcli ends; the copies kept in the run folder "
                   "are masked")


SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")  # libpq's sslmode values
_PG_NAME = r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$"  # an unquoted PostgreSQL identifier (NAMEDATALEN 64)
# The step's PostgreSQL arguments (its schema's properties beside the Oracle ones)
SCHEMA: Mapping[str, Any] = {
    "database": {"type": "string", "pattern": _PG_NAME, "description": "pg_dbase: the TPROC-C database (tpcc)",
                 "x-hint": "give a PostgreSQL database name such as tpcc"},
    "default_database": {"type": "string", "pattern": _PG_NAME,
                         "description": "pg_defaultdbase: where the build connects to create it (postgres)"},
    "superuser": {"type": "string", "pattern": _PG_NAME,
                  "description": "pg_superuser: the role that creates the user and database (the host's pg_user)"},
    "tablespace": {"type": "string", "pattern": _PG_NAME,
                   "description": "pg_tspace (HammerDB 4.0+): the tablespace of the TPROC-C database"},
    "storedprocs": {"type": "boolean", "description": "pg_storedprocs: procedures instead of functions (PG 11+)"},
    "partition": {"type": "boolean", "description": "pg_partition (HammerDB 4.1+): ORDER_LINE hash-partitioned, "
                  "one partition per 100 warehouses from 200 (false)"},
    "sslmode": {"enum": list(SSLMODES), "description": "pg_sslmode (HammerDB 4.3+): libpq's sslmode of every "
                "HammerDB connection (prefer)"},
    "vacuum": {"type": "boolean", "description": "pg_vacuum: a CHECKPOINT and a VACUUM after the timed run, as the "
               "superuser in default_database (false)"},
}
# Each word's HammerDB key and the first release whose config/postgresql.xml has it (docs/oracle-behaviour.md
# 44.h9): a release without the key says "key doesn't exist" and goes on, so planner refuses it by name instead.
SINCE = {"tablespace": ("pg_tspace", (4, 0)), "partition": ("pg_partition", (4, 1)),
         "sslmode": ("pg_sslmode", (4, 3)), "vacuum": ("pg_vacuum", (3, 3))}
_ORACLE_ONLY = ("service", "system_user", "tpcc_tablespace", "data_on", "create_tablespace")


def is_pg(args: Mapping[str, Any]) -> bool:
    return str(args.get("db") or "ora").strip().lower() == PG


def validate(args: Mapping[str, Any]) -> None:
    """Each engine's words only: an Oracle step needs its service, a PostgreSQL one takes none of Oracle's."""
    if is_pg(args):
        given = [k for k in _ORACLE_ONLY if args.get(k)]
        if given:
            raise StepError(f"hammerdb: {', '.join(given)} {'is' if len(given) == 1 else 'are'} Oracle's, and this "
                            "step is db: pg", hint=f"remove them; PostgreSQL's are {', '.join(SCHEMA)}")
        return
    given = [k for k in SCHEMA if k in args]
    if given:
        raise StepError(f"hammerdb: {', '.join(given)} {'is' if len(given) == 1 else 'are'} PostgreSQL's, and this "
                        "step is Oracle's", hint="add db: pg for PostgreSQL, or remove them")
    if not args.get("service"):
        raise StepError("hammerdb needs service on Oracle (diset connection instance)",
                        hint="give the Oracle service or TNS alias, or db: pg for PostgreSQL")


@dataclass(frozen=True, slots=True)
class PgArgs:
    """The PostgreSQL words of the step, with HammerDB's defaults (config/postgresql.xml)."""

    database: str = "tpcc"  # pg_dbase
    default_database: str = "postgres"  # pg_defaultdbase: where the superuser connects to create pg_dbase
    superuser: str = ""  # pg_superuser; "": the host's pg_user, else postgres
    tablespace: str = ""  # pg_tspace (4.0+); "": HammerDB's pg_default
    storedprocs: bool = False  # pg_storedprocs: procedures (PostgreSQL 11+) instead of functions
    partition: bool | None = None  # pg_partition (4.1+); None: not said, HammerDB's false
    sslmode: str = ""  # pg_sslmode (4.3+); "": not said, HammerDB's prefer
    vacuum: bool = False  # pg_vacuum: checkpoint and vacuum after the timed run

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> PgArgs:
        partition = args.get("partition")
        return cls(str(args.get("database") or "tpcc"), str(args.get("default_database") or "postgres"),
                   str(args.get("superuser") or ""), str(args.get("tablespace") or ""),
                   bool(args.get("storedprocs", False)), None if partition is None else bool(partition),
                   str(args.get("sslmode") or ""), bool(args.get("vacuum", False)))

    def given(self) -> list[str]:
        """The words of this step that a release may lack (SINCE)."""
        return [w for w, v in (("tablespace", self.tablespace), ("partition", self.partition is not None),
                               ("sslmode", self.sslmode), ("vacuum", self.vacuum)) if v]


def has(release: Release, word: str) -> bool:
    return (release.major, release.minor) >= SINCE[word][1]


def refuse_for_release(pg: PgArgs, release: Release) -> None:
    """What a release's dictionary lacks (config/postgresql.xml per tag): HammerDB itself would only say "key
    doesn't exist" and run without it (a schema in pg_default, no partitions, libpq's default sslmode)."""
    lacking = [w for w in pg.given() if not has(release, w)]
    if lacking:
        keys = ", ".join(f"{SINCE[w][0]} (from {'.'.join(map(str, SINCE[w][1]))})" for w in lacking)
        raise StepError(f"hammerdb: HammerDB {release.name} has no {keys}: {', '.join(lacking)} would not be "
                        "honoured", hint=f"remove {', '.join(lacking)}, or install a HammerDB release that has it")


def superuser(pg: PgArgs, v: Mapping[str, Any]) -> str:
    return pg.superuser or str(v.get("pg_user") or "") or "postgres"


_LOOPBACK = ("localhost", "::1")
CONNECT_FAILED = "Connection to database failed"  # Pgtcl's pg_connect, then libpq's PQerrorMessage (43.h13)


def _loopback(name: str) -> bool:
    return name in _LOOPBACK or name.startswith("127.")


def script_server(ctx: StepContext) -> Server:
    """Where hammerdbcli connects: the database host's own pg_host, or from a load generator host the server as
    the network reaches it: the db host's address when its pg_host is unset, a socket directory or a loopback
    name (from the client: no server, or the client itself), else that pg_host; with its pg_port. A db host whose
    address is itself loopback shares this machine with the client (a lab, a rehearsal): its loopback pg_host
    is kept, the server may listen there only."""
    own, address = Server.of(ctx.vars), ctx.host.address
    if ctx.generator is None:
        return own
    local = not own.host or own.host.startswith("/") or _loopback(own.host) and not _loopback(address)
    return Server(address if local else own.host, own.port, own.user)


def connection(step: Any, ctx: StepContext, release: Release, masked: bool) -> list[str]:
    """The script's PostgreSQL lines (``step`` the hammerdb step: its tcl_quote'd arguments)."""
    a, pg, server = step.parsed, PgArgs.of(step.args), script_server(ctx)
    given = ctx.vars.get(PASSWORD_VAR)
    su_pass = "********" if masked and given else str(given or "postgres")  # HammerDB's default: postgres
    tpcc_given = ctx.vars.get(TPCC_PASSWORD_VAR)
    tpcc_pass = "********" if masked and tpcc_given else str(tpcc_given or a.tpcc_user)
    lines = ["dbset db pg", "dbset bm TPC-C"]
    lines += [f"diset connection pg_host {tcl_quote(server.host)}"] if server.host else []
    lines += [f"diset connection pg_port {tcl_quote(server.port)}"] if server.port else []
    # said whenever the release has it: from 4.5 a value set once stays in HammerDB's store (44.h7)
    lines += [f"diset connection pg_sslmode {tcl_quote(pg.sslmode or 'prefer')}"] if has(release, "sslmode") else []
    lines += [f"diset tpcc pg_superuser {tcl_quote(superuser(pg, ctx.vars))}",
              f"diset tpcc pg_superuserpass {tcl_quote(su_pass)}",
              f"diset tpcc pg_defaultdbase {tcl_quote(pg.default_database)}",
              f"diset tpcc pg_user {tcl_quote(a.tpcc_user)}", f"diset tpcc pg_pass {tcl_quote(tpcc_pass)}",
              f"diset tpcc pg_dbase {tcl_quote(pg.database)}",
              f"diset tpcc pg_storedprocs {tcl_quote(pg.storedprocs)}"]
    return lines + ([f"diset tpcc pg_tspace {tcl_quote(pg.tablespace)}"] if pg.tablespace else [])


def build_script(step: Any, ctx: StepContext, release: Release, masked: bool = False) -> str:
    a = step.parsed
    lines = [f"# written by planner for step {ctx.step_path}: TPROC-C schema build on PostgreSQL "
             f"(HammerDB {release.name})", *connection(step, ctx, release, masked),
             f"diset tpcc pg_count_ware {tcl_quote(a.build_warehouses)}",
             f"diset tpcc pg_num_vu {tcl_quote(a.build_virtual_users)}",
             *([f"diset tpcc pg_partition {tcl_quote(bool(PgArgs.of(step.args).partition))}"]
               if has(release, "partition") else []), *release.build_tail()]
    return "\n".join(lines) + "\n"


def run_script(step: Any, ctx: StepContext, release: Release, warehouses: int | None, masked: bool = False) -> str:
    a = step.parsed
    lines = [f"# written by planner for step {ctx.step_path}: TPROC-C timed run on PostgreSQL "
             f"(HammerDB {release.name})", *connection(step, ctx, release, masked),
             "diset tpcc pg_driver timed",  # the default only from 4.6 (config/postgresql.xml): always said
             # 4.x keeps every diset in its SQLite store across runs: a keying and thinking time set once (by
             # hand, in the GUI) would stay and change the whole workload (docs/oracle-behaviour.md 44.h7)
             'diset tpcc pg_keyandthink "false"',
             f"diset tpcc pg_vacuum {tcl_quote(PgArgs.of(step.args).vacuum)}",
             f"diset tpcc pg_rampup {tcl_quote(a.rampup)}", f"diset tpcc pg_duration {tcl_quote(a.duration)}",
             f"diset tpcc pg_allwarehouse {tcl_quote(a.allwarehouse)}",
             f"diset tpcc pg_timeprofile {tcl_quote(a.timeprofile)}",
             *([f"diset tpcc pg_count_ware {tcl_quote(warehouses)}"] if warehouses else []),
             "print dict", "loadscript", f"vuset vu {tcl_quote(a.virtual_users)}", "vuset logtotemp 1",
             *release.run_tail()]
    return "\n".join(lines) + "\n"


def psql_argv(server: Server, database: str, sql: str) -> list[str]:
    return ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *server.psql_options(), "-d", database,
            "-c", sql]


class PgRun:
    """One PostgreSQL point of the hammerdb step: the schema checked (and built), then the timed run."""

    def __init__(self, step: Any, ctx: StepContext) -> None:
        self.step, self.ctx = step, ctx
        self.gen = ctx.generator or ctx  # where hammerdbcli runs: the load generator host, else the database's
        self.pg, self.server = PgArgs.of(step.args), Server.of(ctx.vars)  # psql's server: the db host's own

    def check(self) -> Change:
        a = self.step.parsed
        return Change(True, f"would run hammerdbcli auto (dbset db pg) with {a.virtual_users} virtual users on "
                            f"database {self.pg.database} (build the schema first when its WAREHOUSE table is "
                            "missing)")

    def preview(self, release: Release) -> str:
        refuse_for_release(self.pg, release)  # as apply would: a key the release lacks is not silently left out
        gen = self.gen
        wd = gen.point_dir or "<point folder>"
        home = self.step.home(gen)
        out = [f"$ {shlex.join(psql_argv(self.server, self.pg.database, _HAS_TABLE))}   (is the schema there?)",
               f"$ {shlex.join(psql_argv(self.server, self.pg.database, _MAX_W_ID))}   (its warehouses)",
               f"$ cd {home} && ./hammerdbcli auto {wd}/build.tcl   # only when the WAREHOUSE table is missing",
               "build.tcl:", *("    " + x for x in build_script(self.step, self.ctx, release, True).splitlines()),
               f"$ cd {home} && ./hammerdbcli auto {wd}/run.tcl", "run.tcl:",
               *("    " + x for x in run_script(self.step, self.ctx, release, self.step.parsed.warehouses,
                                                True).splitlines())]
        where = f", on the load generator host {gen.host.name}" if gen is not self.ctx else ""
        return ("\n".join(out) + "\n" + self.check().msg + f" (HammerDB {release.name}, read from its hammerdbcli"
                f"{where})\n{SCRIPTS_PRIVATE}")

    def _psql(self, passfile: str, wd: str, database: str, sql: str) -> tuple[bool, str]:
        out = f"{wd}/psql.out"
        r = self.ctx.sh(RUN, out, passfile, *psql_argv(self.server, database, sql), check=False)
        return r.ok, (self.ctx.conn.read_text(out) or "") if r.exit_code in (0, 1, 2, 3) else r.stderr

    def warehouses(self, passfile: str, wd: str) -> int | None:
        """The schema's max(w_id), or None when pg_dbase or its WAREHOUSE table is missing."""
        ok, text = self._psql(passfile, wd, self.pg.database, _HAS_TABLE)
        if not ok and f'database "{self.pg.database}" does not exist' in text:
            return None
        if not ok:
            raise StepError(f"hammerdb: cannot ask the PostgreSQL server for the TPROC-C schema: {tail(text, 600)}",
                            hint="check pg_host/pg_port/pg_user and the password (pg_password or ~/.pgpass)")
        if text.strip() != "t":
            return None
        ok, text = self._psql(passfile, wd, self.pg.database, _MAX_W_ID)
        if not ok or not text.strip().isdigit():
            raise StepError(f"hammerdb: cannot read the warehouses of {self.pg.database}: {tail(text, 600)}")
        return int(text.strip())

    @functools.cached_property
    def gen_dir(self) -> str:
        """The point folder where hammerdbcli runs (made once: the build's and the run's scripts go there)."""
        return point_dir(self.gen, self.step.kind)

    def run_tcl(self, name: str, script: str, timeout: float | None = None) -> tuple[Artifact, Artifact, str, bool]:
        """One script run by hammerdbcli where it runs (self.gen), in its point folder there."""
        return self.step.run_tcl(self.gen, self.gen_dir, name, script, timeout)

    def apply(self) -> Outcome:
        step, ctx, gen = self.step, self.ctx, self.gen
        step.add_secrets(ctx, (PASSWORD_VAR, TPCC_PASSWORD_VAR))
        release = step.release(gen)  # the install hammerdbcli runs from
        refuse_for_release(self.pg, release)
        wd = self.gen_dir if gen is ctx else point_dir(ctx, step.kind)  # psql's folder, on the database host
        passfile = write_passfile(ctx, wd, self.server, "*")
        try:
            arts, found = self._schema(passfile, wd, release)
        finally:
            if passfile:
                ctx.sh(DROP, passfile, check=False)
        script, console, text, ok = self.run_tcl("run.tcl", run_script(step, ctx, release, found))
        arts += [script, console]
        parsed = _parsed(ctx.run_dir / console.path)
        return finish(ctx, "hammerdb", arts, console, failure(parsed, ok, text), lambda p: parse_file(p, "hammerdb"),
                      extra=LoadGenerator(gen.host.name, "hammerdbcli") if gen is not ctx else None)

    def _schema(self, passfile: str, wd: str, release: Release) -> tuple[list[Artifact], int]:
        """Build when the WAREHOUSE table is missing; the warehouses found, refused when not the plan's."""
        step, ctx, arts = self.step, self.ctx, []
        found = self.warehouses(passfile, wd)
        if found is None:
            if not step.parsed.build:
                raise StepError(f"hammerdb: the TPROC-C schema in database {self.pg.database} is missing and build "
                                "is false", hint="set build: true (and warehouses) or build it with HammerDB first")
            script, console, text, ok = self.run_tcl("build.tcl", build_script(step, ctx, release),
                                                     step.build_budget_s(step.args, ctx.vars))
            arts += [script, console]
            if not ok or "FINISHED FAILED" in text or "SCHEMA COMPLETE" not in text:
                why = next((ln.strip() for ln in text.splitlines() if "Error" in ln or "FAILED" in ln), "")
                why = with_libpq(why, text)
                raise StepError(f"hammerdb: buildschema failed: {why[:500] or 'no SCHEMA COMPLETE line'}",
                                hint=_pgtcl_hint(why) or _connect_hint(why) or f"see {console.path}")
            found = self.warehouses(passfile, wd)
        if not found:
            raise StepError(f"hammerdb: the TPROC-C schema in database {self.pg.database} holds no warehouse (an "
                            "unfinished build?)", hint=f"drop the database {self.pg.database} so that the step "
                            "builds it again")
        planned = step.parsed.warehouses
        if planned is not None and found != planned:
            raise StepError(f"hammerdb: the TPROC-C schema in database {self.pg.database} holds {found} warehouses "
                            f"(max(w_id), what HammerDB's driver uses) and the plan says {planned}",
                            hint=f"set warehouses: {found}, or drop the database {self.pg.database} so that the "
                                 f"step builds {planned}")
        return arts, found


def with_libpq(error: str, text: str) -> str:
    """Pgtcl's "Connection to database failed" and, on the next line of its message, libpq's reason (the server's
    FATAL words): a virtual user's error is the whole message, printed over two lines."""
    if not error.rstrip().endswith(CONNECT_FAILED):
        return error
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines)
               if "Error in Virtual User" in ln and ln.rstrip().endswith(CONNECT_FAILED)), -1)
    reason = next((ln.strip() for ln in lines[at + 1:] if ln.strip()), "") if at >= 0 else ""
    return f"{error.rstrip()}: {reason}" if reason else error


def _connect_hint(error: str) -> str:
    if CONNECT_FAILED not in error:
        return ""
    return ("the PostgreSQL server refused hammerdbcli's connection: its pg_hba.conf must admit the host hammerdbcli "
            "runs on (and listen_addresses the address it connects to), or set the database host's pg_host/pg_port")


def _pgtcl_hint(error: str) -> str:
    """HammerDB's own words when Pgtcl does not load (pgoltp.tcl: error "Failed to load $library - ...")."""
    if "Failed to load Pgtcl" not in error:
        return ""
    return ("hammerdbcli could not load Pgtcl, HammerDB's PostgreSQL interface: HammerDB's binary release ships "
            "it and it needs libpq (Debian: apt-get install libpq5); a HammerDB run from source needs a Pgtcl "
            "package on Tcl's auto_path")


def _parsed(path: Path) -> Parsed | None:
    try:
        return parse_file(path, "hammerdb")
    except ParseError:
        return None


def failure(parsed: Parsed | None, ok: bool, text: str = "") -> str | None:
    """Why the point failed: no result, a virtual user that FINISHED FAILED (Pgtcl named with its fix), or no new
    order in the window: with pg_raiseerror false (HammerDB's default) a failing transaction only prints
    "New Order Procedure Error set RAISEERROR for Details" and the users finish SUCCESS."""
    if parsed is None or parsed.value("hammerdb.nopm") is None and not parsed.value("hammerdb.vu_failed"):
        return "hammerdbcli printed no TEST RESULT" + ("" if ok else " and exited with an error")
    failed = parsed.value("hammerdb.vu_failed") or 0
    if failed:
        first = with_libpq(parsed.fact("first_error"), text)
        hint = _pgtcl_hint(first) or _connect_hint(first)
        return (f"hammerdb: {failed:.0f} virtual user(s) FINISHED FAILED" + (f" ({first})" if first else "")
                + (f": {hint}" if hint else ""))
    if not parsed.value("hammerdb.nopm"):
        errors = text.count("Procedure Error")
        return ("hammerdb: 0 NOPM: no new order was committed in the timed window" +
                (f" ({errors} 'Procedure Error' lines: set pg_raiseerror true in HammerDB, or run its transactions "
                 "by hand, to see the database's error)" if errors else ""))
    return None if ok else "hammerdbcli exited with an error after its TEST RESULT"
