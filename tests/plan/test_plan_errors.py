"""Bad plan input: every kind is reported with its exact file:line:col, message and hint."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.inventory.graph import load_inventory
from planner.plan.loader import check_plan, load_plan
from planner.plan.templating import parse_extra_vars
from planner.steps import ARG_CHECKS

HEAD = "plan: t\nplays:\n  - name: A\n    hosts: db\n"  # plays[0] starts on line 3


def problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(textwrap.dedent(text))
    with pytest.raises(InputError) as exc:
        load_plan(Path("x.yaml"))
    assert exc.value.exit_code == 5
    return [str(p) for p in exc.value.problems]


CASES = {
    "yaml_syntax": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: [1, 2}\n",
        ["x.yaml:6:38: YAML syntax error: expected ',' or ']', but got '}' — "
         "check the indentation and quoting just before this point"]),
    "tab_indentation": (
        HEAD + "    workloads:\n\t- slob: {kit: k}\n",
        ["x.yaml:6:1: YAML syntax error: found character '\\t' that cannot start any token — "
         "YAML does not allow tabs for indentation: indent with spaces"]),
    "duplicate_key": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: 1, readers: 2}\n",
        ["x.yaml:6:36: plays[0].workloads[0].slob: duplicate key 'readers' — "
         "it is already set at line 6, column 24; keep one"]),
    "unknown_top_level_key": (
        "plan: t\ndescripton: d\nplays:\n  - name: A\n    hosts: db\n",
        ["x.yaml:2:1: unknown key 'descripton' — did you mean 'description'?"]),
    "unknown_play_key": (
        HEAD + "    workload:\n      - slob: {kit: k}\n",
        ["x.yaml:5:5: plays[0]: unknown key 'workload' — did you mean 'workloads'?"]),
    "unknown_step_type": (
        HEAD + "    workloads:\n      - slop: {kit: k}\n",
        ["x.yaml:6:9: plays[0].workloads[0]: unknown step type 'slop' — did you mean 'slob'?"]),
    "misspelt_arg": (
        HEAD + "    workloads:\n      - slob:\n          kit: k\n          raeders: 16\n",
        ["x.yaml:8:11: plays[0].workloads[0].slob: unknown key 'raeders' — did you mean 'readers'?"]),
    "wrong_type": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: abc}\n",
        ["x.yaml:6:33: plays[0].workloads[0].slob.readers: 'abc' is not an integer — "
         "give a whole number or a list of them"]),
    "wrong_type_in_sweep_list": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: [1, two]}\n",
        ["x.yaml:6:37: plays[0].workloads[0].slob.readers[1]: 'two' is not an integer — "
         "give a whole number or a list of them"]),
    "negative_repeat": (
        HEAD + "    workloads:\n      - slob: {kit: k}\n        repeat: -2\n",
        ["x.yaml:7:17: plays[0].workloads[0].repeat: -2 is too small — give a whole number of runs, 1 or more"]),
    "repeat_given_twice": (
        HEAD + "    workloads:\n      - slob: {kit: k, repeat: 2}\n        repeat: 3\n",
        ["x.yaml:6:24: plays[0].workloads[0].slob: 'repeat' is given twice — "
         "keep either 'repeat:' beside slob: or inside it"]),
    "zip_unequal_lengths": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: [1, 2], writers: [0, 1, 2]}\n"
        "        zip: [readers, writers]\n",
        ["x.yaml:7:14: plays[0].workloads[0].zip: zip lists must have the same length: readers has 2, "
         "writers has 3 — give each zipped list as many values"]),
    "zip_names_scalar": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: [1, 2], writers: 0}\n"
        "        zip: [readers, writers]\n",
        ["x.yaml:6:50: plays[0].workloads[0].slob.writers: zip names 'writers', which is not a list — "
         "give writers as a list, or remove it from zip"]),
    "zip_names_unsweepable": (
        HEAD + "    workloads:\n      - slob: {kit: k, readers: [1, 2]}\n        zip: [readers, kit]\n",
        ["x.yaml:6:21: plays[0].workloads[0].slob.kit: zip names 'kit', which is not a sweepable parameter "
         "of slob — sweepable parameters of slob: readers, redo_stress, run_time, scale, threads_per_schema, "
         "update_pct, work_unit, writers"]),
    "bad_flashback_value": (
        HEAD + "    prep:\n      - flashback: false\n",
        ["x.yaml:6:20: plays[0].prep[0].flashback: false is not a string or a mapping — "
         "write flashback: on or flashback: off"]),
    "bad_scheduler": (
        HEAD + "    prep:\n      - io_scheduler: {devices: /dev/sdb, scheduler: nop}\n",
        ["x.yaml:6:54: plays[0].prep[0].io_scheduler.scheduler: 'nop' is not one of noop, none, deadline, "
         "mq-deadline, cfq, bfq, kyber — did you mean 'noop'?"]),
    "bad_init_ora_param_name": (
        HEAD + "    prep:\n      - init_ora: {\"db cache size\": 64M}\n",
        ["x.yaml:6:20: plays[0].prep[0].init_ora: 'db cache size' is not a valid name — an Oracle parameter "
         "name has letters, digits, _ $ # and does not start with a digit"]),
    "empty_plays": (
        "plan: t\nplays: []\n",
        ["x.yaml:2:8: plays: is empty — add at least one play (name, hosts, workloads)"]),
    "two_kind_keys": (
        HEAD + "    prep:\n      - init_ora: {cpu_count: 1}\n        flashback: off\n",
        ["x.yaml:7:9: plays[0].prep[0]: one step has two step types 'init_ora' and 'flashback' — "
         "start a new list item ('- ') for each step"]),
    "step_in_wrong_section": (
        HEAD + "    prep:\n      - slob: {kit: k}\n",
        ["x.yaml:6:9: plays[0].prep[0]: 'slob' is a workloads step, not a prep step — move it under workloads:"]),
    "bad_reproduces_claim": (
        HEAD + "reproduces:\n  - {source: s, play: B, metric: m, expected: 1}\n",
        ["x.yaml:6:23: reproduces[0].play: claim names play 'B', which is not in this plan — plays are: 'A'"]),
    "claim_missing_key": (
        HEAD + "reproduces:\n  - {source: s, play: A, metric: m}\n",
        ["x.yaml:6:5: reproduces[0]: missing required key 'expected' — add 'expected:'"]),
    "missing_inventory_file": (
        "plan: t\ninventory: ../inventory/nope.yaml\nplays:\n  - name: A\n    hosts: db\n",
        ["x.yaml:2:12: inventory: inventory file '../inventory/nope.yaml' not found (looked for "
         "../inventory/nope.yaml) — fix the path (it is relative to the plan file), create the file, "
         "or pass -i FILE"]),
    "duplicate_play_name": (
        HEAD + "  - name: A\n    hosts: db2\n",
        ["x.yaml:5:11: plays[1].name: duplicate play name 'A' — play names must be unique; "
         "it is already used at line 3"]),
    "missing_play_hosts": (
        "plan: t\nplays:\n  - name: A\n",
        ["x.yaml:3:5: plays[0]: missing required key 'hosts' — add 'hosts:'"]),
    "unsupported_version": (
        "plan: t\nversion: 2\nplays:\n  - name: A\n    hosts: db\n",
        ["x.yaml:2:10: version: 2 is not one of 1 — this planner reads plan version 1"]),
    "command_without_argv_or_cmd": (
        HEAD + "    prep:\n      - command: {chdir: /tmp}\n",
        ["x.yaml:6:18: plays[0].prep[0].command: needs one of argv, cmd — add one of argv, cmd"]),
    "template_syntax_error": (
        HEAD + "    workloads:\n      - slob: {kit: \"{{ kit \"}\n",
        ["x.yaml:6:15: plays[0].workloads[0].slob: template syntax error: unexpected end of template, "
         "expected 'end of print statement'. — fix the {{ }} expression"]),
    "bad_timeout": (
        HEAD + "    workloads:\n      - slob: {kit: k}\n        timeout: soon\n",
        ["x.yaml:7:18: plays[0].workloads[0].timeout: 'soon' does not have the expected form — "
         "give seconds, or a duration such as 90s, 30m, 2h"]),
    "empty_file": ("", ["x.yaml:1:1: the plan is empty — start with 'plan: NAME' and 'plays:'"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_plan_reports_exact_location_and_message(case: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text, expected = CASES[case]
    assert problems(tmp_path, monkeypatch, text) == expected


def test_all_problems_reported_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = problems(tmp_path, monkeypatch, HEAD + "    colour: red\n    workloads:\n"
                   "      - slob: {kit: k, raeders: 1}\n      - fio: {rw: [read], bs: 8k, iodepth: x}\n")
    assert [g.split(": ", 1)[0] for g in got] == ["x.yaml:5:5", "x.yaml:7:24", "x.yaml:8:44"]


def _inventory(tmp_path: Path) -> Path:
    inv = tmp_path / "inv.yaml"
    inv.write_text("all:\n  children:\n    db:\n      hosts:\n        db01: {ansible_connection: local}\n"
                   "        db02: {ansible_connection: local, kit: /opt/slob}\n")
    return inv


def test_undefined_variable_names_variable_and_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(HEAD + "    workloads:\n      - slob: {kit: \"{{ kit }}\", run_time: \"{{ rt }}\"}\n")
    plan = load_plan(Path("x.yaml"))
    got = [str(p) for p in check_plan(plan, load_inventory(_inventory(tmp_path)), {}, kinds=ARG_CHECKS)]
    assert got == [
        "x.yaml:6:21: plays[0].workloads[0].slob.kit: undefined variable 'kit' for host db01 — "
        "define it in vars:, the inventory, or -e NAME=VALUE",
        "x.yaml:6:44: plays[0].workloads[0].slob.run_time: undefined variable 'rt' for hosts db01, db02 — "
        "define it in vars:, the inventory, or -e NAME=VALUE",
    ]
    assert check_plan(plan, load_inventory(_inventory(tmp_path)), {"kit": "/k", "rt": "60"}, kinds=ARG_CHECKS) == []


def test_rendered_value_of_wrong_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(HEAD + "    workloads:\n      - slob: {kit: k, readers: \"{{ n }}\"}\n")
    plan = load_plan(Path("x.yaml"))
    got = [str(p) for p in check_plan(plan, load_inventory(_inventory(tmp_path)), {"n": "many"}, kinds=ARG_CHECKS)]
    assert got == ["x.yaml:6:33: plays[0].workloads[0].slob.readers: 'many' is not an integer for hosts "
                   "db01, db02 — give a whole number or a list of them"]


def test_bad_host_pattern(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text("plan: t\nplays:\n  - name: A\n    hosts: dbb\n")
    plan = load_plan(Path("x.yaml"))
    got = [str(p) for p in check_plan(plan, load_inventory(_inventory(tmp_path)), {}, kinds=ARG_CHECKS)]
    assert len(got) == 1
    assert got[0].startswith("x.yaml:4:12: plays[0].hosts: pattern 'dbb'")
    assert "known groups: all, db" in got[0]


@pytest.mark.parametrize(("item", "message"), [
    ("novalue", "-e: 'novalue' is not NAME=VALUE"),
    ("1x=2", "-e: '1x=2': '1x' is not a valid variable name"),
    ("{\"a\": ", "-e: '{\"a\": ' is not valid JSON or YAML"),
    ("[1, 2]", "-e: '[1, 2]' must be a mapping of variables"),
    ("@missing.yaml", "-e: "),
])
def test_bad_extra_vars(item: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        parse_extra_vars([item], tmp_path)
    assert str(exc.value.problems[0]).startswith(message)
    assert exc.value.exit_code == 5
