"""The shipped plan schema is generated: the frame (written by hand) plus each step kind's args_schema on its
class, with the shared step and workload options added once by the builder (planner.plan.kind_schema)."""

from __future__ import annotations

import json

from planner.plan import kind_schema
from planner.plan.schema import plan_schema, step_kinds, sweepable_params
from planner.steps import BUILTIN_KINDS, REGISTRY, builtin_schema, section_of
from planner.steps.schema_export import SHIPPED, schema_text

SHARED = ("repeat", "warmup", "zip", "destructive")


def test_the_shipped_schema_is_what_the_classes_and_the_frame_compose() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == schema_text(), (
        "planner/plan/schemas/plan.schema.json is stale: run python -m planner.steps.schema_export")


def test_every_built_in_kind_carries_its_schema_on_its_class() -> None:
    frame_defs = kind_schema.frame()["$defs"]
    for kind in BUILTIN_KINDS:
        cls = REGISTRY[kind]
        assert isinstance(cls.args_schema, dict), kind
        assert kind not in frame_defs, f"{kind}'s arguments belong on its class, not in the frame"
        assert builtin_schema()["$defs"][kind]["x-section"] == section_of(cls)


def test_shared_workload_options_are_written_once_and_added_to_every_workload() -> None:
    for kind in step_kinds("workloads"):
        own = (REGISTRY[kind].args_schema or {}).get("properties", {})
        assert not set(SHARED) & set(own), f"{kind} repeats a shared option in its own schema"
    defs = plan_schema()["$defs"]
    options = defs["WorkloadOptions"]["properties"]
    for kind in step_kinds("workloads"):
        if defs[kind]["x-section"] == "workloads":
            assert all(defs[kind]["properties"][k] == options[k] for k in SHARED), kind
    assert set(defs["StepOptions"]["properties"]) <= set(options)
    assert sweepable_params("fio") and not sweepable_params("fio") & set(SHARED)


def test_a_plugin_workload_gets_the_shared_options_too() -> None:
    schema = kind_schema.compose({"sleep": ("workloads", {"type": "object", "properties": {"seconds": {}},
                                                          "additionalProperties": False})})
    assert list(schema["$defs"]["sleep"]["properties"]) == ["seconds", *SHARED]
    assert schema["$defs"]["WorkloadStep"]["properties"]["sleep"] == {"$ref": "#/$defs/sleep"}
    assert {"required": ["sleep"]} in schema["$defs"]["WorkloadStep"]["oneOf"]
    json.dumps(schema)
