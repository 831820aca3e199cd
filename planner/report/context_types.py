"""The report context's shape as TypedDicts: the contract between planner and every report template.

docs/report-context.md says it in words; these say it to mypy, so a builder that drops or renames a key a
template reads fails the type check, not a user's report. ``CONTEXT_KEYS`` (what a plan's template is checked
against before any host is touched) is ``ReportContext``'s keys. The sections built outside planner.report.context
(``summary`` rows and charts, ``result``, ``rac``, ``inside``) are typed at their top level here.
"""

from __future__ import annotations

from typing import Any, TypedDict


class GitInfo(TypedDict):
    commit: str
    dirty: Any  # as meta.json has it: True, False or None (unknown)
    plan_dirty: Any
    changed: list[str]
    note: str


class RunInfo(TypedDict):
    id: str
    plan: str
    plan_file: str
    description: str
    status: Any  # meta.json's status word, None in a folder written before it was recorded
    exit_code: Any
    started: str
    ended: str
    planner_version: str
    python: str
    argv: str
    path: str
    commands_file: str
    git: GitInfo


class Simulated(TypedDict):
    any: bool
    what: list[str]


class RatedRow(TypedDict):
    metric: str
    name: str
    value: str


class PlayRow(TypedDict):
    name: str
    hosts: list[str]
    rated: list[RatedRow]


class NumberRow(TypedDict):
    name: str
    value: str


class FindingRow(TypedDict):
    code: str
    severity: str
    title: str
    play: str
    host: str
    step: str
    point: str
    point_words: str  # the point as the report says it ("8 virtual users"); point stays the record's key
    message: str
    numbers: list[NumberRow]
    about: str  # "study", or "rehearsal": about the rehearsal itself (its caps, the rehearsing machine)


class VerdictRow(TypedDict):
    source: str
    play: str
    metric: str
    expected: float
    tolerance_pct: float
    measured: float | None
    diff_pct: float | None
    unit: str
    point: str
    verdict: str
    reason: str
    expected_text: str
    measured_text: str
    diff_text: str
    name: str
    point_words: str


class SilentRow(TypedDict):
    name: str
    max: str
    against: str
    workload: str  # the workload it was left out of (a study may chart the same metric for another)


class ZeroRow(TypedDict):
    name: str
    workload: str


class Summary(TypedDict):
    columns: list[str]
    rows: list[dict[str, Any]]  # planner.report.study.summary
    charts: list[dict[str, Any]]  # planner.report.study.charts
    silent: list[SilentRow]
    zero: list[ZeroRow]  # planner.report.study.zero_rows: said in one line, not charted


class SideHost(TypedDict):
    play: str
    host: str
    line: AwrLine | dict[str, str]  # {} when the host has no AWR host line
    point: str


class CellsRow(TypedDict):
    name: str
    cells: list[str]


class SideWait(TypedDict):
    event: str
    wait_class: str
    cells: list[str]


class SideBySide(TypedDict):
    columns: list[str]
    points: list[str]
    hosts: list[SideHost]
    points_text: str
    waits: list[SideWait]
    os: list[CellsRow]
    os_lab: bool  # a rehearsal: the OS samplers ran for real on this machine, not on the simulated hosts


class SweepRow(TypedDict):
    host: str
    point: str
    n: int
    warmups: int
    cells: list[str]


class SweepTable(TypedDict):
    columns: list[str]
    metrics: list[str]
    show_host: bool
    rows: list[SweepRow]
    repeated: bool


class StatsRow(TypedDict):
    host: str
    point: str
    n: int
    warmups: int
    min: str
    median: str
    max: str
    spread: str
    cv_pct: str


class StatsTable(TypedDict):
    metric: str
    name: str
    unit: str
    direction: str
    rows: list[StatsRow]
    repeated: bool


class KindRow(TypedDict):
    host: str
    point: str
    metric: str
    name: str
    unit: str
    median: str
    n: int


class Workload(TypedDict):
    play: str
    step: str
    title: str
    kind: str
    partial: str
    hosts: list[str]
    swept: list[str]
    swept_words: list[str]
    points: list[str]
    repeats: int
    warmups: int
    tables: list[StatsTable]
    kind_rows: list[KindRow]
    sweep_table: SweepTable
    data_on: str  # where the step's data lived (its data_on, checked at every point), "" when not stated


class HostFacts(TypedDict):
    hostname: Any  # facts/<host>.json values as the host gave them
    cpus: Any
    cores: Any
    sockets: Any
    memory_gb: Any
    kernel: Any
    cpu_model: Any
    distribution: Any
    known: bool
    rehearsal: bool  # gathered on the rehearsing machine, not the simulated host (a rehearsal's facts)


class AwrLine(TypedDict):
    host_name: str
    platform: str
    cpus: str
    cores: str
    sockets: str
    memory_gb: str
    db_name: str
    version: str
    rac: str
    source: str


class PrepRow(TypedDict):
    step: str
    title: str
    play: str
    status: str
    change: str
    restore: bool
    original: str
    restored: str


class WaitEvent(TypedDict):
    event: str
    wait_class: str
    waits: str
    time_s: str
    avg_ms: str
    pct_db_time: str


class WaitGroup(TypedDict):
    play: str
    workload: str
    point: str
    point_words: str
    events: list[WaitEvent]


class OsMetric(TypedDict):
    name: str
    value: str
    unit: str


class OsGroup(TypedDict):
    play: str
    workload: str
    point: str
    point_words: str
    metrics: list[OsMetric]
    lab: bool  # a rehearsal: sampled on the rehearsing machine, not on the simulated host


class DbSource(TypedDict):
    play: str
    workload: str
    statistics: str
    why: str
    pool: str
    cache_mb: int
    pct: Any  # the share of the data the pool holds, None when unknown
    container: str
    caging: str
    awr_level: Any


class HostSection(TypedDict):
    name: str
    plays: list[str]
    facts: HostFacts
    awr_lines: list[AwrLine]
    prep: list[PrepRow]
    waits: list[WaitGroup]
    os: list[OsGroup]
    db_sources: list[DbSource]


class ParseErrorRow(TypedDict):
    artifact: str
    kind: str
    host: str
    error: str


class ParseProblem(TypedDict):
    kind: str
    error: str
    artifacts: list[str]


class ArtifactRow(TypedDict):
    path: str
    kind: str
    host: str
    simulated: bool
    ok: bool


class ReportContext(TypedDict):
    run: RunInfo
    simulated: Simulated
    generated_by: str
    plays: list[PlayRow]
    recap: list[dict[str, Any]]  # {host, ok, changed, ...}: planner.status.HostStats's fields
    summary: Summary
    result: dict[str, Any]  # planner.report.study.result
    side_by_side: SideBySide
    rac: list[dict[str, Any]]  # planner.report.rac.rac_sections
    workloads: list[Workload]
    hosts: list[HostSection]
    findings: list[FindingRow]
    finding_groups: list[FindingRow]  # the same, a finding said at several points of a step once
    verdicts: list[VerdictRow]
    parse_errors: list[ParseErrorRow]
    parse_problems: list[ParseProblem]
    artifacts: list[ArtifactRow]
    stats_method: str
    charts_enabled: bool
    combine_note: str
    inside: dict[str, Any]  # planner.report.inside.inside


CONTEXT_KEYS = frozenset(ReportContext.__required_keys__)
