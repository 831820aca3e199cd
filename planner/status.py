"""Results: the Ansible vocabulary (ok/changed/failed/skipped/unreachable), per step and per host, and exit codes."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from planner.errors import ExitCode

if TYPE_CHECKING:  # annotations only: every verb imports this module for ExitCode, --version included, and
    # the two modules' many dataclasses were most of that start-up
    from planner.extras import StepExtra
    from planner.metrics import Metric


class Status(enum.Enum):
    OK = "ok"
    CHANGED = "changed"
    FAILED = "failed"
    SKIPPED = "skipped"
    UNREACHABLE = "unreachable"
    INTERRUPTED = "interrupted"


class Phase(enum.Enum):
    """When in the run a result happened: applying the plan, or putting the hosts back."""

    APPLY = "apply"
    RESTORE = "restore"


class ArtifactKind(enum.StrEnum):
    """What a kept file is, said once: a parser kind (its parser reads it), a point's series, the facts, or
    nothing known (""). The members are planner's own kinds; a workload kind's (``<kind>_json``, its ``<kind>_log``)
    are declared in its folder (``KindSpec.parsers``, ``KindSpec.artifact_kinds``) and made members when first
    read, so the kind stays one folder. Any other value, from an old or received run folder, is refused by name
    (``read``), never carried on as text."""

    NONE = ""
    SERIES = "series"  # a point's series file (docs/series.md)
    FACTS = "facts"
    LOG = "log"  # a tool's own log or error output, kept, never parsed
    AWR_COMPARE = "awr_compare"
    AWR_RAC_HTML = "awr_rac_html"
    AWR_RAC_TEXT = "awr_rac_text"
    AWR_HTML = "awr_html"
    AWR_TEXT = "awr_text"
    STATSPACK = "statspack"
    PG_STAT = "pg_stat"
    ADDM = "addm"
    IOSTAT = "iostat"
    MPSTAT = "mpstat"
    VMSTAT = "vmstat"
    AWR_EXCERPT = "awr_excerpt"

    @classmethod
    def _missing_(cls, value: object) -> ArtifactKind | None:
        """A workload kind's own artifact kind, made a member the first time it is read (Enum then keeps it)."""
        from planner import kindspec  # foundation; imported here so that status's importers pay for no kind

        if not isinstance(value, str) or value not in kindspec.artifact_kinds():
            return None
        member = str.__new__(cls, value)
        member._name_, member._value_ = value.upper(), value
        return cls._value2member_map_.setdefault(value, member)  # type: ignore[return-value]

    @classmethod
    def read(cls, value: object, where: str = "") -> ArtifactKind:
        """A recorded kind; one planner does not know raises ValueError naming it (a results file refused)."""
        try:
            if isinstance(value, str):
                return cls(value)
        except ValueError:
            pass
        raise ValueError(f"{where or 'an artifact'} has kind {value!r}, which no parser or workload kind of"
                         " this planner declares")


@dataclass(frozen=True, slots=True)
class Artifact:
    """A file kept in the run record (path relative to the run folder)."""

    path: str
    kind: ArtifactKind = ArtifactKind.NONE  # its parser kind when known: awr_text, iostat, ...
    sha256: str = ""
    simulated: bool = False


@dataclass(frozen=True, slots=True)
class RestartRequest:
    """A step's ask that the engine restart something once for the play, instead of the step doing it now.

    A step kind that ``defers_restart`` returns one when the engine told it to defer (StepContext.defer_restart);
    the engine then calls the kind's ``restart_once`` (after the play's prep) or ``restart_restored`` (after
    its restore) with it. ``target`` is what to restart in the kind's own words (init_ora: its DbConfig JSON).
    """

    target: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Retried:
    """A point run again after its connection dropped: what dropped, the dead attempt's process groups killed on
    the host, and where its partial artifacts were put aside (kept as data.retried in results.json)."""

    dropped: str
    killed_pgids: tuple[int, ...] = ()
    partial_artifacts: str = ""  # the folder beside the point's, "" when the attempt had written nothing
    attempts: int = 2

    def to_json(self) -> dict[str, Any]:
        return {"attempts": self.attempts, "dropped": self.dropped, "killed_pgids": list(self.killed_pgids),
                "partial_artifacts": self.partial_artifacts}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Retried:
        pgids = d.get("killed_pgids") or ()
        return cls(str(d.get("dropped", "")), tuple(int(x) for x in pgids if isinstance(x, int)),
                   str(d.get("partial_artifacts") or ""), int(d.get("attempts") or 2))


