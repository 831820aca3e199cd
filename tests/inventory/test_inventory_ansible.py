"""`ansible_list` / `ansible_graph` against ansible-core's own `ansible-inventory --list` / `--graph`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from planner.inventory.graph import load_inventory
from planner.inventory.views import ansible_graph, ansible_list

DATA = Path(__file__).parents[1] / "data" / "inventory"
REPO = Path(__file__).parents[2]
SOURCES = [
    DATA / "doc_ini_basic" / "hosts.ini",
    DATA / "doc_yaml_basic" / "hosts.yml",
    DATA / "doc_ini_children" / "hosts.ini",
    DATA / "doc_yaml_children" / "hosts.yml",
    DATA / "doc_ranges" / "hosts.ini",
    DATA / "doc_hostvars" / "hosts.ini",
    DATA / "doc_priority" / "hosts.yml",
    DATA / "mixed_ini" / "hosts.cfg",
    DATA / "precedence" / "hosts.yml",
    DATA / "noext" / "inventory",
    REPO / "inventory" / "lab.yaml",
]
ANSIBLE = shutil.which("ansible-inventory")


@pytest.fixture(scope="module")
def ansible_output(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Path, str], str]:
    """Run every ansible-inventory call at once (each takes ~1 s of start-up) and collect stdout."""
    if ANSIBLE is None:
        pytest.skip("ansible-core is not installed")
    cwd = tmp_path_factory.mktemp("empty")  # no playbook-adjacent group_vars/ to pick up
    env = {**os.environ, "ANSIBLE_CONFIG": str(cwd / "none.cfg"), "ANSIBLE_NOCOLOR": "1"}
    procs = {
        (src, mode): subprocess.Popen([ANSIBLE, "-i", str(src), mode], cwd=cwd, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for src in SOURCES for mode in ("--list", "--graph")
    }
    out = {}
    for key, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{key}: {stderr}"
        out[key] = stdout
    return out


@pytest.mark.slow
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_list_equals_ansible_inventory(src: Path, ansible_output: dict[tuple[Path, str], str]) -> None:
    expected = json.loads(ansible_output[(src, "--list")])
    ours = json.loads(json.dumps(ansible_list(load_inventory(src)), sort_keys=True))
    assert ours == expected


@pytest.mark.slow
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_graph_equals_ansible_inventory(src: Path, ansible_output: dict[tuple[Path, str], str]) -> None:
    assert ansible_graph(load_inventory(src)) + "\n" == ansible_output[(src, "--graph")]


@pytest.mark.slow
def test_list_is_json_with_ansible_value_types() -> None:
    # checked against ansible-core 2.19 too, but spelled out so a reader sees the INI typing rules
    hostvars = ansible_list(load_inventory(DATA / "mixed_ini" / "hosts.cfg"))["_meta"]["hostvars"]
    web2 = hostvars["web2.example.com"]
    assert web2["mode"] == "0755"  # literal_eval rejects a leading zero, so it stays a string
    assert web2["hexish"] == 31 and web2["nothing"] is None and web2["yes_word"] == "yes"
    assert web2["dict"] == {"k": 1} and web2["empty"] == ""
    assert web2["stop_after"] == 30 and web2["flag"] is False  # [prod:vars] are typed as well in 2.19
    assert web2["label"] == "prod cluster" and web2["list"] == [1, 2]
    assert hostvars["web1.example.com"]["ansible_port"] == 2222
