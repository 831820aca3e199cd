"""One step on one host: render, decide (when/check), save original state, apply, map errors to results.

A host failure becomes a StepResult (FAILED/UNREACHABLE); only engine bugs propagate.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from planner.engine.runrecord import RunRecord, utc_now
from planner.engine.window import Windowed
from planner.errors import ConnectError, HostKeyError, InputError, Interrupted, PlannerError, StepError
from planner.files import name_file
from planner.host import DEFAULT_WORKDIR, Host
from planner.plan.model import Section, StepSpec, SweepPoint
from planner.status import Artifact, Phase, Retried, Status, StepResult
from planner.steps import BUILTIN_KINDS, step_class
from planner.steps.base import (
    Change,
    Outcome,
    Reversible,
    StepContext,
    StepType,
    Workload,
    real_in_rehearsal,
    restart_deferring,
)
from planner.steps.saved_state import RestoreEntry
from planner.steps.wl_common import point_name
from planner.transport.connection import Connection, login_user


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
    released: bool = False  # the play's one exec released the host's lock (planner.engine.probes)
    predicted: dict[str, Any] = field(default_factory=dict)  # check mode: earlier steps' predicted changes
    # the host this one's load generator runs on in the current play (load_generator_host), set by the runner
    generator: Generator | None = None

    @property
    def active(self) -> bool:
        return self.conn is not None and not self.failed and not self.unreachable and not self.blocked


@dataclass(frozen=True, slots=True)
class Generator:
    """A client host that runs a database host's load generator (docs/load-generator-host.md): connected, its
    facts read and locked by the play like any host, it takes no steps of its own; a step reaches it through
    ``StepContext.generator``, made with the client's own variables."""

    state: HostState
    variables: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ExecSettings:
    """The run-wide settings every step's execution reads (--check, --diff, the plan's folder)."""

    check: bool
    diff: bool
    plan_dir: Path
    allow_destroy: tuple[str, ...] = ()
    simulated: bool = False


SaveHook = Callable[[StepSpec, HostState, Mapping[str, Any], Mapping[str, Any]], None]
# Wraps a workload's apply: (ctx, writes_db_report, body) -> what the point's window gave back
Window = Callable[[StepContext, bool, Callable[[], Outcome]], Windowed]


T = TypeVar("T")


def _who(kind: str) -> str:
    return f"step kind '{kind}'" if kind in BUILTIN_KINDS else f"plugin '{kind}'"


def _a(name: str) -> str:
    return f"{'an' if name[:1] in tuple('AEIOUaeiou') else 'a'} {name}"


def hook_result(kind: str, hook: str, value: Any, expected: type[T]) -> T:
    """``value`` as the ``hook`` of ``kind`` returned it, when it is what StepType declares; else a step error
    naming the kind (a plugin's ``revert`` returning None must fail its host, never the controller)."""
    if isinstance(value, expected):
        return value
    got = "None" if value is None else _a(type(value).__name__)
    raise StepError(f"{_who(kind)} is broken: {hook}() returned {got}, not {_a(expected.__name__)}",
                    hint=f"{hook}() must return {_a(expected.__name__)} (planner.steps.base.StepType, docs/plugins.md)"
                         if kind not in BUILTIN_KINDS else "this is a bug in planner: please report it")


def internal_error(kind: str, e: Exception, record: RunRecord | None, hs: HostState, path: str) -> str:
    """An unexpected exception of a step: its traceback kept in the record, a one-line message for the result."""
    import traceback  # here: only a step's bug formats one (traceback imports textwrap, linecache...)

    if record:
        record.write_text(f"errors/{name_file(hs.host.name)}-{path}.txt", traceback.format_exc())
    where = " (traceback in the run record)" if record else ""
    if kind in BUILTIN_KINDS:
        return f"internal error {type(e).__name__}: {e}{where}"
    return f"{_who(kind)} is broken: {type(e).__name__}: {e}{where}"


def place(spec: StepSpec) -> dict[str, Any]:
    """The StepResult fields that say where ``spec`` stands in the plan."""
    return {"play": spec.play, "section": spec.section.value, "index": spec.index}


def spec_result(spec: StepSpec, host: str, status: Status, msg: str = "", **kw: Any) -> StepResult:
    """A result of ``spec`` on ``host`` that ran nothing (skipped: a false condition, a failed host)."""
    return StepResult(spec.path, spec.title, host, status, msg, **place(spec), **kw)


