"""A run folder -> measurements: every artifact with a known parser ``kind`` is parsed, derived metrics added.

The run folder is the source of truth (meta.json, results.json, facts/, restore.json, artifacts/); this module
only reads it. A parser that fails (planner.errors.ParseError) leaves a ``ReadArtifact`` with the error: the
artifact is kept and the report says which section could not be read.

Derived metrics added here (besides planner.parsers.derived for AWR-family reports), each ``derived=True``:

- ``awr.rac`` = 1 when a per-instance AWR/Statspack report says RAC=YES (findings use it: RAC reads are not IOPS);
- a global (RAC) report (``awr_rac_text``, or ``awr_rac_html`` alone) is the headline of its execution: the
  cluster's IOPS / MB/s (``instance=all``); the per-instance report beside it is measured with
  ``awr_scope=instance <n>`` (so its figures never mix with the cluster's in one series) and is no headline;
- ``os.cpu_busy_pct`` = mean over samples of 100 - %idle (mpstat ``cpu=all`` interval rows, else vmstat id);
- ``os.cpu_iowait_pct`` = mean %iowait (mpstat ``cpu=all``, else vmstat wa);
- ``os.read_iops`` / ``os.write_iops`` = mean over samples of r/s (w/s) summed over devices (iostat -x);
- ``os.util_pct_max`` = the busiest device's mean %util (iostat -x).
iostat's and vmstat's first sample (averages since boot) is left out. A point whose tool timed its own window
(a database kit's begin and end snapshots, a TPROC-C driver's timed test after its ramp-up: the kind says
where) has its OS series cut to it (planner.results.os_window; ``os.samples`` says so in label ``window``).
"""

from __future__ import annotations

import errno
import functools
import os
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from planner.errors import InputError, ParseError, Problem
from planner.extras import DatabaseSeen, RanAs, StepExtra
from planner.metrics import Direction, Metric, Parsed, Source
from planner.plan.model import Plan, Section
from planner.results import os_window, runfolder
from planner.results.runfolder import RunMeta
from planner.status import Artifact, ArtifactKind, Status, StepResult
from planner.transport.ostats import output_name

# a tool's log (runit.log, a driver's) is kilobytes; a received run folder's must not fill memory
KIT_LOG_MAX = 8 << 20
# What no parser reads (planner.status.ArtifactKind): a run with only these (a prep-only run's fetched and
# template files) is read without importing the parsers, which cost a store push after such a run a third
NEVER_PARSED = frozenset({ArtifactKind.NONE, ArtifactKind.SERIES, ArtifactKind.FACTS, ArtifactKind.LOG})


@dataclass(frozen=True, slots=True)
class KindTables:
    """Derived from the parsers' one record per kind (planner.parsers.PARSER_KINDS), once, when first needed."""

    parsed: frozenset[str]  # every kind a parser reads
    awr: frozenset[str]
    # the global (RAC) report: its cluster totals (instance=all) are the headline; a per-instance report of the
    # same execution is then context, never the system's figure (planner.parsers.awr_rac_text)
    global_: frozenset[str]  # both give the cluster's IOPS
    one_report: frozenset[str]  # one database report per point, whatever layouts it was fetched in
    os: frozenset[str]
    of_artifact: Mapping[str, str]  # without the plan, a step's kind is guessed from what it produced


@functools.cache
def tables() -> KindTables:
    from planner.parsers import KINDS, PARSER_KINDS, DbReport, kinds_where

    return KindTables(frozenset(KINDS), kinds_where(lambda k: k.db_report in (DbReport.ONE, DbReport.EXCERPT)),
                      kinds_where(lambda k: k.db_report is DbReport.GLOBAL),
                      kinds_where(lambda k: k.db_report is DbReport.ONE), kinds_where(lambda k: k.os_stats),
                      {k.kind: k.step_kind for k in PARSER_KINDS if k.step_kind})


_TABLE_NAMES = {"AWR_KINDS": "awr", "GLOBAL_KINDS": "global_", "ONE_REPORT_KINDS": "one_report", "OS_KINDS": "os",
                "KIND_OF_ARTIFACT": "of_artifact"}


