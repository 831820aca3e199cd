"""The ``hammerdb`` workload: one sweep point of HammerDB's TPROC-C (derived from TPC-C) against Oracle, driven by
``hammerdbcli auto <script>`` from the user's own install (``home``; planner does not ship HammerDB).

planner reads the install's release from its hammerdbcli (planner.kinds.hammerdb.release: 3.3 and 4.0-4.12) and
writes the hammerdbcli Tcl script that release needs, every value quoted for Tcl, and keeps it as an artifact
with the passwords masked (they come from the inventory's secret variables ``hammerdb_system_password`` and
``hammerdb_tpcc_password``, docs/secrets.md). hammerdbcli runs with the Oracle client environment Oratcl needs
(ORACLE_HOME, LD_LIBRARY_PATH, ORACLE_SID, TNS_ADMIN), as ``oracle_user`` when that is not the login. The build
(``buildschema``, with a vucomplete wait loop before 4.6) is its own phase with its own budget, skipped when the
TPROC-C user's WAREHOUSE table exists (checked first); each point then reads the schema's warehouses
(max(w_id), what the driver uses) and refuses a count that contradicts the plan's. The run is the timed driver
(``ora_driver timed``) with ``rampup`` and ``duration`` minutes and ``vuset vu N``; HammerDB's Oracle timed
driver takes its own AWR snapshots around the timed window ("Taking start AWR snapshot ... view report from
SNAPID 93 to 94"), so validate refuses a host whose Diagnostics Pack is not stated, and planner does not bracket
the point: it writes the AWR report between HammerDB's snapshot ids instead, the measured window and not the
ramp-up. A virtual user that FINISHED FAILED fails the point.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from planner.db.access import config_for, open_database
from planner.db.licence import LICENCE_VAR, diagnostics_pack
from planner.db.segments import ensure_tablespace, find_segment, on_storage, table_exists
from planner.errors import OracleError, ParseError, StepError
from planner.extras import LoadGenerator
from planner.kinds.hammerdb import pg
from planner.kinds.hammerdb.args import HammerDBArgs, client_instance
from planner.kinds.hammerdb.release import Release, read_release
from planner.kinds.hammerdb.tcl import tcl_quote
from planner.metrics import Parsed
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.status import Artifact
from planner.steps import dbreport
from planner.steps.base import (
    ORACLE,
    POSTGRESQL,
    TIMEOUT_MARGIN_S,
    Change,
    Duration,
    KitStandIn,
    Outcome,
    Rehearsed,
    StepContext,
    Workload,
    check_host_path,
)
from planner.steps.wl_common import finish, point_dir, save_text

SYSTEM_PASSWORD_VAR = "hammerdb_system_password"
TPCC_PASSWORD_VAR = "hammerdb_tpcc_password"
BUILD_TIMEOUT_VAR = "hammerdb_build_timeout_s"
LOG = "hammerdb.log"  # HammerDB's log name without ``vuset unique 1`` (genvu.tcl v4.12 line 438)
LOG_MAX = 8 << 20  # a log of one run is kilobytes (a time profile adds a few)
# A planner estimate, no HammerDB source gives a load rate: two minutes per warehouse per build virtual user.
BUILD_S_PER_WAREHOUSE = 120.0
BUILD_MIN_S = 1800.0
_NAME = r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$"


class HammerDB(Rehearsed, Workload):
    kind: ClassVar[str] = "hammerdb"
    args_schema = {
        "description": "HammerDB TPROC-C on Oracle or PostgreSQL (the user's HammerDB install on the host, driven by "
                       "hammerdbcli)",
        "type": "object",
        "properties": {
            "db": {"enum": ["ora", "pg"], "description": "HammerDB's dbset db: ora (Oracle, the default) or pg "
                                                         "(PostgreSQL, on a host whose db_engine is postgresql)"},
            **pg.SCHEMA,
            "home": {"type": "string", "minLength": 1, "description": "the HammerDB folder holding hammerdbcli"},
            "service": {"type": "string", "minLength": 1, "pattern": "^[^\\s\"'\\\\]+$",
                        "description": "the Oracle service or TNS alias (diset connection instance)",
                        "x-hint": "give a TNS alias or service name without spaces or quotes"},
            "system_user": {"type": "string", "pattern": _NAME},
            "tpcc_user": {"type": "string", "pattern": _NAME, "x-hint": "give an Oracle user name such as TPCC"},
            "tpcc_tablespace": {"type": "string", "pattern": _NAME},
            "virtual_users": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "rampup": {"type": "integer", "minimum": 0, "description": "minutes before the timed window"},
            "duration": {"type": "integer", "minimum": 1, "description": "minutes of the timed window"},
            "allwarehouse": {"type": "boolean"},
            "timeprofile": {"type": "boolean"},
            "warehouses": {"type": "integer", "minimum": 1, "description": "the schema's warehouses (build)"},
            "build_virtual_users": {"type": "integer", "minimum": 1},
            "build": {"type": "boolean", "description": "build the schema when it is missing (default true)"},
            "data_on": {
                "type": "string", "pattern": "^(\\+[A-Za-z][A-Za-z0-9_$#]*|/[A-Za-z0-9_./+@,=-]*)$",
                "description": "where the play put the storage: a disk group (+VIOLIN) or a directory; each point "
                               "checks that <tpcc_user>.STOCK's data files (DBA_SEGMENTS -> DBA_DATA_FILES) are there",
                "x-hint": "give a disk group as +NAME or an absolute directory"},
            "create_tablespace": {
                "type": "string", "pattern": "^[0-9]+[KMGT]$",
                "description": "create tpcc_tablespace on data_on at this size before the build when it is missing",
                "x-hint": "give a size such as 16G"},
        },
        "additionalProperties": False,
        "required": ["home", "virtual_users"],
    }
    sections = frozenset({Section.WORKLOADS})
    needs_database = True
    kit_args = {"home": KitStandIn.OWN}
    report_metrics = ("hammerdb.nopm", "hammerdb.tpm", "hammerdb.vu_failed")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """Ramp-up plus the timed window (HammerDB's defaults: 2 and 5 minutes), and the margin."""
        a = HammerDBArgs.of(args)
        expected = 60.0 * (a.rampup + a.duration)
        return Duration(expected, expected + TIMEOUT_MARGIN_S)

    @staticmethod
    def build_budget_s(args: Mapping[str, Any], host_vars: Mapping[str, Any]) -> float:
        """buildschema's own timeout: it loads every warehouse, so the run's minutes say nothing of it."""
        given = host_vars.get(BUILD_TIMEOUT_VAR)
        if given not in (None, ""):
            return float(given)
        a = HammerDBArgs.of(args)
        per_vu = a.build_warehouses / max(1, a.build_virtual_users)
        return max(BUILD_MIN_S, per_vu * BUILD_S_PER_WAREHOUSE + TIMEOUT_MARGIN_S)

    @functools.cached_property
    def parsed(self) -> HammerDBArgs:
        """The arguments, read once (validate reads them first: a bad one is refused at the plan check)."""
        return HammerDBArgs.of(self.args)

    def validate(self) -> None:
        check_host_path(self.parsed.home, "HammerDB home")
        pg.validate(self.args)
        if self.parsed.create_tablespace and not (self.parsed.data_on and self.parsed.tpcc_tablespace):
            raise StepError("hammerdb: create_tablespace needs tpcc_tablespace (its name) and data_on (where)",
                            hint="add tpcc_tablespace: TPCC and data_on: +GROUP (or a directory)")

    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Also: HammerDB's Oracle timed driver always takes AWR snapshots and reads DBA_HIST_* (oraoltp.tcl
        v4.12 lines 2534 and 2555; only its TimesTen branch takes none), AWR being the Diagnostics Pack's
        (planner.db.licence): a host whose inventory, plan or -e does not state the pack is refused before any
        host is touched, as ``collect: [awr]`` is."""
        super().check_args(rendered, plan_dir, variables)
        if pg.is_pg(rendered):  # PostgreSQL's timed driver counts pg_stat_database: no AWR
            return
        if variables is None or str(variables.get(LICENCE_VAR, "")).strip().lower() in ("true", "yes", "1", "on"):
            return
        said = (f"{LICENCE_VAR} is {variables[LICENCE_VAR]!r}" if LICENCE_VAR in variables
                else f"{LICENCE_VAR} is not stated")
        raise StepError(f"HammerDB's Oracle timed driver takes AWR snapshots and reads DBA_HIST_* "
                        f"(src/oracle/oraoltp.tcl, v3.3-v4.12): AWR needs the Oracle Diagnostics Pack and {said}",
                        hint=f"state {LICENCE_VAR}: true for the host when the pack is licensed; without it, "
                             "measure with a workload that takes Statspack")

    # -- PostgreSQL (planner.kinds.hammerdb.pg): the same kind, another engine ------------------------------
    @property
    def pg(self) -> bool:
        return pg.is_pg(self.args)

    @property  # per step, not per class: one kind, two engines (the engine reads it from the step)
    def writes_db_report(self) -> bool:  # type: ignore[override]
        """Oracle's timed driver takes its own AWR snapshots; PostgreSQL's takes none: pg_stat brackets it."""
        return not self.pg

    @classmethod
    def engine(cls, args: Mapping[str, Any]) -> str:
        return POSTGRESQL if pg.is_pg(args) else ORACLE

    @classmethod
    def rehearsal_server_for(cls, args: Mapping[str, Any]) -> str:
        """A rehearsal starts a real PostgreSQL for ``db: pg``: the stand-in builds and drives the schema in it."""
        return POSTGRESQL if pg.is_pg(args) else ""

    @classmethod
    def server_databases(cls, args: Mapping[str, Any]) -> Sequence[str]:
        return [pg.PgArgs.of(args).default_database] if pg.is_pg(args) else []

    @classmethod
    def capped_for_rehearsal(cls, args: Mapping[str, Any]) -> dict[str, Any]:
        if not pg.is_pg(args):
            return dict(args)
        return {**args, **{k: min(int(args.get(k) or cap), cap) for k, cap in pg.REHEARSAL_CAPS.items()}}

    def add_secrets(self, ctx: StepContext, names: Sequence[str]) -> None:
        """The passwords as given and as the script writes them: Tcl's escapes (\\$ \\[ ...) make another string
        that masking the plain value would miss."""
        if callable(ctx.add_secret):
            for var in names:
                if ctx.vars.get(var):
                    ctx.add_secret(str(ctx.vars[var]))
                    ctx.add_secret(tcl_quote(ctx.vars[var])[1:-1])

    def run_tcl(self, ctx: StepContext, wd: str, name: str, script: str,
                timeout: float | None = None) -> tuple[Artifact, Artifact, str, bool]:
        return self._hammerdbcli(ctx, wd, name, script, timeout)

    # -- the script -----------------------------------------------------------------------------------------
    def tpcc_user(self) -> str:
        return self.parsed.tpcc_user

    def _password(self, ctx: StepContext, var: str, default: str, masked: bool) -> str:
        # A preview is printed: it shows the mask the record shows, as the Tcl-escaped password is another string
        return "********" if masked and ctx.vars.get(var) else str(ctx.vars.get(var) or default)

    def _connection(self, ctx: StepContext, masked: bool) -> list[str]:
        a = self.parsed
        system = self._password(ctx, SYSTEM_PASSWORD_VAR, "manager", masked)
        tpcc = self._password(ctx, TPCC_PASSWORD_VAR, self.tpcc_user(), masked)
        lines = ["dbset db ora", "dbset bm TPC-C",
                 f"diset connection system_user {tcl_quote(a.system_user)}",
                 f"diset connection system_password {tcl_quote(system)}",
                 f"diset connection instance {tcl_quote(self.instance(ctx))}",
                 f"diset tpcc tpcc_user {tcl_quote(self.tpcc_user())}",
                 f"diset tpcc tpcc_pass {tcl_quote(tpcc)}"]
        if a.tpcc_tablespace:  # both: ORDER_LINE goes to tpcc_ol_tab when partitioned (oraoltp.tcl CreateTables)
            lines += [f"diset tpcc tpcc_def_tab {tcl_quote(a.tpcc_tablespace)}",
                      f"diset tpcc tpcc_ol_tab {tcl_quote(a.tpcc_tablespace)}"]
        return lines

    def build_script(self, ctx: StepContext, release: Release, masked: bool = False) -> str:
        lines = [f"# written by planner for step {ctx.step_path}: TPROC-C schema build (HammerDB {release.name})",
                 *self._connection(ctx, masked),
                 f"diset tpcc count_ware {tcl_quote(self.parsed.build_warehouses)}",
                 f"diset tpcc num_vu {tcl_quote(self.parsed.build_virtual_users)}",
                 *release.build_tail()]
        return "\n".join(lines) + "\n"

    def run_script(self, ctx: StepContext, release: Release, warehouses: int | None, masked: bool = False) -> str:
        """``warehouses``: the schema's (max(w_id), what the driver uses), so that ``print dict`` and the record
        say the count the virtual users shared, not a dictionary value the driver ignores."""
        a = self.parsed
        lines = [f"# written by planner for step {ctx.step_path}: TPROC-C timed run (HammerDB {release.name})",
                 *self._connection(ctx, masked),
                 "diset tpcc ora_driver timed",  # the default only from 4.6 (config/oracle.xml): always said
                 f"diset tpcc rampup {tcl_quote(a.rampup)}",
                 f"diset tpcc duration {tcl_quote(a.duration)}",
                 f"diset tpcc allwarehouse {tcl_quote(a.allwarehouse)}",
                 f"diset tpcc ora_timeprofile {tcl_quote(a.timeprofile)}",
                 *([f"diset tpcc count_ware {tcl_quote(warehouses)}"] if warehouses else []),
                 "print dict", "loadscript", f"vuset vu {tcl_quote(a.virtual_users)}", "vuset logtotemp 1",
                 "vuset timestamps 1",  # the log's times give the timed test's window (kinds/hammerdb/window.py)
                 *release.run_tail()]
        return "\n".join(lines) + "\n"

    def instance(self, ctx: StepContext) -> str:
        """Oratcl's connect identifier: the plan's ``service`` on the database host (a TNS alias or a SID, as
        before); from a client host (``ctx.generator``) an EZConnect string to the database host's listener, from
        the inventory's fields thin access reads (oracle_host or its address, oracle_port), as HammerDB's own docs
        show a remote instance; a service already written as //host:port/service is the user's."""
        service = self.parsed.service
        if ctx.generator is None or "/" in service:
            return service
        cfg = config_for(ctx)
        return client_instance(service, cfg.host, cfg.port)

    def release(self, ctx: StepContext) -> Release:
        """The release of the install at ``home``, from its own hammerdbcli (not from the folder's name)."""
        path = posixpath.join(self.home(ctx), "hammerdbcli")
        return read_release(ctx.conn.read_text(path), path)

    def environment(self, ctx: StepContext, client: bool = False) -> dict[str, str]:
        """What Oratcl needs to load and connect: a non-login ``sh -c`` has none of it (as SLOB's runit.sh).
        Oratcl reads env(ORACLE_HOME) and loads $ORACLE_HOME/lib/libclntsh.so, whose own libraries the loader
        finds on LD_LIBRARY_PATH; ORACLE_SID for a bequeath, TNS_ADMIN for a TNS alias kept elsewhere.
        PostgreSQL's Pgtcl needs none of it (libpq is found by the loader)."""
        if self.pg:
            return {}
        if client:  # a client install has no instance: its oracle_home only, and no ORACLE_SID
            home = str(ctx.vars.get("oracle_home") or ctx.host.vars.get("oracle_home") or "").rstrip("/")
            if not home.startswith("/"):
                raise StepError(f"hammerdb: oracle_home is not set on the load generator host {ctx.host.name}",
                                hint=f"set oracle_home of {ctx.host.name} in the inventory: its Oracle client")
            env = {"ORACLE_HOME": home, "LD_LIBRARY_PATH": f"{home}/lib"}
        else:
            cfg = config_for(ctx)
            env = {"ORACLE_HOME": cfg.oracle_home, "LD_LIBRARY_PATH": f"{cfg.oracle_home}/lib"}
            if cfg.oracle_sid:
                env["ORACLE_SID"] = cfg.oracle_sid
        tns_admin = ctx.vars.get("tns_admin")
        if tns_admin:
            env["TNS_ADMIN"] = str(tns_admin)
        return env

    def run_as(self, ctx: StepContext) -> dict[str, Any]:
        """As the database's OS user when the inventory names another one than the login (as SLOB does)."""
        user = ctx.vars.get("oracle_user")
        if user and not self.pg and str(user) != ctx.host.user:
            return {"become": True, "become_user": str(user), "login": True}
        return {}

    def argv(self, ctx: StepContext, script: str) -> list[str]:
        return [posixpath.join(self.home(ctx), "hammerdbcli"), "auto", script]

    def home(self, ctx: StepContext) -> str:
        return ctx.path(self.parsed.home.rstrip("/") or "/")

    # -- check / preview ------------------------------------------------------------------------------------
    def check(self, ctx: StepContext) -> Change:
        if self.pg:
            return pg.PgRun(self, ctx).check()
        return Change(True, f"would run hammerdbcli auto with {self.parsed.virtual_users} virtual users on "
                            f"{self.parsed.service} (build the schema first when {self.tpcc_user()}.WAREHOUSE "
                            "is missing)")

    def preview(self, ctx: StepContext) -> str:
        if self.pg:
            return pg.PgRun(self, ctx).preview(self.release(ctx))
        gen = ctx.generator or ctx  # where hammerdbcli runs
        wd = gen.point_dir or "<point folder>"  # a preview runs nothing: no folder is made or emptied
        release, env, run_as = self.release(gen), self.environment(gen, gen is not ctx), self.run_as(gen)
        build = gen.command_text(self.argv(gen, f"{wd}/build.tcl"), cwd=self.home(gen), env=env, **run_as)
        out = [f"$ {build}   # only when {self.tpcc_user().upper()}.WAREHOUSE is missing", "build.tcl:"]
        out += ["    " + x for x in self.build_script(ctx, release, masked=True).splitlines()]
        out.append(f"$ {gen.command_text(self.argv(gen, f'{wd}/run.tcl'), cwd=self.home(gen), env=env, **run_as)}")
        out.append("run.tcl:")
        out += ["    " + x for x in self.run_script(ctx, release, self.parsed.warehouses, masked=True).splitlines()]
        where = f", on the load generator host {gen.host.name}" if gen is not ctx else ""
        return "\n".join(out) + "\n" + self.check(ctx).msg + f" (HammerDB {release.name}, read from its hammerdbcli" \
            f"{where})"

    # -- running --------------------------------------------------------------------------------------------
    def _secrets(self, ctx: StepContext) -> None:
        """The passwords as given and as the script writes them: Tcl's escapes (\\$ \\[ ...) make another string
        that masking the plain value would miss."""
        if callable(ctx.add_secret):
            for var in (SYSTEM_PASSWORD_VAR, TPCC_PASSWORD_VAR):
                if ctx.vars.get(var):
                    ctx.add_secret(str(ctx.vars[var]))
                    ctx.add_secret(tcl_quote(ctx.vars[var])[1:-1])

    def schema_exists(self, ctx: StepContext) -> bool:
        """The TPROC-C user's WAREHOUSE table, from DBA_TABLES (the name is schema-checked: a plain literal)."""
        try:
            db = open_database(ctx, config_for(ctx))
            try:
                return table_exists(db, self.tpcc_user(), "WAREHOUSE")
            finally:
                db.close()
        except OracleError as exc:
            raise StepError(f"hammerdb: cannot check for the TPROC-C schema: {exc.message}", hint=exc.hint) from exc

    def schema_warehouses(self, ctx: StepContext) -> int:
        """The schema's warehouses as HammerDB's driver reads them (``select max(w_id) from warehouse``,
        oraoltp.tcl v3.3 line 2457, v4.12 line 2813: not the dictionary's count_ware). A schema of another size
        than the plan's is refused: its NOPM would be reported against the plan's number."""
        user = self.tpcc_user().upper()
        try:
            db = open_database(ctx, config_for(ctx))
            try:
                rows = db.query(f"select max(w_id) from {user}.warehouse")
            finally:
                db.close()
        except OracleError as exc:
            raise StepError(f"hammerdb: cannot read the warehouses of {user}: {exc.message}", hint=exc.hint) from exc
        text = str(rows[0][0]).strip() if rows and rows[0] else ""
        if not text.isdigit() or int(text) < 1:
            raise StepError(f"hammerdb: the TPROC-C schema {user} holds no warehouse (an unfinished build?)",
                            hint=f"drop the user {user} so that the step builds it again")
        found, planned = int(text), self.parsed.warehouses
        if planned is not None and found != planned:
            raise StepError(f"hammerdb: the TPROC-C schema {user} holds {found} warehouses (max(w_id), what "
                            f"HammerDB's driver uses) and the plan says {planned}",
                            hint=f"set warehouses: {found}, or drop the user {user} so that the step builds "
                                 f"{planned}")
        return found

    def _tablespace(self, ctx: StepContext) -> None:
        a = self.parsed
        try:
            ensure_tablespace(open_database(ctx, config_for(ctx)), a.tpcc_tablespace, a.data_on, a.create_tablespace)
        except StepError as exc:  # an existing tablespace elsewhere: never moved
            raise StepError(f"hammerdb: {exc.message}", hint="give tpcc_tablespace a new name, or drop that "
                            "tablespace yourself") from exc

    def check_placement(self, ctx: StepContext) -> None:
        """With data_on: the schema's biggest table (STOCK, in the user's default tablespace: oraoltp.tcl
        CreateUser/CreateTables) must have its data files there, or the NOPM would describe other storage."""
        data_on = self.parsed.data_on
        if not data_on:
            return
        user = self.tpcc_user().upper()
        at = find_segment(open_database(ctx, config_for(ctx)), user, "STOCK")
        if at is None:
            raise StepError(f"hammerdb: DBA_SEGMENTS has no {user}.STOCK: where the schema lives cannot be checked",
                            hint="drop the user so that the step builds it again, or remove data_on")
        if not on_storage(at.files, data_on):
            raise StepError(f"hammerdb: {user}.STOCK is in tablespace {at.tablespace}, whose files are "
                            f"{', '.join(at.files[:3])}, not on {data_on} (the step's data_on): the NOPM would "
                            "describe other storage",
                            hint=f"drop the user {user} and give tpcc_tablespace and create_tablespace so that the "
                                 f"build puts it on {data_on}")

    def _hammerdbcli(self, ctx: StepContext, wd: str, name: str, script: str, timeout: float | None = None,
                     client: bool = False) -> tuple[Artifact, Artifact, str, bool]:
        """Upload and run one script on ``ctx``'s host (a client host's: ``client``); (script artifact, console
        artifact, console text, exit ok)."""
        remote = posixpath.join(wd, name)
        run_as = self.run_as(ctx)
        _put_private(ctx, script, remote, run_as)
        script_art = save_text(ctx, name, script)
        # HammerDB writes its log (hammerdb.log) into $TMP (genvu.tcl findtempdir): the point's folder
        env = self.environment(ctx, client) | ({"TMP": wd} if name == "run.tcl" else {})
        try:
            r = ctx.run(self.argv(ctx, remote), cwd=self.home(ctx), check=False, timeout=timeout,
                        env=env, measured=name == "run.tcl", **run_as)
        finally:  # it holds the system password: on the host no longer than the point needs it
            ctx.run(["rm", "-f", "--", remote], check=False)
        text = r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else "")
        console = name.replace(".tcl", "_console.txt")
        return script_art, save_text(ctx, console, text, "hammerdb" if name == "run.tcl" else ""), text, r.ok

    def _build(self, ctx: StepContext, gen: StepContext, wd: str, release: Release) -> list[Artifact]:
        """The schema build when it is missing, checked and its tablespace made on ``ctx`` (the database host),
        buildschema run on ``gen`` (where hammerdbcli runs) in its point folder ``wd``."""
        if self.schema_exists(ctx):
            return []
        if not self.parsed.build:
            raise StepError(f"hammerdb: the TPROC-C schema {self.tpcc_user().upper()} is missing and build is false",
                            hint="set build: true (and warehouses) or build it with HammerDB first")
        if self.parsed.create_tablespace:  # the user's default tablespace must exist (CreateUser) and be on data_on
            self._tablespace(ctx)
        script, console, text, ok = self._hammerdbcli(gen, wd, "build.tcl", self.build_script(ctx, release),
                                                      self.build_budget_s(self.args, ctx.vars), gen is not ctx)
        if not ok or "FINISHED FAILED" in text or "SCHEMA COMPLETE" not in text:
            why = next((ln.strip() for ln in text.splitlines() if "Error" in ln or "FAILED" in ln), "")
            raise StepError(f"hammerdb: buildschema failed: {why[:300] or 'no SCHEMA COMPLETE line'}",
                            hint=f"see {console.path}")
        return [script, console]

    def apply(self, ctx: StepContext) -> Outcome:
        if self.pg:
            return pg.PgRun(self, ctx).apply()
        self._secrets(ctx)
        # hammerdbcli runs on the client host when the inventory names one; the schema checks, the placement and
        # AWR stay on the database host (ctx)
        gen = ctx.generator or ctx
        release = self.release(gen)  # before anything runs: an unsupported install is refused by name
        wd = point_dir(gen, self.kind)
        arts = self._build(ctx, gen, wd, release)
        warehouses = self.schema_warehouses(ctx)
        self.check_placement(ctx)
        script, console, _text, ok = self._hammerdbcli(gen, wd, "run.tcl", self.run_script(ctx, release, warehouses),
                                                       client=gen is not ctx)
        arts += [script, console, *self._log(gen, wd)]
        parsed = _parsed(ctx.run_dir / console.path)
        failure = _failure(parsed, ok)
        if parsed is not None and failure is None:
            arts += self._awr(ctx, parsed)
        return finish(ctx, "hammerdb", arts, console, failure, lambda p: parse_file(p, "hammerdb"),
                      extra=LoadGenerator(gen.host.name, "hammerdbcli") if gen is not ctx else None)

    def _log(self, ctx: StepContext, wd: str) -> list[Artifact]:
        """HammerDB's own log of the run, timestamped: the timed test's window on the host's clock, to which the
        OS statistics are cut (planner.kinds.hammerdb.window). Read as the user who wrote it, bounded."""
        r = ctx.run(["head", "-c", str(LOG_MAX), "--", posixpath.join(wd, LOG)], check=False, **self.run_as(ctx))
        return [save_text(ctx, LOG, r.stdout)] if r.ok and r.stdout else []

    def _awr(self, ctx: StepContext, parsed: Parsed) -> list[Artifact]:
        """The AWR report over HammerDB's own window, when it took snapshots and the pack is licensed."""
        begin, end = parsed.value("hammerdb.awr_begin_snap"), parsed.value("hammerdb.awr_end_snap")
        if begin is None or end is None or end <= begin or ctx.db_report != "awr":
            return []
        if not diagnostics_pack(ctx)[0]:
            return []
        dbid, inst = parsed.fact("awr_dbid"), parsed.fact("awr_inst_num")  # what HammerDB filed them under
        return dbreport.report_between(ctx, int(begin), int(end), int(dbid) if dbid.isdigit() else None,
                                       int(inst) if inst.isdigit() else None)


