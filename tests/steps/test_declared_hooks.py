"""The hooks the engine calls are declared on StepType, and what a hook returns is checked.

A restart is a typed request (Outcome.restart, kept in results.json as ``data.restart`` as before), the
engine names no step kind, and a hook returning the wrong thing is a step error naming the kind.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import MappingProxyType

import pytest

from planner.engine.execute import hook_result
from planner.errors import StepError
from planner.extras import Notes
from planner.results.runfolder import result_from_json, result_to_json
from planner.status import RestartRequest, Status, StepResult
from planner.steps import BUILTIN_KINDS, REGISTRY
from planner.steps.base import (
    AroundPoint,
    Outcome,
    Rehearsed,
    RestartDeferring,
    Reversible,
    StepType,
    rehearsed,
    restart_deferring,
    reversible,
    workload,
)

ENGINE = Path(__file__).resolve().parents[2] / "planner" / "engine"


def test_the_engine_imports_no_step_kind() -> None:
    kinds = {cls.__name__ for cls in REGISTRY.values()}
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("planner.steps"):
                found += [f"{path.name}: {a.name}" for a in node.names if a.name in kinds]
    assert found == []


def test_the_engine_imports_no_step_kind_module() -> None:
    """Not even a helper of a kind's own file (the window once took dbreport's snapshots itself): a kind's
    work reaches the engine through the registry and the hooks StepType declares."""
    kind_modules = {cls.__module__ for cls in REGISTRY.values()} - {"planner.steps"}
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names}
            else:
                continue
            found += [f"{path.name}: {n}" for n in sorted(names & kind_modules)]
    assert "planner.steps.dbreport" in kind_modules and found == []


@pytest.mark.parametrize(("facet", "hook"), [
    (StepType, "validate_files"), (StepType, "validate"), (StepType, "probes"), (StepType, "check"),
    (StepType, "apply"), (StepType, "preview"), (Reversible, "save"), (Reversible, "revert"),
    (Reversible, "describe_saved"), (RestartDeferring, "restart_once"), (RestartDeferring, "restart_restored"),
    (AroundPoint, "around_point_begin"), (AroundPoint, "around_point_end"),
    (Rehearsed, "capped_for_rehearsal"), (Rehearsed, "rehearsal_notes")])
def test_every_hook_the_engine_calls_is_declared_with_a_default_on_its_facet(facet: type, hook: str) -> None:
    assert hook in vars(facet)


def test_the_run_facet_is_what_every_kind_has_and_no_more() -> None:
    """Issue 42: StepType had 34 members; the run facet keeps what every kind uses, the rest are facets."""
    own = {n for n in [*vars(StepType), *StepType.__annotations__] if not n.startswith("_")}
    assert own == {"kind", "sections", "needs_database", "device_args", "unknown_duration", "args_schema",
                   "default_timeout_s", "check", "apply", "check_args", "preview", "writes_devices", "validate",
                   "validate_files", "probes", "duration",
                   "db_engine", "engine"}  # issue 44: every kind's check_args asks which database it talks to
    assert rehearsed(REGISTRY["fio"]) is not None and reversible(REGISTRY["fio"]) is None
    assert restart_deferring(REGISTRY["init_ora"]) is not None and workload(REGISTRY["init_ora"]) is None


def test_a_kind_without_restart_hooks_says_so_instead_of_crashing() -> None:
    cls = type("Deferring", (RestartDeferring,), {"kind": "deferring"})
    with pytest.raises(StepError, match="asked for a restart but has no restart_once"):
        cls.restart_once(None, RestartRequest({}), [])  # type: ignore[arg-type]


def test_a_restart_request_keeps_the_record_shape_and_reads_back() -> None:
    r = StepResult("plays[0].prep[1]", "init_ora", "h", Status.CHANGED, extra=Notes(MappingProxyType({"x": 1})),
                   restart=RestartRequest({"sid": "SLOB"}))
    j = result_to_json(r)
    assert j["data"] == {"x": 1, "restart": {"sid": "SLOB"}}  # what old run folders hold
    back = result_from_json(j)
    assert back.restart == RestartRequest({"sid": "SLOB"}) and back.extra == Notes(MappingProxyType({"x": 1}))
    assert result_from_json({**j, "data": {}}).restart is None


def test_a_wrong_hook_return_is_a_step_error_naming_the_plugin() -> None:
    assert "motd" not in BUILTIN_KINDS
    with pytest.raises(StepError, match=r"plugin 'motd' is broken: revert\(\) returned None, not an Outcome"):
        hook_result("motd", "revert", None, Outcome)
    with pytest.raises(StepError, match=r"step kind 'copy' is broken: apply\(\) returned a dict, not an Outcome"):
        hook_result("copy", "apply", {}, Outcome)
    out = Outcome(Status.OK)
    assert hook_result("motd", "apply", out, Outcome) is out
