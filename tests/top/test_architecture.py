"""The layer contract, seen from outside: importing the engine pulls in no CLI, and modules stay small."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PLANNER = Path(__file__).resolve().parents[2] / "planner"


@pytest.mark.slow
def test_importing_the_runner_imports_no_cli_and_no_argparse() -> None:
    code = ("import sys, planner.engine.runner; "
            "print(sorted(m for m in sys.modules if m == 'argparse' or m.startswith('planner.cli')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PLANNER.parent).stdout.strip()
    assert out == "[]"


# The foundation every layer may import, each named in docs/architecture.md with what it holds: a new
# top-level module is a decision made here, not a file that lands beside them.
FOUNDATION = {"__init__", "__main__", "errors", "extras", "files", "host", "inputs", "kindparts", "kindspec", "memo",
              "metrics", "redaction", "runid", "safejinja", "shown", "signals", "status", "timeseries", "units",
              "variables"}


def test_top_level_holds_only_the_foundation() -> None:
    assert {p.stem for p in PLANNER.glob("*.py")} == FOUNDATION


# Modules are split by responsibility, not by line count; what is kept short is each function. The one
# known long one: a stand-in's report layout (one text template written as code).
LONG_FUNCTIONS = {("rehearsal/standins/awrgen_render.py", "awr_text")}


@pytest.mark.slow
def test_no_function_is_over_80_lines() -> None:
    import ast

    long = set()
    for p in PLANNER.rglob("*.py"):
        if "standins/bin" in str(p):  # host-side scripts, not planner modules
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None \
                    and node.end_lineno - node.lineno + 1 > 80:
                long.add((str(p.relative_to(PLANNER)), node.name))
    assert long - LONG_FUNCTIONS == set(), "split these by what they do"


def test_no_module_is_over_600_lines() -> None:
    """Issue 42's bound: a module past it holds more than one responsibility (two merges in one day pushed
    steps/base.py to 601 unnoticed)."""
    big = {str(p.relative_to(PLANNER)): n for p in PLANNER.rglob("*.py")
           if (n := len(p.read_text().splitlines())) > 600}
    assert big == {}, "split these by responsibility"


def test_every_module_is_named_in_the_architecture_doc() -> None:
    """A newcomer finds each module in docs/architecture.md with what it holds; a name there that is no
    module any more (moved, renamed) is as wrong as a module not named."""
    import re

    doc = (PLANNER.parent / "docs" / "architecture.md").read_text()
    modules = {str(p.relative_to(PLANNER)) for p in PLANNER.rglob("*.py")}
    named = set(re.findall(r"^\s*- `([\w/]+\.py)`: \S", doc, re.M))
    assert modules - named == set(), "name these in docs/architecture.md (## Every module), one line each"
    assert named - modules == set(), "these are named in docs/architecture.md but are no module"


def test_the_testing_contract_names_every_other_part_of_planner() -> None:
    """planner.testing is for tests: the contract that nothing in planner imports it lists its sources by name,
    so a new module or package must join that list (else it could import planner.testing unseen)."""
    import tomllib

    contracts = tomllib.loads((PLANNER.parent / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c.get("forbidden_modules") == ["planner.testing"]]
    parts = {p.stem for p in PLANNER.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in PLANNER.iterdir() if (p / "__init__.py").exists()}
    assert {m.removeprefix("planner.") for m in contract["source_modules"]} == parts - {"testing"}
