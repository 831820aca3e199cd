"""One database restart per play: a static parameter costs one restart, however many steps set one.

init_ora steps with static parameters used to restart the database each: two such steps in one play meant
two restarts at apply and two at restore, while rehearsal promises "restarts once per play". The runner
now runs them with DEFER_RESTART: each sets the spfile and says a restart is due (``data["restart"]``);
at the end of the play's prep the host's database is restarted once and every deferred step's parameters
are checked to be in effect. Restore does the same: the reverts put the spfile back, then one restart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.engine.execute import ExecSettings, HostState, make_context
from planner.engine.runrecord import RunRecord, utc_now
from planner.errors import ConnectError, PlannerError
from planner.plan.model import Play, Section, StepSpec
from planner.plan.templating import render
from planner.status import Status, StepResult
from planner.steps import step_class
from planner.steps.base import Outcome, StepContext
from planner.steps.prep_db import DEFER_RESTART, InitOra, restart_after_prep, restart_after_restore

TITLE_PREP = "Restarting the database once for the play's static parameters"
TITLE_RESTORE = "restore: restarting the database once for the static parameters put back"


def defers(kind: str) -> bool:
    return bool(getattr(step_class(kind), "defers_restart", False))


def with_deferral(kind: str, variables: Mapping[str, Any]) -> Mapping[str, Any]:
    """A step's variables (at apply) or saved state (at revert), told the engine restarts once per play."""
    return {**variables, DEFER_RESTART: True} if defers(kind) else variables


def due(results: Sequence[StepResult], host: str, paths: set[str]) -> list[StepResult]:
    """This host's results among ``paths`` that left a restart to the engine."""
    return [r for r in results if r.host == host and r.step in paths and (r.data or {}).get("restart")
            and r.status is Status.CHANGED]


def _run(path: str, title: str, hs: HostState, body: Callable[[StepContext], Outcome], variables: Mapping[str, Any],
         settings: ExecSettings, record: RunRecord | None, artifacts: Path) -> StepResult:
    started = utc_now()
    spec = StepSpec(kind="init_ora", section=Section.PREP, args={}, path=path, name=title)
    try:
        out = body(make_context(spec, hs, variables, settings, record, artifacts))
        return StepResult(path, title, hs.host.name, out.status, out.msg, started=started, ended=utc_now())
    except ConnectError as e:
        return StepResult(path, title, hs.host.name, Status.UNREACHABLE, str(e), started=started, ended=utc_now())
    except PlannerError as e:
        return StepResult(path, title, hs.host.name, Status.FAILED, str(e), started=started, ended=utc_now())


def restart_prep(play_path: str, hs: HostState, pending: Sequence[tuple[StepResult, Mapping[str, Any]]],
                 variables: Mapping[str, Any], settings: ExecSettings, record: RunRecord | None,
                 artifacts: Path) -> StepResult:
    """The one restart at the end of a play's prep; ``pending``: (the deferred result, its rendered args)."""
    steps = [InitOra(args) for _, args in pending]
    db_json = dict((pending[-1][0].data or {})["restart"])
    return _run(f"{play_path}.prep.restart", TITLE_PREP, hs, lambda ctx: restart_after_prep(ctx, db_json, steps),
                variables, settings, record, artifacts)


def restart_restore(play_path: str, hs: HostState, db_json: Mapping[str, Any], settings: ExecSettings,
                    record: RunRecord | None, artifacts: Path) -> StepResult:
    return _run(f"{play_path}.prep.restart", TITLE_RESTORE, hs, lambda ctx: restart_after_restore(ctx, db_json),
                {}, settings, record, artifacts)


def after_prep(index: int, play: Play, states: Sequence[HostState], results: Sequence[StepResult],
               variables_of: Callable[[HostState], Mapping[str, Any]], settings: ExecSettings,
               record: RunRecord | None, artifacts: Path) -> tuple[list[HostState], Callable[[HostState], StepResult]] | None:
    """The hosts whose play deferred a restart, and the restart to run on each (None: nothing to restart)."""
    paths = {s.path for s in play.prep if defers(s.kind)}
    pending = {hs.host.name: rs for hs in states if paths and hs.active and (rs := due(results, hs.host.name, paths))}
    if not pending:
        return None
    specs = {s.path: s for s in play.prep}

    def one(hs: HostState) -> StepResult:
        variables = variables_of(hs)
        items = [(r, render(dict(specs[r.step].args), variables)) for r in pending[hs.host.name]]
        return restart_prep(f"plays[{index}]", hs, items, variables, settings, record, artifacts)

    return [hs for hs in states if hs.host.name in pending], one
