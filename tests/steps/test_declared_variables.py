"""Host variables are declared (issue 42, "Declared inputs"): every variable planner reads is declared with a type,
a default and words, in planner/variables.py or a kind's spec, and docs/step-kinds.md is generated from them."""

from __future__ import annotations

import re
from pathlib import Path

from planner import kindspec, variables
from planner.steps import doc_export

PLANNER = Path(__file__).resolve().parents[2] / "planner"
# a variable read by name: vars.get("x"), host_vars["x"], variables.get("x"), v.get("x") / _flag(v, "x") (the
# modules that name the host's vars ``v``), _number(host, "x", ...)
_READS = re.compile(r"""(?:\bvars|host_vars|variables|\bv)(?:\.get\(|\[)\s*"([a-z][a-z0-9_]*)"|"""
                    r"""_flag\(v,\s*"([a-z][a-z0-9_]*)"|_number\(\s*host,\s*"([a-z][a-z0-9_]*)\"""")
# names planner reads as host variables, by their families; other keys matched by the pattern are not variables
_FAMILIES = re.compile(r"^(?:planner|pg|oracle|standin|asm|grid|slob|swingbench|hammerdb|iozone|orion|fio|slb|"
                       r"calibrate)_|^(?:cpus|cores|sockets|memory_gb)$")
_NOT_VARIABLES = {"planner_facts", "planner_secrets", "planner_version", "planner_loop", "planner_restore_log"}


def _read_names() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in PLANNER.rglob("*.py"):
        if "/bin/" in str(path) or "/kits/" in str(path):  # host-side scripts read their own environment
            continue
        for m in _READS.finditer(path.read_text(encoding="utf-8")):
            name = next(g for g in m.groups() if g)
            if _FAMILIES.search(name) and name not in _NOT_VARIABLES:
                found.setdefault(name, str(path.relative_to(PLANNER)))
    return found


def _declared() -> set[str]:
    return set(variables.declared()) | {v.name for s in kindspec.specs() for v in s.host_vars}


def test_every_variable_read_is_declared() -> None:
    missing = {name: where for name, where in _read_names().items() if name not in _declared()}
    assert missing == {}, "declare these in planner/variables.py or the kind's spec.py host_vars"


def test_the_scan_sees_the_variables_it_should() -> None:
    """The check above can fail: the scan finds variables read in three different spellings."""
    names = _read_names()
    assert {"planner_fetch_max_size", "planner_default_timeout_s", "planner_known_hosts", "oracle_cdb",
            "planner_keepalive_s", "standin_database"} <= set(names)


def test_no_variable_is_declared_twice() -> None:
    names = [v.name for _, g in variables.COMMON_VARS for v in g] + [v.name for s in kindspec.specs()
                                                                     for v in s.host_vars]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_the_step_kinds_doc_is_generated_from_the_kinds() -> None:
    assert doc_export.DOC.read_text(encoding="utf-8") == doc_export.text(), \
        "run python -m planner.steps.doc_export"


def test_the_four_variables_that_were_in_no_doc_are_documented() -> None:
    doc = doc_export.text()
    for name in ("planner_default_timeout_s", "planner_fetch_max_size", "planner_known_hosts"):
        assert f"| `{name}` |" in doc