def __getattr__(name: str) -> Any:
    """The kind tables by their former module-level names (the report's importers), made when first read."""
    if name in _TABLE_NAMES:
        return getattr(tables(), _TABLE_NAMES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parsed_kind(kind: str) -> bool:
    """Whether a parser reads artifacts of this kind (the parsers imported only for one that may be)."""
    return kind not in NEVER_PARSED and kind in tables().parsed


# Headline metrics of AWR-family reports (the derived ones): what the seeds' tables compare.
AWR_HEADLINE = ("physical_read_iops", "physical_write_iops", "read_iops_per_core", "single_block_read_latency_ms")


@dataclass(frozen=True, slots=True)
class Measurement:
    """One metric value of one step execution on one host (a row of the store)."""

    run_id: str
    play: str
    host: str
    step: str  # StepSpec.path, e.g. "plays[0].workloads[1]"
    title: str
    kind: str  # the step kind (as the plan names it) when the plan is known, else the artifact kind
    artifact: str  # artifact path relative to the run folder ('' for data-only metrics)
    artifact_kind: str
    params: tuple[tuple[str, Any], ...]
    point: int | None
    repeat: int
    warmup: bool
    metric: str
    labels: tuple[tuple[str, str], ...]
    value: float
    unit: str
    direction: Direction
    simulated: bool
    derived: bool = False
    headline: bool = False
    source: str = ""

    @property
    def key(self) -> str:
        if not self.labels:
            return self.metric
        return self.metric + "{" + ",".join(f"{k}={v}" for k, v in self.labels) + "}"

    def label(self, name: str, default: str = "") -> str:
        return dict(self.labels).get(name, default)

    @property
    def point_label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params) or "—"


@dataclass(frozen=True, slots=True)
class ReadArtifact:
    path: str
    kind: str
    play: str
    host: str
    step: str
    simulated: bool
    facts: tuple[tuple[str, str], ...] = ()
    errors: tuple[str, ...] = ()  # ParseError messages: whole-file failure or unreadable sections
    parsed_ok: bool = True


@dataclass(frozen=True, slots=True)
class RunData:
    run_dir: Path
    meta: RunMeta
    results: tuple[StepResult, ...]
    measurements: tuple[Measurement, ...]
    artifacts: tuple[ReadArtifact, ...]
    facts: Mapping[str, Mapping[str, Any]]  # host -> facts/<host>.json
    restore: tuple[Mapping[str, Any], ...]
    plan: Plan | None = None
    step_kinds: Mapping[str, str] = field(default_factory=dict)  # step path -> kind

    @property
    def run_id(self) -> str:
        return self.meta.run_id or self.run_dir.name

    @property
    def simulated(self) -> bool:
        return self.meta.simulated or any(a.simulated for a in self.artifacts) \
            or any(m.simulated for m in self.measurements)

    def play_names(self) -> list[str]:
        return self.meta.play_names


def load_run_plan(run_dir: Path) -> Plan | None:
    """The plan as the run recorded it (plan.yaml), or None when it no longer loads."""
    plan_file = run_dir / runfolder.PLAN
    if not plan_file.is_file():
        return None
    try:
        from planner.plan.loader import load_plan

        return load_plan(plan_file, inventory_must_exist=False)  # ../inventory.yaml is beside the original
    except Exception:  # noqa: BLE001 - an old or broken plan must not stop a report of the numbers
        return None


def step_kinds(plan: Plan | None) -> dict[str, str]:
    return {s.path: s.kind for p in (plan.plays if plan else ()) for s in p.steps}


def prep_steps(data: RunData) -> frozenset[str]:
    """The step paths of the run's prep steps (their figures, if any, are not workload figures)."""
    return frozenset(r.step for r in data.results if r.section == Section.PREP.value and r.index is not None)


def play_name(play: int | None, plays: Sequence[str]) -> str:
    """The name of the play at index ``play`` (StepResult.play); '' for the run's own steps."""
    if play is None:
        return ""
    return plays[play] if 0 <= play < len(plays) else f"plays[{play}]"


def _parse(path: Path, kind: str) -> tuple[Parsed | None, list[str]]:
    from planner.parsers import parse_file

    try:
        parsed = parse_file(path, kind)
    except ParseError as e:
        return None, [str(e)]
    return parsed, [str(e) for e in parsed.errors]


def _headline(parsed: Parsed, derived: list[Metric]) -> set[str]:
    t = tables()
    if parsed.kind in t.os:
        return set()  # context for the workload, shown per host, never a result of its own
    if parsed.kind in t.awr:
        return {m.key for m in derived if m.name in AWR_HEADLINE}
    if parsed.kind in t.global_:  # the cluster's IOPS and MB/s, and its ('*' rows) single-block latency
        from planner.parsers import summarise

        return {m.key for m in summarise(parsed)} | {m.key for m in derived
                                                      if m.name == "single_block_read_latency_ms"}
    try:
        from planner.parsers import summarise

        return {m.key for m in summarise(parsed)}
    except Exception:  # noqa: BLE001 - a headline picker bug only loses the bold rows
        return set()


