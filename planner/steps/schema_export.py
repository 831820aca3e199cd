"""Write the shipped plan schema (planner/plan/schemas/plan.schema.json) from the frame and the step classes.

Run ``python -m planner.steps.schema_export`` after changing a kind's ``args_schema`` or the frame; the plan
layer reads the written file, so validation never needs to import the step kinds.
"""

from __future__ import annotations

import json
from pathlib import Path

from planner.steps import builtin_schema

SHIPPED = Path(__file__).resolve().parent.parent / "plan" / "schemas" / "plan.schema.json"


def schema_text() -> str:
    return json.dumps(builtin_schema(), indent=2, ensure_ascii=False) + "\n"


def write(path: Path = SHIPPED) -> Path:
    path.write_text(schema_text(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
