"""Sweep expansion: matrix order, zip, repeat and warm-up runs."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import InputError
from planner.plan.model import Section, StepSpec
from planner.plan.sweeps import expand


def spec(kind: str = "slob", section: Section = Section.WORKLOADS, **kw: Any) -> StepSpec:
    return StepSpec(kind=kind, section=section, args={}, path="plays[0].workloads[0]", **kw)


def runs(points: list[Any]) -> list[tuple[Any, ...]]:
    return [(p.index, p.params, p.repeat, p.warmup) for p, _ in points]


def test_readers_list_with_repeat_two_gives_six_points_in_order() -> None:
    out = expand(spec(repeat=2), {"kit": "k", "readers": [1, 2, 4], "writers": 0})
    assert runs(out) == [
        (0, (("readers", 1),), 0, False), (1, (("readers", 1),), 1, False),
        (2, (("readers", 2),), 0, False), (3, (("readers", 2),), 1, False),
        (4, (("readers", 4),), 0, False), (5, (("readers", 4),), 1, False)]
    assert [a["readers"] for _, a in out] == [1, 1, 2, 2, 4, 4]
    assert all(a["writers"] == 0 and a["kit"] == "k" for _, a in out)


def test_matrix_first_key_slowest_in_written_order() -> None:
    out = expand(spec(), {"writers": [0, 8], "readers": [16, 32], "kit": "k"})
    assert [(a["writers"], a["readers"]) for _, a in out] == [(0, 16), (0, 32), (8, 16), (8, 32)]
    assert out[1][0].params == (("writers", 0), ("readers", 32))


def test_zip_pairs_lists_and_crosses_the_rest() -> None:
    out = expand(spec(zip=("readers", "writers")),
                 {"readers": [1, 2], "run_time": [60, 120], "writers": [10, 20], "kit": "k"})
    assert [(a["readers"], a["writers"], a["run_time"]) for _, a in out] == [
        (1, 10, 60), (1, 10, 120), (2, 20, 60), (2, 20, 120)]


def test_warmup_runs_come_first_for_each_point() -> None:
    out = expand(spec(repeat=2, warmup=1), {"kit": "k", "readers": [1, 2]})
    assert [(p.params[0][1], p.warmup, p.repeat) for p, _ in out] == [
        (1, True, 0), (1, False, 0), (1, False, 1), (2, True, 0), (2, False, 0), (2, False, 1)]
    assert [p.index for p, _ in out] == list(range(6))
    assert out[0][0].label == "readers=1 (warmup 1)"


def test_list_natured_params_are_not_swept() -> None:
    out = expand(spec(kind="iozone"), {"tests": [0, 2], "files": ["/a", "/b"], "threads": [4, 16]})
    assert [(a["threads"], a["tests"]) for _, a in out] == [(4, [0, 2]), (16, [0, 2])]


def test_non_workload_step_is_one_point() -> None:
    out = expand(spec(kind="io_scheduler", section=Section.PREP), {"devices": ["/dev/a", "/dev/b"]})
    assert runs(out) == [(0, (), 0, False)]


def test_scalar_workload_gives_repeat_points_without_params() -> None:
    assert runs(expand(spec(repeat=3), {"kit": "k", "readers": 16})) == [
        (0, (), 0, False), (1, (), 1, False), (2, (), 2, False)]


def test_zip_of_unequal_rendered_lists_is_an_input_error() -> None:
    with pytest.raises(InputError, match="zip lists must have the same length: readers has 2, writers has 1"):
        expand(spec(zip=("readers", "writers")), {"readers": [1, 2], "writers": [3]})