def step_folder(spec: StepSpec) -> str:
    """A step's artifact folder under its play's and host's: its section and index in the play
    (``workloads[0]``); a step built outside a plan has no index, and its whole path names it."""
    return spec.path if spec.index is None else f"{spec.section.value}[{spec.index}]"


def artifact_folder(record: RunRecord | None, plan_dir: Path, play: str, host: str, spec: StepSpec,
                    point: SweepPoint | None) -> Path:
    """Where a step's (and a point's) artifacts go in the run folder; check mode records none: the plan's folder."""
    if record is None:
        return plan_dir
    return record.artifact_dir(play, host, step_folder(spec), *([point_name(point.index)] if point is not None else []))


def make_context(spec: StepSpec, hs: HostState, variables: Mapping[str, Any], settings: ExecSettings,
                 record: RunRecord | None, artifacts: Path, point: SweepPoint | None = None, *,
                 defer_restart: bool = False) -> StepContext:
    assert hs.conn is not None
    host = hs.host
    become_user = spec.become_user or host.become_user
    become = spec.become if spec.become is not None else host.become
    # Becoming the user we log in as adds nothing but a dependency on sudo (a root container has none); a
    # rehearsal without usable sudo runs become steps as its login, on a sandbox that login owns.
    direct = bool(host.vars.get("planner_simulated") and host.vars.get("planner_become_direct"))
    become = bool(become) and login_user(host) != become_user and not direct
    g = hs.generator
    # the client's own context: its connection, variables, become and sandbox; the run's record and masking
    generator = make_context(spec, g.state, g.variables, settings, record, artifacts, point) \
        if g is not None and g.state.conn is not None else None
    return StepContext(
        host=host, conn=hs.conn, vars=variables, step_path=spec.path, plan_dir=settings.plan_dir,
        artifacts=artifacts, run_dir=record.path if record else artifacts,
        log=record.log_command if record else (lambda *_: None),
        add_secret=record.add_secret if record else None,
        check_mode=settings.check, diff_mode=settings.diff, become=become,
        become_user=become_user, timeout_s=spec.timeout_s, point=point,
        facts=hs.facts, predicted=hs.predicted, destructive=spec.destructive, allow_destroy=settings.allow_destroy,
        # in a rehearsal, a step whose tool runs for real here (fio, the SLB-compatible kit) is not simulated
        simulated=settings.simulated and not real_in_rehearsal(step_class(spec.kind)),
        defer_restart=defer_restart and restart_deferring(step_class(spec.kind)) is not None, generator=generator)