def _derive(parsed: Parsed, window: os_window.Window | None = None) -> list[Metric]:
    out: list[Metric] = []
    t = tables()
    if parsed.kind in t.awr | t.global_:
        try:
            from planner.parsers.derived import derive

            out += derive(parsed)
        except Exception:  # noqa: BLE001 - derived metrics are optional extras
            pass
        if parsed.fact("rac") == "YES" and parsed.kind not in t.global_:
            out.append(Metric("awr.rac", 1.0, "flag", Direction.NEUTRAL, Source(parsed.source), (), True))
    if parsed.kind in t.os:
        out += os_summary(parsed, window)
    return out


def _caged(derived: list[Metric], parsed: Parsed, extra: StepExtra | None) -> list[Metric]:
    """IOPS per core over the cores the instance could use: when the step read that Resource Manager caged it
    (planner.db.caging), CPU_COUNT CPUs, i.e. CPU_COUNT x cores / CPUs cores, not every core of the host."""
    if not isinstance(extra, DatabaseSeen) or not extra.caging.caged:
        return derived
    cpus, cores, count = parsed.value("cpus"), parsed.value("cores"), float(extra.caging.cpu_count)
    if not cpus or not cores or not count:
        return derived
    usable = min(cores, count * cores / cpus)
    out = []
    for m in derived:
        if m.name == "read_iops_per_core":
            m = replace(m, value=m.value * cores / usable,
                        labels=m.labels + (("cores", f"caged {usable:g} of {cores:g}"),))
        out.append(m)
    return out


def _mean_by_sample(metrics: list[Metric], skip_first: bool) -> float | None:
    per_sample: dict[str, float] = defaultdict(float)
    for m in metrics:
        per_sample[m.label("sample") or m.label("time")] += m.value
    keys = [k for k in per_sample if not (skip_first and k == "1")]
    return statistics.fmean(per_sample[k] for k in keys) if keys else None


def os_summary(parsed: Parsed, window: os_window.Window | None = None) -> list[Metric]:
    """Workload-window OS figures from one iostat/mpstat/vmstat artifact (formulas in the module doc), over the
    samples inside ``window`` when the workload took its own snapshots (planner.results.os_window)."""
    parsed, cut_words = os_window.cut(parsed, window)
    since_boot = parsed.fact("first_sample") == "since_boot"
    src = Source(parsed.source)
    out: list[Metric] = []

    def add(name: str, value: float | None, unit: str, direction: Direction = Direction.NEUTRAL) -> None:
        if value is not None:
            out.append(Metric(name, value, unit, direction, src, (), True))

    if parsed.kind == "mpstat":
        rows = [m for m in parsed.metrics if m.label("cpu") == "all" and m.label("time") != "Average"]
        idle = [m.value for m in rows if m.name == "mpstat.idle_pct"]
        wio = [m.value for m in rows if m.name == "mpstat.iowait_pct"]
        steal = [m.value for m in rows if m.name == "mpstat.steal_pct"]
        add("os.cpu_busy_pct", 100 - statistics.fmean(idle) if idle else None, "%")
        add("os.cpu_iowait_pct", statistics.fmean(wio) if wio else None, "%")
        add("os.cpu_steal_pct", statistics.fmean(steal) if steal else None, "%")
        samples: int = len(idle)
    elif parsed.kind == "vmstat":
        def col(name: str) -> list[float]:
            return [m.value for m in parsed.metrics if m.name == name
                    and not (since_boot and m.label("sample") == "1")]
        idle, wio, steal = col("vmstat.id"), col("vmstat.wa"), col("vmstat.st")
        add("os.cpu_busy_pct", 100 - statistics.fmean(idle) if idle else None, "%")
        add("os.cpu_iowait_pct", statistics.fmean(wio) if wio else None, "%")
        add("os.cpu_steal_pct", statistics.fmean(steal) if steal else None, "%")
        samples = len(idle)
    elif parsed.kind == "iostat":
        samples = len({m.label("sample") for m in parsed.all("iostat.r_iops")} - ({"1"} if since_boot else set()))
        add("os.read_iops", _mean_by_sample(parsed.all("iostat.r_iops"), since_boot), "IOPS", Direction.HIGHER)
        add("os.write_iops", _mean_by_sample(parsed.all("iostat.w_iops"), since_boot), "IOPS", Direction.HIGHER)
        per_dev: dict[str, list[float]] = defaultdict(list)
        for m in parsed.all("iostat.util_pct"):
            if not (since_boot and m.label("sample") == "1"):
                per_dev[m.label("device")].append(m.value)
        if per_dev:
            add("os.util_pct_max", max(statistics.fmean(v) for v in per_dev.values()), "%")
    else:
        return out
    # how many samples the window's figures are means of (a short point's window can be empty)
    labels = (("tool", parsed.kind),) + ((("window", cut_words),) if cut_words else ())
    out.append(Metric("os.samples", float(samples), "samples", Direction.NEUTRAL, src, labels, True))
    return out


