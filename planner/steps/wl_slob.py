"""The ``slob`` workload: one sweep point of the user's own SLOB kit on the host (never bundled).

Kit version (``detect_version``), from the kit's own files, first match wins:
- no ``slob.conf`` in the kit: SLOB 1 (``runit.sh <writers> <readers>``; it had no configuration file);
- a version banner ``SLOB 2.n`` in slob.conf's comments, README or misc/ files decides: 2.4 or later is SLOB 2.4+
  (``runit.sh <schemas>``, or ``runit.sh -s <schemas> -t <threads>`` when threads_per_schema is given), earlier
  is SLOB 2.0-2.3 (``runit.sh <sessions>``);
- without a banner, a runit.sh that parses options (``getopts``, or a usage text naming ``-s <...> -t <...>``):
  SLOB 2.4+; otherwise SLOB 2.0-2.3.

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

import enum
import posixpath
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from planner.db.access import config_for, open_database
from planner.db.caging import read_caging
from planner.db.config import NLS_ENV
from planner.db.container import (
    NO_PDB,
    NO_PDB_HINT,
    AwrLevel,
    read_awr_level,
    read_container,
    refuse_cdb_root,
    stated_cdb,
)
from planner.db.licence import statistics_choice
from planner.db.memory import read_pools
from planner.db.segments import SegmentPlace, ensure_tablespace, placement_refusal, read_segment
from planner.errors import OracleError, StepError
from planner.extras import CagingSeen, ClusterSeen, ContainerSeen, SlobCache, SlobPoint
from planner.parsers import parse_text
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.status import Artifact, Status
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
    seconds_of,
    whole_number,
)
from planner.steps.rac import SLOB_GLOBAL_OUTPUTS, Cluster, cluster_of, from_global_report, slob_note
from planner.steps.wl_common import host_run_dir, parse_outcome, point_dir, save_text
from planner.units import suffix_bytes

BACKUP_SUFFIX = ".planner-orig"
_ERROR_LINE = re.compile(r"^.*\b(ORA-\d{5}|SP2-\d{4}|FATAL)\b.*$", re.M)
OUTPUTS = ("awr.txt", "awr.html", "awr.html.gz", *(n for n, _ in SLOB_GLOBAL_OUTPUTS), "statspack.txt", "iostat.out",
           "vmstat.out", "mpstat.out", "db_stats.out", "tm.out", "sqlplus.out",
           "slob_debug.out")  # runit.sh writes them
# Before runit.sh, one round trip: back up slob.conf (unless a crashed run left its backup, the real original),
# and remove the kit's reports of any earlier run.
_PREPARE = ('k=$1; b=$2; shift 2; cd -- "$k" || exit 1; '
            'if [ -n "$b" ] && [ ! -e "$b" ]; then cp -p -- slob.conf "$b" || exit 1; fi; rm -f -- "$@"')
# After it, one round trip: drop the backup, copy this run's reports into the point folder, list them. They stay
# in the kit too, where a SLOB user looks for awr.txt after a run; the next point's _PREPARE removes them first.
_COLLECT = ('k=$1; d=$2; b=$3; shift 3; cd -- "$k" || exit 1; [ -z "$b" ] || rm -f -- "$b"; '
            'for f; do [ -f "$f" ] && cp -p -- "$f" "$d/$f" && printf "%s\\n" "$f"; done; exit 0')
_CONF_KEYS = {"update_pct": "UPDATE_PCT", "run_time": "RUN_TIME", "scale": "SCALE", "work_unit": "WORK_UNIT",
              "redo_stress": "REDO_STRESS", "threads_per_schema": "THREADS_PER_SCHEMA",
              "database_statistics_type": "DATABASE_STATISTICS_TYPE"}


class KitVersion(enum.Enum):
    SLOB1 = "1"
    SLOB2 = "2.0-2.3"
    SLOB24 = "2.4+"


# slob.conf values runit.sh refuses, with its own rule (SLOB 2.4 runit.sh, goryszewskig/SLOB-PDB @ 12cdbe65:
# the "Initial slob.conf sanity check", f_check_pct_logic, and getopts' -t check). Key -> (arg, test, rule).
_KIT_RULES: tuple[tuple[str, str, Any, str], ...] = (
    ("RUN_TIME", "run_time", lambda v: v >= 30, "Minimum supported RUN_TIME 30 seconds"),
    ("WORK_UNIT", "work_unit", lambda v: 3 <= v <= 1024, "WORK_UNIT must be 3 to 1024 (Minimum supported WORK_UNIT "
                                                         "is 3, Maximum supported WORK_UNIT is 1024)"),
    ("UPDATE_PCT", "update_pct", lambda v: 0 <= v <= 50 or v == 100,
     "f_check_pct_logic: a percentage must be 0-50 or 100 (51-99 is refused)"),
    ("SCAN_PCT", "scan_pct", lambda v: 0 <= v <= 50 or v == 100,
     "f_check_pct_logic: a percentage must be 0-50 or 100 (51-99 is refused)"),
    ("THREADS_PER_SCHEMA", "threads_per_schema", lambda v: v >= 1,
     "The -t option requires a non-zero integer argument"),
)


def kit_refusals(args: Mapping[str, Any]) -> list[str]:
    """What runit.sh would refuse among the step's arguments and conf: keys (every value of a sweep list)."""
    conf = dict(args.get("conf") or {})
    out = []
    for key, arg, ok, rule in _KIT_RULES:
        for where, raw in ((arg, args.get(arg)), (f"conf.{key}", conf.get(key))):
            for v in raw if isinstance(raw, list) else [raw]:
                if v is None or isinstance(v, bool):
                    continue
                try:
                    n = int(str(v).strip())
                except ValueError:
                    out.append(f"{where} {v!r} is not a whole number (SLOB's f_is_int)")
                    continue
                if not ok(n):
                    out.append(f"{where} {n} is refused by the kit's runit.sh: {rule}")
    return out


