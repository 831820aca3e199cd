"""Issue 42's "done when": outside planner/kinds/swingbench/, the name swingbench appears under planner/ only in
the registry line (planner.kindspec.KINDS) and the generated plan schema (case-insensitive, comments included)."""

from __future__ import annotations

from pathlib import Path

from planner import kindspec

PLANNER = Path(kindspec.__file__).resolve().parent
FOLDER = PLANNER / "kinds" / "swingbench"
SCHEMA = PLANNER / "plan" / "schemas" / "plan.schema.json"


def test_the_kind_is_named_only_in_its_folder_the_registry_line_and_the_schema() -> None:
    named = []
    for path in PLANNER.rglob("*"):
        if not path.is_file() or FOLDER in path.parents or path == SCHEMA or "__pycache__" in path.parts:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if "swingbench" in line.lower() and not line.startswith("KINDS: tuple[str, ...] = ("):
                named.append(f"{path.relative_to(PLANNER)}:{n}")
    assert named == []
