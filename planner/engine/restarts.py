"""One database restart per play: a static parameter costs one restart, however many steps set one.

init_ora steps with static parameters used to restart the database each: two such steps in one play meant
two restarts at apply and two at restore, while rehearsal promises "restarts once per play". A kind that
``defers_restart`` (StepType) is run with ``ctx.defer_restart``: each step sets the spfile and returns a
``RestartRequest`` (Outcome.restart); at the end of the play's prep the host is restarted once by the kind's
``restart_once``, which checks every deferred step's change is in effect. Restore does the same: the reverts
put the spfile back, then one ``restart_restored``. The engine names no kind: it asks the classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.engine.execute import ExecSettings, HostState, hook_result, internal_error, make_context
from planner.engine.runrecord import RunRecord, utc_now
from planner.errors import ConnectError, PlannerError, StepError
from planner.plan.model import Play, Section, StepSpec
from planner.plan.templating import render
from planner.status import Phase, RestartRequest, Status, StepResult
from planner.steps import step_class
from planner.steps.base import Outcome, StepContext, restart_deferring

TITLE_PREP = "Restarting the database once for the play's static parameters"
TITLE_RESTORE = "restore: restarting the database once for the static parameters put back"


def defers(kind: str) -> bool:
    return restart_deferring(step_class(kind)) is not None


def due(results: Sequence[StepResult], host: str, paths: set[str]) -> list[StepResult]:
    """This host's results among ``paths`` that left a restart to the engine."""
    return [r for r in results if r.host == host and r.step in paths and r.restart is not None
            and r.status is Status.CHANGED]


def _run(kind: str, play: int | None, phase: Phase, title: str, hs: HostState,
         body: Callable[[StepContext], Outcome], variables: Mapping[str, Any], settings: ExecSettings,
         record: RunRecord | None, artifacts: Path) -> StepResult:
    started = utc_now()
    path = f"plays[{play}].prep.restart"  # its id in the record, as before
    spec = StepSpec(kind=kind, section=Section.PREP, args={}, path=path, name=title, play=play)
    where: dict[str, Any] = {"play": play, "section": Section.PREP.value, "phase": phase, "started": started}

    def result(status: Status, msg: str) -> StepResult:
        return StepResult(path, title, hs.host.name, status, msg, ended=utc_now(), **where)

    try:
        out = hook_result(kind, "restart", body(make_context(spec, hs, variables, settings, record, artifacts)),
                          Outcome)
        return result(out.status, out.msg)
    except ConnectError as e:
        return result(Status.UNREACHABLE, str(e))
    except PlannerError as e:
        return result(Status.FAILED, str(e))
    except Exception as e:  # a kind's bug (a plugin's): the host's restart fails, the controller goes on
        return result(Status.FAILED, internal_error(kind, e, record, hs, path))


def restart_prep(play: int, kind: str, hs: HostState, pending: Sequence[tuple[StepResult, Mapping[str, Any]]],
                 variables: Mapping[str, Any], settings: ExecSettings, record: RunRecord | None,
                 artifacts: Path) -> StepResult:
    """The one restart at the end of a play's prep; ``pending``: (the deferred result, its rendered args)."""
    cls = restart_deferring(step_class(kind))
    if cls is None:
        raise StepError(f"step kind '{kind}' asked for a restart but does not defer restarts")
    steps = [cls(args) for _, args in pending]
    request = pending[-1][0].restart
    assert request is not None  # due() keeps only the results that asked
    return _run(kind, play, Phase.APPLY, TITLE_PREP, hs, lambda ctx: cls.restart_once(ctx, request, steps),
                variables, settings, record, artifacts)


def restart_restore(play: int | None, kind: str, hs: HostState, request: RestartRequest, settings: ExecSettings,
                    record: RunRecord | None, artifacts: Path) -> StepResult:
    cls = restart_deferring(step_class(kind))
    if cls is None:
        raise StepError(f"step kind '{kind}' asked for a restart but does not defer restarts")
    return _run(kind, play, Phase.RESTORE, TITLE_RESTORE, hs, lambda ctx: cls.restart_restored(ctx, request), {},
                settings, record, artifacts)


def after_prep(index: int, play: Play, states: Sequence[HostState], results: Sequence[StepResult],
               variables_of: Callable[[HostState], Mapping[str, Any]], settings: ExecSettings,
               record: RunRecord | None,
               artifacts: Path) -> tuple[list[HostState], Callable[[HostState], StepResult]] | None:
    """The hosts whose play deferred a restart, and the restart to run on each (None: nothing to restart)."""
    paths = {s.path for s in play.prep if defers(s.kind)}
    pending = {hs.host.name: rs for hs in states if paths and hs.active and (rs := due(results, hs.host.name, paths))}
    if not pending:
        return None
    specs = {s.path: s for s in play.prep}

    def one(hs: HostState) -> StepResult:
        variables = variables_of(hs)
        items = [(r, render(dict(specs[r.step].args), variables)) for r in pending[hs.host.name]]
        kind = specs[items[-1][0].step].kind  # one kind defers today (init_ora); its steps restart together
        mine = [(r, a) for r, a in items if specs[r.step].kind == kind]
        return restart_prep(index, kind, hs, mine, variables, settings, record, artifacts)

    return [hs for hs in states if hs.host.name in pending], one
