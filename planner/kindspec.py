"""What planner knows of each workload kind, declared in the kind's own folder and found here by name.

A workload kind is one folder, ``planner/kinds/<kind>/`` (docs/architecture.md, "A kind is one folder"): its
step, its parsers, its findings, its stand-in and its typed extra, and a ``spec.py`` holding one ``KindSpec``:
the kind's words and tables, and where each of its parts is. The kind is registered by one line, its name in
``KINDS`` below. Everything else that needs a kind's knowledge (the parse registry, the metric words, the report's
axis words and table columns, the step registry, the results, the rehearsal) asks here; none of them holds a
per-kind table.

This module is foundation: it imports no planner package. A kind's spec module imports only this module, so the
tables may be read at any layer; the kind's other modules are named as text (``"package.module:attribute"``) and
imported by whoever needs them, through ``load``. Nothing imports ``planner.kinds`` by name (a contract in
pyproject says so): the kinds' folders span layers, and each of their modules is held to its layer by its role
(``spec``/``extra`` foundation, ``parse`` pure, ``step`` steps, ``findings`` results, ``standin`` rehearsal).
"""

from __future__ import annotations

import enum
import functools
import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

# The one line per kind: a kind is registered by its folder's name here. The order is the parse registry's
# detection order among the kinds' parsers (a kind whose output another's detector could mistake goes first).
KINDS: tuple[str, ...] = ("fio", "orion", "calibrate_io", "slb", "iozone", "swingbench", "hammerdb", "slob",
                         "pgbench", "sysbench")


class DbReport(enum.Enum):
    """Whether a parser kind is a database report, and which: the measure step picks a point's report by it."""

    NONE = "none"
    ONE = "one"  # one instance's AWR or Statspack report: one per point, whatever layouts it was fetched in
    EXCERPT = "excerpt"  # sections of an AWR/Statspack report pasted (read like one, never fetched by a step)
    GLOBAL = "global"  # the RAC global report: its cluster totals are the headline
    COMPARE = "compare"  # an AWR Compare Period report (two periods, read on its own)


Headline = tuple[tuple[str, Mapping[str, str]], ...]  # (metric name, labels that must match)


@dataclass(frozen=True, slots=True)
class ParserKind:
    """Everything planner knows about one kind of tool output, said once: how it is detected and parsed, its
    words, its headline metrics, whether it is a database report and which step kind produces it."""

    kind: str
    module: str  # a module under planner.parsers ("ostats"), or a kind's own parser ("planner.kinds.<kind>.parse")
    display_name: str  # what ``planner parse`` and ``planner analyze`` say it was read as
    looks_like: str = "looks_like"
    parse: str = "parse"
    names: tuple[str, ...] = ()  # file-name regexes that make this kind the first candidate
    # The headline: (metric, labels) to pick; None: the module's HEADLINE, else the derived metrics (AWR family).
    headline: Headline | None = None
    best_cell: bool = False  # a CSV matrix: its best cell is the headline
    # It prints one figure several times (CALIBRATE_IO's DBMS_OUTPUT block, often twice, and its
    # DBA_RSRC_IO_CALIBRATE row are one calibration): the first one read is the headline.
    one_figure: bool = False
    html_report: bool = False  # HTML is its own layout, not a paste wrapper
    xml_report: bool = False  # XML: its tags and entities are the layout, never a paste wrapper to take off
    # Lines that carry results: one that gave no value and no warning is listed, so "everything read" is never
    # said over it.
    result_lines: str = ""
    db_report: DbReport = DbReport.NONE
    os_stats: bool = False  # an OS sampler's output around a workload point
    step_kind: str = ""  # the workload that produces it (a step's kind guessed from its artifacts)
    # A step's outcome reads this artifact's headline (planner.steps.wl_common.outcome_reports); ``prefixed``: its
    # metric keys then carry the parser kind ("awr_html.physical_read_iops"), as a second layout of one report
    in_outcome: bool = False
    prefixed: bool = False
    reads: str = ""  # how "planner parse reads ..." names it when a file is not recognised ("" for none)


@dataclass(frozen=True, slots=True)
class HostVar:
    """A host variable a kind reads (as pyinfra's connectors declare theirs): docs/step-kinds.md lists them."""

    name: str
    # "path", "text", "integer", "seconds", "bytes", "boolean", "choice", "list", "number", or "host": an inventory
    # host's name (planner.plan.check refuses a name the inventory does not hold, exit 5)
    type: str
    default: str  # as a user would write it; "" when there is none
    doc: str


