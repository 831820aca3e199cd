"""Issue 42: workloads have one finish path. Every kind that runs says how its point went through
planner.steps.wl_common.finish (the tool's output read by its parser, or the database reports its figures are in),
so the outcome's status, message, metrics and extra are built one way."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from planner import kindspec
from planner.steps import wl_common

RUN = [s for s in kindspec.specs() if s.step]


def _names_called(module: str) -> set[str]:
    tree = ast.parse(Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8"))
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


@pytest.mark.parametrize("spec", RUN, ids=[s.kind for s in RUN])
def test_every_kind_that_runs_finishes_its_point_through_the_one_path(spec: kindspec.KindSpec) -> None:
    module = spec.step.partition(":")[0]
    assert "finish" in _names_called(module)
    assert importlib.import_module(module).finish is wl_common.finish


def test_there_is_no_second_path() -> None:
    assert not hasattr(wl_common, "parse_outcome")
