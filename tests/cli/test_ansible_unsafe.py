"""Issue 46: Ansible's unsafe values (YAML `!unsafe`, INI `b'...'`) are never templated, and `planner inventory
--list` prints them as ansible-inventory 2.19.14 does (`{"__ansible_unsafe": ...}`; outputs pinned from it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.hostvars import render_inventory
from planner.cli.main import main
from planner.inventory.graph import load_inventory
from planner.plan.templating import render, resolve_variables

YAML = """\
all:
  hosts:
    h1:
      ansible_become_password: !unsafe 'p{%ss{{w0rd'
      t: '{{ ansible_become_password }}'
      l: !unsafe ['{{a}}', 1]
"""
INI = "h1 a=b'{{x}}' c=\"{{y}}\"\n[all:vars]\nd=b'{{x}}'\ne=[b'{{z}}', 1]\nf='{{y}}'\n"
# what ansible-inventory 2.19.14 --list prints for h1 of each
YAML_HOSTVARS = {"ansible_become_password": {"__ansible_unsafe": "p{%ss{{w0rd"}, "t": "{{ ansible_become_password }}",
                 "l": [{"__ansible_unsafe": "{{a}}"}, 1]}
INI_HOSTVARS = {"a": "b{{x}}", "c": "{{y}}", "d": {"__ansible_unsafe": "{{x}}"},
                "e": [{"__ansible_unsafe": "{{z}}"}, 1], "f": "{{y}}"}


@pytest.mark.parametrize(("name", "text", "hostvars"), [("u.yml", YAML, YAML_HOSTVARS), ("u.ini", INI, INI_HOSTVARS)])
def test_list_prints_unsafe_as_ansible_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                 text: str, hostvars: dict[str, object]) -> None:
    (tmp_path / name).write_text(text)
    assert main(["inventory", "-i", str(tmp_path / name), "--list"]) == 0
    assert json.loads(capsys.readouterr().out)["_meta"]["hostvars"]["h1"] == hostvars


def test_an_unsafe_password_is_used_as_written(tmp_path: Path) -> None:
    (tmp_path / "u.yml").write_text(YAML)
    inv = load_inventory(tmp_path / "u.yml")
    rendered, problems = render_inventory(inv, {}, {})
    assert problems == []
    assert rendered.hosts["h1"].vars["ansible_become_password"] == "p{%ss{{w0rd"
    variables = resolve_variables(dict(inv.hosts["h1"].vars))
    assert variables["t"] == "p{%ss{{w0rd"  # a template naming it gets the text, never templated again
    assert render("{{ l[0] }}", variables) == "{{a}}"


def test_validate_accepts_an_unsafe_password(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "u.yml").write_text(YAML)
    (tmp_path / "plan.yaml").write_text("plan: p\nplays:\n  - name: p\n    hosts: all\n"
                                        "    workloads:\n      - command: {argv: ['true']}\n")
    assert main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "u.yml")]) == 0, capsys.readouterr()
