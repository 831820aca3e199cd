"""The ``swingbench`` workload: one sweep point of the user's own Swingbench install (never bundled).

Each point runs charbench from ``<home>/bin`` with the step's config file (the SOE benchmark's, e.g.
``configs/SOE_Server_Side_V2.xml``), connect string, SOE user, ``users`` and ``run_time``, and writes its results
XML into the point's folder (``-r``), which is fetched and parsed (planner/kinds/swingbench/parse.py)::

    charbench -c <point>/swingbench-config.xml -cs <connect> -u <user> -uc <users> -rt <hh:mm[.sec]> -a
              -r <point>/results.xml -v users,tpm,tps [-min <ms> -max <ms>]

``build:`` loads the SOE schema with oewizard first (``-cl -create -scale N``), once per run and host, with its
own budget (a load of a few GB takes far longer than a run), and only when the schema's ORDERS table does not
exist (asked of DBA_TABLES first: a schema already built is never rebuilt or dropped). With ``data_on`` (the disk
group or directory the play prepared) oewizard gets ``-ts <tablespace> -df <data_on>``, so SOE lands there, and
every point checks that ORDERS's data files are there before charbench runs (as SLOB's data_on).

Passwords come from inventory (or -e) variables: ``swingbench_password`` for the SOE user and, for the build,
``swingbench_dba_password`` for the DBA oewizard connects as (``swingbench_dba_user``, default system), or from
the environment variable / file their ``_env`` / ``_file`` names. All are secrets (docs/secrets.md), so the
recorded command, results, console and report mask them. charbench gets its password in the point's private copy
of the config (``<Password>``, mode 0600, removed after the run), never as ``-p``, so ``ps`` on the host cannot
show it; oewizard has no such way that a source shows, so its ``-p``/``-dbap`` stay on its command line.

With ``load_generator_host`` naming a client host (docs/load-generator-host.md), oewizard and charbench run there,
from its own install, with ``-cs`` to the database host's listener built from the inventory for a service name
(a connect string naming another host is refused at validate); the schema and placement checks and the AWR around
the point stay on the database host.

Failed transactions fail the point: charbench counts a transaction failed when it raised an error (ORA-01653,
a lost session, a deadlock), and a failed transaction returns at once, so the point's TPS and response times no
longer describe the storage under test; the figures are kept beside the failure.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar
from xml.sax.saxutils import escape

from planner.db.access import config_for, open_database
from planner.db.segments import find_segment, on_storage, table_exists
from planner.errors import OracleError, ParseError, StepError
from planner.extras import LoadGenerator
from planner.kinds.swingbench.args import SoeBuild, SwingbenchArgs, client_connect
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.status import Artifact
from planner.steps.base import (
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
from planner.steps.wl_common import finish, host_run_dir, point_dir, save_text

RESULTS = "results.xml"
CONFIG_COPY = "swingbench-config.xml"  # the point's private copy of the config, holding the password
PASSWORD_VAR = "swingbench_password"
DBA_PASSWORD_VAR = "swingbench_dba_password"
BUILD_MIN_S = 1800.0
BUILD_S_PER_SCALE = 3600.0  # a planner estimate (no Swingbench source gives a load rate): an hour per scale unit
_CONNECT = {"type": "string", "minLength": 1, "pattern": "^[^\\s\\x00]+$",
            "description": "the connect string charbench -cs takes: //host:port/service or a TNS alias",
            "x-hint": "give //host:port/service without spaces"}


def run_time_text(seconds: int) -> str:
    """charbench -rt "in the form hh:mm.sec" (charbench -h, 2.7): ``0:05`` for whole minutes, else ``0:01.30``
    (docs/oracle-behaviour.md 43.s1; hh:mm:ss is not a form the help gives)."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}" + (f".{s:02d}" if s else "")


def build_budget_s(variables: Mapping[str, Any], scale: float) -> float:
    """oewizard's timeout: ``swingbench_build_timeout_s`` when given, else an hour per scale unit plus the margin,
    at least half an hour."""
    given = variables.get("swingbench_build_timeout_s")
    if given not in (None, ""):
        return float(given)
    return max(BUILD_MIN_S, scale * BUILD_S_PER_SCALE + TIMEOUT_MARGIN_S)


