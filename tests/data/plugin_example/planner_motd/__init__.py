"""``motd``: a prep step that writes the host's message of the day, saved first and restored after the play.

Plan syntax::

    prep:
      - motd: {text: "benchmark running, hands off"}          # path defaults to /etc/motd
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from planner.errors import StepError
from planner.plan.model import Section
from planner.status import Status
from planner.steps.base import Change, Outcome, Probe, StepContext, StepType, check_host_path


class Motd(StepType):
    """set the host's message of the day (restored after the play)"""

    kind = "motd"
    sections = frozenset({Section.PREP})
    reversible = True  # planner calls save() before apply() and revert() at the end of the play
    # The arguments' JSON schema: planner composes it into the plan schema (planner schema, validate).
    args_schema = {
        "type": "object",
        "required": ["text"],
        "additionalProperties": False,
        "properties": {
            "text": {"type": "string", "minLength": 1, "description": "the message", "x-hint": "give the message"},
            "path": {"type": "string", "description": "the file (default /etc/motd)"},
        },
    }

    def _path(self, ctx: StepContext) -> str:
        return ctx.path(str(self.args.get("path", "/etc/motd")))  # inside the sandbox on a rehearsal host

    def _text(self) -> str:
        return str(self.args["text"]).rstrip("\n") + "\n"

    def validate(self) -> None:  # plan check, per host, on the rendered arguments: no host touched
        check_host_path(str(self.args.get("path", "/etc/motd")))
        if "\0" in str(self.args["text"]):
            raise StepError("motd text holds a NUL byte", hint="remove it")

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        return [ctx.read_probe(self._path(ctx))]  # read-only; may be batched with other prep steps' probes

    def check(self, ctx: StepContext) -> Change:
        same = ctx.conn.read_text(self._path(ctx)) == self._text()
        return Change(not same, "motd up to date" if same else "motd would change")

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        return {"path": self._path(ctx), "content": ctx.conn.read_text(self._path(ctx))}

    def apply(self, ctx: StepContext) -> Outcome:
        if not self.check(ctx).changed:
            return Outcome(Status.OK, "motd up to date")
        ctx.conn.put(self._text().encode(), self._path(ctx))
        return Outcome(Status.CHANGED, f"motd set to {self._text().strip()!r}")

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        path, original = saved["path"], saved["content"]
        if original is None:
            ctx.run(["rm", "-f", "--", path])
            return Outcome(Status.CHANGED, f"removed {path} (it did not exist before)")
        ctx.conn.put(str(original).encode(), path)
        return Outcome(Status.CHANGED, f"restored {path}")

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:  # the report's "original" column
        return "no motd" if saved.get("content") is None else f"motd {str(saved['content']).strip()!r}"
