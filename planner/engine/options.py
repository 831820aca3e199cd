"""What a run is asked to do (RunOptions), what it ended as (RunOutcome), where it is (Phase)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.engine.runrecord import RunRecord
from planner.errors import ConnectError
from planner.host import Host
from planner.plan.model import Play, Section, StepSpec
from planner.results.world import HostWorld
from planner.status import ExitCode, StepResult
from planner.transport.connection import Connection

Connector = Callable[[Sequence[Host]], Mapping[str, "Connection | ConnectError"]]


class Phase(enum.Enum):
    """Where a run is: an interrupt names it (meta.json ``interrupted_phase``, the console's warning)."""

    START = "start"
    FACTS = "facts"
    PREP = "prep"
    WORKLOAD = "workload"
    COLLECT = "collect"
    RESTORE = "restore"


_PHASE_OF = {Section.PREP: Phase.PREP, Section.WORKLOADS: Phase.WORKLOAD, Section.COLLECT: Phase.COLLECT}


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The command line's run options, as the engine takes them."""

    check: bool = False
    diff: bool = False
    forks: int = 5
    tags: frozenset[str] = frozenset()
    skip_tags: frozenset[str] = frozenset()
    extra_vars: Mapping[str, Any] = field(default_factory=dict)
    runs_dir: Path = Path("runs")
    keep_prep: bool = False
    simulated: bool = False  # rehearsal: hosts are sandboxes, Oracle tools are stand-ins
    rehearsal_notes: tuple[str, ...] = ()  # how the rehearsal reached its hosts (who logged in, was become used)
    world: tuple[HostWorld, ...] = ()  # the world the rehearsal simulated, per host (meta.json world)
    argv: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    break_stale_lock: bool = False
    inventory_files: tuple[Path, ...] = ()  # fingerprinted in the record: --resume refuses a changed inventory
    inventory: tuple[Path, ...] = ()  # inventory files/folders read: snapshotted (redacted) into the record
    # The inventory's hosts before --limit, by name: where a play host's load_generator_host is found (a client
    # host runs no steps of its own, so no play selects it and --limit must not drop it)
    clients: Mapping[str, Host] = field(default_factory=dict)
    # Called once, from a host's thread when the last of a play's hosts is connected and its exec about to go out:
    # the caller's work that may overlap the hosts' (planner.cli.early_imports); not before, when the main thread's
    # start-up and the handshakes' CPU are the critical path. A host never connected: never called.
    when_connected: Callable[[], None] | None = None


@dataclass(slots=True)
class RunOutcome:
    """What a run returns: its step results, its record and its exit code."""

    results: list[StepResult]
    record: RunRecord | None
    exit_code: ExitCode
    interrupted: bool = False


UNTAGGED = frozenset({"untagged"})  # what an untagged step's tags are to the selection, as in Ansible


def selected(spec: StepSpec, play: Play, opts: RunOptions) -> bool:
    """ansible-core's Taggable.evaluate_tags: `never` runs only when named, `always` unless skipped by name or
    by `all`, `tagged`/`untagged` select by whether a step has tags; no -t means -t all."""
    tags = (spec.tags | play.tags) or UNTAGGED
    return _only(tags, opts.tags or frozenset({"all"})) and not _skipped(tags, opts.skip_tags)


def _only(tags: frozenset[str], only: frozenset[str]) -> bool:
    if "always" in tags or not tags.isdisjoint(only):
        return True
    return ("all" in only or "tagged" in only and tags != UNTAGGED) and "never" not in tags


def _skipped(tags: frozenset[str], skip: frozenset[str]) -> bool:
    if "all" in skip:
        return "always" not in tags or "always" in skip
    return not tags.isdisjoint(skip) or ("tagged" in skip and tags != UNTAGGED)
