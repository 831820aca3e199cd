"""The ``slob`` workload: one sweep point of the user's own SLOB kit on the host (never bundled).

Kit version (``detect_version``), from the kit's own files, first match wins:
- no ``slob.conf`` in the kit: SLOB 1 (``runit.sh <writers> <readers>``; it had no configuration file);
- a version banner ``SLOB 2.4`` or later in slob.conf's comments, README or misc/ files, or a runit.sh that
  parses options (``getopts``, or a usage text naming ``-s <...> -t <...>``): SLOB 2.4+
  (``runit.sh <schemas>``, or ``runit.sh -s <schemas> -t <threads>`` when threads_per_schema is given);
- otherwise SLOB 2.0-2.3 (``runit.sh <sessions>``).

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
from typing import Any, ClassVar

from planner.errors import StepError
from planner.plan.model import Section
from planner.status import Artifact, Status
from planner.steps.base import (
    Change,
    KitStandIn,
    Outcome,
    StepContext,
    StepType,
    check_host_path,
    whole_number,
)
from planner.steps.wl_common import host_run_dir, parse_outcome, point_dir, save_text

BACKUP_SUFFIX = ".planner-orig"
_ERROR_LINE = re.compile(r"^.*\b(ORA-\d{5}|SP2-\d{4}|FATAL)\b.*$", re.M)
OUTPUTS = ("awr.txt", "awr.html", "awr.html.gz", "statspack.txt", "iostat.out", "vmstat.out", "mpstat.out",
           "db_stats.out", "tm.out", "sqlplus.out", "slob_debug.out")  # what runit.sh writes into the kit
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


def detect_version(runit: str | None, conf: str | None, notes: str = "") -> KitVersion:
    """See the module docstring. ``notes``: README / misc text that may carry a version banner."""
    if conf is None:
        return KitVersion.SLOB1
    for m in re.finditer(r"SLOB\s+(\d+)\.(\d+)", (conf or "") + "\n" + notes):
        if (int(m.group(1)), int(m.group(2))) >= (2, 4):
            return KitVersion.SLOB24
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


def _int(args: Mapping[str, Any], key: str) -> int:
    return whole_number(args, key, 0, "slob", minimum=0)  # sessions and percentages: none is allowed


class Slob(StepType):
    kind: ClassVar[str] = "slob"
    sections = frozenset({Section.WORKLOADS})
    exclusive: ClassVar[bool] = True
    writes_db_report: ClassVar[bool] = True  # SLOB takes its own AWR/Statspack snapshots
    needs_database = True
    kit_args = {"kit": KitStandIn.SLOB_KIT}
    report_metrics = ("physical_read_iops", "physical_write_iops", "read_iops_per_core",
                      "single_block_read_latency_ms", "logical_reads_per_s", "physical_reads_per_s",
                      "physical_writes_per_s", "redo_mb_per_s", "logical_to_physical_ratio", "buffer_cache_mb",
                      "db_time_per_s", "db_cpu_per_s")

    @classmethod
    def point_seconds(cls, args: Mapping[str, Any]) -> float | None:
        return float(args.get("run_time", 300))

    # -- planning (pure) ---------------------------------------------------------------------------------
    def validate(self) -> None:
        self._kit_arg()

    def expected_s(self) -> float | None:
        """runit.sh runs RUN_TIME seconds (with no run_time given, slob.conf's own value is not known here)."""
        given = self.args.get("run_time")
        return float(given) if isinstance(given, int | float) and not isinstance(given, bool) else None

    def _kit_arg(self) -> str:
        kit = str(self.args.get("kit") or "")
        if not kit.startswith("/"):
            raise StepError(f"slob: kit must be an absolute path on the host, got {kit!r}",
                            hint="give the folder holding runit.sh, e.g. /home/oracle/SLOB")
        return check_host_path(kit, "SLOB kit path")

    def kit(self, ctx: StepContext) -> str:
        return ctx.path(self._kit_arg().rstrip("/"))

    def command(self, version: KitVersion) -> tuple[list[str], int, int]:
        """(runit.sh argv, sessions, update_pct) for this point."""
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
            return ["sh", "./runit.sh", "-s", str(sessions), "-t", str(t)], sessions * t, update_pct
        return ["sh", "./runit.sh", str(sessions)], sessions, update_pct

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
        runit = ctx.conn.read_text(posixpath.join(kit, "runit.sh"))
        if runit is None:
            raise StepError(f"slob: no runit.sh in {kit}", hint="kit is the SLOB folder holding runit.sh")
        backup = ctx.conn.read_text(posixpath.join(kit, "slob.conf" + BACKUP_SUFFIX))
        conf = backup if backup is not None else ctx.conn.read_text(posixpath.join(kit, "slob.conf"))
        notes = "\n".join(t[:4000] for t in (ctx.conn.read_text(posixpath.join(kit, n))
                                             for n in ("README", "README.md", "misc/README")) if t)
        return runit, conf, detect_version(runit, conf, notes)

    def check(self, ctx: StepContext) -> Change:
        kit = self.kit(ctx)
        _runit, _conf, version = self._read_kit(ctx, kit)
        argv, sessions, upd = self.command(version)
        return Change(True, f"would run SLOB {version.value} in {kit}: {shlex.join(argv)} "
                            f"({sessions} sessions, UPDATE_PCT={upd})")

    def preview(self, ctx: StepContext) -> str:
        kit = self.kit(ctx)
        _runit, conf, version = self._read_kit(ctx, kit)
        argv, sessions, upd = self.command(version)
        lines = [f"$ cd {kit} && {shlex.join(argv)}   # SLOB {version.value}, {sessions} sessions"]
        if conf is not None:
            lines.append(f"{kit}/slob.conf (the original is kept and put back after the point):")
            lines += ["    " + x for x in render_conf(conf, self.conf_values(version, upd)).rstrip("\n").splitlines()]
        return "\n".join(lines)

    # -- running -----------------------------------------------------------------------------------------
    def _as_oracle(self, ctx: StepContext) -> dict[str, Any]:
        user = ctx.vars.get("oracle_user")
        if user and str(user) != ctx.host.user:
            return {"become": True, "become_user": str(user), "login": True}
        return {}

    def _setup(self, ctx: StepContext, kit: str, schemas: int, run_as: Mapping[str, Any]) -> list[Artifact]:
        """setup.sh once per run and host (again only if a later point needs more schemas)."""
        marker = posixpath.join(host_run_dir(ctx), "slob-setup-" + re.sub(r"[^A-Za-z0-9]+", "_", kit))
        done = ctx.conn.read_text(marker)
        if done and done.strip().isdigit() and int(done.strip()) >= schemas:
            return []
        tablespace = str(ctx.vars.get("slob_tablespace", "IOPS"))
        r = ctx.run(["sh", "./setup.sh", tablespace, str(schemas)], cwd=kit, check=False, **run_as)
        log = save_text(ctx, "setup.log", r.stdout + r.stderr)
        if not r.ok or _ERROR_LINE.search(r.stdout):
            raise StepError(f"slob: setup.sh failed (exit code {r.exit_code}): "
                            + "; ".join(m.group(0).strip() for m in _ERROR_LINE.finditer(r.stdout))[:500],
                            hint=f"see {log.path} and the kit's cr_tab_and_load.out")
        ctx.conn.put(f"{schemas}\n".encode(), marker)  # the run's folder exists (or the upload makes it)
        return [log]

    def apply(self, ctx: StepContext) -> Outcome:
        kit = self.kit(ctx)
        _runit, original, version = self._read_kit(ctx, kit)
        argv, sessions, update_pct = self.command(version)
        run_as = self._as_oracle(ctx)
        env = {"PLANNER_ROOT": ctx.root} if ctx.root else None  # only stand-ins read it
        arts: list[Artifact] = []
        if self.args.get("setup"):
            arts += self._setup(ctx, kit, _int(self.args, "readers") + _int(self.args, "writers"), run_as)
        conf_path = posixpath.join(kit, "slob.conf")
        backup = conf_path + BACKUP_SUFFIX if original is not None else ""  # SLOB 1 has no slob.conf
        stats = "awr"
        values: dict[str, str] = {}
        if original is not None:
            values = self.conf_values(version, update_pct)
            wanted = ctx.db_report  # the play's collect: [awr] or [statspack]
            if wanted and version is KitVersion.SLOB24 and "DATABASE_STATISTICS_TYPE" not in values:
                values["DATABASE_STATISTICS_TYPE"] = str(wanted)
            stats = (values.get("DATABASE_STATISTICS_TYPE") or conf_value(original, "DATABASE_STATISTICS_TYPE")
                     or ("statspack" if version is KitVersion.SLOB24 else "awr")).lower()
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
        main = [("awr.txt", "awr_text"), ("awr.html", "awr_html"), ("awr.html.gz", "awr_html")]
        if stats == "statspack":
            main = [("statspack.txt", "statspack")]
        logs = [("iostat.out", "iostat"), ("vmstat.out", "vmstat"), ("mpstat.out", "mpstat"), ("db_stats.out", ""),
                ("tm.out", ""), ("sqlplus.out", ""), ("slob_debug.out", "")]
        there = set(moved.split())
        fetched = [ctx.fetch(posixpath.join(wd, n), n, k) for n, k in main + logs if n in there]
        arts += fetched
        what = f"SLOB {version.value} {shlex.join(argv[1:])} ({sessions} sessions, UPDATE_PCT={update_pct})"
        errors = [m.group(0).strip() for a in [r.stdout, *self._logs(ctx, fetched)] for m in _ERROR_LINE.finditer(a)]
        if not r.ok or errors:
            why = "; ".join(dict.fromkeys(errors))[:600] or (r.stderr.strip() or f"exit code {r.exit_code}")[-300:]
            return Outcome(Status.FAILED, f"{what} reported errors: {why}", artifacts=tuple(arts))
        if not any(a.kind == main[0][1] for a in fetched):
            return Outcome(Status.FAILED, f"{what} wrote no {main[0][0]} in {kit}", artifacts=tuple(arts))
        return parse_outcome(ctx, arts, what, {"sessions": sessions, "update_pct": update_pct,
                                               "kit_version": version.value, "statistics": stats})

    @staticmethod
    def _logs(ctx: StepContext, fetched: list[Artifact]) -> list[str]:
        out = []
        for a in fetched:
            if a.path.rsplit("/", 1)[-1] in ("sqlplus.out", "slob_debug.out"):
                out.append((ctx.run_dir / a.path).read_text(errors="replace"))
        return out