def scale_blocks(scale: str | None, block_size: int = 8192) -> int:
    """slob.conf SCALE in blocks: a block count, or a size with K/M/G/T (SLOB 2.4+ f_fix_scale)."""
    text = (scale or "10000").strip().upper()
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)", text)
    if not m:
        return 10000
    n = int(m.group(1))
    return (n if not m.group(2)
            else n * suffix_bytes(m.group(2)) // block_size)


def detect_version(runit: str | None, conf: str | None, notes: str = "") -> KitVersion:
    """See the module docstring. ``notes``: README / misc text that may carry a version banner. A banner states
    the release, so it decides both ways (a 2.3 banner is 2.0-2.3 whatever runit.sh's text mentions); only a kit
    without one is judged by its runit.sh."""
    if conf is None:
        return KitVersion.SLOB1
    m = re.search(r"SLOB\s+(\d+)\.(\d+)", (conf or "") + "\n" + notes)
    if m and int(m.group(1)) == 2:
        return KitVersion.SLOB24 if int(m.group(2)) >= 4 else KitVersion.SLOB2
    text = runit or ""
    if "getopts" in text or re.search(r"-s\s*<[^>]+>\s*-t\s*<", text):
        return KitVersion.SLOB24
    return KitVersion.SLOB2


def conf_value(conf: str, key: str) -> str | None:
    """A ``KEY=value`` from slob.conf text (quotes and trailing comments removed)."""
    found = None
    for line in conf.splitlines():
        m = re.match(rf"^\s*{key}\s*=\s*(.*)$", line)
        if m:
            raw = re.sub(r"\s+#.*$", "", m.group(1)).strip()
            found = raw.strip("\"'")
    return found


def render_conf(original: str, values: Mapping[str, str]) -> str:
    """The original slob.conf with ``values`` replacing their keys' lines (the rest appended), shell-quoted."""
    done: set[str] = set()
    out = []
    for line in original.splitlines():
        m = re.match(r"^\s*([A-Z_][A-Z0-9_]*)\s*=", line)
        if m and m.group(1) in values:
            key = m.group(1)
            if key not in done:
                out.append(f"{key}={shlex.quote(values[key])}   # set by planner")
                done.add(key)
            continue
        out.append(line)
    rest = [k for k in values if k not in done]
    if rest:
        out.append("# set by planner")
        out += [f"{k}={shlex.quote(values[k])}" for k in rest]
    return "\n".join(out) + "\n"


MAX_SESSIONS = 4096  # 2.4.0 runit.sh:1129-1132: "Maximum tested active database session count is 4096."


def _capped(schemas: int, threads: int, source: str) -> int:
    if schemas * threads > MAX_SESSIONS:
        raise StepError(f"slob: {schemas} schemas x {threads} threads per schema ({source}) = {schemas * threads} "
                        f"sessions; runit.sh refuses more than {MAX_SESSIONS}",
                        hint="fewer readers/writers or a smaller THREADS_PER_SCHEMA")
    return schemas * threads


def sessions_words(schemas: int, sessions: int) -> str:
    """'4 sessions', or '64 schemas x 4 threads = 256 sessions' when THREADS_PER_SCHEMA multiplies them."""
    if sessions == schemas or schemas < 1:
        return f"{sessions} sessions"
    return f"{schemas} schemas x {sessions // schemas} threads = {sessions} sessions"


def _int(args: Mapping[str, Any], key: str) -> int:
    return whole_number(args, key, 0, "slob", minimum=0)  # sessions and percentages: none is allowed


class Slob(Rehearsed, Workload):
    kind: ClassVar[str] = "slob"
    args_schema = {
        "description": "SLOB (the user's kit on the host)",
        "type": "object",
        "properties": {
            "kit": {"type": "string", "minLength": 1, "description": "path of the SLOB kit on the host"},
            "readers": sweepable({"type": "integer", "minimum": 0}, "give a whole number or a list of them"),
            "writers": sweepable({"type": "integer", "minimum": 0}, "give a whole number or a list of them"),
            "run_time": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "scale": {
                "x-sweep": True,
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "x-hint": "give a value or a list of them",
            },
            "work_unit": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "redo_stress": {
                "x-sweep": True,
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "x-hint": "give a value or a list of them",
            },
            "threads_per_schema": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "update_pct": sweepable({"type": "integer", "minimum": 0}, "give a whole number or a list of them"),
            "setup": {"type": "boolean"},
            "data_on": {
                "type": "string",
                "pattern": "^(\\+[A-Za-z][A-Za-z0-9_$#]*|/[A-Za-z0-9_./+@,=-]*)$",
                "description": "where the play put SLOB's storage: a disk group (+SLOB) or a directory; each point "
                               "checks that USER1.CF1's data files (DBA_SEGMENTS -> DBA_DATA_FILES) are there",
                "x-hint": "give a disk group as +NAME or an absolute directory",
            },
            "create_tablespace": {
                "type": "string",
                "pattern": "^[0-9]+[KMGT]$",
                "description": "with setup: true, create the SLOB tablespace (slob_tablespace, default IOPS) on "
                               "data_on at this size when it does not exist (setup.sh needs it to exist)",
                "x-hint": "give a size such as 16G",
            },
            "database_statistics_type": {"type": "string", "enum": ["awr", "statspack"]},
            "conf": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
                "description": "extra slob.conf keys",
                "propertyNames": {"pattern": "^[A-Z_][A-Z0-9_]*$", "x-hint": "slob.conf keys are UPPER_CASE"},
            },
        },
        "additionalProperties": False,
        "required": ["kit"],
    }
    sections = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = True  # SLOB takes its own AWR/Statspack snapshots
    needs_database = True
    kit_args = {"kit": KitStandIn.SLOB_KIT}
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
        self._kit_arg()
        refused = kit_refusals(self.args)
        if refused:
            raise StepError("slob: " + "; ".join(refused),
                            hint="give values the SLOB kit accepts: run_time >= 30, work_unit 3-1024, update_pct / "
                                 "scan_pct 0-50 or 100, threads_per_schema >= 1")

    def _kit_arg(self) -> str:
        kit = str(self.args.get("kit") or "")
        if not kit.startswith("/"):
            raise StepError(f"slob: kit must be an absolute path on the host, got {kit!r}",
                            hint="give the folder holding runit.sh, e.g. /home/oracle/SLOB")
        return check_host_path(kit, "SLOB kit path")

    def kit(self, ctx: StepContext) -> str:
        return ctx.path(self._kit_arg().rstrip("/"))

    def command(self, version: KitVersion, kit_conf: str | None = None) -> tuple[list[str], int, int]:
        """(runit.sh argv, sessions, update_pct) for this point; sessions = schemas x THREADS_PER_SCHEMA (from -t,
        else the step's conf: key or the kit's slob.conf ``kit_conf``), as runit.sh connects them."""
        readers, writers = _int(self.args, "readers"), _int(self.args, "writers")
        sessions = readers + writers
        if sessions < 1:
            raise StepError("slob: readers + writers must be at least 1")
        threads = self.args.get("threads_per_schema")
        if version is KitVersion.SLOB1:
            return ["sh", "./runit.sh", str(writers), str(readers)], sessions, round(100 * writers / sessions)
        upd = self.args.get("update_pct")
        update_pct = _int(self.args, "update_pct") if upd is not None else round(100 * writers / sessions)
        if 50 < update_pct < 100 or update_pct > 100:
            raise StepError(f"slob: UPDATE_PCT would be {update_pct}, SLOB accepts 0-50 or 100",
                            hint="give update_pct explicitly, or fewer writers than readers")
        if version is KitVersion.SLOB2:
            if threads not in (None, 1):
                raise StepError("slob: threads_per_schema needs SLOB 2.4 or later; this kit is 2.0-2.3")
            return ["sh", "./runit.sh", str(sessions)], sessions, update_pct
        if threads is not None:
            t = _int(self.args, "threads_per_schema")
            return ["sh", "./runit.sh", "-s", str(sessions), "-t", str(t)], _capped(sessions, t, "-t"), update_pct
        t = self.conf_threads(kit_conf)  # single-option invocation: slob.conf's THREADS_PER_SCHEMA applies
        return ["sh", "./runit.sh", str(sessions)], _capped(sessions, t, "slob.conf"), update_pct

    def schemas(self) -> int:
        return _int(self.args, "readers") + _int(self.args, "writers")

    def conf_threads(self, kit_conf: str | None) -> int:
        """THREADS_PER_SCHEMA as runit.sh will read it: the step's conf: key, else the kit's slob.conf, else 1
        (2.4.0 runit.sh:1017 ``THREADS_PER_SCHEMA=${THREADS_PER_SCHEMA:=1}``; usage text :801-805)."""
        raw = dict(self.args.get("conf") or {}).get("THREADS_PER_SCHEMA")
        text = str(raw) if raw is not None else conf_value(kit_conf or "", "THREADS_PER_SCHEMA")
        if text is None or not text.strip():
            return 1
        if not text.strip().isdigit() or int(text) < 1:
            raise StepError(f"slob: THREADS_PER_SCHEMA {text[:20]!r} in slob.conf is not a whole number >= 1",
                            hint="fix the kit's slob.conf, or give threads_per_schema in the step")
        return int(text)

    def conf_values(self, version: KitVersion, update_pct: int) -> dict[str, str]:
        values = {"UPDATE_PCT": str(update_pct)}
        for arg, key in _CONF_KEYS.items():
            if arg in self.args and arg not in ("update_pct",):
                if arg == "database_statistics_type" and version is not KitVersion.SLOB24:
                    continue  # only 2.4+ knows it; older kits always write AWR
                values[key] = str(self.args[arg])
        for key, value in dict(self.args.get("conf") or {}).items():
            values[str(key)] = str(value).upper() if isinstance(value, bool) else str(value)
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
        asked = self.args.get("database_statistics_type") or ctx.db_report
        source = ("the step's database_statistics_type" if self.args.get("database_statistics_type") else
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

    def _cache_check(self, ctx: StepContext, version: KitVersion, schemas: int, conf: Mapping[str, str],
                     original: str | None) -> tuple[str | None, dict[str, Any]]:
        """Refuse a point whose data would be read from the buffer cache, not storage: the kit's tables live in
        the BUFFER_POOL DBA_SEGMENTS gives USER1.CF1 (SLOB 2.4.0 RECYCLE, 2.5.x KEEP: read, never inferred from
        the kit), or in DEFAULT when that pool is not configured; a uniform random read over the data set hits
        the cache about cache/data of the time."""
        db = open_database(ctx, config_for(ctx))
        place = read_segment(db)
        try:
            pools = read_pools(db)
        except OracleError as exc:
            raise StepError(f"slob: cannot read the buffer pools (V$SGA_DYNAMIC_COMPONENTS): {exc.message}",
                            hint=exc.hint) from exc
        wanted = place.buffer_pool
        pool = pools.holding(wanted)
        data_bytes = _data_bytes(conf, original, schemas)
        cache = pools.size(pool)
        info = {"cache_pool": pool, "kit_pool": wanted, "cache_bytes": cache, "data_bytes": data_bytes,
                "buffer_pools": pools.to_json(), "slob_data": place.to_json()}
        limit = float(ctx.vars.get("slob_max_cache_pct", 10))
        pct = 100.0 * cache / data_bytes if data_bytes else 100.0
        info["cache_pct_of_data"] = round(pct, 1)
        if version is KitVersion.SLOB1 or min(pct, 100.0) <= limit:
            return None, info
        return _cached_refusal(place, pool, cache, data_bytes, schemas, pct, limit), info

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
        if self.args.get("setup"):
            if self.args.get("create_tablespace"):
                lines.append(f"(tablespace {self.tablespace(ctx)} created on {self.args.get('data_on')}, "
                             f"{self.args['create_tablespace']}, when it is missing)")
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
            ctx.sh(_PREPARE, kit, conf_path + BACKUP_SUFFIX)  # a crash here leaves the backup, the real original
            ctx.conn.put(conf[1].encode(), conf_path)
        try:
            r = ctx.run(self.setup_argv(ctx), cwd=kit, check=False, env=env,
                        timeout=setup_budget_s(ctx.vars, data_bytes), **run_as)
        finally:
            if conf is not None:
                ctx.conn.put(conf[0].encode(), conf_path)
                ctx.sh(_COLLECT, kit, kit, conf_path + BACKUP_SUFFIX, check=False)  # drops the backup only
        log = save_text(ctx, "setup.log", (f"planner: {created}\n" if created else "") + r.stdout + r.stderr)
        if not r.ok or _ERROR_LINE.search(r.stdout):
            raise StepError(f"slob: setup.sh failed (exit code {r.exit_code}): "
                            + "; ".join(m.group(0).strip() for m in _ERROR_LINE.finditer(r.stdout))[:500],
                            hint=f"see {log.path} and the kit's cr_tab_and_load.out")
        ctx.conn.put(f"{schemas}\n".encode(), marker)  # the run's folder exists (or the upload makes it)
        return [log]

    def apply(self, ctx: StepContext) -> Outcome:
        kit = self.kit(ctx)
        _runit, original, version = self._read_kit(ctx, kit)
        argv, sessions, update_pct = self.command(version, original)
        run_as = self._as_oracle(ctx)
        env = self._environment(ctx)
        self._secrets(ctx, original)
        schemas = self.schemas()
        arts: list[Artifact] = []
        values, stats, why = self.point_conf(ctx, version, original, update_pct)
        if not ctx.vars.get("oracle_pdb"):  # a CDB with no PDB named: refused before the tablespace and setup.sh
            refuse_cdb_root(open_database(ctx, config_for(ctx)), "slob")
        in_root = pdb_refusal(ctx, original, values)  # before setup.sh too: it would create the users in the root
        if self.args.get("setup") and not in_root:  # first: setup.sh creates the tables the cache check reads
            conf = (original, render_conf(original, values)) if original is not None else None
            arts += self._setup(ctx, kit, schemas, run_as, env, _data_bytes(values, original, schemas), conf)
        refused, cache = self._cache_check(ctx, version, schemas, values, original)
        data_on = str(self.args.get("data_on") or "")
        placed = placement_refusal(_place(cache), data_on) if data_on else None
        refused = in_root or placed or refused
        info = {"sessions": sessions, "schemas": schemas, "threads_per_schema": sessions // max(1, schemas),
                "update_pct": update_pct, "kit_version": version.value, "statistics": stats,
                "statistics_why": why, **cache, **point_database(ctx, stats)}
        if refused:
            return Outcome(Status.FAILED, f"slob: {refused}", artifacts=tuple(arts), extra=point_extra(info))
        conf_path = posixpath.join(kit, "slob.conf")
        backup = conf_path + BACKUP_SUFFIX if original is not None else ""  # SLOB 1 has no slob.conf
        wd = point_dir(ctx, self.kind)
        ctx.sh(_PREPARE, kit, backup, *OUTPUTS)
        moved = ""
        try:
            if original is not None:
                ctx.conn.put(render_conf(original, values).encode(), conf_path)
                arts.append(ctx.fetch(conf_path, "slob.conf"))
            r = ctx.run(argv, cwd=kit, check=False, env=env, measured=True, **run_as)
        finally:
            if original is not None:
                ctx.conn.put(original.encode(), conf_path)
            moved = ctx.sh(_COLLECT, kit, wd, backup, *OUTPUTS, check=False).stdout
        arts.append(save_text(ctx, "runit.log", r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else "")))
        main = [("awr.txt", "awr_text"), ("awr.html", "awr_html"), ("awr.html.gz", "awr_html"), *SLOB_GLOBAL_OUTPUTS]
        if stats == "statspack":
            main = [("statspack.txt", "statspack")]
        logs = [("iostat.out", "iostat"), ("vmstat.out", "vmstat"), ("mpstat.out", "mpstat"), ("db_stats.out", ""),
                ("tm.out", ""), ("sqlplus.out", ""), ("slob_debug.out", "")]
        there = set(moved.split())
        cluster = self._cluster(ctx, wd, there)
        if not cluster.rac:  # a single instance's awr_rac.txt is kept, never parsed as a cluster's figures
            main = [(n, "" if (n, k) in SLOB_GLOBAL_OUTPUTS else k) for n, k in main]
        fetched = [ctx.fetch(posixpath.join(wd, n), n, k) for n, k in main + logs if n in there]
        arts += fetched
        got = [a.path.rsplit("/", 1)[-1] for a in fetched]  # on RAC, the cluster's figures or why there are none:
        info["rac"] = slob_note(cluster, stats, got)
        info["cluster"] = {"instances": cluster.instances, "rac": cluster.rac, "why": cluster.why}
        what = (f"SLOB {version.value} {shlex.join(argv[1:])} ({sessions_words(schemas, sessions)}, "
                f"UPDATE_PCT={update_pct}); "
                f"statistics: {stats} ({why}); data in {cache['cache_pool']} {cache['cache_bytes'] >> 20}M, "
                f"{_where(_place(cache))}"
                f"; {info['container']['describe']}; CPU {info['caging']['describe']}"
                + (f"; {info['awr_level']}" if info.get("awr_level") else "")
                + (f"; {info['rac']}" if info["rac"] else ""))
        errors = [m.group(0).strip() for a in [r.stdout, *self._logs(ctx, fetched)] for m in _ERROR_LINE.finditer(a)]
        if not r.ok or errors:
            problem = "; ".join(dict.fromkeys(errors))[:600] or (r.stderr.strip() or f"exit code {r.exit_code}")[-300:]
            return Outcome(Status.FAILED, f"{what} reported errors: {problem}", artifacts=tuple(arts),
                           extra=point_extra(info))
        if not any(a.kind == main[0][1] for a in fetched):
            return Outcome(Status.FAILED, f"{what} wrote no {main[0][0]} in {kit}", artifacts=tuple(arts),
                           extra=point_extra(info))
        return parse_outcome(ctx, arts, what, point_extra(info))

    @staticmethod
    def tablespace(ctx: StepContext) -> str:
        return str(ctx.vars.get("slob_tablespace", "IOPS"))

    def setup_argv(self, ctx: StepContext) -> list[str]:
        """setup.sh's command line: the tablespace it loads into and the schema count (readers + writers)."""
        return ["sh", "./setup.sh", self.tablespace(ctx), str(self.schemas())]

    def _tablespace(self, ctx: StepContext, name: str) -> str:
        """create_tablespace: SIZE makes the tablespace setup.sh loads into, on data_on, when it is missing."""
        size = self.args.get("create_tablespace")
        if not size:
            return ""
        data_on = str(self.args.get("data_on") or "")
        if not data_on:
            raise StepError("slob: create_tablespace needs data_on (the disk group +NAME or directory to put it on)")
        return ensure_tablespace(open_database(ctx, config_for(ctx)), name, data_on, str(size))

    def _secrets(self, ctx: StepContext, original: str | None) -> None:
        """SLOB's admin password (slob.conf SYSDBA_PASSWD; 'manager' when unset, 2.4.0 runit.sh:1034) is printed by
        runit.sh and setup.sh in their banners (runit.sh:1243 ``SYSDBA_PASSWD: "..."``, :1253 ``Admin Connect
        String``; 2.5 setup.sh ``ADMIN_CONNECT_STRING: "..."``): the record masks it from before the first run."""
        if not callable(ctx.add_secret):
            return
        given = dict(self.args.get("conf") or {}).get("SYSDBA_PASSWD")
        value = str(given) if given is not None else conf_value(original or "", "SYSDBA_PASSWD")
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
    def _logs(ctx: StepContext, fetched: list[Artifact]) -> list[str]:
        out = []
        for a in fetched:
            if a.path.rsplit("/", 1)[-1] in ("sqlplus.out", "slob_debug.out"):
                out.append((ctx.run_dir / a.path).read_text(errors="replace"))
        return out


