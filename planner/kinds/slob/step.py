"""The ``slob`` workload: one sweep point of the user's own SLOB kit on the host (never bundled).

How the kit's version is told and what each version's command line is: planner.kinds.slob.kit.

readers and writers are mapped onto 2.x as sessions (schemas) = readers + writers and
UPDATE_PCT = round(100 * writers / sessions) unless update_pct is given (SLOB accepts 0-50 or 100 only).
slob.conf is rewritten from the step's parameters for the point and put back afterwards: the original is
first copied to ``slob.conf.planner-orig`` on the host and restored in a ``finally`` (a run that died
before restoring leaves that copy, which the next run takes as the original).

SLOB writes its reports (awr.txt, statspack.txt, iostat.out...) into the kit. Before ``runit.sh`` planner
removes any the kit still holds (a dead attempt's half-written awr.txt must never pass for this point's), and
after it copies what this run wrote into the point's folder, where they are fetched from. The last point's
reports stay in the kit, as after a run by hand; the slob.conf backup is the one piece of planner state
there, kept only until the point ends (it must survive a crashed run).
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from planner.db.access import config_for, open_database
from planner.db.config import NLS_ENV
from planner.db.container import NO_PDB, NO_PDB_HINT, refuse_cdb_root, stated_cdb
from planner.db.licence import statistics_choice
from planner.db.segments import ensure_tablespace, placement_refusal
from planner.errors import StepError
from planner.kinds.slob.args import ARGS_SCHEMA, REFUSAL_HINT, SlobArgs, kit_path, kit_refusals
from planner.kinds.slob.cache import cache_check, place, setup_budget_s, where
from planner.kinds.slob.kit import (
    BACKUP_SUFFIX,
    COLLECT,
    ERROR_LINE,
    GLOBAL_OUTPUTS,
    OUTPUTS,
    PDB_HINT,
    PDB_SERVICES,
    PREPARE,
    KitVersion,
    capped,
    conf_value,
    data_bytes,
    pdb_refusal,
    rac_note,
    read_kit,
    render_conf,
    sessions_words,
)
from planner.kinds.slob.point import point_database, point_extra
from planner.parsers import parse_text, text_lines
from planner.plan.model import Section
from planner.status import Artifact, Status
from planner.steps.base import (
    Change,
    Duration,
    KitStandIn,
    Outcome,
    Rehearsed,
    StepContext,
    Workload,
    seconds_of,
)
from planner.steps.rac import Cluster, cluster_of, from_global_report
from planner.steps.wl_common import finish, host_run_dir, outcome_reports, point_dir, save_text
from planner.transport.connection import CommandResult

_ERROR_WORDS = re.compile(r"ORA-|SP2-|FATAL")


class Slob(Rehearsed, Workload):
    """One sweep point of the user's own SLOB kit on the host: runit.sh with the point's slob.conf (the original
    put back), setup.sh first when asked, and a point refused when its data would be read from the buffer cache."""

    kind: ClassVar[str] = "slob"
    args_schema = ARGS_SCHEMA
    sections = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = True  # SLOB takes its own AWR/Statspack snapshots
    needs_database = True
    kit_args = {"kit": KitStandIn.OWN}
    report_metrics = ("physical_read_iops", "physical_write_iops", "read_iops_per_core",
                      "single_block_read_latency_ms", "logical_reads_per_s", "physical_reads_per_s",
                      "physical_writes_per_s", "redo_mb_per_s", "logical_to_physical_ratio", "buffer_cache_mb",
                      "db_time_per_s", "db_cpu_per_s")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """runit.sh runs RUN_TIME seconds. Without run_time, slob.conf's own is expected (300 in the kit as
        shipped) but not known here: the budget is then the host's default."""
        given = seconds_of(args.get("run_time"))
        return Duration.with_margin(given) if given is not None else Duration(300.0)

    # -- planning (pure) ---------------------------------------------------------------------------------
    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Also: a CDB the inventory states (oracle_cdb, 21c+) with no oracle_pdb, refused before any host."""
        super().check_args(rendered, plan_dir, variables)
        if variables is not None and stated_cdb(variables) and not variables.get("oracle_pdb"):
            raise StepError(f"the inventory says this database is a CDB (oracle_cdb or a 21c+ release) and oracle_pdb "
                            f"names no PDB; {NO_PDB}", hint=NO_PDB_HINT)

    def validate(self) -> None:
        """The plan's arguments as written (a sweep's lists included): the kit path, and what runit.sh refuses."""
        kit_path(self.args)
        refused = kit_refusals(self.args)
        if refused:
            raise StepError("slob: " + "; ".join(refused), hint=REFUSAL_HINT)

    @functools.cached_property
    def parsed(self) -> SlobArgs:
        """This point's arguments, parsed once (a sweep's lists are points by now)."""
        return SlobArgs.of(self.args)

    def kit(self, ctx: StepContext) -> str:
        return ctx.path(self.parsed.kit.rstrip("/"))

    def command(self, version: KitVersion, kit_conf: str | None = None) -> tuple[list[str], int, int]:
        """(runit.sh argv, sessions, update_pct) for this point; sessions = schemas x THREADS_PER_SCHEMA (from -t,
        else the step's conf: key or the kit's slob.conf ``kit_conf``), as runit.sh connects them."""
        a = self.parsed
        readers, writers, sessions, threads = a.readers, a.writers, a.schemas, a.threads_per_schema
        if sessions < 1:
            raise StepError("slob: readers + writers must be at least 1")
        if version is KitVersion.SLOB1:
            return ["sh", "./runit.sh", str(writers), str(readers)], sessions, round(100 * writers / sessions)
        update_pct = a.update_pct if a.update_pct is not None else round(100 * writers / sessions)
        if 50 < update_pct < 100 or update_pct > 100:
            raise StepError(f"slob: UPDATE_PCT would be {update_pct}, SLOB accepts 0-50 or 100",
                            hint="give update_pct explicitly, or fewer writers than readers")
        if version is KitVersion.SLOB2:
            if threads not in (None, 1):
                raise StepError("slob: threads_per_schema needs SLOB 2.4 or later; this kit is 2.0-2.3")
            return ["sh", "./runit.sh", str(sessions)], sessions, update_pct
        if threads is not None:
            return (["sh", "./runit.sh", "-s", str(sessions), "-t", str(threads)], capped(sessions, threads, "-t"),
                    update_pct)
        t = self.conf_threads(kit_conf)  # single-option invocation: slob.conf's THREADS_PER_SCHEMA applies
        return ["sh", "./runit.sh", str(sessions)], capped(sessions, t, "slob.conf"), update_pct

    def schemas(self) -> int:
        return self.parsed.schemas

    def conf_threads(self, kit_conf: str | None) -> int:
        """THREADS_PER_SCHEMA as runit.sh will read it: the step's conf: key, else the kit's slob.conf, else 1
        (2.4.0 runit.sh:1017 ``THREADS_PER_SCHEMA=${THREADS_PER_SCHEMA:=1}``; usage text :801-805)."""
        given = self.parsed.conf.get("THREADS_PER_SCHEMA")
        text = str(given) if given is not None else conf_value(kit_conf or "", "THREADS_PER_SCHEMA")
        if text is None or not text.strip():
            return 1
        if not text.strip().isdigit() or int(text) < 1:
            raise StepError(f"slob: THREADS_PER_SCHEMA {text[:20]!r} in slob.conf is not a whole number >= 1",
                            hint="fix the kit's slob.conf, or give threads_per_schema in the step")
        return int(text)

    def conf_values(self, version: KitVersion, update_pct: int) -> dict[str, str]:
        values = {"UPDATE_PCT": str(update_pct), **self.parsed.slob_conf()}
        if version is not KitVersion.SLOB24:
            values.pop("DATABASE_STATISTICS_TYPE", None)  # only 2.4+ knows it; older kits always write AWR
        for key in self.parsed.conf:
            values[str(key)] = self.parsed.conf_text(key) or ""
        return values

    def _read_kit(self, ctx: StepContext, kit: str) -> tuple[str, str | None, KitVersion]:
        return read_kit(ctx, kit)

    def check(self, ctx: StepContext) -> Change:
        kit = self.kit(ctx)
        _runit, conf, version = self._read_kit(ctx, kit)
        argv, sessions, upd = self.command(version, conf)
        refused = pdb_refusal(ctx, conf, self.point_conf(ctx, version, conf, upd)[0]) \
            if ctx.vars.get("oracle_pdb") else None
        if refused:
            raise StepError(f"slob: {refused}", hint=PDB_HINT)
        stats, why = self._statistics(ctx, version, conf)
        return Change(True, f"would run SLOB {version.value} in {kit}: {shlex.join(argv)} "
                            f"({sessions_words(self.schemas(), sessions)}, UPDATE_PCT={upd}); statistics: {stats} "
                            f"({why})")

    def _statistics(self, ctx: StepContext, version: KitVersion, conf: str | None) -> tuple[str, str]:
        """AWR or Statspack for this point, and why (planner.db.licence decides by the Diagnostics Pack)."""
        kit = (conf_value(conf, "DATABASE_STATISTICS_TYPE") or "statspack") if (
            conf is not None and version is KitVersion.SLOB24) else "awr"
        asked = self.parsed.database_statistics_type or ctx.db_report
        source = ("the step's database_statistics_type" if self.parsed.database_statistics_type else
                  "the play's collect" if asked else "the kit's slob.conf" if version is KitVersion.SLOB24
                  else f"SLOB {version.value} always takes AWR snapshots")
        if version is not KitVersion.SLOB24:
            asked, source = "awr", f"SLOB {version.value} always takes AWR snapshots"
        return statistics_choice(ctx, str(asked or kit).lower(), source, can_statspack=version is KitVersion.SLOB24)

    def _environment(self, ctx: StepContext) -> dict[str, str]:
        """runit.sh and setup.sh need ORACLE_HOME, ORACLE_SID and sqlplus on PATH (runit.sh: ``type sqlplus``;
        setup.sh f_test_oracle_utilities: ``type sqlplus``, ``type tnsping``; both connect by bequeath with
        ORACLE_SID): a non-login ``sh -c`` has none of them, so they come from the inventory, explicitly."""
        cfg = config_for(ctx)
        if not cfg.oracle_sid:
            raise StepError("slob: runit.sh connects by bequeath and needs ORACLE_SID, but oracle_sid is not set",
                            hint="set oracle_sid (and oracle_home) for the host in the inventory")
        path = f"{ctx.path(cfg.oracle_home)}/bin:/usr/local/bin:/usr/bin:/bin"
        # NLS pinned as in planner's own sessions (planner.db.config.NLS_ENV): the kit's sqlplus writes the reports
        env = {"ORACLE_HOME": cfg.oracle_home, "ORACLE_SID": cfg.oracle_sid, "PATH": path, **NLS_ENV}
        if ctx.root:
            env["PLANNER_ROOT"] = ctx.root  # only stand-ins read it
        return env

    def point_conf(self, ctx: StepContext, version: KitVersion, original: str | None,
                   update_pct: int) -> tuple[dict[str, str], str, str]:
        """(slob.conf values for this point, statistics type, why): what apply writes and -C -D shows."""
        values: dict[str, str] = self.conf_values(version, update_pct) if original is not None else {}
        values.pop("DATABASE_STATISTICS_TYPE", None)
        service = str(ctx.vars.get("slob_sqlnet_service") or "")
        if service and original is not None and ctx.vars.get("oracle_pdb"):
            for key in PDB_SERVICES:  # the step's conf: still wins
                values.setdefault(key, service)
        stats, why = self._statistics(ctx, version, original)
        if original is not None and version is KitVersion.SLOB24:
            values["DATABASE_STATISTICS_TYPE"] = stats  # said in the outcome: never changed silently
        return values, stats, why

    def preview(self, ctx: StepContext) -> str:
        kit = self.kit(ctx)
        _runit, conf, version = self._read_kit(ctx, kit)
        argv, sessions, upd = self.command(version, conf)
        values, stats, why = self.point_conf(ctx, version, conf, upd)
        env, run_as = self._environment(ctx), self._as_oracle(ctx)
        lines = []
        if self.parsed.setup:
            if self.parsed.create_tablespace:
                lines.append(f"(tablespace {self.tablespace(ctx)} created on {self.parsed.data_on}, "
                             f"{self.parsed.create_tablespace}, when it is missing)")
            setup = ctx.command_text(self.setup_argv(ctx), cwd=kit, env=env, **run_as)
            lines.append(f"$ {setup}   # once per run and host, unless the schemas are loaded already")
        line = ctx.command_text(argv, cwd=kit, env=env, **run_as)
        lines.append(f"$ {line}   # SLOB {version.value}, {sessions} sessions; statistics: {stats} ({why})")
        if conf is not None:
            lines.append(f"{kit}/slob.conf (the original is kept and put back after the point):")
            lines += ["    " + x for x in render_conf(conf, values).rstrip("\n").splitlines()]
        return "\n".join(lines)

    # -- running -----------------------------------------------------------------------------------------
    def _as_oracle(self, ctx: StepContext) -> dict[str, Any]:
        user = ctx.vars.get("oracle_user")
        if user and str(user) != ctx.host.user:
            return {"become": True, "become_user": str(user), "login": True}
        return {}

    def _setup(self, ctx: StepContext, kit: str, schemas: int, run_as: Mapping[str, Any],
               env: Mapping[str, str], data_bytes: int = 0, conf: tuple[str, str] | None = None) -> list[Artifact]:
        """setup.sh once per run and host (again only if a later point needs more schemas), with its own budget:
        it loads every schema (schemas x SCALE blocks), so runit's RUN_TIME says nothing of how long it takes.
        ``conf`` (original, the point's): setup.sh reads slob.conf too (ADMIN_SQLNET_SERVICE "is used by both
        setup.sh and runit.sh", SLOB 2.4.2 README), so it runs with the point's, and the original is put back."""
        marker = posixpath.join(host_run_dir(ctx), "slob-setup-" + re.sub(r"[^A-Za-z0-9]+", "_", kit))
        done = ctx.conn.read_text(marker)
        if done and done.strip().isdigit() and int(done.strip()) >= schemas:
            return []
        created = self._tablespace(ctx, self.tablespace(ctx))
        conf_path = posixpath.join(kit, "slob.conf")
        if conf is not None:
            ctx.sh(PREPARE, kit, conf_path + BACKUP_SUFFIX)  # a crash here leaves the backup, the real original
            ctx.conn.put(conf[1].encode(), conf_path)
        try:
            r = ctx.run(self.setup_argv(ctx), cwd=kit, check=False, env=env,
                        timeout=setup_budget_s(ctx.vars, data_bytes), **run_as)
        finally:
            if conf is not None:
                ctx.conn.put(conf[0].encode(), conf_path)
                ctx.sh(COLLECT, kit, kit, conf_path + BACKUP_SUFFIX, check=False)  # drops the backup only
        log = save_text(ctx, "setup.log", (f"planner: {created}\n" if created else "") + r.stdout + r.stderr)
        if not r.ok or ERROR_LINE.search(r.stdout):
            raise StepError(f"slob: setup.sh failed (exit code {r.exit_code}): "
                            + "; ".join(m.group(0).strip() for m in ERROR_LINE.finditer(r.stdout))[:500],
                            hint=f"see {log.path} and the kit's cr_tab_and_load.out")
        ctx.conn.put(f"{schemas}\n".encode(), marker)  # the run's folder exists (or the upload makes it)
        return [log]

    def apply(self, ctx: StepContext) -> Outcome:
        kit = self.kit(ctx)
        _runit, original, version = self._read_kit(ctx, kit)
        argv, sessions, update_pct = self.command(version, original)
        run_as, env = self._as_oracle(ctx), self._environment(ctx)
        self._secrets(ctx, original)
        schemas = self.schemas()
        values, stats, why = self.point_conf(ctx, version, original, update_pct)
        arts, refused, cache = self._before_run(ctx, kit, version, original, values, run_as, env)
        info = {"sessions": sessions, "schemas": schemas, "threads_per_schema": sessions // max(1, schemas),
                "update_pct": update_pct, "kit_version": version.value, "statistics": stats,
                "statistics_why": why, **cache, **point_database(ctx, stats)}
        if refused:
            return Outcome(Status.FAILED, f"slob: {refused}", artifacts=tuple(arts), extra=point_extra(info))
        wd = point_dir(ctx, self.kind)
        r, there = self._run_kit(ctx, kit, wd, original, values, argv, env, run_as, arts)
        arts.append(save_text(ctx, "runit.log", r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else "")))
        main, fetched = self._fetch_reports(ctx, wd, there, stats, info)
        arts += fetched
        what = (f"SLOB {version.value} {shlex.join(argv[1:])} ({sessions_words(schemas, sessions)}, "
                f"UPDATE_PCT={update_pct}); "
                f"statistics: {stats} ({why}); data in {cache['cache_pool']} {cache['cache_bytes'] >> 20}M, "
                f"{where(place(cache))}"
                f"; {info['container']['describe']}; CPU {info['caging']['describe']}"
                + (f"; {info['awr_level']}" if info.get("awr_level") else "")
                + (f"; {info['rac']}" if info["rac"] else ""))
        errors = [m.group(0).strip() for m in ERROR_LINE.finditer(r.stdout)] + self._log_errors(ctx, fetched)
        if not r.ok or errors:
            problem = "; ".join(dict.fromkeys(errors))[:600] or (r.stderr.strip() or f"exit code {r.exit_code}")[-300:]
            return Outcome(Status.FAILED, f"{what} reported errors: {problem}", artifacts=tuple(arts),
                           extra=point_extra(info))
        if not any(a.kind == main[0][1] for a in fetched):
            return Outcome(Status.FAILED, f"{what} wrote no {main[0][0]} in {kit}", artifacts=tuple(arts),
                           extra=point_extra(info))
        return finish(ctx, "SLOB", arts, outcome_reports(arts), None, msg=what, extra=point_extra(info))

    def _before_run(self, ctx: StepContext, kit: str, version: KitVersion, original: str | None,
                    values: Mapping[str, str], run_as: Mapping[str, Any],
                    env: Mapping[str, str]) -> tuple[list[Artifact], str | None, dict[str, Any]]:
        """(setup.sh's log, why the point cannot run or None, the cache check's reading): the container first, then
        setup.sh when asked (it creates the tables the cache check reads), then the cache and the data's place."""
        schemas = self.schemas()
        if not ctx.vars.get("oracle_pdb"):  # a CDB with no PDB named: refused before the tablespace and setup.sh
            refuse_cdb_root(open_database(ctx, config_for(ctx)), "slob")
        in_root = pdb_refusal(ctx, original, values)  # before setup.sh too: it would create the users in the root
        arts: list[Artifact] = []
        if self.parsed.setup and not in_root:
            conf = (original, render_conf(original, values)) if original is not None else None
            arts += self._setup(ctx, kit, schemas, run_as, env, data_bytes(values, original, schemas), conf)
        refused, cache = cache_check(ctx, version, schemas, values, original)
        data_on = self.parsed.data_on
        placed = placement_refusal(place(cache), data_on, "the data SLOB reads") if data_on else None
        return arts, in_root or placed or refused, cache

    @staticmethod
    def _run_kit(ctx: StepContext, kit: str, wd: str, original: str | None, values: Mapping[str, str],
                 argv: list[str], env: Mapping[str, str], run_as: Mapping[str, Any],
                 arts: list[Artifact]) -> tuple[CommandResult, set[str]]:
        """runit.sh with the point's slob.conf, the original put back whatever happens; (its result, the reports
        it wrote, copied into the point folder ``wd``). The point's slob.conf is appended to ``arts``."""
        conf_path = posixpath.join(kit, "slob.conf")
        backup = conf_path + BACKUP_SUFFIX if original is not None else ""  # SLOB 1 has no slob.conf
        ctx.sh(PREPARE, kit, backup, *OUTPUTS)
        moved = ""
        try:
            if original is not None:
                ctx.conn.put(render_conf(original, values).encode(), conf_path)
                arts.append(ctx.fetch(conf_path, "slob.conf"))
            r = ctx.run(argv, cwd=kit, check=False, env=env, measured=True, **run_as)
        finally:
            if original is not None:
                ctx.conn.put(original.encode(), conf_path)
            moved = ctx.sh(COLLECT, kit, wd, backup, *OUTPUTS, check=False).stdout
        return r, set(moved.split())

    def _fetch_reports(self, ctx: StepContext, wd: str, there: set[str], stats: str,
                       info: dict[str, Any]) -> tuple[list[tuple[str, str]], list[Artifact]]:
        """(the database reports expected, first the one that must be there; the files fetched). On RAC the
        global report gives the cluster's figures; on a single instance it is kept, never parsed as a cluster's.
        What was found of the cluster goes into ``info``."""
        main = [("awr.txt", "awr_text"), ("awr.html", "awr_html"), ("awr.html.gz", "awr_html"), *GLOBAL_OUTPUTS]
        if stats == "statspack":
            main = [("statspack.txt", "statspack")]
        logs = [("iostat.out", "iostat"), ("vmstat.out", "vmstat"), ("mpstat.out", "mpstat"), ("db_stats.out", ""),
                ("tm.out", ""), ("sqlplus.out", ""), ("slob_debug.out", "")]
        cluster = self._cluster(ctx, wd, there)
        if not cluster.rac:
            main = [(n, "" if (n, k) in GLOBAL_OUTPUTS else k) for n, k in main]
        fetched = [ctx.fetch(posixpath.join(wd, n), n, k) for n, k in main + logs if n in there]
        got = [a.path.rsplit("/", 1)[-1] for a in fetched]  # on RAC, the cluster's figures or why there are none:
        info["rac"] = rac_note(cluster, stats, got)
        info["cluster"] = {"instances": cluster.instances, "rac": cluster.rac, "why": cluster.why}
        return main, fetched

    @staticmethod
    def tablespace(ctx: StepContext) -> str:
        return str(ctx.vars.get("slob_tablespace", "IOPS"))

    def setup_argv(self, ctx: StepContext) -> list[str]:
        """setup.sh's command line: the tablespace it loads into and the schema count (readers + writers)."""
        return ["sh", "./setup.sh", self.tablespace(ctx), str(self.schemas())]

    def _tablespace(self, ctx: StepContext, name: str) -> str:
        """create_tablespace: SIZE makes the tablespace setup.sh loads into, on data_on, when it is missing."""
        size, data_on = self.parsed.create_tablespace, self.parsed.data_on
        if not size:
            return ""
        if not data_on:
            raise StepError("slob: create_tablespace needs data_on (the disk group +NAME or directory to put it on)")
        return ensure_tablespace(open_database(ctx, config_for(ctx)), name, data_on, str(size),
                                 option="slob_tablespace")

    def _secrets(self, ctx: StepContext, original: str | None) -> None:
        """SLOB's admin password (slob.conf SYSDBA_PASSWD; 'manager' when unset, 2.4.0 runit.sh:1034) is printed by
        runit.sh and setup.sh in their banners (runit.sh:1243 ``SYSDBA_PASSWD: "..."``, :1253 ``Admin Connect
        String``; 2.5 setup.sh ``ADMIN_CONNECT_STRING: "..."``): the record masks it from before the first run."""
        if not callable(ctx.add_secret):
            return
        given = self.parsed.conf_text("SYSDBA_PASSWD")
        value = given if given is not None else conf_value(original or "", "SYSDBA_PASSWD")
        ctx.add_secret(value or "manager")

    @staticmethod
    def _cluster(ctx: StepContext, wd: str, there: set[str]) -> Cluster:
        """RAC or not from GV$INSTANCE / CLUSTER_DATABASE; the kit's awr_rac.txt only when those cannot be read."""
        cluster = cluster_of(ctx)
        if cluster.read or "awr_rac.txt" not in there:
            return cluster
        text = ctx.conn.read_text(posixpath.join(wd, "awr_rac.txt")) or ""
        found = parse_text(text[:4_000_000], "awr_rac.txt", "awr_rac_text").facts
        return from_global_report(cluster, sum(1 for k, _v in found if k.startswith("instance[")))

    @staticmethod
    def _log_errors(ctx: StepContext, fetched: list[Artifact]) -> list[str]:
        """The error lines of the kit's fetched logs, read a line at a time (a fetched log may be as large as
        the fetch cap, 1 GiB by default: it was read whole); the first 50 distinct ones are plenty to say."""
        out: dict[str, None] = {}
        for a in fetched:
            if a.path.rsplit("/", 1)[-1] not in ("sqlplus.out", "slob_debug.out"):
                continue
            try:
                for line in text_lines(ctx.run_dir / a.path):
                    # the words first: ERROR_LINE's leading .* is slow on a long line (a log's NUL run)
                    if len(out) < 50 and _ERROR_WORDS.search(line) and (m := ERROR_LINE.search(line)):
                        out[m.group(0).strip()] = None
            except OSError as e:
                out[f"{a.path}: cannot read: {e.strerror or e}"] = None
        return list(out)
