"""A play's reads for one host, asked in ONE round trip: with the facts and the lock (planner.engine.batch).

What may be batched (the rule): the play's steps in plan order, up to the first that cannot be, each giving
the read-only commands it starts with (StepType.probes):
  - a prep step's probes (io_scheduler's device resolution, template's read of the current file);
  - a ``command`` with ``changed_when: false`` and no ``creates``: the plan says it only reads, so its
    output is its result (it runs in the batch exactly as it would alone, its exit code judged by the step);
  - a ``fetch``: a file up to BATCH_FETCH_MAX bytes comes back inline with its checksum.
The walk stops at a workload (it changes the host and runs in its window), at a step with its own
``timeout`` (the batch shares one deadline), at a step whose arguments or ``when`` name ``planner_facts``
(they arrive in this same exec) and at a step with nothing to declare (it would send something unanswered).
The plan language has no ``register``, so no batched argument can depend on an earlier command's result.
In check mode only the prep probes are batched: commands and fetches do not run then.

The runner wraps the host's connection in a ProbedConnection that answers exactly those commands, each once,
from the batch. Anything else sent to the host (a command not answered, an upload) may change it, so it drops
every answer not used yet: a step never sees a read older than the last change on its host. A read whose
exit code the step did not declare as an answer is asked again by the step itself, so failures keep their own
messages. When every step of the host's last play was batched, the exec also releases the lock: a warm play
ends there. Should a step then need the host after all (a changed step), the lock is taken again first.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.engine import batch as batch_mod
from planner.engine.execute import ExecSettings, HostState, make_context
from planner.engine.runrecord import RunRecord
from planner.errors import PlannerError, StepError
from planner.host import Host
from planner.plan.model import Section, StepSpec
from planner.plan.templating import eval_when, render
from planner.steps import step_class
from planner.steps.base import Probe
from planner.transport.become import become_password
from planner.transport.connection import Argv, CommandResult, Connection, WrappedConnection, command_line
from planner.transport.ssh import scripts as ssh_scripts
from planner.transport.streams import LocalSink, fetch_cap

Key = tuple[str, tuple[str, ...], bool, str, str]  # run|get, argv, become, become user, cwd
BATCH_FETCH_MAX = 64 << 10  # larger files answer "sftp": the fetch then asks for itself


def _key(argv: Argv, become: bool, become_user: str, cwd: str = "", what: str = "run") -> Key:
    return what, tuple(argv), become, become_user if become else "", cwd


def _probe_key(p: Probe, host_vars: Mapping[str, Any]) -> Key:
    if p.fetch:
        return _key((p.argv[0], str(fetch_cap(p.fetch_max, host_vars))), False, "", what="get")
    return _key(p.argv, p.become, p.become_user, p.cwd)


def _line(p: Probe, host_vars: Mapping[str, Any]) -> str:
    if p.fetch:
        root = str(host_vars.get("planner_root") or "")
        return command_line(ssh_scripts.get_argv(p.argv[0], BATCH_FETCH_MAX, root, fetch_cap(p.fetch_max, host_vars)))
    return command_line(p.argv, become=p.become, become_user=p.become_user, cwd=p.cwd or None)


def _run_line(p: Probe, host_vars: Mapping[str, Any]) -> str:
    """The line the batch runs for ``p``: its logged line, except for planner's own fixed scripts (``sh -c SCRIPT
    sh ARGS``, not under become or in another folder), which run in a subshell of the batch's shell: the same
    script and arguments in a fork, without starting a shell of its own (batch.SCRIPT's ``_own``). A fetch's and a
    plain probe's line starts with "#": the batch passes its output through unencoded (Probe.plain; the fetch
    script prints a header line, then base64 or its path)."""
    if p.fetch:
        root = str(host_vars.get("planner_root") or "")
        argv = ssh_scripts.get_argv(p.argv[0], BATCH_FETCH_MAX, root, fetch_cap(p.fetch_max, host_vars))
    elif p.own and not p.become and not p.cwd and p.argv[:2] == ("sh", "-c") and p.argv[3:4] == ("sh",):
        argv = list(p.argv)
    else:
        return _line(p, host_vars)
    return f"{'#' if p.fetch or p.plain else ''}(_own {command_line([argv[2], *argv[4:]])})"


@dataclass(frozen=True, slots=True)
class Batch:
    """What one host's exec asks: each read once, its command line, and whether the play can end there."""

    probes: tuple[tuple[Key, Probe, str], ...] = ()
    complete: bool = False  # every step of the play is answered here: if nothing changes, nothing else runs
    release: bool = False  # release the lock at the end of the exec (complete, and the host's last play)
    timeout_s: float | None = None  # the batched commands' own timeouts, added up
    run_lines: tuple[str, ...] = ()  # what the exec runs for each read (_run_line); the logged lines when empty

    @property
    def lines(self) -> list[str]:
        return list(self.run_lines) or [line for _, _, line in self.probes]


