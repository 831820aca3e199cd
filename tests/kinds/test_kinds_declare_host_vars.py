"""A kind declares the host variables it reads (KindSpec.host_vars, docs/step-kinds.md lists them): every
variable its folder's code reads by a literal name is declared, and every declared one is read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner import kindspec, variables

KINDS_DIR = Path(kindspec.__file__).parent / "kinds"
# a host's variables read by name: host_vars.get("x"), (host_vars or {}).get("x"), ctx.vars.get("x"), host.vars["x"]
_READ = re.compile(r"\b(?:host_vars|variables|vars)\b(?:\s+or\s+\{\}\))?(?:\.get\(|\[)\s*\"(\w+)\"")
# the kinds whose folders hold all their code (issue 42); others join as they move
CHECKED = ("fio", "iozone", "orion", "slb", "calibrate_io")


@pytest.mark.parametrize("kind", CHECKED)
def test_every_host_variable_a_kind_reads_is_declared(kind: str) -> None:
    spec = kindspec.spec(kind)
    assert spec is not None
    read = {m for f in (KINDS_DIR / kind).rglob("*.py") for m in _READ.findall(f.read_text())}
    # the variables every kind may read (oracle_home, grid_home ...) are declared once, in planner/variables.py
    assert read - set(variables.declared()) == {v.name for v in spec.host_vars}
    assert all(v.doc and v.type for v in spec.host_vars)
