"""A long study (issue 47): 3,000 runs of one workload. Nothing may cap a study at a width: point folders,
run ids, series, store rows; and the run record grows by appending, not by rewriting all of it per point.
Not timing tests: they check names and count the work (benchmarks/scale has the times)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from planner.steps.base import StepContext
from planner.steps import wl_common
from planner.steps.wl_common import fresh_dir


class _Shell:
    """Records the commands a step would run on its host (fresh_dir runs one)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def sh(self, script: str, *args: str) -> None:
        self.calls.append((script, *args))


@pytest.mark.parametrize("index", [0, 999, 1000, 2999, 123456])
def test_a_point_folder_past_999_is_emptied(index: int) -> None:
    """Run 1,001 crashed: "internal error ValueError: not a point folder: …/point1000" (the check took three
    digits only, the name is at least three)."""
    shell = _Shell()
    path = f"/tmp/planner/20261207T000000Z-long-h-abcdef/plays-0-workloads-0/point{index:03d}"
    fresh_dir(cast(StepContext, shell), path)
    assert shell.calls and shell.calls[0][1] == path


@pytest.mark.parametrize("path", ["/tmp/planner/run/step", "/tmp/planner/run/step/point12", "/home/u/data",
                                  "/tmp/planner/run/step/point1000/..", "/tmp/planner/run/step/pointX000"])
def test_only_a_point_folder_is_emptied(path: str) -> None:
    with pytest.raises(ValueError, match="not a point folder"):
        fresh_dir(cast(StepContext, _Shell()), path)


def test_point_names_grow_past_three_digits() -> None:
    assert wl_common.point_name(7) == "point007" and wl_common.point_name(1000) == "point1000"