# SLOB's users live in the PDB, but runit.sh and setup.sh connect by bequeath (ORACLE_SID), which lands in CDB$ROOT:
# in a PDB they must go over SQL*Net. SLOB 2.4.2 README, "SQL*Net Related Parameters": ADMIN_SQLNET_SERVICE is used by
# setup.sh and runit.sh for the admin connections, SQLNET_SERVICE_BASE by runit.sh for the SLOB sessions
# (docs/oracle-behaviour.md 25.11c).
PDB_SERVICES = ("ADMIN_SQLNET_SERVICE", "SQLNET_SERVICE_BASE")
PDB_HINT = ("set slob_sqlnet_service to a SQL*Net service of the PDB in the inventory (planner writes it as slob.conf "
            "ADMIN_SQLNET_SERVICE and SQLNET_SERVICE_BASE), or give both in the step's conf:")


def pdb_refusal(ctx: StepContext, original: str | None, values: Mapping[str, str]) -> str | None:
    """Why this point cannot run in the inventory's PDB (oracle_pdb), or None."""
    pdb = str(ctx.vars.get("oracle_pdb") or "")
    if not pdb or original is None:
        return None  # SLOB 1 has no slob.conf, nor SQL*Net settings: its run stays as it was
    missing = [k for k in PDB_SERVICES if not (values.get(k) or conf_value(original, k))]
    if not missing:
        return None
    return (f"oracle_pdb {pdb}: runit.sh and setup.sh connect by bequeath to CDB$ROOT, where SLOB's users are not, "
            f"unless slob.conf sets {' and '.join(missing)}")