def plan(hs: HostState, specs: Sequence[StepSpec], variables: Mapping[str, Any], settings: ExecSettings, *,
         reads_only: bool = False, may_end: bool = False) -> Batch:
    """The reads of the play's steps ``specs`` (in plan order) to batch for the host: see the module's rule.
    ``reads_only``: only prep probes (a resumed run: its done steps are skipped, their reads would be waste).
    ``may_end``: the play is the host's last one and nothing after its steps needs the host (no restore)."""
    seen: dict[Key, tuple[Key, Probe, str]] = {}
    timeout, complete = 0.0, True
    for spec in specs:
        if spec.section is Section.WORKLOADS or spec.timeout_s is not None or \
                "planner_facts" in json.dumps([spec.args, spec.when], default=str):
            complete = False
            break
        try:
            if spec.when and not eval_when(spec.when, variables):
                continue
            args = render(dict(spec.args), variables)
            ctx = make_context(spec, hs, variables, settings, None, settings.plan_dir)
            step = step_class(spec.kind)(args)
            got = [] if reads_only and spec.section is not Section.PREP else list(step.probes(ctx))
            if got and spec.kind == "command":
                timeout += step.default_timeout_s(hs.host.vars)
        except PlannerError:
            got = []
        if not got:
            complete = False
            break
        for p in got:
            if (p.fetch and hs.host.vars.get("ansible_connection") == "local") or not _batchable(p, hs.host):
                complete = False  # the local transport copies files itself; sudo -S reads the exec's stdin
                continue
            key = _probe_key(p, hs.host.vars)
            seen.setdefault(key, (key, p, _line(p, hs.host.vars)))
    return Batch(tuple(seen.values()), complete, complete and may_end, timeout or None,
                 tuple(_run_line(p, hs.host.vars) for _, p, _ in seen.values()))


def answers(b: Batch, reply: batch_mod.Reply) -> dict[Key, CommandResult]:
    """The batch's frames as the answers kept: a read cut short or with an undeclared exit code has none."""
    kept: dict[Key, CommandResult] = {}
    for (key, p, line), frame in zip(b.probes, reply.runs, strict=False):
        if frame.rc in p.ok:
            kept[key] = batch_mod.as_result(line, frame)
    return kept


def _batchable(p: Probe, host: Host) -> bool:
    """A become read rides in the batch only under ``sudo -n``: with a become password each command answers
    sudo's prompt on its own stdin (planner.transport.become), which a batched line cannot."""
    if not p.become:
        return True
    try:
        return become_password(host) is None
    except PlannerError:  # a malformed password var: the command itself reports it
        return False


def run_batch(conn: Connection, probes: Sequence[Probe]) -> tuple[dict[Key, CommandResult], CommandResult]:
    """Run the probes in one round trip (no lock, no facts): (the answers kept, by command; the exec's result)."""
    probes = [p for p in probes if _batchable(p, conn.host)]
    b = Batch(tuple({(k := _probe_key(p, conn.host.vars)): (k, p, _line(p, conn.host.vars)) for p in probes}.values()))
    b = dataclasses.replace(b, run_lines=tuple(_run_line(p, conn.host.vars) for _, p, _ in b.probes))
    r = conn.run(batch_mod.argv(b.lines))
    return answers(b, batch_mod.parse(r.stdout)), r


def summary(r: CommandResult, n: int) -> CommandResult:
    """The batch's exec for the command log: its frames are logged under each step that uses one."""
    return CommandResult(r.command[:400] + " ...", r.exit_code, f"[planner: {n} batched read(s); each is logged "
                         "under the step that uses it]", r.stderr, r.duration_s, r.timed_out)