def _empty() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ReportWords:
    """The report facet: how the kind's figures and sweep axes read."""

    prefix: str = ""  # its metrics' family ("orion") and how the tool's name is spelt ("ORION")
    tool: str = ""
    metric_words: Mapping[str, str] = field(default_factory=_empty)  # metric name -> words (metrics.DISPLAY_NAMES)
    # sweep parameter -> words on an axis, for parameters whose words are this kind's ("readers" -> "<tool> reader
    # sessions"); ``counted`` read count first ("256 <tool> sessions")
    param_words: Mapping[str, str] = field(default_factory=_empty)
    counted: frozenset[str] = frozenset()
    # the sweep table's columns beyond the headline; None: the kind's report_metrics
    table_metrics: tuple[str, ...] | None = None
    # a series inside a point (docs/series.md) as a sentence names it ("IOPS rose 30%"), where the metric's words
    # would repeat the tool ("<tool> IOPS")
    series_words: Mapping[str, str] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class Oltp:
    """A transactional benchmark: its throughput is transactions, not storage I/O, and it runs from the cache by
    design. The metrics the scaling check reads, and the tool's own word on what one user costs."""

    throughput: str  # the throughput it leads with ("<kind>.tps")
    users: str  # the users that throughput was driven by ("<kind>.users")
    # where the tool's documentation says each user drives about one core (cited by the scaling check); "": none
    one_core_source: str = ""
    # the program that drives the users, run on the step's host, the database's: its CPU is taken from the
    # database's, a caveat the report states (planner.results.findings.generator_on_db_host); "": not said
    generator: str = ""
    generator_source: str = ""  # the tool's own word on where its load generator should run
    # "module:function" of the step's args -> why its generator cannot run on a client host ("" when it can), the
    # inventory's load_generator_host (docs/load-generator-host.md); "": not built for the kind, refused at validate
    client_host: str = ""
    # "module:function" (planner.rehearsal.kitsite.ClientSite) -> None: what a rehearsal's simulated client host
    # needs beyond the kit to reach its database host's stand-in, as the lab's network gives it (a listener); "":
    # nothing (docs/load-generator-host.md)
    rehearse_client: str = ""


@dataclass(frozen=True, slots=True)
class OwnWindow:
    """Where a kind whose tool times its own measured window (a kit's own snapshots, a driver's timed test) says it:
    the point's record file holding the times, and the pure function reading them (text -> a window with
    ``holds(time label)`` and ``within``, its words, or None). planner.results.os_window cuts the OS series to it."""

    file: str  # the artifact's file name ("runit.log")
    read: str  # "package.module:function"


@dataclass(frozen=True, slots=True)
class SeriesHeadline:
    """A kind whose tool logs its own per-interval series: which of them a point is judged and charted by, and the
    tool's own steady-state verdict when it gives one (planner.results.point_series, planner.report.inside)."""

    # a step's ``steady_state: {metric: …}`` word -> the series it names; the first is the one judged by default
    steady: tuple[tuple[str, str], ...]
    latency: str  # the latency series charted beside it
    # "package.module:function" (point series, measurements, run_s) -> (reached or None, words) | None
    own_verdict: str = ""


@dataclass(frozen=True, slots=True)
class CacheOption:
    """An init_ora option a kind adds that sizes the buffer pool its kit's tables use, whichever that is (KEEP or
    RECYCLE, read on the host): the option's name and the function (StepContext) -> planner.db.segments.KitPool."""

    option: str  # "<kit>_cache"
    pool: str  # "package.module:function"


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One workload kind: its tables, and where its parts are (``"module:attribute"``, imported on demand)."""

    kind: str
    step: str = ""  # the StepType subclass; "" for a kind planner reads but does not run (its parsers only)
    parsers: tuple[ParserKind, ...] = ()
    report: ReportWords = ReportWords()
    # the kind's own findings: a function (all_series) -> list of results.finding.Finding, and one reading the
    # whole run (results.measure.RunData) -> list of Finding (a job file's options, the host's memory)
    findings: str = ""
    run_findings: str = ""
    oltp: Oltp | None = None
    extras: tuple[str, ...] = ()  # the kind's typed extras (each with TYPE, to_json and from_json)
    standin: str = ""  # a function installing the kind's stand-in into a rehearsal sandbox
    # False: the kind is not a storage test (it drives CPU and memory), so no storage finding (cached reads,
    # CPU-bound host, rated IOPS) judges its series or its parsers' files (results.findings_db.storage_series)
    storage_test: bool = True
    # a function () -> str, or (host vars) -> str: the release the kind's stand-in imitates (the world record)
    standin_version: str = ""
    host_vars: tuple[HostVar, ...] = ()
    # the tool's own measured window, when it times one inside the span planner's OS samplers cover
    own_window: OwnWindow | None = None
    # what else its step keeps beside its parsers' files, by kind (a tool's per-interval logs, read by its series)
    artifact_kinds: tuple[str, ...] = ()
    # the tool's own series a point is judged by, when it logs them itself
    series: SeriesHeadline | None = None
    # an init_ora option sizing the pool its kit's tables use (planner.steps.prep_db)
    cache_option: CacheOption | None = None


class KindLoadError(Exception):
    """A kind's spec that cannot be imported or is not a KindSpec: a packaging bug, said by name."""