def _data_bytes(conf: Mapping[str, str], original: str | None, schemas: int) -> int:
    """The data set the kit loads and reads: schemas x SCALE blocks of BLOCK_SZ (the point's slob.conf values)."""
    block = int(conf.get("BLOCK_SZ") or conf_value(original or "", "BLOCK_SZ") or 8192)
    return schemas * scale_blocks(conf.get("SCALE") or conf_value(original or "", "SCALE"), block) * block


def _place(cache: Mapping[str, Any]) -> SegmentPlace:
    d = cache["slob_data"]
    return SegmentPlace(d["owner"], d["table"], d["tablespace"], d["buffer_pool"], tuple(d["files"]))


def _where(place: SegmentPlace) -> str:
    """'tablespace IOPS on +DATA' (the disk group, or the data files' directory)."""
    first = place.files[0]
    where = first.split("/", 1)[0] if first.startswith("+") else posixpath.dirname(first)
    return f"tablespace {place.tablespace} on {where}"


def _cached_refusal(place: SegmentPlace, pool: str, cache: int, data_bytes: int, schemas: int, pct: float,
                    limit: float) -> str:
    wanted = place.buffer_pool
    where = (f"no {wanted} pool is configured, so they are cached in DEFAULT" if pool != wanted
             else f"the {wanted} pool is")
    return (f"SLOB tables use BUFFER_POOL {wanted} (DBA_SEGMENTS.BUFFER_POOL of {place.owner}.{place.table}); {where} "
            f"{cache >> 20}M for a {data_bytes >> 20}M data set ({schemas} schemas): about {min(pct, 100):.0f}% of "
            f"reads would be cache hits, not storage I/O (limit slob_max_cache_pct={limit:g})")


