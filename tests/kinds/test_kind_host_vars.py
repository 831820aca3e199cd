"""A moved kind declares every host variable its folder reads (issue 42, "declared inputs")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner import kindspec

KINDS = Path(__file__).resolve().parents[2] / "planner" / "kinds"
# ctx.vars.get("x"), host.vars["x"], vars.get('x'): a literal name read from a host's variables
_READ = re.compile(r"""\bvars(?:\.get\(|\[)\s*["']([A-Za-z_]\w*)["']""")


@pytest.mark.parametrize("kind", ["orion", "slb", "calibrate_io"])
def test_every_host_variable_the_kind_reads_is_declared(kind: str) -> None:
    spec = kindspec.spec(kind)
    assert spec is not None
    read = {name for f in (KINDS / kind).rglob("*.py") for name in _READ.findall(f.read_text())}
    declared = {v.name for v in spec.host_vars}
    assert read == declared, f"kind {kind}: declare in its spec's host_vars what it reads, and only that"
    assert all(v.doc and v.type for v in spec.host_vars)
