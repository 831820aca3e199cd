"""The original state a prep step saved (restore.json): one typed entry each, and a few words for reports.

restore.json keeps everything a revert needs, including how the database was reached (``db``) and sysfs
paths; a reader of the report wants only what the host was like before the run: "sdb mq-deadline",
"db_cache_size 0 (not in spfile)", "flashback YES". How a kind's state reads is the step type's own
``describe_saved`` (planner.steps.base.StepType); this module holds the entry and the generic fallback.

RestoreEntry lives here, in the steps layer, rather than in the engine: the engine writes and replays it,
but the report (a layer beside the engine, which may not import it) reads it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from planner.status import legacy_place

HIDDEN = frozenset({"db", "paths", "path", "destructive"})  # how to reach things, not what they were


@dataclass(frozen=True, slots=True)
class RestoreEntry:
    """One prep step's original state on one host, saved before the step changed anything."""

    play: str  # "plays[0]": the play whose end restores it
    host: str
    step: str  # StepSpec.path
    title: str
    kind: str
    args: Mapping[str, Any] = field(default_factory=dict)  # the step's rendered arguments (revert needs them)
    saved: Mapping[str, Any] = field(default_factory=dict)  # what StepType.save returned
    reverted: bool = False
    # the step's own become (None: the host's): a step that needed sudo to change the host needs it to put it back
    become: bool | None = None
    become_user: str | None = None
    play_index: int | None = None  # the play's index in the plan (StepSpec.play)
    index: int | None = None  # the step's index in the play's prep (StepSpec.index)

    def to_json(self) -> dict[str, Any]:
        return {"play": self.play, "host": self.host, "step": self.step, "title": self.title, "kind": self.kind,
                "args": dict(self.args), "saved": dict(self.saved), "reverted": self.reverted,
                "become": self.become, "become_user": self.become_user, "play_index": self.play_index,
                "index": self.index}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RestoreEntry:
        step = str(d.get("step", ""))
        old_play, _, old_index, _ = legacy_place(step)  # an entry from before play_index and index were kept
        play_index = d["play_index"] if isinstance(d.get("play_index"), int) else old_play
        index = d["index"] if isinstance(d.get("index"), int) else old_index
        play = str(d.get("play") or (f"plays[{play_index}]" if play_index is not None else ""))
        return cls(play=play, host=str(d.get("host", "")), step=step,
                   title=str(d.get("title", "")), kind=str(d.get("kind", "")), args=dict(d.get("args") or {}),
                   saved=dict(d.get("saved") or {}), reverted=bool(d.get("reverted")),
                   become=None if d.get("become") is None else bool(d.get("become")),
                   become_user=None if d.get("become_user") is None else str(d.get("become_user")),
                   play_index=play_index, index=index)

    def marked(self, reverted: bool) -> RestoreEntry:
        return replace(self, reverted=reverted)

    def describe(self) -> str:
        return describe_saved(self.kind, self.saved)


def generic(saved: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in saved.items() if k not in HIDDEN)


def describe_saved(kind: str, saved: Mapping[str, Any]) -> str:
    """What the host was like before the step changed it. Never raises: an odd record gets the plain form."""
    from planner.steps import REGISTRY  # the registry imports every step file, and they import base
    cls = REGISTRY.get(kind)
    describe = getattr(cls, "describe_saved", None)  # a Reversible kind's (base imports this module: no import back)
    try:
        return str(describe(saved)) if callable(describe) else generic(saved)
    except (AttributeError, TypeError, ValueError):
        return generic(saved)