def _import(where: str) -> Any:
    module, _, name = where.partition(":")
    found = importlib.import_module(module)
    return getattr(found, name) if name else found


@functools.cache
def specs() -> tuple[KindSpec, ...]:
    """Every registered kind's spec, in KINDS order (each spec module imports only this one)."""
    return tuple(_spec(kind) for kind in KINDS)


@functools.cache
def _spec(kind: str) -> KindSpec:
    try:
        found = _import(f"planner.kinds.{kind}.spec:KIND")
    except (ImportError, AttributeError) as e:
        raise KindLoadError(f"kind {kind!r}: planner/kinds/{kind}/spec.py has no KIND ({e})") from e
    if not isinstance(found, KindSpec) or found.kind != kind:
        raise KindLoadError(f"kind {kind!r}: planner/kinds/{kind}/spec.py's KIND is not its KindSpec")
    return found


def spec(kind: str) -> KindSpec | None:
    """A registered kind's spec; None for any other kind (prep and generic kinds, plugins). Only that kind's
    spec module is imported: a plan's check and run need the kinds it names, not all of them."""
    return _spec(kind) if kind in KINDS else None


def load(where: str) -> Any:
    """A kind's part named ``"package.module:attribute"`` (a spec's ``step``, ``findings``, ``standin``)."""
    return _import(where)


def folder(kind: str) -> Path | None:
    """A registered kind's folder, for the files it ships beside its code (its report partial, ``report.md.j2``);
    None for any other kind."""
    if spec(kind) is None:
        return None
    return Path(str(sys.modules[f"planner.kinds.{kind}.spec"].__file__)).parent


def parser_kinds() -> tuple[ParserKind, ...]:
    """The kinds' parser records, in KINDS order."""
    return tuple(p for s in specs() for p in s.parsers)


def series_words() -> dict[str, str]:
    """Every kind's series words (metric name -> words in a sentence about a point's series)."""
    return {name: words for s in specs() for name, words in s.report.series_words.items()}


def metric_words() -> dict[str, str]:
    """Every kind's metric words (metric name -> words)."""
    return {name: words for s in specs() for name, words in s.report.metric_words.items()}


def tool_prefixes() -> dict[str, str]:
    """Metric family -> the tool's name as spelt ("orion" -> "ORION")."""
    return {s.report.prefix: s.report.tool for s in specs() if s.report.prefix}


def own_windows() -> tuple[OwnWindow, ...]:
    """Every kind's own window source, in KINDS order."""
    return tuple(s.own_window for s in specs() if s.own_window is not None)


def steady_series(word: str) -> tuple[str, ...]:
    """Every kind's series a ``steady_state:`` metric word names (``iops``), its default series first."""
    return tuple(dict(s.series.steady)[word] for s in specs() if s.series and word in dict(s.series.steady))


def default_steady_word() -> str:
    """The ``steady_state:`` metric word a point is judged by when its step asked for none."""
    return next((s.series.steady[0][0] for s in specs() if s.series and s.series.steady), "")


def latency_series() -> tuple[str, ...]:
    """Every kind's own latency series, in KINDS order."""
    return tuple(s.series.latency for s in specs() if s.series and s.series.latency)


def own_verdicts() -> tuple[str, ...]:
    """Every kind's own steady-state verdict function, in KINDS order."""
    return tuple(s.series.own_verdict for s in specs() if s.series and s.series.own_verdict)


def cache_options() -> dict[str, str]:
    """init_ora's kind options: option -> the function reading the pool it sizes."""
    return {s.cache_option.option: s.cache_option.pool for s in specs() if s.cache_option}


def oltp() -> Mapping[str, Oltp]:
    """The transactional kinds, each with the metrics its scaling is read by."""
    return MappingProxyType({s.kind: s.oltp for s in specs() if s.oltp is not None})


@functools.cache
def artifact_kinds() -> frozenset[str]:
    """Every kind's artifact kinds: its parser kinds and the others it keeps (status.ArtifactKind reads them)."""
    return frozenset({p.kind for p in parser_kinds()} | {a for s in specs() for a in s.artifact_kinds})