def run_step(spec: StepSpec, hs: HostState, args: Mapping[str, Any], variables: Mapping[str, Any],
             settings: ExecSettings, record: RunRecord | None, artifacts: Path, *,
             point: SweepPoint | None = None, on_save: SaveHook | None = None,
             window: Window | None = None) -> StepResult:
    """Check or apply one step on one host and say what happened.

    A workload point whose connection drops is run once more after reconnecting (see _recover); only the
    final attempt is recorded. A prep step of a kind that ``defers_restart`` leaves its restart to the engine
    (planner.engine.restarts: once per play).
    """
    started = utc_now()
    base: dict[str, Any] = {"step": spec.path, "title": spec.title, "host": hs.host.name, "started": started,
                            **place(spec)}
    if point is not None:
        base.update(point=point.index, params=point.params, repeat=point.repeat, warmup=point.warmup)
    retried: list[Retried] = []  # the one retry of this step, once a connection drop was recovered
    kept: list[Artifact] = []  # what the window of a point that failed collected: its result keeps them
    ctx: StepContext | None = None

    def result(status: Status, msg: str = "", exc: BaseException | None = None, **kw: Any) -> StepResult:
        ignored = status is Status.FAILED and spec.ignore_errors
        if exc is not None and kept:
            kw["artifacts"] = tuple(kept)
        if status is Status.FAILED and ctx is not None and spec.section is Section.WORKLOADS:
            msg = _with_disk_full(msg, ctx)
        if retried:
            msg = f"{msg} [{RETRY_NOTE}: {retried[0].dropped}]"
            kw["retried"] = retried[0]
        return StepResult(status=status, msg=msg, ended=utc_now(), ignored=ignored, **base, **kw)

    try:
        step: StepType = step_class(spec.kind)(args)
        defer = spec.section is Section.PREP
        ctx = make_context(spec, hs, variables, settings, record, artifacts, point, defer_restart=defer)
        ctx.default_timeout_s = step.default_timeout_s(hs.host.vars)
        if ctx.generator is not None:  # the tool runs there: a hung one must not hang the run either
            ctx.generator.default_timeout_s = ctx.default_timeout_s
        if settings.check:
            if spec.section is Section.WORKLOADS:
                return result(Status.SKIPPED, "workloads do not run in check mode")
            change = hook_result(spec.kind, "check", step.check(ctx), Change)
            return result(Status.CHANGED if change.changed else Status.OK, change.msg, diff=change.diff)
        if isinstance(step, Reversible) and on_save is not None:
            saved = hook_result(spec.kind, "save", step.save(ctx), Mapping)  # type: ignore[type-abstract]
            on_save(spec, hs, args, saved)  # written to the record before anything changes
        while True:
            try:
                done = _attempt(step, ctx, window, kept)
                break
            except ConnectError as e:
                if retried or not _retryable(spec, hs, e):
                    raise
                retried.append(_recover(hs, e, artifacts if record else None))
                ctx = make_context(spec, hs, variables, settings, record, artifacts, point, defer_restart=defer)
                ctx.default_timeout_s = step.default_timeout_s(hs.host.vars)
        if ctx.generator is not None:  # the tool runs there: a hung one must not hang the run either
            ctx.generator.default_timeout_s = ctx.default_timeout_s
        outcome = done.result
        msg = "; ".join([outcome.msg, *done.warnings]) if done.warnings else outcome.msg
        return result(outcome.status, msg, diff=outcome.diff if settings.diff else None,
                      artifacts=tuple(outcome.artifacts) + done.artifacts, extra=outcome.extra,
                      restart=outcome.restart, metrics=outcome.metrics)
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
    except Exception as e:  # an engine or plugin bug: keep the traceback in the record, fail the host, not the run
        return result(Status.FAILED, internal_error(spec.kind, e, record, hs, spec.path))


RETRY_NOTE = "retried after a connection drop"


class Recoverable(Protocol):
    """A transport that can reconnect and kill what a dropped connection left running (SSHConnection)."""

    def recover(self) -> list[int]: ...


def _attempt(step: StepType, ctx: StepContext, window: Window | None, kept: list[Artifact]) -> Windowed:
    """One attempt at the step's apply, in the point's window if any; when it fails, what the window collected
    is put in ``kept`` (the failed result keeps it) before the failure is raised."""
    def body() -> Outcome:
        return hook_result(step.kind, "apply", step.apply(ctx), Outcome)

    kept.clear()  # a retry's window collects afresh
    done = window(ctx, isinstance(step, Workload) and step.writes_db_report, body) if window is not None \
        else Windowed(body())
    if done.failure is not None:
        kept.extend(done.artifacts)
        raise done.failure
    return done


def _retryable(spec: StepSpec, hs: HostState, e: ConnectError) -> bool:
    """Only a workload point is run again: it is a measurement, repeatable from its start, while a prep
    step half done must not be guessed at. A changed host key or a Ctrl-C is never retried."""
    return (spec.section is Section.WORKLOADS and not isinstance(e, HostKeyError)
            and hs.conn is not None and not hs.conn.cancelled.is_set() and _recoverable(hs.conn) is not None)


def _recoverable(conn: Connection | None) -> Recoverable | None:
    """The transport under wrapping connections (e.g. remote_procs.TrackedConnection's ``inner``)."""
    for _ in range(5):
        if conn is None or callable(getattr(conn, "recover", None)):
            return cast("Recoverable | None", conn)
        conn = getattr(conn, "inner", None)
    return None


def _recover(hs: HostState, dropped: ConnectError, artifacts: Path | None) -> Retried:
    """Reconnect and kill the dropped attempt's remote process group; keep its partial artifacts aside."""
    conn = _recoverable(hs.conn)
    assert conn is not None
    try:
        killed = conn.recover()
    except ConnectError as e:
        why = e.message if e.message == dropped.message else f"{dropped.message}; reconnecting failed: {e.message}"
        raise ConnectError(why, hint=e.hint) from e
    moved = ""
    if artifacts is not None and artifacts.is_dir() and any(artifacts.iterdir()):
        aside = artifacts.with_name(f"{artifacts.name}-dropped-attempt")
        n = 1
        while aside.exists():
            n += 1
            aside = artifacts.with_name(f"{artifacts.name}-dropped-attempt{n}")
        artifacts.rename(aside)  # the retry writes fresh files; the partial ones stay for inspection
        artifacts.mkdir()
        moved = aside.name
    return Retried(dropped.message, tuple(killed), moved)