def _put_private(ctx: StepContext, script: str, remote: str, run_as: Mapping[str, Any]) -> None:
    """The script at mode 0600, owned by the user who runs hammerdbcli: uploaded by the login (which is that
    user, or becomes root, who reads any file), or else written by that user itself from stdin (the point folder
    at 1733 for it, as for a become'd tool: docs/become.md)."""
    user = run_as.get("become_user") or (ctx.become_user if ctx.become else None)
    if not user or user == "root":
        ctx.conn.put(script.encode(), remote, mode=0o600)
        return
    if run_as:
        ctx.run(["chmod", "1733", "--", posixpath.dirname(remote)], become=False)
    ctx.run(["sh", "-c", 'umask 077 && rm -f -- "$1" && cat > "$1"', "sh", remote], stdin=script.encode(),
            **run_as)


def _parsed(path: Path) -> Parsed | None:
    try:
        return parse_file(path, "hammerdb")
    except ParseError:
        return None


def _failure(parsed: Parsed | None, ok: bool) -> str | None:
    """Why the point failed: hammerdbcli's exit, no result, or a virtual user that FINISHED FAILED."""
    if parsed is None:
        return "hammerdbcli printed no TEST RESULT" + ("" if ok else " and exited with an error")
    failed = parsed.value("hammerdb.vu_failed") or 0
    if failed:
        first = parsed.fact("first_error")
        return f"hammerdb: {failed:.0f} virtual user(s) FINISHED FAILED" + (f" ({first})" if first else "")
    if parsed.value("hammerdb.nopm") is None:
        return "hammerdbcli printed no TEST RESULT" + ("" if ok else " and exited with an error")
    return None if ok else "hammerdbcli exited with an error after its TEST RESULT"
