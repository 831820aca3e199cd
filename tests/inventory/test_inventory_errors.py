"""Bad inventories: every problem reported at once, each with its exact file:line:col, message and hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.inventory.graph import load_inventory


def problems_of(path: Path) -> list[str]:
    """The inventory's problems; an unusable connection variable is one too, kept for the hosts a run selects
    (apply and validate refuse it, exit 5, when a selected host has it: tests/test_ansible_limit.py)."""
    try:
        inv = load_inventory(path)
    except InputError as err:
        assert err.exit_code == 5
        return [str(p) for p in err.problems]
    found = list(dict.fromkeys(str(p) for problems in inv.unusable.values() for p in problems))
    assert found, "no problem found"
    return found


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "expected"), [
    ("[web servers]\nh1\n",
     "1:1: invalid section header [web servers] — write [name], [name:vars] or [name:children] with no "
     "spaces inside the brackets"),
    ("[web]\nh1\n[web:hostz]\nh2\n",
     "3:1: section [web:hostz] has unknown type 'hostz' — a section is [group], [group:vars] or "
     "[group:children]"),
    ("[db]\n  db[01:8].lab\n",
     "2:3: bad host range 'db[01:8].lab': host range must specify equal-length begin and end formats — "
     "write ranges as [01:08], [1:8:2] or [a:f]"),
    ("[db]\ndb[3:x]\n",
     "2:1: bad host range 'db[3:x]': host range [3:x] must be numbers like [01:08] or single letters like "
     "[a:f] — write ranges as [01:08], [1:8:2] or [a:f]"),
    ("[db]\ndb1 ansible_port=abc\n",
     "2:5: ansible_port 'abc' is not a port number — give a whole number between 1 and 65535, "
     "e.g. ansible_port=2222"),
    ("[db]\ndb1\n[db:vars]\nansible_port=99999\n",
     "4:1: ansible_port 99999 is not a port number — give a whole number between 1 and 65535, "
     "e.g. ansible_port=2222"),
    ("[db]\ndb1 note=\"unclosed\n",
     "2:1: cannot split host line: No closing quotation — close the quote, or escape it with a backslash"),
    ("[db]\ndb1 oracle\n",
     "2:5: expected key=value host variable, got 'oracle' — write host variables as name=value; quote "
     "values that contain spaces"),
    ("[db]\ndb1\n[dbs:vars]\nx=1\n",
     "3:1: section [dbs:vars] is for undefined group 'dbs' — declare the group with a [dbs] or "
     "[dbs:children] section, or fix the name"),
    ("[prod:children]\nweb\n",
     "2:1: section [prod:children] includes undefined group 'web' — declare it with a [web] section "
     "(it may be empty) or fix the name"),
    ("[db]\ndb1\n[db:vars]\njust_a_word\n",
     "4:1: expected key=value in [db:vars], got 'just_a_word' — write one variable per line as name=value"),
    ("[db]\ndb1 ansible_connection=docker\n",
     "2:5: ansible_connection 'docker' is not supported — use ssh (also written paramiko or smart) or local"),
    ("[db]\ndb1 ansible_become=maybe\n",
     "2:5: ansible_become 'maybe' is not a boolean — use true/false (yes/no, 1/0 are accepted too)"),
    ("[db]\ndb\n",
     "2:1: 'db' is both a host and a group — rename the group or the host; patterns and variables would "
     "be ambiguous"),
    ("[a:children]\nb\n[b:children]\na\n",
     "4:1: adding group 'a' as a child of 'b' creates a loop — a group cannot contain itself, directly or "
     "through its children; remove one of the links"),
])
def test_bad_ini(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "hosts.ini", text)
    assert problems_of(path) == [f"{path}:{expected}"]


@pytest.mark.parametrize(("text", "expected"), [
    ("all:\n  hosts:\n    a: {x: 1\n",
     "4:1: YAML syntax error: while parsing a flow mapping: expected ',' or '}', but got '<stream end>' — "
     "fix the YAML at this place (indentation, a missing ':' or an unclosed quote or bracket)"),
    ("all:\n  children:\n    web:\n      hosts: [a, b]\n",
     "4:14: 'hosts' of group 'web' must be a mapping — write hosts as 'name:' entries, one per line, "
     "not as a list"),
    ("all:\n  hosts:\n    42:\n",
     "3:5: host name 42 must be a string — enclose numbers in quotation marks"),
    ("all:\n  hosts:\n    h1:\n  host:\n    h2:\n",
     "4:3: unexpected key 'host' in group 'all' — only hosts, vars and children may appear in a group; "
     "put variables under vars:"),
    ("- h1\n- h2\n",
     "1:1: a YAML inventory must be a mapping of group names — start with 'all:' and put hosts:, vars: and "
     "children: under it"),
    ("all:\n  children:\n    db:\n      vars:\n        ansible_port: '22x'\n      hosts:\n        d1:\n",
     "5:9: ansible_port '22x' is not a port number — give a whole number between 1 and 65535, "
     "e.g. ansible_port=2222"),
    ("all:\n  children:\n    db:\n      hosts:\n        db[1:3:0]:\n",
     "5:9: bad host range 'db[1:3:0]': host range step '0' must be a positive whole number — "
     "write ranges as [01:08], [1:8:2] or [a:f]"),
])
def test_bad_yaml(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "hosts.yml", text)
    assert problems_of(path) == [f"{path}:{expected}"]


def test_all_problems_reported_at_once_in_file_order(tmp_path: Path) -> None:
    path = write(tmp_path, "hosts.ini", "[web]\nw1 ansible_port=x\n[web:hostz]\n[db]\nd[1:]\n")
    found = problems_of(path)
    assert [p.split(" ", 1)[0] for p in found] == [f"{path}:2:4:", f"{path}:3:1:", f"{path}:5:1:"]


def test_bad_group_vars_file_points_into_that_file(tmp_path: Path) -> None:
    inv = write(tmp_path, "hosts.yml", "all:\n  hosts:\n    h1:\n")
    gv = write(tmp_path, "group_vars/all.yml", "- a\n- b\n")
    hv = write(tmp_path, "host_vars/h1.yml", "ansible_connection: telnet\n")
    assert problems_of(inv) == [
        f"{gv}:1:1: a variables file must be a mapping of name: value — write one 'name: value' per line",
        f"{hv}:1:1: ansible_connection 'telnet' is not supported — use ssh (also written paramiko or smart) "
        "or local",
    ]


def test_missing_inventory_file(tmp_path: Path) -> None:
    assert problems_of(tmp_path / "nope.yml") == [
        f"inventory {tmp_path / 'nope.yml'} does not exist — give the path of an INI or YAML inventory with -i"]
