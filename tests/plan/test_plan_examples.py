"""The shipped schema is a valid Draft 2020-12 schema and every example plan loads and checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from planner.inventory.graph import load_inventory, local_inventory
from planner.plan.loader import check_plan, load_plan
from planner.plan.model import Section
from planner.plan.schema import plan_schema, step_kinds, sweepable_params
from planner.plan.sweeps import expand
from planner.plan.templating import render, variables_for
from planner.steps import ARG_CHECKS

ROOT = Path(__file__).resolve().parents[2]
PLANS = sorted((ROOT / "plans").glob("*.yaml"))


@pytest.mark.slow
def test_schema_is_valid_and_versioned() -> None:
    schema = plan_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "/plan/1/" in schema["$id"] and schema["properties"]["version"]["enum"] == [1]
    kinds = {"command", "template", "copy", "fetch", "io_scheduler", "asm_diskgroup", "init_ora", "flashback",
             "sysctl", "hugepages", "slob", "orion", "slb", "calibrate_io", "iozone", "fio", "awr", "statspack",
             "iostat", "mpstat", "vmstat", "facts", "ash", "swingbench", "hammerdb", "pgbench", "pg_conf", "pg_stat",
             "sysbench"}
    assert set(step_kinds()) == kinds and kinds <= set(schema["$defs"])
    assert "readers" in sweepable_params("slob") and "files" not in sweepable_params("iozone")
    assert "slob" not in step_kinds(Section.PREP) and "command" in step_kinds(Section.PREP)


def test_there_are_the_four_example_plans() -> None:
    assert {p.name for p in PLANS} >= {"violin_vs_exadata.yaml", "ssd_calibrate_orion_iozone.yaml",
                                       "slb_affinity.yaml", "local_demo.yaml"}


@pytest.mark.slow
@pytest.mark.parametrize("path", PLANS, ids=[p.name for p in PLANS])
def test_example_plan_loads_and_checks_against_its_inventory(path: Path) -> None:
    plan = load_plan(path)
    inventory = load_inventory(plan.inventory) if plan.inventory else local_inventory()
    assert check_plan(plan, inventory, {}, kinds=ARG_CHECKS) == []
    assert all(play.steps for play in plan.plays)


def test_violin_plan_resolves_sweeps_and_claims() -> None:
    plan = load_plan(ROOT / "plans" / "violin_vs_exadata.yaml")
    exadata, violin8, violin16 = plan.plays
    assert exadata.rated == {"physical_read_iops": 1500000.0}
    assert [c.expected for c in plan.reproduces] == [138010.5, 159183.9, 236486.7]
    assert [c.play for c in plan.reproduces] == [p.name for p in plan.plays]
    assert violin8.prep[3].args == {"state": "off"}  # `flashback: off` stays off
    assert violin8.workloads[0].repeat == 3 and "repeat" not in violin8.workloads[0].args
    host = load_inventory(plan.inventory).select("exadata")[0]
    spec = exadata.workloads[0]
    points = expand(spec, render(dict(spec.args), variables_for(plan, exadata, host, {})))
    assert [(p.params, a["run_time"]) for p, a in points] == [
        ((("readers", r),), 300) for r in (64, 128, 256)]


def test_ssd_plan_sweeps_iozone_threads() -> None:
    plan = load_plan(ROOT / "plans" / "ssd_calibrate_orion_iozone.yaml")
    iozone = plan.plays[0].workloads[2]
    assert [a["threads"] for _, a in expand(iozone, iozone.args)] == [4, 16]
