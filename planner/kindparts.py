"""The classes a kind's spec (``planner/kinds/<kind>/spec.py``) is made of: its parser records, report words,
transactional facts, own window and series, cache option, and ``KindSpec`` itself.

Apart from planner.kindspec, which finds the specs by name and serves these names (``from planner.kindspec import
KindSpec`` keeps working): they are made when the first spec is read or the first of them is asked for, not at every
start-up. An apply's head, up to its first host command, reads no kind's spec (tests/store/test_import_time.py), and
these seven dataclasses and an enum were ~6 ms of its CPU. ``HostVar`` is planner.variables': the
host variables planner itself reads are declared with it at start-up.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.variables import HostVar


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
