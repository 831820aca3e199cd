"""A kind declares the host variables it reads (KindSpec.host_vars, docs/step-kinds.md lists them): every
variable its folder's code reads is declared, and every declared one is read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner import kindspec, variables

KINDS_DIR = Path(kindspec.__file__).parent / "kinds"
# a host's variables read by name: host_vars.get("x"), (host_vars or {}).get("x"), ctx.vars.get("x"), host.vars["x"]
_READ = re.compile(r"\b(?:host_vars|variables|vars|v)\b(?:\s+or\s+\{\}\))?(?:\.get\(|\[)\s*\"(\w+)\"")
# the kinds that name their variables as constants too ("hammerdb_system_password"): names of the family
FAMILIES = {"hammerdb": "hammerdb", "swingbench": "swingbench", "pgbench": "pg"}
# ... and read a password's _env / _file variants for each (vars.get(f"{var}_env"))
_VARIANTS = 'vars.get(f"{var}_env")'
CHECKED = ("fio", "iozone", "hammerdb", "swingbench", "slob", "pgbench", "orion", "slb", "calibrate_io")


def _read(kind: str) -> set[str]:
    code = {p: p.read_text(encoding="utf-8") for p in (KINDS_DIR / kind).rglob("*.py")
            if p.name not in ("spec.py", "parse.py") and "parse" not in p.parent.name}
    names = {m for text in code.values() for m in _READ.findall(text)}
    if kind in FAMILIES:
        names |= {m for text in code.values() for m in re.findall(f'"({FAMILIES[kind]}_[a-z0-9_]+)"', text)}
    names -= variables.declared()  # planner's common variables (oracle_pdb, oracle_user, ...) are declared there
    if any(_VARIANTS in text for text in code.values()):
        names |= {f"{n}{suffix}" for n in names if n.endswith("_password") for suffix in ("_env", "_file")}
    return names


@pytest.mark.parametrize("kind", CHECKED)
def test_every_host_variable_a_kind_reads_is_declared(kind: str) -> None:
    spec = kindspec.spec(kind)
    assert spec is not None
    assert _read(kind) == {v.name for v in spec.host_vars}
    assert all(v.doc and v.type for v in spec.host_vars)