SETUP_MB_PER_S = 5.0  # a conservative load rate for setup.sh (it inserts row by row per schema); slob_setup_mb_per_s
SETUP_MIN_S = 1800.0


def setup_budget_s(variables: Mapping[str, Any], data_bytes: int) -> float:
    """setup.sh's timeout: the data it loads at ``slob_setup_mb_per_s`` (default 5 MB/s) plus the margin, at least
    half an hour; ``slob_setup_timeout_s`` states it outright. A planner estimate: no SLOB source gives a rate."""
    given = variables.get("slob_setup_timeout_s")
    if given not in (None, ""):
        return float(given)
    rate = float(variables.get("slob_setup_mb_per_s") or SETUP_MB_PER_S)
    return max(SETUP_MIN_S, data_bytes / (rate * (1 << 20)) + TIMEOUT_MARGIN_S)


def point_extra(info: Mapping[str, Any]) -> SlobPoint:
    """What apply gathered of the point, as the typed record its result keeps (planner.extras.SlobPoint)."""
    cont, cag, cluster = info["container"], info["caging"], info.get("cluster")
    return SlobPoint(
        info["sessions"], info["schemas"], info["threads_per_schema"], info["update_pct"], info["kit_version"],
        info["statistics"], info["statistics_why"],
        SlobCache(info["cache_pool"], info["kit_pool"], info["cache_bytes"], info["data_bytes"],
                  info["cache_pct_of_data"], info["buffer_pools"], info["slob_data"]),
        ContainerSeen(cont["cdb"], cont["name"], cont["pdb"], cont["describe"]),
        CagingSeen(cag["caged"], cag["cpu_count"], cag["describe"], cag["plan"], tuple(cag["windows"]),
                   cag["resource_manager_plan"]),
        info.get("rac"),
        ClusterSeen(cluster["instances"], cluster["rac"], cluster["why"]) if cluster else None,
        info.get("awr_level") or "")