class Swingbench(Rehearsed, Workload):
    kind: ClassVar[str] = "swingbench"
    args_schema = {
        "description": "Swingbench charbench (the user's install on the host), optionally building the SOE schema",
        "type": "object",
        "properties": {
            "home": {"type": "string", "pattern": "^/", "description": "the Swingbench folder (holding bin/charbench)",
                     "x-hint": "give an absolute path such as /opt/swingbench"},
            "config": {"type": "string", "minLength": 1,
                       "description": "the benchmark's config file, absolute or under home "
                                      "(configs/SOE_Server_Side_V2.xml)"},
            "connect": _CONNECT,
            "user": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_$#]*$", "description": "the SOE schema owner"},
            "users": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "run_time": sweepable({"type": "integer", "minimum": 1}, "give seconds as a whole number or a list"),
            "min_think_ms": {"type": "integer", "minimum": 0},
            "max_think_ms": {"type": "integer", "minimum": 0},
            "stats_start_s": {"type": "integer", "minimum": 0,
                              "description": "charbench -bs: record statistics from this second of the run on "
                                             "(Swingbench 2.7+; the install's charbench -h is asked)"},
            "stats_end_s": {"type": "integer", "minimum": 1,
                            "description": "charbench -be: record statistics until this second of the run "
                                           "(at most run_time)"},
            "data_on": {
                "type": "string",
                "pattern": "^(\\+[A-Za-z][A-Za-z0-9_$#]*|/[A-Za-z0-9_./+@,=-]*)$",
                "description": "where the play put the storage under test: a disk group (+DATA) or a directory; "
                               "build: creates the SOE tablespace there (oewizard -ts, -df) and each point checks "
                               "that <user>.ORDERS's data files (DBA_SEGMENTS -> DBA_DATA_FILES) are there",
                "x-hint": "give a disk group as +NAME or an absolute directory",
            },
            "build": {
                "type": "object",
                "description": "load the SOE schema with oewizard when it does not exist",
                "properties": {
                    "scale": {"type": "number", "exclusiveMinimum": 0},
                    "tablespace": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_$#]*$"},
                    "threads": {"type": "integer", "minimum": 1},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
        "required": ["home", "config", "connect", "users", "run_time"],
    }
    sections = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = False  # collect: [awr] brackets it with snapshots
    needs_database = True
    kit_args = {"home": KitStandIn.OWN}
    report_metrics = ("swingbench.tps", "swingbench.tpm", "swingbench.max_tps", "swingbench.failed_txns")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """charbench runs ``run_time`` seconds; the build, when there is one, has its own budget
        (build_budget_s), never taken from this one."""
        run_time = SwingbenchArgs.of(args).run_time
        return Duration.with_margin(None if run_time is None else float(run_time))

    # -- planning (pure) ---------------------------------------------------------------------------------
    @functools.cached_property
    def parsed(self) -> SwingbenchArgs:
        """The arguments, read once (validate reads them first: a bad one is refused at the plan check)."""
        return SwingbenchArgs.of(self.args)

    def validate(self) -> None:
        check_host_path(self.parsed.home, "Swingbench home")
        if not self.parsed.home.startswith("/"):
            raise StepError("swingbench: home must be an absolute path on the host",
                            hint="give the Swingbench folder holding bin/charbench, e.g. /opt/swingbench")
        check_host_path(self.parsed.config_path, "Swingbench config")
        lo, hi = self.parsed.min_think_ms, self.parsed.max_think_ms
        if lo is not None and hi is not None and lo > hi:
            raise StepError(f"swingbench: min_think_ms {lo} is more than max_think_ms {hi}",
                            hint="charbench draws each think time between -min and -max")
        a = self.parsed
        start, end = a.stats_start_s or 0, a.stats_end_s or a.run_time
        if end is not None and not start < end <= (a.run_time or end):
            raise StepError(f"swingbench: statistics from {start} s to {end} s is not a window inside the run time "
                            f"of {a.run_time} s", hint="give 0 <= stats_start_s < stats_end_s <= run_time")

    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Also: with a load generator host (load_generator_host), a connect string naming another host than the
        database host, refused before any host is touched (charbench there would drive another database)."""
        super().check_args(rendered, plan_dir, variables)
        if variables is None:
            return
        # the names of the database host: where its listener is (oracle_host, else its address), its inventory name
        names = [str(variables.get(k) or "") for k in ("oracle_host", "ansible_host", "ansible_ssh_host",
                                                       "inventory_hostname")]
        client = str(variables.get("load_generator_host") or "").strip()
        if client and client != names[-1]:
            client_connect(SwingbenchArgs.of(rendered).connect, names, next((n for n in names if n), client),
                           int(variables.get("oracle_port") or 1521))

    def connect(self, ctx: StepContext) -> str:
        """``-cs``: the plan's connect string on the database host; from a load generator host (ctx.generator) one
        that reaches the database host's listener, built from the inventory (oracle_host or the host's address,
        oracle_port) for a service name alone (planner.kinds.swingbench.args.client_connect)."""
        if ctx.generator is None:
            return self.parsed.connect
        cfg = config_for(ctx)
        return client_connect(self.parsed.connect, (cfg.host, ctx.host.address, ctx.host.name), cfg.host, cfg.port)

    def user(self) -> str:
        return self.parsed.user

    def argv(self, ctx: StepContext, results: str, config: str) -> list[str]:
        """charbench's command line for this point with ``config``, the point's private copy of the config holding
        the password (write_config): no ``-p``, so ``ps`` never shows it (docs/oracle-behaviour.md 43.s3)."""
        a = self.parsed
        home = (ctx.generator or ctx).path(a.home.rstrip("/"))  # charbench's install: where it runs
        argv = [posixpath.join(home, "bin", "charbench"), "-c", config, "-cs", self.connect(ctx), "-u", a.user,
                "-uc", str(a.users), "-rt", run_time_text(a.run_time or 60), "-a", "-r", results,
                "-v", "users,tpm,tps"]
        for value, flag in ((a.min_think_ms, "-min"), (a.max_think_ms, "-max")):
            if value is not None:
                argv += [flag, str(value)]
        for seconds, flag in ((a.stats_start_s, "-bs"), (a.stats_end_s, "-be")):
            if seconds is not None:
                argv += [flag, run_time_text(seconds)]
        return argv

    def build_argv(self, ctx: StepContext) -> list[str]:
        """oewizard's command line: character mode, create the SOE schema at the build's scale."""
        a = self.parsed
        build = a.build or SoeBuild()
        home = (ctx.generator or ctx).path(a.home.rstrip("/"))
        argv = [posixpath.join(home, "bin", "oewizard"), "-cl", "-create", "-cs", self.connect(ctx),
                "-u", self.user(), "-p", _password(ctx, PASSWORD_VAR),
                "-dba", str(ctx.vars.get("swingbench_dba_user") or "system"), "-dbap", _password(ctx, DBA_PASSWORD_VAR),
                "-scale", f"{build.scale:g}", "-tc", str(build.threads)]
        if a.tablespace:
            argv += ["-ts", a.tablespace]
        if a.data_on:  # "-df <datafile> datafile name used to create schema in" (oewizard -h 2.7): SOE on data_on
            argv += ["-df", a.datafile()]
        return argv

    def preview(self, ctx: StepContext) -> str:
        gen = ctx.generator or ctx  # where oewizard and charbench run
        lines = []
        if self.parsed.build is not None:
            lines.append(f"$ {gen.command_text(self.build_argv(ctx))}   # only when {self.user().upper()}.ORDERS "
                         "does not exist; once per run and host")
        folder = gen.point_dir or "<point folder>"
        config = posixpath.join(folder, CONFIG_COPY)
        lines.append(f"# {config}: {self.parsed.config_path} with the password in <Password>, mode 0600, removed "
                     "after the run")
        lines.append(f"$ {gen.command_text(self.argv(ctx, posixpath.join(folder, RESULTS), config))}")
        if gen is not ctx:
            lines.append(f"# on the load generator host {gen.host.name} (load_generator_host of {ctx.host.name})")
        return "\n".join(lines)

    def check(self, ctx: StepContext) -> Change:
        return Change(True, f"would run charbench with {self.parsed.users} users for {self.parsed.run_time} s")

    # -- running -----------------------------------------------------------------------------------------
    def apply(self, ctx: StepContext) -> Outcome:
        arts = self._build(ctx) if self.parsed.build is not None else []
        if not self._schema_exists(ctx):
            raise StepError(f"swingbench: the {self.user().upper()} schema has no ORDERS table: charbench would "
                            "fail every transaction", hint="add build: {scale: 1} to load it with oewizard first")
        if self.parsed.data_on:
            self._check_placement(ctx)
        if self.parsed.stats_start_s is not None or self.parsed.stats_end_s is not None:
            self._check_window_options(ctx)
        # charbench runs on the client host when the inventory names one (ctx.generator); the schema and placement
        # checks above and the AWR around the point stay on the database host (ctx)
        gen = ctx.generator or ctx
        folder = point_dir(gen, self.kind)
        results, config = posixpath.join(folder, RESULTS), posixpath.join(folder, CONFIG_COPY)
        self.write_config(ctx, config)
        try:
            r = gen.run(self.argv(ctx, results, config), check=False, measured=True)
        finally:  # the copy holds the password: never left on the host
            gen.sh('rm -f -- "$1"', config, check=False)
        arts.append(save_text(ctx, "charbench.log", r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else "")))
        there = gen.sh('[ -s "$1" ] && echo yes; exit 0', results, check=False).stdout.strip() == "yes"
        main = gen.fetch(results, RESULTS, "swingbench") if there else None
        if main is not None:
            arts.append(main)
        return finish(ctx, "swingbench", arts, main, self._failure(ctx, r.ok, r.exit_code, main),
                      lambda p: parse_file(p, "swingbench"),
                      extra=LoadGenerator(gen.host.name, "charbench") if gen is not ctx else None)

    def _failure(self, ctx: StepContext, ok: bool, code: int | None, main: Artifact | None) -> str | None:
        if not ok:
            return f"charbench failed (exit code {code}); see charbench.log"
        if main is None:
            return f"charbench wrote no {RESULTS}; see charbench.log"
        try:
            parsed = parse_file(ctx.run_dir / main.path, "swingbench")
        except ParseError:  # finish() names it
            return None
        failed = parsed.value("swingbench.failed_txns") or 0.0
        done = parsed.value("swingbench.completed_txns") or 0.0
        if failed > 0:
            share = 100.0 * failed / (failed + done) if failed + done else 100.0
            return (f"{failed:.0f} failed transactions ({share:.2g}% of all): errors, not storage, shaped this "
                    "point's TPS and response times; see charbench.log")
        return None

    def _schema_exists(self, ctx: StepContext) -> bool:
        try:
            db = open_database(ctx, config_for(ctx))
            try:
                return table_exists(db, self.user(), "ORDERS")
            finally:
                db.close()
        except OracleError as exc:
            raise StepError(f"swingbench: cannot ask DBA_TABLES whether the schema exists: {exc.message}",
                            hint=exc.hint) from exc

    def write_config(self, ctx: StepContext, path: str) -> None:
        """The user's config with the SOE password in <Connection>'s <Password>, written at ``path`` under umask
        077 (through stdin, never an argument), so charbench needs no ``-p``. On the host charbench runs on (a load
        generator host's own install); the password is the database host's variable."""
        gen = ctx.generator or ctx
        source = gen.path(self.parsed.config_path)
        text = gen.conn.read_text(source)
        if text is None:
            raise StepError(f"swingbench: no config file {source} on {gen.host.name}",
                            hint="give config: as a path under home (configs/SOE_Server_Side_V2.xml) or absolute")
        gen.sh('umask 077 && cat > "$1"', path, stdin=with_password(text, _password(ctx, PASSWORD_VAR)).encode())

    def _check_window_options(self, ctx: StepContext) -> None:
        """-bs/-be only where the install's charbench has them: its own -h is asked (2.7.0.1313 lists both; no
        source says from which release), rather than a release guessed from the folder's name."""
        gen = ctx.generator or ctx
        charbench = posixpath.join(gen.path(self.parsed.home.rstrip("/")), "bin", "charbench")
        words = gen.run([charbench, "-h"], check=False).stdout
        missing = [flag for flag in ("-bs", "-be") if not re.search(rf"^\s*{flag}\s", words, re.M)]
        if missing:
            raise StepError(f"swingbench: this charbench's -h lists no {' or '.join(missing)}, which "
                            "stats_start_s / stats_end_s need", hint="drop them (the whole run is recorded), or "
                            "use a Swingbench whose charbench has -bs/-be (2.7 has)")

    def _check_placement(self, ctx: StepContext) -> None:
        """At every point, before charbench: <user>.ORDERS's data files are on data_on (as SLOB's data_on), else
        the figures would describe other storage (a schema built in USERS on +DATA, an old one elsewhere)."""
        owner, data_on = self.user().upper(), self.parsed.data_on
        db = open_database(ctx, config_for(ctx))
        try:
            place = find_segment(db, owner, "ORDERS")
        finally:
            db.close()
        if place is not None and not on_storage(place.files, data_on):
            files = ", ".join(place.files[:3]) + (" ..." if len(place.files) > 3 else "")
            raise StepError(f"swingbench: {owner}.ORDERS is in tablespace {place.tablespace}, whose files are {files} "
                            f"(DBA_SEGMENTS -> DBA_DATA_FILES), not on {data_on}, which data_on names: the figures "
                            "would describe other storage",
                            hint=f"drop the {owner} schema and let build: load it on {data_on}, or correct data_on")

    def _build(self, ctx: StepContext) -> list[Artifact]:
        """oewizard once per run and host, only when the schema is missing, with its own budget."""
        marker = posixpath.join(host_run_dir(ctx), f"swingbench-built-{self.user().lower()}")
        if ctx.conn.read_text(marker) is not None or self._schema_exists(ctx):
            return []
        scale = (self.parsed.build or SoeBuild()).scale
        r = (ctx.generator or ctx).run(self.build_argv(ctx), check=False, timeout=build_budget_s(ctx.vars, scale))
        log = save_text(ctx, "oewizard.log", r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else ""))
        if not r.ok:
            raise StepError(f"swingbench: oewizard failed (exit code {r.exit_code})", hint=f"see {log.path}")
        ctx.conn.put(b"built\n", marker)
        return [log]


_CONNECTION = re.compile(r"(<(?:\w+:)?Connection\b[^>]*>)(.*?)(</(?:\w+:)?Connection\s*>)", re.S)
_PASSWORD = re.compile(r"<((?:\w+:)?Password)\b[^>]*?(?:/>|>.*?</(?:\w+:)?Password\s*>)", re.S)
_USERNAME = re.compile(r"</(?:\w+:)?UserName\s*>")


def with_password(config: str, password: str) -> str:
    """The Swingbench config text with ``password`` as <Connection>'s <Password> (the element ``-p`` overrides,
    charbench -h): replaced where it is, else added after <UserName>, else first in <Connection>."""
    m = _CONNECTION.search(config)
    if m is None:
        raise StepError("swingbench: the config file has no <Connection> element to hold the password",
                        hint="use the benchmark's own config (configs/SOE_Server_Side_V2.xml) or one saved by "
                             "Swingbench")
    body = m.group(2)
    element = f"<Password>{escape(password)}</Password>"
    if (pw := _PASSWORD.search(body)) is not None:
        body = body[:pw.start()] + f"<{pw.group(1)}>{escape(password)}</{pw.group(1)}>" + body[pw.end():]
    elif (user := _USERNAME.search(body)) is not None:
        body = body[:user.end()] + element + body[user.end():]
    else:
        body = element + body
    return config[:m.start()] + m.group(1) + body + m.group(3) + config[m.end():]


def _password(ctx: StepContext, var: str) -> str:
    """The password from the inventory variable ``var``, else the controller's environment variable that
    ``<var>_env`` names, else the file ``<var>_file`` names (stripped; a relative one beside the plan)."""
    value = ctx.vars.get(var)
    if value in (None, "") and ctx.vars.get(f"{var}_env"):
        value = os.environ.get(str(ctx.vars[f"{var}_env"]))
    if value in (None, "") and ctx.vars.get(f"{var}_file"):
        path = Path(str(ctx.vars[f"{var}_file"])).expanduser()
        path = path if path.is_absolute() else ctx.plan_dir / path  # beside the plan, as its other files
        value = path.read_text().strip() if path.is_file() else None
    if value in (None, ""):
        raise StepError(f"swingbench: no {var} (nor {var}_env / {var}_file) for the host",
                        hint=f"set {var} vaulted in the inventory, or name an environment variable or file: "
                             f"{var}_env: VAR, {var}_file: PATH")
    if callable(ctx.add_secret):
        ctx.add_secret(str(value))  # a value read here at run time: masked from now on
    return str(value)