@dataclass(frozen=True, slots=True)
class StepResult:
    """One step's result on one host (a workload's: per sweep point), as the recap and the record keep it."""

    step: str  # StepSpec.path, e.g. "plays[0].prep[1]"
    title: str
    host: str
    status: Status
    msg: str = ""
    diff: str | None = None
    point: int | None = None  # sweep point index for workloads
    params: tuple[tuple[str, Any], ...] = ()
    repeat: int = 0
    warmup: bool = False
    artifacts: tuple[Artifact, ...] = ()
    extra: StepExtra | None = None  # what the step kind says beyond the rest (planner.extras)
    started: str = ""
    ended: str = ""
    ignored: bool = False  # failed but the step had ignore_errors
    restart: RestartRequest | None = None  # a restart the step left to the engine (kept as data.restart)
    # Where the step stands in the plan: the play's index, the section ("prep", "workloads", "collect"; "" for
    # the run's own steps: connect, lock, facts) and the step's index in it (None: the play's one restart)
    play: int | None = None
    section: str = ""
    index: int | None = None
    phase: Phase = Phase.APPLY
    # What the step measured (the headline of its parsed outputs, or a plugin's own figures); written and read
    # by planner.results.runfolder
    metrics: tuple[Metric, ...] = ()
    retried: Retried | None = None  # run again after a connection drop


_OLD_PATH = re.compile(r"plays\[(\d+)\]\.(prep|workloads|collect)(?:\[(\d+)\])?")


def legacy_place(step: str, title: str = "") -> tuple[int | None, str, int | None, Phase]:
    """Play, section, index and phase of a record from before they were written as fields: then only its step
    path (``plays[0].prep[1]``) and a restore's title said them. Read here once, for such old run folders."""
    m = _OLD_PATH.match(step)
    phase = Phase.RESTORE if title.startswith(("restore ", "restore:")) else Phase.APPLY
    if m is None:
        return None, "", None, phase
    return int(m.group(1)), m.group(2), None if m.group(3) is None else int(m.group(3)), phase


@dataclass(slots=True)
class HostStats:
    """One host's counts for the recap, in ansible-playbook's columns."""

    ok: int = 0
    changed: int = 0
    unreachable: int = 0
    failed: int = 0
    skipped: int = 0
    rescued: int = 0
    ignored: int = 0

    def count(self, r: StepResult) -> None:
        if r.ignored:
            self.ignored += 1
            return
        match r.status:
            case Status.OK:
                self.ok += 1
            case Status.CHANGED:
                self.ok += 1  # Ansible counts changed tasks in ok too
                self.changed += 1
            case Status.FAILED | Status.INTERRUPTED:
                self.failed += 1
            case Status.SKIPPED:
                self.skipped += 1
            case Status.UNREACHABLE:
                self.unreachable += 1


def recap(results: Iterable[StepResult], hosts: Iterable[str] = ()) -> dict[str, HostStats]:
    stats: dict[str, HostStats] = {h: HostStats() for h in hosts}
    for r in results:
        stats.setdefault(r.host, HostStats()).count(r)
    return stats


def exit_code(stats: Mapping[str, HostStats], interrupted: bool = False) -> ExitCode:
    """As ansible-core's StrategyBase.run: an unreachable host (4) wins over a failed step (2)."""
    if interrupted:
        return ExitCode.INTERRUPTED
    if any(s.unreachable for s in stats.values()):
        return ExitCode.UNREACHABLE
    if any(s.failed for s in stats.values()):
        return ExitCode.FAILED
    return ExitCode.OK