# One round trip, only after a workload point failed: is a disk it wrote to full?
_DF = ('for p in "$@"; do while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname -- "$p"); done; '
       'printf "%s\\t" "$p"; df -P -k -- "$p" 2>/dev/null | tail -n 1 || echo; done')
_FULL_KIB = 64
ENOSPC_TEXT = os.strerror(errno.ENOSPC)  # "No space left on device"


def _with_disk_full(msg: str, ctx: StepContext) -> str:
    """Add which disk is full (host or controller) to a failed point's message, when one is."""
    if ENOSPC_TEXT in msg:
        return msg
    notes = []
    with contextlib.suppress(Exception):  # best effort: must never hide the real failure
        wd = str(ctx.vars.get("planner_workdir") or DEFAULT_WORKDIR)
        paths = [p for p in (ctx.point_dir, ctx.path(wd)) if p]
        r = ctx.conn.run(["sh", "-c", _DF, "sh", *dict.fromkeys(str(p) for p in paths)], timeout=30)
        mounts: set[str] = set()
        for line in r.stdout.splitlines():
            path, _, df = line.partition("\t")
            f = df.split()
            if len(f) >= 6 and f[3].isdigit() and int(f[3]) <= _FULL_KIB and f[5] not in mounts:
                mounts.add(f[5])
                notes.append(f"{ENOSPC_TEXT} on {ctx.host.name}: {path} has {f[3]} KiB free of {f[1]} KiB "
                             f"(filesystem {f[0]} on {f[5]})")
    import shutil  # here: a full disk is rare, and shutil imports bz2 and lzma at every apply's start-up

    with contextlib.suppress(OSError):
        free = shutil.disk_usage(ctx.artifacts).free // 1024
        if free <= _FULL_KIB:
            notes.append(f"{ENOSPC_TEXT} on the controller: {ctx.artifacts} has {free} KiB free")
    return "; ".join([msg, *notes]) if notes else msg


def entry_place(entry: RestoreEntry) -> dict[str, Any]:
    """The StepResult fields of a revert of ``entry``: its prep step, at restore."""
    return {"play": entry.play_index, "section": Section.PREP.value, "index": entry.index, "phase": Phase.RESTORE}


def revert_step(entry: RestoreEntry, hs: HostState, settings: ExecSettings, record: RunRecord | None,
                artifacts: Path, *, defer_restart: bool = False) -> StepResult:
    """Put back one prep step's saved original state (its kind's StepType.revert). ``defer_restart``: a kind
    that defers_restart leaves its restart to the engine (one per host after the reverts)."""
    started = utc_now()
    title = f"restore {entry.title}"
    spec = StepSpec(kind=entry.kind, section=Section.PREP, args=entry.args, path=entry.step, name=entry.title,
                    become=entry.become, become_user=entry.become_user)

    def result(status: Status, msg: str, out: Outcome | None = None) -> StepResult:
        return StepResult(entry.step, title, hs.host.name, status, msg, out.diff if out else None, started=started,
                          ended=utc_now(), extra=out.extra if out else None, restart=out.restart if out else None,
                          metrics=out.metrics if out else (),
                          **entry_place(entry))

    try:
        step = step_class(entry.kind)(entry.args)
        ctx = make_context(spec, hs, {}, settings, record, artifacts, defer_restart=defer_restart)
        if not isinstance(step, Reversible):  # a record naming a kind that is no longer reversible
            raise StepError(f"step kind '{entry.kind}' has no revert: its saved state cannot be put back")
        out = hook_result(entry.kind, "revert", step.revert(ctx, entry.saved), Outcome)
        return result(out.status, out.msg, out)
    except ConnectError as e:
        return result(Status.UNREACHABLE, str(e))
    except (PlannerError, OSError) as e:
        return result(Status.FAILED, str(e))
    except KeyboardInterrupt:
        raise
    except Exception as e:  # a kind's bug (a plugin's revert): this entry stays pending, the others go on
        return result(Status.FAILED, internal_error(entry.kind, e, record, hs, f"restore-{entry.step}"))
