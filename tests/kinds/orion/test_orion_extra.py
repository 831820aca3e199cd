"""ORION's and CALIBRATE_IO's typed extras: tagged in results.json, read back as themselves, and a folder written
before the tags (the same values, untagged) still reads."""

from __future__ import annotations

import json

import pytest

from planner.extras import StepExtra
from planner.kinds.calibrate_io.extra import Calibration
from planner.kinds.orion.extra import OrionRun
from planner.results.runfolder import extra_from_json, result_from_json, result_to_json
from planner.status import Status, StepResult

EXTRAS: list[StepExtra] = [
    OrionRun(("/dev/sdb", "/dev/sdc"), 0, 44, 12.3, "ORION estimated 44 min, planner's model 12 min"),
    OrionRun(("/dev/sdb",), 30, None, 0.1, "planner's model 0 min (ORION printed no estimate)"),
    Calibration(3913, 137, 0), Calibration(9000, 500, None),
]


@pytest.mark.parametrize("extra", EXTRAS, ids=lambda e: type(e).__name__)
def test_each_reads_back_as_itself_and_untagged_too(extra: StepExtra) -> None:
    entry = json.loads(json.dumps(result_to_json(StepResult("plays[0].workloads[0]", "t", "h", Status.CHANGED,
                                                             extra=extra))))
    assert entry["data"]["type"] in ("orion_run", "calibration") and entry["data"]["v"] == 1
    assert result_from_json(entry).extra == extra
    untagged = {k: v for k, v in entry["data"].items() if k not in ("type", "v")}
    assert extra_from_json(untagged) == extra


def test_the_record_keeps_the_keys_it_had() -> None:
    """Readers of results.json (and the seeds' notes) see the keys the untyped record had."""
    assert set(EXTRAS[0].to_json()) - {"type", "v"} == {"luns", "write_pct", "orion_estimate_min", "model_min",
                                                        "duration_note"}
    assert set(EXTRAS[2].to_json()) - {"type", "v"} == {"max_iops", "max_mbps", "actual_latency"}
