"""Issue 42's "done when": outside its folder, a kind's name appears under planner/ only in the registry line
(planner.kindspec.KINDS) and the generated plan schema (case-insensitive, comments included). The kinds listed
here meet it; the others still have words elsewhere (SLOB's database stand-in, fio's series words)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from planner import kindspec

PLANNER = Path(kindspec.__file__).resolve().parent
SCHEMA = PLANNER / "plan" / "schemas" / "plan.schema.json"
ONE_FOLDER = ("hammerdb", "swingbench", "pgbench", "sysbench")


def _registry_lines() -> set[int]:
    """The lines of the KINDS assignment in planner/kindspec.py (the one line per kind, wrapped)."""
    tree = ast.parse((PLANNER / "kindspec.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "KINDS")
    return set(range(node.lineno, (node.end_lineno or node.lineno) + 1))


@pytest.mark.parametrize("kind", ONE_FOLDER)
def test_the_kind_is_named_only_in_its_folder_the_registry_line_and_the_schema(kind: str) -> None:
    folder = PLANNER / "kinds" / kind
    named, registry = [], _registry_lines()
    for path in PLANNER.rglob("*"):
        if not path.is_file() or folder in path.parents or path == SCHEMA or "__pycache__" in path.parts:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if kind in line.lower() and not (path.name == "kindspec.py" and n in registry):
                named.append(f"{path.relative_to(PLANNER)}:{n}")
    assert named == []