class ProbedConnection(WrappedConnection):
    """Answers the probed commands once each from the batch; anything else goes through and drops them all.

    ``relock``: the batch released the host's lock; called (once) before the first command that goes
    through, to take it again. If that fails, every command after is refused with the same error."""

    def __init__(self, inner: Connection, answers: dict[Key, CommandResult],
                 relock: Callable[[], None] | None = None) -> None:
        super().__init__(inner)
        self.answers = answers
        self.relock = relock
        self.refused: PlannerError | None = None

    def _through(self) -> None:
        self.answers.clear()  # this command may change what was probed
        if self.refused is not None:
            raise self.refused
        if self.relock is not None:
            relock, self.relock = self.relock, None
            try:
                relock()
            except PlannerError as e:
                self.refused = e
                raise

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        if not (login or env or stdin) and not isinstance(argv, str):
            hit = self.answers.pop(_key(argv, become, become_user or self.host.become_user, cwd or ""), None)
            if hit is not None:
                return hit
        self._through()
        return self.inner.run(argv, become=become, become_user=become_user, login=login, timeout=timeout,
                              env=env, cwd=cwd, stdin=stdin)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        self._through()
        self.inner.put(data, remote, mode=mode)

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        cap = fetch_cap(max_bytes, self.host.vars)
        hit = self.answers.pop(_key((remote, str(cap)), False, "", what="get"), None)
        small = ssh_scripts.inline_reply(hit.stdout) if hit is not None and hit.ok and not hit.truncated else None
        if small is None:  # a refusal or a large file: the transport asks again and says why in its own words
            self._through()
            self.inner.get(remote, local, max_bytes=max_bytes)
            return
        data, remote_sha = small
        try:
            with LocalSink(local, cap, self.host.name, remote) as sink:
                sink.write(data)
                if remote_sha != sink.hexdigest():
                    raise StepError(f"{self.host.name}: {remote} changed or was corrupted while copying "
                                    f"(local {sink.hexdigest()}, remote {remote_sha})", hint="retry when it is stable")
                sink.commit()
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StepError(f"{self.host.name}: cannot fetch {remote} to {local}: {os.strerror(e.errno)} "
                                f"on the controller (free space in {local.parent} first)") from e
            raise StepError(f"{self.host.name}: cannot fetch {remote}: {e}") from e

    def idle(self) -> bool:
        """Nothing left to do: no answer, no lock to take again, no refusal to keep."""
        return not self.answers and self.relock is None and self.refused is None


def prepare(hs: HostState, b: Batch, record: RunRecord | None, lock: Sequence[str] = ("", "", ""),
            relock: Callable[[], None] | None = None) -> None:
    """A host already connected (an earlier play took its lock and facts): its batch in an exec of its own,
    then its connection wrapped to answer from it. ``lock``: the lock's path, "", the process-group dir, for
    a batch that releases it (``relock`` takes it again). Nothing to batch: nothing done."""
    unwrap([hs])
    assert hs.conn is not None
    if len(b.probes) < 2 and not b.release:  # one read alone costs the same round trip as the step asking itself
        return
    try:
        r = hs.conn.run(batch_mod.argv(b.lines, lock=lock, release=b.release, run_id=record.id if record else ""),
                        timeout=b.timeout_s)
    except PlannerError:
        return  # the steps meet the same trouble themselves and report it
    reply = batch_mod.parse(r.stdout)
    if record is not None:
        record.log_command(hs.host.name, "probes", summary(r, len(b.probes)))
    hs.released = reply.released
    wrap(hs, b, reply, relock)


def wrap(hs: HostState, b: Batch, reply: batch_mod.Reply, relock: Callable[[], None] | None) -> None:
    """Answer the host's steps from ``reply``; ``relock`` takes the lock again if the exec released it."""
    assert hs.conn is not None
    hs.conn = ProbedConnection(hs.conn, answers(b, reply), relock if reply.released else None)


def unwrap(states: Sequence[HostState]) -> None:
    """Back to the plain connections once a play is over: its answers are of no use after it. A connection
    whose lock the batch released keeps its wrapper, which takes the lock again before anything else."""
    for hs in states:
        if isinstance(hs.conn, ProbedConnection):
            hs.conn.answers.clear()
            if hs.conn.idle():
                hs.conn = hs.conn.inner
