"""Exit codes are ExitCode members, never bare numbers: one list to read what planner can exit with."""

from __future__ import annotations

import ast
from pathlib import Path

from planner.errors import ExitCode, InputError, PlannerError

PLANNER = Path(__file__).resolve().parents[1] / "planner"


def _bare_exit_codes(tree: ast.AST) -> list[int]:
    """Lines where an exit code is a number: ``exit_code = 4`` or ``exit_code=4``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == "exit_code" for t in targets)
            if named and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
                lines.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == "exit_code" \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            lines.append(node.value.lineno)
    return lines


def test_no_module_gives_an_exit_code_as_a_number() -> None:
    found = {str(p.relative_to(PLANNER)): lines for p in PLANNER.rglob("*.py") if "standins/bin" not in str(p)
             if (lines := _bare_exit_codes(ast.parse(p.read_text())))}
    assert found == {}, "use planner.errors.ExitCode"


def test_the_check_finds_a_bare_number() -> None:
    assert _bare_exit_codes(ast.parse("class E:\n    exit_code = 4\nf(exit_code=2)\n")) == [2, 3]


def test_errors_carry_exit_code_members() -> None:
    from planner.steps import PluginError
    from planner.store.base import StoreUnreachable

    assert PlannerError.exit_code is ExitCode.ERROR and InputError.exit_code is ExitCode.BAD_INPUT
    assert StoreUnreachable.exit_code is ExitCode.UNREACHABLE and PluginError.exit_code is ExitCode.BAD_INPUT
