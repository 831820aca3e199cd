"""Variables: native rendering, precedence, nested references, -e parsing and when: expressions."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from planner.errors import InputError
from planner.host import Host
from planner.plan.model import Plan, Play
from planner.plan.templating import eval_when, parse_extra_vars, render, variables_for


def test_single_expression_keeps_native_type() -> None:
    assert render("{{ run_time }}", {"run_time": 300}) == 300
    assert render({"r": "{{ readers }}", "k": "{{ kit }}/x"}, {"readers": [1, 2], "kit": "/s"}) == {
        "r": [1, 2], "k": "/s/x"}
    assert render("{{ n }}", {"n": "300"}) == 300  # an -e string renders to the number it spells


def test_strings_without_templates_are_returned_unchanged() -> None:
    assert render(["0755", "64M", "off", {"a": "{not a template}"}], {}) == ["0755", "64M", "off",
                                                                            {"a": "{not a template}"}]


def test_undefined_variable_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError, match="'missing' is undefined"):
        render({"a": ["{{ missing }}"]}, {})


def _setup() -> tuple[Plan, Play, Host]:
    plan = Plan(name="p", source=Path("p.yaml"), vars={"a": "plan", "b": "plan", "c": "plan", "d": "plan",
                                                         "base": "/opt", "kit": "{{ base }}/SLOB"})
    play = Play(name="P1", hosts="db", vars={"c": "play", "d": "play"})
    host = Host(name="db01.lab", address="10.0.0.1", groups=("all", "oracle", "db"),
                vars={"b": "inventory", "c": "inventory", "d": "inventory", "base": "/u01"})
    return plan, play, host


def test_precedence_plan_lt_inventory_lt_play_lt_extra() -> None:
    plan, play, host = _setup()
    v = variables_for(plan, play, host, {"d": "extra", "inventory_hostname": "spoof"})
    assert (v["a"], v["b"], v["c"], v["d"]) == ("plan", "inventory", "play", "extra")
    assert v["inventory_hostname"] == "db01.lab"  # magic variables cannot be overridden
    assert v["inventory_hostname_short"] == "db01"
    assert v["group_names"] == ["db", "oracle"]
    assert (v["play_name"], v["plan_name"]) == ("P1", "p")


def test_variables_referring_to_variables_resolve_with_the_winning_value() -> None:
    plan, play, host = _setup()
    assert variables_for(plan, play, host, {})["kit"] == "/u01/SLOB"


def test_unused_broken_variable_is_not_an_error_but_using_it_is() -> None:
    plan, play, host = _setup()
    v = variables_for(plan, play, host, {"broken": "{{ nowhere }}", "cyc": "{{ cyc }}"})
    assert render("{{ a }}", v) == "plan"
    with pytest.raises(jinja2.UndefinedError, match="'nowhere' is undefined"):
        render("{{ broken }}", v)
    with pytest.raises(jinja2.UndefinedError, match="refers to itself"):
        render("x{{ cyc }}", v)


def test_parse_extra_vars_forms_and_order(tmp_path: Path) -> None:
    (tmp_path / "more.yaml").write_text("readers: [1, 2]\nflashback: off\n")
    got = parse_extra_vars(["run_time=60 kit=/k", '{"run_time": 90, "scale": "1G"}', "@more.yaml"], tmp_path)
    assert got == {"run_time": 90, "kit": "/k", "scale": "1G", "readers": [1, 2], "flashback": "off"}
    assert parse_extra_vars(["msg='hello world'"], tmp_path) == {"msg": "hello world"}


def test_parse_extra_vars_reports_all_bad_items(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        parse_extra_vars(["x", "@nope.yaml", "ok=1"], tmp_path)
    assert len(exc.value.problems) == 2


@pytest.mark.parametrize(("expr", "expected"), [
    ("readers > 8", True), ("{{ readers > 8 }}", True), ("readers < 8", False), ("'db' in group_names", True),
    ("flag", False), ("yes_str", True), (True, True), ("False", False),
])
def test_eval_when(expr: str | bool, expected: bool) -> None:
    assert eval_when(expr, {"readers": 16, "group_names": ["db"], "flag": "off", "yes_str": "yes"}) is expected


def test_eval_when_undefined_is_an_input_error() -> None:
    with pytest.raises(InputError, match="'nope' is undefined"):
        eval_when("nope == 1", {})
