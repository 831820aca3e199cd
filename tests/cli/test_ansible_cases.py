"""Issue 46: `planner inventory --list` against ansible-core 2.19's own test data (tests/data/ansible/).

Each case is an inventory of ansible-core's test suite with the `ansible-inventory --list` output (or refusal)
that ansible-core 2.19.14 gave for it, pinned in cases.json (README.md there says how). A case planner
deliberately does otherwise is listed in DIFFERENT with its reason (docs/ansible-inventories.md says it too):
it must still differ, so the list stays true.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main

DATA = Path(__file__).parents[1] / "data" / "ansible"
CASES: list[dict[str, Any]] = json.loads((DATA / "cases.json").read_text())
DIFFERENT: dict[str, str] = {}


def _params() -> list[Any]:
    return [pytest.param(c, id=c["id"], marks=[pytest.mark.xfail(strict=True, reason=DIFFERENT[c["id"]])]
                         if c["id"] in DIFFERENT else []) for c in CASES]


def planner_list(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    monkeypatch.chdir(DATA / "cases" / case["id"] / case["cwd"])
    for name in ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_INVENTORY"):
        monkeypatch.delenv(name, raising=False)
    argv = ["inventory", *[a for s in case["inventory"] for a in ("-i", s)], *case["args"]]
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse refusing an option
        rc = exc.code if isinstance(exc.code, int) else 2
    out = capsys.readouterr().out
    return rc, (json.loads(out) if rc == 0 and case["list"] is not None else out)


@pytest.mark.parametrize("case", _params())
def test_inventory_as_ansible_inventory_2_19(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    rc, listed = planner_list(case, monkeypatch, capsys)
    if case["rc"] != 0:
        assert rc != 0, f"ansible-inventory refuses this (exit {case['rc']}); planner listed {listed}"
    elif case["list"] is not None:
        assert rc == 0 and listed == case["list"]
    else:  # --host, --graph, --yaml: the text as printed
        assert rc == 0 and listed == case["stdout"]


def test_an_empty_yaml_inventory_is_an_empty_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.yml").write_text("\n")
    assert main(["inventory", "-i", str(tmp_path / "empty.yml"), "--list"]) == 0
    assert json.loads(capsys.readouterr().out) == {"_meta": {"hostvars": {}, "profile": "inventory_legacy"},
                                                   "all": {"children": ["ungrouped"]}}


def test_output_writes_the_file_as_ansible_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c["id"] == "limit_hosts_yml")
    inv = DATA / "cases" / case["id"] / case["inventory"][0]
    assert main(["inventory", "-i", str(inv), "--list", "--output", str(tmp_path / "out.json")]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads((tmp_path / "out.json").read_text()) == case["list"]  # ansible writes no final newline
    assert not (tmp_path / "out.json").read_text().endswith("\n")


TRANSFORM_YAML = ("all:\n  children:\n    web-a:\n      hosts: {h1: }\n      vars: {v: 1}\n    x:\n"
                  "      children: {web-a: }\n")
REPLACED = "Invalid characters were found in group names and automatically replaced, use -vvvv to see details"
KEPT = "Invalid characters were found in group names but not replaced, use -vvvv to see details"


@pytest.mark.parametrize(("mode", "group", "warning"), [  # ansible-inventory 2.19.14's output for each mode
    ("never", "web-a", KEPT), ("always", "web_a", REPLACED), ("ignore", "web-a", None), ("silently", "web_a", None)])
def test_transform_invalid_group_chars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str], mode: str, group: str,
                                       warning: str | None) -> None:
    monkeypatch.setenv("ANSIBLE_TRANSFORM_INVALID_GROUP_CHARS", mode)
    (tmp_path / "t.yml").write_text(TRANSFORM_YAML)
    assert main(["inventory", "-i", str(tmp_path / "t.yml"), "--list"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"_meta": {"hostvars": {"h1": {"v": 1}}, "profile": "inventory_legacy"},
                               "all": {"children": ["ungrouped", group, "x"]}, group: {"hosts": ["h1"]},
                               "x": {"children": [group]}}
    assert err == (f"[WARNING]: {warning}\n" if warning else "")