def point_database(ctx: StepContext, stats: str = "") -> dict[str, Any]:
    """Read per point, as a window may open between two points: the container the kit runs in and whether
    Resource Manager cages the CPU (planner.db.container, planner.db.caging); with AWR in a PDB, whose AWR the kit's
    snapshots go to. Unreadable: the point is refused."""
    try:
        db = open_database(ctx, config_for(ctx))
        container = read_container(db)
        out: dict[str, Any] = {"container": container.to_json(), "caging": read_caging(db).to_json()}
    except OracleError as exc:
        raise StepError(f"slob: cannot read the container and Resource Manager state: {exc.message}",
                        hint=exc.hint) from exc
    if stats == "awr" and container.pdb:
        out["awr_level"] = kit_awr_level(container.name, read_awr_level(db, container))
    return out


def kit_awr_level(pdb: str, level: AwrLevel) -> str:
    """What the point says of SLOB's own AWR in a PDB. runit.sh snaps over ADMIN_SQLNET_SERVICE, in the PDB, and
    reports with V$DATABASE.DBID (public 2.5 runit.sh f_snap_database_stats, f_generate_awr_report, code index id
    38272540123). Before 12.2 AWR is CDB-level only; from 12.2 a snapshot taken in a PDB can be the PDB's own, so the
    report's header, not planner, says which it is (docs/oracle-behaviour.md 25.11d)."""
    if level.autoflush:
        return (f"AWR: the kit snaps in {pdb} over ADMIN_SQLNET_SERVICE; from 12.2 that can be {pdb}'s own AWR "
                f"(AWR_PDB_AUTOFLUSH_ENABLED={level.autoflush} there): awr.txt's header says whether its report is "
                "the PDB's or the CDB's, covering every PDB")
    return f"AWR taken at CDB level: covers every PDB ({level.why})"


def read_kit(ctx: StepContext, kit: str) -> tuple[str, str | None, KitVersion]:
    """(runit.sh, slob.conf or its planner backup, version) of the kit folder ``kit`` (root-mapped)."""
    runit = ctx.conn.read_text(posixpath.join(kit, "runit.sh"))
    if runit is None:
        raise StepError(f"slob: no runit.sh in {kit}", hint="kit is the SLOB folder holding runit.sh")
    backup = ctx.conn.read_text(posixpath.join(kit, "slob.conf" + BACKUP_SUFFIX))
    conf = backup if backup is not None else ctx.conn.read_text(posixpath.join(kit, "slob.conf"))
    notes = "\n".join(t[:4000] for t in (ctx.conn.read_text(posixpath.join(kit, n))
                                         for n in ("README", "README.md", "misc/README")) if t)
    return runit, conf, detect_version(runit, conf, notes)