def _step_metrics(r: StepResult) -> list[Metric]:
    """The figures a step measured itself (a plugin's): not those read from one of its artifacts (the
    headline of a parsed output), which are measured from the artifact itself, so never counted twice."""
    kept = {a.path for a in r.artifacts}
    return [m for m in r.metrics if m.source is None or m.source.file not in kept]


def _kit_params(r: StepResult) -> tuple[tuple[str, Any], ...]:
    """A point's parameters as its kit ran them, when its extra knows them (planner.extras.RanAs)."""
    # None first: a runtime Protocol's isinstance walks its attributes, and most results carry no extra
    return r.extra.ran_params(r.params) if r.extra is not None and isinstance(r.extra, RanAs) else r.params


def _latest(results: Iterable[StepResult]) -> tuple[StepResult, ...]:
    """A resumed run records a point again after its interrupted or failed attempt: the later result wins."""
    ordered = list(results)
    last = {(r.host, r.step, r.point): i for i, r in enumerate(ordered) if r.point is not None}
    return tuple(r for i, r in enumerate(ordered)
                 if r.point is None or last[(r.host, r.step, r.point)] == i
                 or r.status in (Status.OK, Status.CHANGED))


def _shadowed(artifacts: Sequence[Artifact]) -> set[str]:
    """Artifacts of one execution that repeat another's figures, so each figure is measured once (or every
    repeat would count twice in n, spread and CV):

    - one database report in two layouts (a kit's awr.txt and awr.html): the first one is measured; the global
      report in text (awr_rac.txt) over its HTML form (awr_rac.html.gz);
    - two samplings of one OS tool (a kit's own iostat.out beside planner's window ``iostat.txt``): the
      window's, which covers exactly the workload, else the first.
    """
    out: set[str] = set()
    if all(a.kind in NEVER_PARSED for a in artifacts):
        return out  # every rule below is about parsed kinds
    t = tables()
    reports = [a for a in artifacts if a.kind in t.one_report]
    out.update(a.path for a in reports[1:])
    if any(a.kind == "awr_rac_text" for a in artifacts):  # awr_rac.txt and awr_rac.html.gz: the text is read
        out.update(a.path for a in artifacts if a.kind == "awr_rac_html")
    for kind in t.os:
        same = [a for a in artifacts if a.kind == kind]
        if len(same) > 1:
            keep = next((a for a in same if PurePosixPath(a.path).name == output_name(kind)), same[0])
            out.update(a.path for a in same if a is not keep)
    return out


def _kit_window(run_dir: Path, artifacts: Sequence[Artifact]) -> os_window.Window | None:
    """The tool's own measured window from the point's file its kind names (os_window.source), None without
    one (bounded read: a log, not data)."""
    found = os_window.source([a.path for a in artifacts])
    path = _inside(run_dir, found[0]) if found else None
    if found is None or path is None or not path.is_file():
        return None
    with path.open("rb") as f:
        return found[1](f.read(KIT_LOG_MAX).decode("utf-8", "replace"))


def _results(run_dir: Path) -> tuple[StepResult, ...]:
    return _latest(runfolder.read_results(run_dir))


def _inside(run_dir: Path, relpath: str) -> Path | None:
    """``run_dir/relpath`` when it stays inside the run folder, symbolic links resolved; else None. A run
    folder is shared input: its results.json must not make `planner show/report` read /etc/passwd."""
    if not isinstance(relpath, str) or not relpath or "\x00" in relpath or relpath.startswith("/"):
        return None
    # os.path, not pathlib: a run's every artifact passes here (pathlib's parsing was most of a push's read)
    try:
        root = _real_root(os.fspath(run_dir))
        target = os.path.realpath(os.path.join(root, relpath), strict=False)
        _no_loop(target)
    except (OSError, RuntimeError, ValueError):
        return None
    return Path(target) if target.startswith(root.rstrip("/") + "/") and target != root else None


