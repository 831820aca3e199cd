"""The hammerdb kind declares the host variables it reads (its spec's host_vars), no more, no fewer."""

from __future__ import annotations

import re
from pathlib import Path

from planner import kindspec

FOLDER = Path(kindspec.__file__).resolve().parent / "kinds" / "hammerdb"
# a variable of the kind's family named in its code; a parser reads no host variable, the spec declares them
_NAMED = re.compile(r'"(hammerdb_[a-z0-9_]+)"')


def _read() -> set[str]:
    names = {n for p in FOLDER.glob("*.py") if p.name not in ("spec.py", "parse.py")
             for n in _NAMED.findall(p.read_text(encoding="utf-8"))}
    # a step that reads a password's _env / _file variables (vars.get(f"{var}_env")) reads them for each password
    if 'vars.get(f"{var}_env")' in (FOLDER / "step.py").read_text(encoding="utf-8"):
        names |= {f"{n}{suffix}" for n in names if n.endswith("_password") for suffix in ("_env", "_file")}
    return names


def test_every_variable_the_kind_reads_is_declared_and_no_other() -> None:
    spec = kindspec.spec("hammerdb")
    assert spec is not None
    declared = {v.name for v in spec.host_vars}
    assert _read() == declared
    assert all(v.doc and v.type for v in spec.host_vars)
