"""Code habits a reviewer would otherwise check by hand: exit codes by name, comments that give reasons."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from planner.cli.parser import EPILOG
from planner.status import ExitCode

PLANNER = Path(__file__).resolve().parents[2] / "planner"


def _literal_int(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def test_the_cli_returns_exit_codes_by_name() -> None:
    """`return 5` says nothing; `return ExitCode.BAD_INPUT` does (and cannot drift from the others)."""
    found = []
    for p in sorted((PLANNER / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            values = [node.value] if isinstance(node, ast.Return) else []
            if isinstance(node, ast.Return) and isinstance(node.value, ast.IfExp):
                values = [node.value.body, node.value.orelse]
            if isinstance(node, ast.keyword) and node.arg == "exit_code":
                values = [node.value]
            found += [f"{p.name}:{node.lineno}" for v in values if _literal_int(v)]  # type: ignore[attr-defined]
    assert found == [], "use planner.status.ExitCode"


def test_the_help_epilog_names_every_exit_code() -> None:
    assert [int(c) for c in ExitCode] == sorted(int(c) for c in ExitCode)
    assert all(f" {int(c)} " in EPILOG.replace(",", " ") for c in ExitCode), EPILOG


def test_comments_give_reasons_not_issue_numbers() -> None:
    """"(issue 14 row 7)" sends a reader to a tracker they may not have; the reason itself fits in the line.
    Upstream bug numbers (paramiko #448) are sources, not this project's issues, and stay."""
    upstream = ("matplotlib", "paramiko", "pyinfra", "fio", "jinja2")  # their trackers: cited as sources
    ours = re.compile("".join(f"(?<!{u} )" for u in upstream) + r"\bissues? #?\d+|\(#\d+\)", re.I)
    found = [f"{p.relative_to(PLANNER)}:{n}" for p in sorted(PLANNER.rglob("*"))
             if p.is_file() and p.suffix in ("", ".py", ".sh", ".j2", ".md")
             for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if ours.search(line)]
    assert found == [], "say why instead"


def test_the_readme_and_ci_run_the_same_test_commands_fast_tier_first() -> None:
    root = PLANNER.parent
    ci = [ln.strip() for ln in (root / ".ci" / "run").read_text().splitlines() if ln.startswith("python -m pytest")]
    readme = (root / "README.md").read_text().split("## Tests", 1)[1]
    shown = [ln.split("#", 1)[0].strip() for ln in readme.splitlines() if ln.startswith("python -m pytest")]
    assert ci == shown and ci and '-m "not slow"' in ci[0]
