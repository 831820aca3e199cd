"""Issue 15 item 7: Jinja2 in inventory variables planner reads (rendered as Ansible does, here over the
real sshd lab), an inventory directory, and several -i merged in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.inventory.graph import load_inventory
from planner.rehearsal.lab import Lab

PLAN = """\
plan: templated_inventory
plays:
  - name: where
    hosts: all
    workloads:
      - command: {argv: [sh, -c, 'echo "$2" > "$1/who"', sh, "{{ planner_root }}", "{{ inventory_hostname }}"]}
"""


@pytest.mark.slow
@pytest.mark.ssh
def test_templated_connection_and_planner_vars_are_rendered(lab: Lab, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    lab.write_inventory(tmp_path / "lab.yml")
    [(name, host)] = list(yaml.safe_load((tmp_path / "lab.yml").read_text())["all"]["hosts"].items())[:1]
    prefix, last = host["ansible_host"].rsplit(".", 1)
    root = Path(host["planner_root"])
    host.update(ansible_host=prefix + ".{{ lastoctet }}", lastoctet=int(last),
                planner_root=str(root.parent) + "/{{ inventory_hostname }}",
                planner_workdir="/tmp/work_{{ inventory_hostname }}")
    inv = tmp_path / "inv.yml"
    inv.write_text(yaml.safe_dump({"all": {"hosts": {name: host}}}))
    (tmp_path / "plan.yaml").write_text(PLAN)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"),
                 "--no-report"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (root / "who").read_text() == f"{name}\n"
    assert (root / f"tmp/work_{name}").is_dir(), "planner_workdir was not rendered"
    assert not list(root.glob("tmp/work_{*")), "the literal template became a folder on the host"
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert json.loads((run / "meta.json").read_text())["hosts"][name]["address"] == f"{prefix}.{last}"


def test_an_undefined_variable_in_a_connection_variable_is_bad_input(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    inv = tmp_path / "inv.yml"
    inv.write_text("all:\n  hosts:\n    db1:\n      ansible_host: '127.0.0.{{ lastoctet }}'\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    assert main(["validate", str(tmp_path / "plan.yaml"), "-i", str(inv)]) == 5
    err = capsys.readouterr().err
    assert "inventory host db1: ansible_host: undefined variable 'lastoctet'" in err, err


def test_an_inventory_directory_reads_every_source_and_its_vars(tmp_path: Path) -> None:
    d = tmp_path / "inventory"
    (d / "group_vars").mkdir(parents=True)
    (d / "01-db.ini").write_text("[db]\ndb1 ansible_host=10.0.0.1\n")
    (d / "02-web.yml").write_text("all:\n  children:\n    web:\n      hosts:\n        web1:\n")
    (d / "notes.md").write_text("not an inventory\n")
    (d / "group_vars/db.yml").write_text("oracle_sid: SLOB\n")
    inv = load_inventory(d)
    assert list(inv.hosts) == ["db1", "web1"]
    assert inv.hosts["db1"].vars["oracle_sid"] == "SLOB"
    assert {p.name for p in inv.files} == {"01-db.ini", "02-web.yml", "db.yml"}


def test_several_inventories_are_merged_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.ini").write_text("[db]\ndb1 ansible_host=10.0.0.1 oracle_sid=A\n")
    (tmp_path / "b.yml").write_text("all:\n  hosts:\n    db1:\n      oracle_sid: B\n    db2:\n")
    assert main(["inventory", "-i", str(tmp_path / "a.ini"), "-i", str(tmp_path / "b.yml"), "--list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["ungrouped"]["hosts"] == ["db2"], "the last -i silently won"
    assert listed["_meta"]["hostvars"]["db1"]["oracle_sid"] == "B"
    assert listed["db"]["hosts"] == ["db1"]
