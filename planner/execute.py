"""One step on one host: render, decide (when/check), save original state, apply, map errors to results.

A host failure becomes a StepResult (FAILED/UNREACHABLE); only engine bugs propagate.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.connection import Connection
from planner.errors import ConnectError, InputError, Interrupted, PlannerError
from planner.host import Host
from planner.plan import Section, StepSpec, SweepPoint
from planner.results import Artifact, Status, StepResult
from planner.runrecord import RunRecord, utc_now
from planner.steps import step_class
from planner.steps.base import Outcome, StepContext, StepType


@dataclass(slots=True)
class HostState:
    """What the engine knows about one host during a run."""

    host: Host
    conn: Connection | None
    facts: Mapping[str, Any] = field(default_factory=dict)
    failed: bool = False  # a step failed: the host takes no further steps in this play
    unreachable: bool = False
    blocked: str = ""  # e.g. held by another run: the host takes no steps at all
    workdir: str = ""  # this run's working directory on the host

    @property
    def active(self) -> bool:
        return self.conn is not None and not self.failed and not self.unreachable and not self.blocked


@dataclass(frozen=True, slots=True)
class ExecSettings:
    check: bool
    diff: bool
    plan_dir: Path
    allow_destroy: tuple[str, ...] = ()
    simulated: bool = False


SaveHook = Callable[[StepSpec, HostState, Mapping[str, Any], Mapping[str, Any]], None]
# Wraps a workload's apply: (ctx, writes_db_report, body) -> (Outcome, extra artifacts, warnings)
Window = Callable[[StepContext, bool, Callable[[], Outcome]], tuple[Outcome, list[Artifact], list[str]]]


def make_context(spec: StepSpec, hs: HostState, variables: Mapping[str, Any], settings: ExecSettings,
                 record: RunRecord | None, artifacts: Path, point: SweepPoint | None = None) -> StepContext:
    assert hs.conn is not None
    host = hs.host
    become = spec.become if spec.become is not None else host.become
    return StepContext(
        host=host, conn=hs.conn, vars=variables, step_path=spec.path, plan_dir=settings.plan_dir,
        artifacts=artifacts, run_dir=record.path if record else artifacts,
        log=record.log_command if record else (lambda *_: None),
        check_mode=settings.check, diff_mode=settings.diff, become=bool(become),
        become_user=spec.become_user or host.become_user, timeout_s=spec.timeout_s, point=point,
        facts=hs.facts, destructive=spec.destructive, allow_destroy=settings.allow_destroy,
        # in a rehearsal, a step whose tool runs for real here (fio, the SLB-compatible kit) is not simulated
        simulated=settings.simulated and not getattr(step_class(spec.kind), "real_in_rehearsal", False))


def run_step(spec: StepSpec, hs: HostState, args: Mapping[str, Any], variables: Mapping[str, Any],
             settings: ExecSettings, record: RunRecord | None, artifacts: Path, *,
             point: SweepPoint | None = None, on_save: SaveHook | None = None,
             window: Window | None = None) -> StepResult:
    """Check or apply one step on one host and say what happened."""
    started = utc_now()
    base = {"step": spec.path, "title": spec.title, "host": hs.host.name, "started": started}
    if point is not None:
        base.update(point=point.index, params=point.params, repeat=point.repeat, warmup=point.warmup)

    def result(status: Status, msg: str = "", exc: BaseException | None = None, **kw: Any) -> StepResult:
        ignored = status is Status.FAILED and spec.ignore_errors
        if exc is not None and getattr(exc, "window_artifacts", None):
            kw["artifacts"] = tuple(exc.window_artifacts)  # type: ignore[attr-defined]
        return StepResult(status=status, msg=msg, ended=utc_now(), ignored=ignored, **base, **kw)

    try:
        step: StepType = step_class(spec.kind)(args)
        ctx = make_context(spec, hs, variables, settings, record, artifacts, point)
        if settings.check:
            if spec.section is Section.WORKLOADS:
                return result(Status.SKIPPED, "workloads do not run in check mode")
            change = step.check(ctx)
            return result(Status.CHANGED if change.changed else Status.OK, change.msg, diff=change.diff)
        if step.reversible and on_save is not None:
            saved = step.save(ctx)
            on_save(spec, hs, args, saved)  # written to the record before anything changes
        if window is not None:
            outcome, extra, warnings = window(ctx, bool(getattr(step, "writes_db_report", False)),
                                              lambda: step.apply(ctx))
        else:
            outcome, extra, warnings = step.apply(ctx), [], []
        msg = "; ".join([outcome.msg, *warnings]) if warnings else outcome.msg
        return result(outcome.status, msg, diff=outcome.diff if settings.diff else None,
                      artifacts=tuple(outcome.artifacts) + tuple(extra), data=outcome.data)
    except Interrupted as e:
        return result(Status.INTERRUPTED, str(e), e)
    except ConnectError as e:
        return result(Status.UNREACHABLE, str(e), e)
    except (PlannerError, InputError) as e:
        return result(Status.FAILED, str(e), e)
    except OSError as e:  # e.g. a local disk full while fetching: the step fails, the run goes on
        return result(Status.FAILED, f"{type(e).__name__}: {e}", e)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # an engine bug: keep the traceback in the record, fail the host, not the run
        if record:
            record.write_text(f"errors/{hs.host.name}-{spec.path}.txt", traceback.format_exc())
        return result(Status.FAILED, f"internal error {type(e).__name__}: {e} (traceback in the run record)")


def revert_step(spec_path: str, title: str, kind: str, args: Mapping[str, Any], saved: Mapping[str, Any],
                hs: HostState, settings: ExecSettings, record: RunRecord | None, artifacts: Path) -> StepResult:
    started = utc_now()
    spec = StepSpec(kind=kind, section=Section.PREP, args=args, path=spec_path, name=title)
    try:
        step = step_class(kind)(args)
        ctx = make_context(spec, hs, {}, settings, record, artifacts)
        out = step.revert(ctx, saved)
        return StepResult(spec_path, f"restore {title}", hs.host.name, out.status, out.msg, out.diff,
                          started=started, ended=utc_now())
    except ConnectError as e:
        return StepResult(spec_path, f"restore {title}", hs.host.name, Status.UNREACHABLE, str(e),
                          started=started, ended=utc_now())
    except (PlannerError, OSError) as e:
        return StepResult(spec_path, f"restore {title}", hs.host.name, Status.FAILED, str(e),
                          started=started, ended=utc_now())