@functools.lru_cache(maxsize=16)
def _real_root(run_dir: str) -> str:
    """The run folder's own real path, once per folder: it is the planner's (--runs-dir, a run id), not the
    folder's input; each artifact's own path is still resolved on every call."""
    return os.path.realpath(run_dir, strict=False)


def _no_loop(target: str) -> None:
    """Raises on a symbolic-link loop, as Path.resolve does (RuntimeError); any other stat error (missing,
    unreadable) is the caller's to meet when it opens the file."""
    try:
        os.stat(target)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise RuntimeError(f"symlink loop at {target}") from None


def read_run(run_dir: Path, plan: Plan | None = None) -> RunData:
    """Read a run folder. Raises InputError when it is not a run folder; parse problems are kept, not raised."""
    run_dir = Path(run_dir)
    if not runfolder.is_run_folder(run_dir):
        raise InputError([Problem(None, "", f"{run_dir}: not a run folder (no meta.json)",
                                  "give a run folder path or a run id under --runs-dir")])
    meta = runfolder.read_meta(run_dir)  # an object with a run id of the strict shape: a received folder is input
    results = _results(run_dir)
    plan = plan or load_run_plan(run_dir)
    kinds = step_kinds(plan)
    plays = meta.play_names or [p.name for p in (plan.plays if plan else ())]
    run_id = meta.run_id or run_dir.name
    measurements: list[Measurement] = []
    artifacts: list[ReadArtifact] = []
    for r in results:
        play = play_name(r.play, plays)
        base = dict(run_id=run_id, play=play, host=r.host, step=r.step, title=r.title,
                    params=_kit_params(r), point=r.point,
                    repeat=r.repeat, warmup=r.warmup)
        for m in _step_metrics(r):
            measurements.append(_measurement(base, kinds.get(r.step, ""), "", "", m, False, set()))
        shadowed = _shadowed(r.artifacts)
        window = _kit_window(run_dir, r.artifacts)
        has_global = any(parsed_kind(a.kind) and a.kind in tables().global_ for a in r.artifacts)
        for a in r.artifacts:
            if not parsed_kind(a.kind) or a.path in shadowed:
                continue  # logs, scripts, kinds without a parser, second copies: kept in the record, not measured
            inside = _inside(run_dir, a.path)
            parsed, errors = _parse(inside, a.kind) if inside else (None, [
                f"{a.path}: not read: the path leads outside the run folder (a crafted or damaged results.json)"])
            simulated = a.simulated or bool(parsed and parsed.simulated)
            artifacts.append(ReadArtifact(a.path, a.kind, play, r.host, r.step, simulated,
                                          parsed.facts if parsed else (), tuple(errors), parsed is not None))
            if parsed is None:
                continue
            derived = _caged(_derive(parsed, window), parsed, r.extra)
            heads = set() if has_global and a.kind in tables().awr else _headline(parsed, derived)
            scope = (("awr_scope", "instance " + (parsed.fact("inst_num") or "1")),) \
                if has_global and a.kind in tables().awr else ()  # an instance's figures, kept apart from the cluster's
            # an OS sampler's every value (an hour of iostat over 32 devices: 2.5 million) is the point's series
            # and the artifact's; as measurements it held show, report, export and push at 2.7 GB: its window
            # figures (os.*) are what a run measured
            kept = () if a.kind in tables().os else parsed.metrics
            for m in (*kept, *derived):
                m = replace(m, labels=m.labels + scope) if scope else m
                measurements.append(_measurement(base, kinds.get(r.step, tables().of_artifact.get(a.kind, a.kind)),
                                                 a.path, a.kind, m,
                                                 simulated, heads))
    facts = runfolder.read_facts(run_dir)
    restore = runfolder.read_restore_entries(run_dir)
    return RunData(run_dir, meta, results, tuple(measurements), tuple(artifacts), facts, restore, plan, kinds)


def _where(path: str, m: Metric) -> str:
    """``artifact:line`` relative to the run folder (parsers saw the absolute path)."""
    line = m.source.line if m.source else None
    return f"{path}:{line}" if path and line else path


def _measurement(base: dict[str, Any], kind: str, path: str, akind: str, m: Metric, simulated: bool,
                 heads: set[str]) -> Measurement:
    return Measurement(kind=kind, artifact=path, artifact_kind=akind, metric=m.name, labels=m.labels,
                       value=m.value, unit=m.unit, direction=m.direction, simulated=simulated,
                       derived=m.derived, headline=m.key in heads, source=_where(path, m),
                       **base)
