"""``collect: [facts]``: the host's facts at the end of the play, kept as an artifact beside the results."""

from __future__ import annotations

import json

from planner.extras import FactsGathered
from planner.files import sha256_file, write_bytes
from planner.plan.model import Section
from planner.status import Artifact, ArtifactKind, Status
from planner.steps.base import Change, Outcome, StepContext, StepType
from planner.transport.facts import gather


class FactsCollect(StepType):
    kind = "facts"
    sections = frozenset({Section.COLLECT})
    args_schema = {
        "description": "host facts",
        "type": ["object", "null"],
        "properties": {},
        "additionalProperties": False,
    }

    def check(self, ctx: StepContext) -> Change:
        return Change(False, "would record host facts")

    def apply(self, ctx: StepContext) -> Outcome:
        facts, result = gather(ctx.conn, ctx.root)
        ctx.log(ctx.host.name, ctx.step_path, result)
        path = ctx.artifacts / "facts.json"
        write_bytes(path, (json.dumps(facts.to_json(), indent=2) + "\n").encode(), 0o600)
        return Outcome(Status.OK, f"{facts.hostname}: {facts.cpus} CPUs, {facts.memory_gb} GB",
                       artifacts=(Artifact(str(path.relative_to(ctx.run_dir)), ArtifactKind.FACTS, sha256_file(path)),),
                       extra=FactsGathered(facts.to_json()))
