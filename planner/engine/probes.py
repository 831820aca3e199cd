"""A play's read-only probes for one host, asked in ONE round trip before its prep steps run.

Each prep step declares the read-only commands its save()/check() start with (StepType.probes: io_scheduler's
device resolution, template's read of the current file). On a warm run those reads are most of the host's
round trips, and on a small controller every round trip costs the host an sshd session and a few process
starts. The runner runs them all in one batch and wraps the host's connection in a ProbedConnection that
answers exactly those commands from the batch. Anything else sent to the host (a command not answered, an
upload) may change it, so it drops every answer not used yet: a step never sees a probe older than the last
change on its host. A probe whose exit code the step did not declare as an answer is asked again by the step
itself, so failures keep their own messages.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.engine.execute import ExecSettings, HostState, make_context
from planner.engine.runrecord import RunRecord
from planner.errors import PlannerError
from planner.plan.model import StepSpec
from planner.plan.templating import eval_when, render
from planner.steps import step_class
from planner.steps.base import Probe
from planner.transport.connection import Argv, CommandResult, Connection, WrappedConnection, command_line

Key = tuple[tuple[str, ...], bool, str]

# $1: a random boundary; then one command line per probe, each quoted by command_line exactly as the
# transport quotes every command it sends (sshd hands that line to a shell too: eval adds no parsing).
_BATCH = r"""
b=$1; shift
for c in "$@"; do
  eval "$c" </dev/null 2>/dev/null; rc=$?
  printf '\n%s %s\n' "$b" "$rc"
done
"""


def _key(argv: Argv, become: bool, become_user: str) -> Key:
    return tuple(argv), become, become_user if become else ""


def run_batch(conn: Connection, probes: Sequence[Probe]) -> tuple[dict[Key, CommandResult], CommandResult]:
    """Run the probes in one round trip: (the answers kept, by command; the batch's own result)."""
    unique = list({_key(p.argv, p.become, p.become_user): p for p in probes}.items())
    token = secrets.token_hex(8)
    lines = [command_line(p.argv, become=p.become, become_user=p.become_user) for _, p in unique]
    r = conn.run(["sh", "-c", _BATCH, "sh", token, *lines])
    answers: dict[Key, CommandResult] = {}
    if not r.ok:
        return answers, r
    rest = r.stdout
    for (key, p), line in zip(unique, lines, strict=True):
        out, mark, rest = rest.partition(f"\n{token} ")
        code, _, rest = rest.partition("\n")
        if not mark or not code.isdigit():
            break  # cut short: the steps ask for themselves
        if int(code) in p.ok:
            answers[key] = CommandResult(line, int(code), out, "", 0.0)
    return answers, r


class ProbedConnection(WrappedConnection):
    """Answers the probed commands once each from the batch; anything else goes through and drops them all."""

    def __init__(self, inner: Connection, answers: dict[Key, CommandResult]) -> None:
        super().__init__(inner)
        self.answers = answers

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        if not (login or env or cwd or stdin) and not isinstance(argv, str):
            hit = self.answers.pop(_key(argv, become, become_user or self.host.become_user), None)
            if hit is not None:
                return hit
        self.answers.clear()  # this command may change what was probed
        return self.inner.run(argv, become=become, become_user=become_user, login=login, timeout=timeout,
                              env=env, cwd=cwd, stdin=stdin)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        self.answers.clear()
        self.inner.put(data, remote, mode=mode)


def prepare(hs: HostState, specs: Sequence[StepSpec], variables: Mapping[str, Any], settings: ExecSettings,
            record: RunRecord | None) -> None:
    """Ask the probes of the prep steps ``specs`` on the host in one round trip and wrap its connection to
    answer them (nothing to batch: nothing done). A step whose probes cannot be built is left to report that
    itself when it runs."""
    unwrap([hs])  # a play with only prep steps leaves its (spent) wrapper on
    assert hs.conn is not None
    probes: list[Probe] = []
    for spec in specs:
        try:
            if spec.timeout_s is not None or (spec.when and not eval_when(spec.when, variables)):
                continue  # a step with its own timeout asks for itself: the batch has none
            args = render(dict(spec.args), variables)
            ctx = make_context(spec, hs, variables, settings, None, settings.plan_dir)
            probes += step_class(spec.kind)(args).probes(ctx)
        except PlannerError:
            continue
    if len(probes) < 2:  # one probe alone costs the same round trip as the step asking itself
        return
    try:
        answers, r = run_batch(hs.conn, probes)
    except PlannerError:
        return  # the steps meet the same trouble themselves and report it
    if record is not None:
        record.log_command(hs.host.name, "probes", r)
    hs.conn = ProbedConnection(hs.conn, answers)


def unwrap(states: Sequence[HostState]) -> None:
    """Back to the plain connections once a play's prep is over (its answers are of no use after it)."""
    for hs in states:
        if isinstance(hs.conn, ProbedConnection):
            hs.conn = hs.conn.inner
