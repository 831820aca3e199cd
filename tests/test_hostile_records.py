"""Hostile inputs, round 3 (issue 24): an inventory host name that is a path, control bytes in records and
store rows on the terminal, and the modes of what planner keeps on the controller."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
import yaml
from test_fault_hostile import _apply, _run_dir

TRUE_PLAN = """
plan: names
plays:
  - name: one
    hosts: all
    prep:
      - command: {argv: ['true']}
"""


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.ssh
def test_an_inventory_host_named_like_a_path_keeps_its_facts_inside_the_run(lab, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    doc = yaml.safe_load(inv.read_text())
    hosts = doc["all"]["hosts"]
    hosts["../../x"] = hosts.pop(lab.hosts[0].name)
    inv.write_text(yaml.safe_dump(doc))
    before = files_under(tmp_path)
    assert _apply(tmp_path, TRUE_PLAN, inv) == 0, capsys.readouterr().err
    run = _run_dir(tmp_path)
    expected = {tmp_path / "plan.yaml", tmp_path / "runs" / "planner.sqlite"}
    outside = {p for p in files_under(tmp_path) - before - expected if not p.is_relative_to(run)}
    assert not outside, sorted(map(str, outside))
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "runs" / "x.json").exists()
    (facts,) = [p for p in (run / "facts").iterdir() if "inventory_name" in json.loads(p.read_text())]
    assert json.loads(facts.read_text())["inventory_name"] == "../../x" and facts.parent == run / "facts"
    from planner.results.measure import read_run

    assert "../../x" in read_run(run).facts  # read back under the inventory name
    assert stat.S_IMODE(facts.stat().st_mode) == 0o600
