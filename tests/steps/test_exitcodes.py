"""Exit codes are ExitCode members, never bare numbers: one list to read what planner can exit with."""

from __future__ import annotations

import ast
from pathlib import Path

from planner.errors import ExitCode, InputError, PlannerError

PLANNER = Path(__file__).resolve().parents[2] / "planner"


def _bare_exit_codes(tree: ast.AST) -> list[int]:
    """Lines where planner's exit code is a number: an error class's ``exit_code = 4``, or the run record's
    ``write_meta(exit_code=4)``. (A command's exit code on a host, ``CommandResult.exit_code``, is the host's.)"""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            lines += [a.lineno for a in node.body if isinstance(a, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == "exit_code" for t in a.targets)
                      and isinstance(a.value, ast.Constant) and isinstance(a.value.value, int)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "write_meta":
            lines += [k.value.lineno for k in node.keywords if k.arg == "exit_code"
                      and isinstance(k.value, ast.Constant) and isinstance(k.value.value, int)]
    return sorted(lines)


def test_no_module_gives_an_exit_code_as_a_number() -> None:
    found = {str(p.relative_to(PLANNER)): lines for p in PLANNER.rglob("*.py") if "standins/bin" not in str(p)
             if (lines := _bare_exit_codes(ast.parse(p.read_text())))}
    assert found == {}, "use planner.errors.ExitCode"


def test_the_check_finds_a_bare_number() -> None:
    code = "class E:\n    exit_code = 4\n    status: int = 0\nrec.write_meta(exit_code=2)\nAnswer(exit_code=3)\n"
    assert _bare_exit_codes(ast.parse(code)) == [2, 4]


def test_errors_carry_exit_code_members() -> None:
    from planner.steps import PluginError
    from planner.store.base import StoreUnreachable

    assert PlannerError.exit_code is ExitCode.ERROR and InputError.exit_code is ExitCode.BAD_INPUT
    assert StoreUnreachable.exit_code is ExitCode.UNREACHABLE and PluginError.exit_code is ExitCode.BAD_INPUT
