"""Data-driven kind cases, in the style of pyinfra's tests/operations: each tests/kinds/cases/<kind>/<case>.json
gives a kind's arguments, the host (its variables, its files, its scripted answers) and the mode, and pins
what the kind sends to the host and says: the exact commands (planner.testing's ScriptedConnection records
them), then check()'s change, message and diff, or preview()'s text (what ``-C -D`` prints for a workload).

A case file::

    {"about": "what it pins", "args": {...}, "host_vars": {...}, "context": {"become": true},
     "files": {"/proc/sys/vm/swappiness": "60\\n"}, "scripts": {"RESOLVE": "planner.steps.blockdev:RESOLVE"},
     "answers": {"<command as shown>": {"stdout": "...", "exit_code": 0}}, "mode": "check" | "preview",
     "want": {"commands": [...], "changed": true, "msg": "...", "diff": "..."}   # or "preview", or "error"}

A new case is a file, not code. ``PLANNER_KIND_CASES_WRITE=1`` fills each case's ``want`` from what the kind
does now: read the diff before committing it, it is the behaviour being pinned.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from planner.errors import StepError
from planner.steps import REGISTRY
from planner.testing import Answer, ScriptedConnection, scripted_host, step_context

CASES = Path(__file__).resolve().parent / "cases"
KINDS_COVERED = {"io_scheduler", "sysctl", "hugepages", "command", "copy", "fio", "orion"}


def _script(ref: str) -> str:
    module, _, name = ref.partition(":")
    value = getattr(importlib.import_module(module), name)
    assert isinstance(value, str), ref
    return value


def run_case(case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """What the kind does with the case's input: the commands it sent and what it said (or the error)."""
    host = scripted_host(**case.get("host_vars", {}))
    answers = {k: Answer(v.get("stdout", ""), v.get("stderr", ""), v.get("exit_code", 0))
               for k, v in case.get("answers", {}).items()}
    conn = ScriptedConnection(host, answers, files=case.get("files", {}),
                              scripts={n: _script(ref) for n, ref in case.get("scripts", {}).items()})
    ctx = step_context(conn, folder, check_mode=True, **case.get("context", {}))
    step = REGISTRY[case["kind"]](case["args"])
    out: dict[str, Any] = {}
    try:
        if case.get("mode", "check") == "preview":
            out["preview"] = step.preview(ctx).splitlines()
        else:
            change = step.check(ctx)
            out.update(changed=change.changed, msg=change.msg,
                       **({"diff": change.diff.splitlines()} if change.diff is not None else {}))
    except StepError as e:
        out["error"] = str(e)
    return {"commands": conn.commands, **out, **({"written": sorted(conn.written)} if conn.written else {})}


def _cases() -> list[Any]:
    return [pytest.param(p, id=f"{p.parent.name}/{p.stem}") for p in sorted(CASES.glob("*/*.json"))]


@pytest.mark.parametrize("path", _cases())
def test_kind_case(path: Path, tmp_path: Path) -> None:
    case = json.loads(path.read_text())
    case.setdefault("kind", path.parent.name)
    got = run_case(case, tmp_path)
    if os.environ.get("PLANNER_KIND_CASES_WRITE") == "1":
        path.write_text(json.dumps({**case, "want": got}, indent=2, ensure_ascii=False) + "\n")
    assert got == case["want"]


def test_the_required_kinds_have_cases() -> None:
    assert {p.parent.name for p in CASES.glob("*/*.json")} >= KINDS_COVERED
