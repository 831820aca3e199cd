"""Inventory loading: Host field mapping, variable precedence, patterns, --limit, the implicit localhost."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.inventory.graph import load_inventory, local_inventory
from planner.inventory.views import ansible_list

DATA = Path(__file__).parents[1] / "data" / "inventory"
LAB = Path(__file__).parents[2] / "inventory" / "lab.yaml"


def names(hosts: list) -> list[str]:
    return [h.name for h in hosts]


def test_documented_children_example_groups_and_vars() -> None:
    inv = load_inventory(DATA / "doc_ini_children" / "hosts.ini")
    assert inv.groups["southeast"] == ("host1", "host2", "host3")
    assert inv.groups["usa"] == ("host1", "host2", "host3")
    assert inv.children["usa"] == ("southeast", "northeast", "southwest", "northwest")
    assert inv.hosts["host2"].vars["escape_pods"] == 2
    assert inv.hosts["host2"].groups == ("all", "usa", "southeast", "atlanta", "raleigh")


def test_host_fields_from_ansible_variables() -> None:
    inv = load_inventory(DATA / "mixed_ini" / "hosts.cfg")
    db1 = inv.hosts["db1.example.com"]
    assert db1.become is True and db1.become_user == "oracle"
    assert db1.key_file == DATA / "mixed_ini" / "keys" / "lab_rsa"
    assert db1.port is None and db1.address == "db1.example.com" and db1.connection == "ssh"
    assert inv.hosts["web1.example.com"].port == 2222
    assert inv.hosts["2001:db8::10"].port == 2200
    doc = load_inventory(DATA / "doc_hostvars" / "hosts.ini")
    assert (doc.hosts["jumper"].address, doc.hosts["jumper"].port) == ("192.0.2.50", 5555)
    assert doc.hosts["localhost"].connection == "local"
    assert doc.hosts["other1.example.com"].user == "myuser"
    assert doc.hosts["host1"].become is False and doc.hosts["host1"].become_user == "root"


def test_key_file_expands_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    src = tmp_path / "hosts.ini"
    src.write_text("[db]\nh1 ansible_ssh_private_key_file=~/.ssh/lab ansible_connection=paramiko\n")
    h1 = load_inventory(src).hosts["h1"]
    assert h1.key_file == tmp_path / "home" / ".ssh" / "lab"
    assert h1.connection == "ssh"


def test_variable_precedence_group_vars_and_host_vars() -> None:
    inv = load_inventory(DATA / "precedence" / "hosts.yml")
    node1, node2 = inv.hosts["node1"], inv.hosts["node2"]
    assert node1.vars["level"] == "host-file"  # host_vars/ beats the host's inline value
    assert node1.user == "oracle"  # from host_vars/node1.json
    # group_vars files beat inline group vars; the deeper group (child, depth 2) beats 'other' (depth 1)
    assert node2.vars["level"] == "child-file-10"
    assert node2.vars["child_more"] == "x" and node2.vars["child_list"] == [1, 2]  # group_vars/child/ dir
    assert "ignored" not in node2.vars  # other.yml is found before other.json
    assert node2.vars["parent_only"] == "p" and node2.vars["from_all"] == 1 and node2.port == 2022
    # YAML 1.1 as Ansible reads it: off is False, 0755 is octal, 64M stays a string
    assert (node1.vars["flashback"], node1.vars["octal"], node1.vars["size"]) == (False, 493, "64M")


def test_group_priority_decides_between_same_depth_groups() -> None:
    inv = load_inventory(DATA / "doc_priority" / "hosts.yml")
    assert inv.hosts["shared.example.com"].vars["testvar"] == "a"
    assert "ansible_group_priority" not in inv.hosts["shared.example.com"].vars


def test_lab_inventory_has_the_seed_study_hosts() -> None:
    inv = load_inventory(LAB)
    assert names(inv.select("exadata")) == ["exadatax2-8"]
    oel57 = inv.select("violin")[0]
    assert oel57.name == "oel57" and oel57.address.startswith("192.0.2.")
    assert oel57.vars["violin_luns"][7] == "/dev/mapper/violin_lun8" and oel57.vars["cpus"] == 16
    assert oel57.vars["oracle_home"].endswith("dbhome_1") and oel57.user == "oracle"
    assert names(inv.select("ssd:slb")) == ["ssdlab", "westmere"]


@pytest.mark.parametrize(("pattern", "expected"), [
    ("all", ["mail.example.com", "foo.example.com", "bar.example.com", "one.example.com",
             "two.example.com", "three.example.com"]),
    ("*", ["mail.example.com", "foo.example.com", "bar.example.com", "one.example.com",
           "two.example.com", "three.example.com"]),
    ("webservers", ["foo.example.com", "bar.example.com"]),
    ("webservers:dbservers", ["foo.example.com", "bar.example.com", "one.example.com", "two.example.com",
                              "three.example.com"]),
    ("dbservers,webservers", ["one.example.com", "two.example.com", "three.example.com",
                              "foo.example.com", "bar.example.com"]),
    ("webservers:&east", ["foo.example.com"]),
    ("prod:!dbservers", ["foo.example.com"]),
    # Ansible applies every & and ! after the plain terms, wherever they are written
    ("!east:webservers", ["bar.example.com"]),
    ("&west:dbservers:webservers", ["three.example.com", "bar.example.com"]),
    ("t*.example.com", ["two.example.com", "three.example.com"]),
    ("~(one|two)\\.example\\.com", ["one.example.com", "two.example.com"]),
    ("~^[fb].*", ["foo.example.com", "bar.example.com"]),
    ("mail.example.com", ["mail.example.com"]),
    ("dbservers[0]", ["one.example.com"]),
    ("dbservers[1:]", ["two.example.com", "three.example.com"]),
    ("east:west:!prod", ["bar.example.com", "three.example.com"]),
])
def test_select_patterns(pattern: str, expected: list[str]) -> None:
    inv = load_inventory(DATA / "doc_yaml_children" / "hosts.yml")
    assert names(inv.select(pattern)) == expected


def test_select_unknown_term_lists_known_groups() -> None:
    inv = load_inventory(DATA / "doc_yaml_children" / "hosts.yml")
    with pytest.raises(InputError) as err:
        inv.select("webservers:!dbservrs")
    (problem,) = err.value.problems
    assert problem.location is None
    assert problem.message == "pattern 'webservers:!dbservrs': 'dbservrs' matches no group or host"
    assert problem.hint == "known groups: all, dbservers, east, prod, test, ungrouped, webservers, west"


def test_select_empty_result_is_an_error_unless_allowed() -> None:
    inv = load_inventory(DATA / "doc_yaml_children" / "hosts.yml")
    with pytest.raises(InputError, match="pattern 'webservers:&dbservers' matches no host"):
        inv.select("webservers:&dbservers")
    assert inv.select("webservers:&dbservers", allow_empty=True) == []


def test_limit_keeps_groups_and_restricts_hosts() -> None:
    inv = load_inventory(DATA / "doc_yaml_children" / "hosts.yml").limit("east")
    assert list(inv.hosts) == ["foo.example.com", "one.example.com", "two.example.com"]
    assert names(inv.select("webservers")) == ["foo.example.com"]
    assert inv.select("west", allow_empty=True) == []
    assert inv.select("bar.example.com", allow_empty=True) == []  # limited out, yet not a typo
    listed = ansible_list(inv)
    assert listed["webservers"] == {"hosts": ["foo.example.com"]} and "west" not in listed


def test_local_inventory_and_implicit_localhost() -> None:
    local = local_inventory()
    (host,) = local.select("all")
    assert (host.name, host.connection, host.address) == ("localhost", "local", "127.0.0.1")
    inv = load_inventory(DATA / "doc_ini_basic" / "hosts.ini")
    assert [(h.name, h.connection) for h in inv.select("localhost")] == [("localhost", "local")]


def test_ranges_expand_with_padding_letters_and_stride() -> None:
    inv = load_inventory(DATA / "doc_ranges" / "hosts.ini")
    assert inv.groups["webservers"][0] == "www01.example.com" and len(inv.groups["webservers"]) == 5
    assert inv.groups["databases"] == tuple(f"db-{c}.example.com" for c in "abcdef")
    assert inv.groups["odd"] == tuple(f"www0{i}.example.com" for i in (1, 3, 5, 7, 9))
    assert inv.groups["lab"][:3] == ("cell1-nodea", "cell1-nodeb", "cell2-nodea")
    assert inv.hosts["cell3-nodeb"].user == "celladmin"
