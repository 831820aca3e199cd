"""The plan check's per-argument work (schema, sweep points, device writes, zip:) is done once for the hosts
that render a step alike, the host's own checks still for each host (issue 47: at 200 hosts the identical
schema walks were most of the check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.inventory.graph import load_inventory
from planner.plan import check
from planner.plan.loader import check_plan, load_plan
from planner.steps import ARG_CHECKS

PLAN = "plan: t\nplays:\n  - name: A\n    hosts: db\n    workloads:\n      - slob: {kit: /k, readers: \"{{ n }}\"}\n"


def _inventory(tmp_path: Path) -> Path:
    inv = tmp_path / "inv.yaml"
    inv.write_text("all:\n  children:\n    db:\n      hosts:\n"
                   "        db01: {ansible_connection: local, n: many}\n"
                   "        db02: {ansible_connection: local, n: many}\n"
                   "        db03: {ansible_connection: local, n: 4, oracle_cdb: true}\n"
                   "        db04: {ansible_connection: local, n: 4}\n")
    return inv


def _problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[Any]]:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(PLAN)
    walked: list[Any] = []
    schema = check.validate_step_args

    def counted(kind: str, args: Any, *a: Any, **kw: Any) -> Any:
        walked.append(args)
        return schema(kind, args, *a, **kw)

    monkeypatch.setattr(check, "validate_step_args", counted)
    got = check_plan(load_plan(Path("x.yaml")), load_inventory(_inventory(tmp_path)), {}, kinds=ARG_CHECKS)
    return [str(p) for p in got], walked


def test_schema_walked_once_per_rendering_host_checks_per_host(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    got, walked = _problems(tmp_path, monkeypatch)
    assert got[0] == ("x.yaml:6:34: plays[0].workloads[0].slob.readers: 'many' is not an integer for hosts "
                      "db01, db02 — give a whole number or a list of them")
    # db03 and db04 render the same arguments; only db03's inventory states a CDB with no PDB
    assert len(got) == 2 and got[1].startswith("x.yaml:6:15: plays[0].workloads[0].slob: the inventory says this "
                                               "database is a CDB") and got[1].count(" for host db03 — ") == 1
    assert sorted(str(w["readers"]) for w in walked) == ["4", "many"]  # four hosts, two renderings


def test_the_shared_key_keeps_types_apart() -> None:
    from planner.host import UnsafeText

    keys = {check._typed(v) for v in ({"a": 1}, {"a": "1"}, {"a": [1]}, {"a": (1,)}, {"a": "{{ x }}"},
                                       {"a": UnsafeText("{{ x }}")}, {"a": True}, {"a": None}, {"a": "None"})}
    assert len(keys) == 9
