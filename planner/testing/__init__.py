"""Testing a step kind without a host, for plugin authors and planner's own kind cases (docs/plugins.md).

As Fabric ships ``fabric.testing``: a ``ScriptedConnection`` answers the commands a kind sends from a script
(files to read, canned results) and records every command, file written and file fetched; ``step_context``
builds the ``StepContext`` a kind's ``check``/``preview``/``apply`` takes, around it. Nothing in planner
imports this package: it is for tests.
"""

from __future__ import annotations

from planner.testing.connection import Answer, Ran, ScriptedConnection, UnscriptedCommand
from planner.testing.context import scripted_host, step_context

__all__ = ["Answer", "Ran", "ScriptedConnection", "UnscriptedCommand", "scripted_host", "step_context"]
